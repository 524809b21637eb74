// CPU tests of the primitives (kernels/primitives/*_cpu.h): the serial references against the
// standard library (std::copy_if, std::stable_partition, std::stable_sort on the transformed key
// bits) and the multi-threaded versions against the serial references, exactly, at boundary
// sizes, across the multi-threaded chunk boundary, with adversarial inputs.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "kernels/primitives/compaction_cpu.h"
#include "kernels/primitives/compaction_ops.h"
#include "kernels/primitives/histogram_cpu.h"
#include "kernels/primitives/radix_sort_cpu.h"
#include "kernels/primitives/sparse_cpu.h"

using namespace tilescan;

namespace {

const std::size_t kSizes[] = {0, 1, 2, 31, 32, 33, 255, 256, 257, 4095, 4096, 4097, 65535, 65536, 65537, 200003};

std::vector<std::uint32_t> random_u32(std::size_t n, std::uint32_t seed, std::uint32_t modulo = 0) {
    std::mt19937 rng(seed);
    std::vector<std::uint32_t> v(n);
    for (auto& x : v) x = modulo ? rng() % modulo : rng();
    return v;
}

template <typename K>
std::vector<K> keys_of(const std::vector<std::uint32_t>& r, int kind);

template <>
std::vector<std::uint32_t> keys_of(const std::vector<std::uint32_t>& r, int) {
    return r;
}
template <>
std::vector<std::int32_t> keys_of(const std::vector<std::uint32_t>& r, int) {
    std::vector<std::int32_t> v(r.size());
    for (std::size_t i = 0; i < r.size(); ++i) v[i] = std::int32_t(r[i]);
    return v;
}
template <>
std::vector<std::uint64_t> keys_of(const std::vector<std::uint32_t>& r, int) {
    std::vector<std::uint64_t> v(r.size());
    for (std::size_t i = 0; i < r.size(); ++i) v[i] = (std::uint64_t(r[i]) << 32) ^ (std::uint64_t(r[i]) * 2654435761u);
    return v;
}
template <>
std::vector<float> keys_of(const std::vector<std::uint32_t>& r, int) {
    const float specials[] = {0.0f,
                              -0.0f,
                              std::numeric_limits<float>::infinity(),
                              -std::numeric_limits<float>::infinity(),
                              std::nanf(""),
                              -std::nanf(""),
                              1e-45f,
                              -1e-45f};
    std::vector<float> v(r.size());
    for (std::size_t i = 0; i < r.size(); ++i) {
        if (r[i] % 16 == 0)
            v[i] = specials[(r[i] >> 4) % 8];
        else
            v[i] = float(std::int32_t(r[i])) * 1e-5f;
    }
    return v;
}

// The expected order: stable sort on the transformed bits [begin, end).
template <typename K, typename V>
void reference_sort(std::vector<K>& keys, std::vector<V>& values, int begin, int end) {
    using Bits = typename RadixKey<K>::Bits;
    const Bits mask = end - begin >= int(8 * sizeof(Bits)) ? ~Bits(0) : ((Bits(1) << (end - begin)) - 1);
    std::vector<std::size_t> order(keys.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    auto field = [&](std::size_t i) { return Bits(RadixKey<K>::to_bits(keys[i]) >> begin) & mask; };
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return field(a) < field(b); });
    std::vector<K> k2(keys.size());
    std::vector<V> v2(values.size());
    for (std::size_t i = 0; i < order.size(); ++i) {
        k2[i] = keys[order[i]];
        v2[i] = values[order[i]];
    }
    keys.swap(k2);
    values.swap(v2);
}

template <typename K>
bool same_bits(const std::vector<K>& a, const std::vector<K>& b) {
    return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(K)) == 0);
}

template <typename K>
void check_sorts(const std::vector<K>& input, int begin, int end, int digit_bits) {
    std::vector<std::uint32_t> values(input.size());
    for (std::size_t i = 0; i < values.size(); ++i) values[i] = std::uint32_t(i);
    std::vector<K> expect_k = input;
    std::vector<std::uint32_t> expect_v = values;
    reference_sort(expect_k, expect_v, begin, end);

    std::vector<K> k = input;
    std::vector<std::uint32_t> v = values;
    serial_radix_sort_pairs(k.data(), v.data(), k.size(), begin, end, digit_bits);
    CHECK(same_bits(k, expect_k));
    CHECK(v == expect_v);

    k = input;
    v = values;
    cpu_radix_sort_pairs(k.data(), v.data(), k.size(), begin, end, digit_bits, 4);
    CHECK(same_bits(k, expect_k));
    CHECK(v == expect_v);

    k = input;
    cpu_radix_sort_keys(k.data(), k.size(), begin, end, digit_bits, 3);
    CHECK(same_bits(k, expect_k));
}

}  // namespace

TEST_CASE("select, flagged select and partition match the standard library", "[primitives][compaction]") {
    for (std::size_t n : kSizes) {
        for (int mode = 0; mode < 4; ++mode) {
            CAPTURE(n, mode);
            // mode 0: ~50% kept, 1: none, 2: all, 3: alternating runs
            std::vector<std::uint32_t> in = random_u32(n, 7 + std::uint32_t(n));
            if (mode == 3)
                for (std::size_t i = 0; i < n; ++i) in[i] = (i / 3) % 2 ? 10u : 0x90000000u;
            const std::uint32_t bound = mode == 1 ? 0u : mode == 2 ? 0xffffffffu : 0x80000000u;
            const LessThan<std::uint32_t> pred{bound};
            std::vector<std::uint32_t> expect;
            std::copy_if(in.begin(), in.end(), std::back_inserter(expect), pred);
            std::vector<std::uint32_t> out(n, 0xdeadbeef);
            REQUIRE(serial_select_if(in.data(), n, pred, out.data()) == expect.size());
            CHECK(std::equal(expect.begin(), expect.end(), out.begin()));
            std::vector<std::uint32_t> out2(n, 0xdeadbeef);
            REQUIRE(cpu_select_if(in.data(), n, pred, out2.data(), 4) == expect.size());
            CHECK(out2 == out);

            std::vector<std::uint8_t> flags(n);
            for (std::size_t i = 0; i < n; ++i) flags[i] = pred(in[i]) ? std::uint8_t(1 + i % 200) : 0;
            std::fill(out2.begin(), out2.end(), 0xdeadbeef);
            REQUIRE(cpu_select_flagged(in.data(), flags.data(), n, out2.data(), 4) == expect.size());
            CHECK(std::equal(expect.begin(), expect.end(), out2.begin()));
            REQUIRE(serial_select_flagged(in.data(), flags.data(), n, out2.data()) == expect.size());
            CHECK(std::equal(expect.begin(), expect.end(), out2.begin()));

            std::vector<std::uint32_t> part = in;
            const auto middle = std::stable_partition(part.begin(), part.end(), pred);
            std::vector<std::uint32_t> p1(n), p2(n);
            REQUIRE(serial_partition_if(in.data(), n, pred, p1.data()) == std::size_t(middle - part.begin()));
            REQUIRE(cpu_partition_if(in.data(), n, pred, p2.data(), 5) == std::size_t(middle - part.begin()));
            CHECK(p1 == part);
            CHECK(p2 == part);
        }
    }
}

TEST_CASE("find_repeats: the seed's example, random runs, constant input", "[primitives][find_repeats]") {
    const std::vector<int> a = {3, 4, 4, 5, 6, 7, 7};
    std::vector<std::uint32_t> out(a.size());
    REQUIRE(serial_find_repeats(a.data(), a.size(), out.data()) == 2);
    CHECK(out[0] == 1);
    CHECK(out[1] == 5);
    REQUIRE(cpu_find_repeats(a.data(), a.size(), out.data(), 2) == 2);
    CHECK((out[0] == 1 && out[1] == 5));

    for (std::size_t n : kSizes) {
        for (std::uint32_t modulo : {0u, 2u, 1u}) {
            CAPTURE(n, modulo);
            const std::vector<std::uint32_t> in = random_u32(n, 99, modulo);
            std::vector<std::uint32_t> expect;
            for (std::size_t i = 0; i + 1 < n; ++i)
                if (in[i] == in[i + 1]) expect.push_back(std::uint32_t(i));
            std::vector<std::uint32_t> got(n), got2(n);
            REQUIRE(serial_find_repeats(in.data(), n, got.data()) == expect.size());
            REQUIRE(cpu_find_repeats(in.data(), n, got2.data(), 4) == expect.size());
            CHECK(std::equal(expect.begin(), expect.end(), got.begin()));
            CHECK(std::equal(expect.begin(), expect.end(), got2.begin()));
        }
    }
}

TEST_CASE("histogram: even bins, exact counts, serial and multi-threaded", "[primitives][histogram]") {
    const EvenBins<std::uint32_t> ubins(256, 0u, 1u << 20);
    const EvenBins<float> fbins(100, -1.0f, 1.0f);
    const EvenBins<std::int32_t> ibins(7, -50, 50);
    CHECK(ibins(-50) == 0);
    CHECK(ibins(49) == 6);
    CHECK(ibins(50) == -1);
    CHECK(ibins(-51) == -1);
    CHECK(fbins(std::nanf("")) == -1);
    CHECK(fbins(0.99999994f) == 99);
    CHECK_THROWS_AS(EvenBins<float>(0, 0.0f, 1.0f), std::invalid_argument);
    for (std::size_t n : kSizes) {
        CAPTURE(n);
        const std::vector<std::uint32_t> r = random_u32(n, 5, 1u << 21);
        std::vector<std::uint64_t> expect(256, 0), a(256), b(256);
        for (auto x : r)
            if (x < (1u << 20)) ++expect[x >> 12];
        serial_histogram(r.data(), n, ubins, a.data());
        cpu_histogram(r.data(), n, ubins, b.data(), 4);
        CHECK(a == expect);
        CHECK(b == expect);

        std::vector<float> f(n);
        for (std::size_t i = 0; i < n; ++i) f[i] = float(std::int32_t(r[i] % 4001) - 2000) / 1000.0f;
        std::vector<std::uint64_t> fa(100), fb(100);
        serial_histogram(f.data(), n, fbins, fa.data());
        cpu_histogram(f.data(), n, fbins, fb.data(), 3);
        CHECK(fa == fb);
        std::uint64_t in_range = 0;
        for (float x : f) in_range += (x >= -1.0f && x < 1.0f) ? 1 : 0;
        std::uint64_t counted = 0;
        for (auto c : fa) counted += c;
        CHECK(counted == in_range);
    }
}

TEST_CASE("histogram: division by a constant equals the plain division", "[primitives][histogram]") {
    // Divisors at the edges of every shift (powers of two and their neighbours), small odd ones,
    // and the largest integer range (2^32 - 1, int32's whole span); numerators at multiples of the
    // divisor +-1, at the top of the 64-bit range, and random.
    std::vector<std::uint64_t> divisors = {1, 2, 3, 5, 6, 7, 10, 255, 256, 257, 641, 65535, 65536, 65537};
    for (int k = 1; k < 63; ++k)
        for (const std::int64_t delta : {-1, 0, 1}) divisors.push_back((std::uint64_t(1) << k) + std::uint64_t(delta));
    divisors.push_back(0xffffffffull);
    divisors.push_back((std::uint64_t(1) << 63) - 1);
    std::mt19937_64 random(42);
    for (const std::uint64_t d : divisors) {
        const DivideByConstant divide(d);
        std::vector<std::uint64_t> numerators = {0,
                                                 1,
                                                 d - 1,
                                                 d,
                                                 d + 1,
                                                 2 * d - 1,
                                                 2 * d,
                                                 ~std::uint64_t(0),
                                                 ~std::uint64_t(0) - 1,
                                                 ~std::uint64_t(0) / d * d,
                                                 ~std::uint64_t(0) / d * d - 1};
        for (int r = 0; r < 2000; ++r) numerators.push_back(random() >> (r % 64));
        for (const std::uint64_t n : numerators) {
            CAPTURE(d, n);
            REQUIRE(divide(n) == n / d);
        }
    }
    CHECK_THROWS_AS(DivideByConstant(0), std::invalid_argument);
    CHECK_THROWS_AS(DivideByConstant(std::uint64_t(1) << 63), std::invalid_argument);
    // EvenBins over the widest ranges, against the formula with the plain division.
    const EvenBins<std::int32_t> whole(1000, std::numeric_limits<std::int32_t>::min(),
                                       std::numeric_limits<std::int32_t>::max());
    const EvenBins<std::uint32_t> uwhole(65521, 0u, 0xffffffffu);
    for (int r = 0; r < 100000; ++r) {
        const std::uint32_t bits = std::uint32_t(random());
        const std::int32_t x = std::int32_t(bits);
        CAPTURE(bits);
        if (x != std::numeric_limits<std::int32_t>::max())
            REQUIRE(whole(x) == int(std::uint64_t(std::int64_t(x) + 0x80000000ll) * 1000 / 0xffffffffull));
        if (bits != 0xffffffffu) REQUIRE(uwhole(bits) == int(std::uint64_t(bits) * 65521 / 0xffffffffull));
    }
    CHECK(whole(std::numeric_limits<std::int32_t>::max() - 1) == 999);
    CHECK(uwhole(0xfffffffeu) == 65520);
}

TEST_CASE("radix sort: key transforms keep the order", "[primitives][radix]") {
    CHECK(RadixKey<std::int32_t>::to_bits(-1) < RadixKey<std::int32_t>::to_bits(0));
    CHECK(RadixKey<std::int32_t>::to_bits(std::numeric_limits<std::int32_t>::min()) == 0u);
    CHECK(RadixKey<float>::to_bits(-1.0f) < RadixKey<float>::to_bits(-0.5f));
    CHECK(RadixKey<float>::to_bits(-0.0f) < RadixKey<float>::to_bits(0.0f));
    CHECK(RadixKey<float>::to_bits(-std::numeric_limits<float>::infinity()) < RadixKey<float>::to_bits(-1e30f));
    CHECK(RadixKey<float>::to_bits(1e30f) < RadixKey<float>::to_bits(std::numeric_limits<float>::infinity()));
    CHECK(radix_passes(0, 32, 8) == 4);
    CHECK(radix_passes(0, 12, 8) == 2);
    CHECK(radix_passes(5, 5, 4) == 0);
    std::vector<std::uint32_t> k = {1, 2};
    CHECK_THROWS_AS(serial_radix_sort_keys(k.data(), 2, 0, 32, 5), std::invalid_argument);
    CHECK_THROWS_AS(serial_radix_sort_keys(k.data(), 2, 0, 33, 8), std::invalid_argument);
}

TEMPLATE_TEST_CASE("radix sort: serial and multi-threaded against std::stable_sort", "[primitives][radix]",
                   std::uint32_t, std::int32_t, float, std::uint64_t) {
    using K = TestType;
    constexpr int kBits = int(8 * sizeof(K));
    for (std::size_t n : kSizes) {
        for (int dist = 0; dist < 4; ++dist) {
            CAPTURE(n, dist);
            // 0 random, 1 constant, 2 few distinct values, 3 descending
            std::vector<std::uint32_t> r = random_u32(n, 11 + std::uint32_t(n), dist == 2 ? 5 : 0);
            if (dist == 1) std::fill(r.begin(), r.end(), 0x12345678u);
            if (dist == 3)
                for (std::size_t i = 0; i < n; ++i) r[i] = std::uint32_t(n - i) * 7919u;
            const std::vector<K> keys = keys_of<K>(r, dist);
            check_sorts(keys, 0, kBits, 8);
            if (n <= 4097) {
                check_sorts(keys, 0, kBits, 4);
                check_sorts(keys, 0, 12, 8);
                check_sorts(keys, 3, kBits - 5, 4);
                check_sorts(keys, 7, 7, 8);
            }
        }
    }
}

TEST_CASE("COO -> CSR -> COO round trip, stable within rows", "[primitives][sparse]") {
    for (std::size_t nnz : {std::size_t(0), std::size_t(1), std::size_t(33), std::size_t(5000)}) {
        for (std::int32_t n_rows : {1, 7, 1000}) {
            CAPTURE(nnz, n_rows);
            const std::vector<std::uint32_t> r = random_u32(nnz, 3, std::uint32_t(n_rows));
            std::vector<std::int32_t> rows(nnz), cols(nnz), csr_cols(nnz);
            std::vector<float> vals(nnz), csr_vals(nnz);
            for (std::size_t k = 0; k < nnz; ++k) {
                rows[k] = std::int32_t(r[k]);
                cols[k] = std::int32_t(k % 97);
                vals[k] = float(k);
            }
            std::vector<std::int32_t> offsets(std::size_t(n_rows) + 1);
            serial_coo_to_csr(rows.data(), cols.data(), vals.data(), nnz, n_rows, offsets.data(), csr_cols.data(),
                              csr_vals.data());
            CHECK(offsets[0] == 0);
            CHECK(std::size_t(offsets[std::size_t(n_rows)]) == nnz);
            // Expected: stable sort of entries by row.
            std::vector<std::size_t> order(nnz);
            for (std::size_t k = 0; k < nnz; ++k) order[k] = k;
            std::stable_sort(order.begin(), order.end(),
                             [&](std::size_t a, std::size_t b) { return rows[a] < rows[b]; });
            for (std::size_t k = 0; k < nnz; ++k) {
                CHECK(csr_cols[k] == cols[order[k]]);
                CHECK(csr_vals[k] == vals[order[k]]);
            }
            std::vector<std::int32_t> back(nnz);
            serial_csr_to_coo(offsets.data(), n_rows, back.data());
            for (std::size_t k = 0; k < nnz; ++k) CHECK(back[k] == rows[order[k]]);
        }
    }
    std::vector<std::int32_t> bad = {3}, c = {0}, off(3), oc(1);
    std::vector<float> v = {1.0f}, ov(1);
    CHECK_THROWS_AS(serial_coo_to_csr(bad.data(), c.data(), v.data(), 1, 2, off.data(), oc.data(), ov.data()),
                    std::invalid_argument);
}
