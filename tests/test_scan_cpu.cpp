// Tests of the scan library's CPU half (kernels/scan/scan_cpu.h): the serial reference against
// std::inclusive_scan / std::exclusive_scan, and the multi-threaded CPU scan against the serial
// reference for every operator, element type and the sizes the GPU tests use, in and out of
// place, with the float results independent of the thread count. Runs in CI (no GPU).
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <numeric>
#include <random>
#include <vector>

#include "kernels/scan/scan_cpu.h"
#include "kernels/scan/scan_example_ops.h"

using namespace tilescan;

namespace {

// Sizes around the CPU chunking (64 Ki) plus the GPU boundary sizes.
const std::vector<std::size_t> kSizes = {0,    1,    31,   32,    33,    1023,  1024,   1025,
                                         4095, 4096, 4097, 65535, 65536, 65537, 131073, 1000003};

template <typename T>
std::vector<T> random_values(std::size_t n, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::vector<T> v(n);
    for (auto& x : v) {
        if constexpr (std::is_floating_point<T>::value)
            x = T(std::uniform_real_distribution<double>(-1.0, 1.0)(rng));
        else if constexpr (std::is_signed<T>::value)
            x = T(std::int64_t(rng() % 201) - 100);  // |prefix sums| stay below 2^31 for n <= 2^24
        else
            x = T(rng());
    }
    return v;
}

template <typename T>
std::vector<T> random_flags(std::size_t n, std::uint64_t seed, int ones_per_eight) {
    std::mt19937_64 rng(seed);
    std::vector<T> v(n);
    for (auto& x : v) x = T(int(rng() % 8) < ones_per_eight ? 1 : 0);
    return v;
}

template <typename In, typename Out, typename Op>
void check_cpu_matches_serial(const std::vector<In>& in, Op op) {
    const std::size_t n = in.size();
    for (bool exclusive : {false, true}) {
        std::vector<Out> expected(n), actual(n);
        const Out total_expected = exclusive ? serial_exclusive_scan(in.data(), expected.data(), n, op)
                                             : serial_inclusive_scan(in.data(), expected.data(), n, op);
        const Out total = exclusive ? cpu_exclusive_scan(in.data(), actual.data(), n, op, 4)
                                    : cpu_inclusive_scan(in.data(), actual.data(), n, op, 4);
        CHECK(total == total_expected);
        std::size_t first_bad = n;
        for (std::size_t i = 0; i < n && first_bad == n; ++i)
            if (!(actual[i] == expected[i])) first_bad = i;
        INFO("n = " << n << (exclusive ? " exclusive" : " inclusive") << ", first difference at " << first_bad);
        CHECK(first_bad == n);
    }
}

}  // namespace

TEST_CASE("serial scan matches the standard library", "[scan][cpu]") {
    for (std::size_t n : kSizes) {
        const auto in = random_values<std::int64_t>(n, n);
        std::vector<std::int64_t> expected(n), actual(n);
        std::inclusive_scan(in.begin(), in.end(), expected.begin());
        const std::int64_t total = serial_inclusive_scan(in.data(), actual.data(), n, Sum<std::int64_t>{});
        CHECK(actual == expected);
        CHECK(total == std::accumulate(in.begin(), in.end(), std::int64_t(0)));
        std::exclusive_scan(in.begin(), in.end(), expected.begin(), std::int64_t(0));
        serial_exclusive_scan(in.data(), actual.data(), n, Sum<std::int64_t>{});
        CHECK(actual == expected);
    }
}

TEST_CASE("serial scan follows the definitions", "[scan][cpu]") {
    const std::vector<int> in = {1, 2, 3, 4, 5};
    std::vector<int> out(5);
    serial_inclusive_scan(in.data(), out.data(), 5, Sum<int>{});
    CHECK(out == std::vector<int>{1, 3, 6, 10, 15});
    serial_exclusive_scan(in.data(), out.data(), 5, Sum<int>{});
    CHECK(out == std::vector<int>{0, 1, 3, 6, 10});
    serial_exclusive_scan(in.data(), out.data(), 5, Max<int>{});
    CHECK(out[0] == std::numeric_limits<int>::lowest());
    CHECK(out[4] == 4);
    std::vector<int> flags = {1, 1, 0, 1};
    serial_inclusive_scan(flags.data(), flags.data(), 4, LogicalAnd<int>{});  // in place
    CHECK(flags == std::vector<int>{1, 1, 0, 0});
}

TEST_CASE("CPU scan matches the serial reference: integers", "[scan][cpu]") {
    for (std::size_t n : kSizes) {
        const auto i32 = random_values<std::int32_t>(n, 1 + n);
        check_cpu_matches_serial<std::int32_t, std::int32_t>(i32, Sum<std::int32_t>{});
        check_cpu_matches_serial<std::int32_t, std::int32_t>(i32, Min<std::int32_t>{});
        check_cpu_matches_serial<std::int32_t, std::int32_t>(i32, Max<std::int32_t>{});
        const auto u32 = random_values<std::uint32_t>(n, 2 + n);
        check_cpu_matches_serial<std::uint32_t, std::uint32_t>(u32, Sum<std::uint32_t>{});
        check_cpu_matches_serial<std::uint32_t, std::uint32_t>(u32, Product<std::uint32_t>{});
        check_cpu_matches_serial<std::uint32_t, std::uint64_t>(u32, Sum<std::uint64_t>{});
        const auto i64 = random_values<std::int64_t>(n, 3 + n);
        check_cpu_matches_serial<std::int64_t, std::int64_t>(i64, Sum<std::int64_t>{});
        check_cpu_matches_serial<std::int64_t, std::int64_t>(i64, Max<std::int64_t>{});
        const auto flags = random_flags<std::int32_t>(n, 4 + n, 7);
        check_cpu_matches_serial<std::int32_t, std::int32_t>(flags, LogicalAnd<std::int32_t>{});
        check_cpu_matches_serial<std::int32_t, std::int32_t>(random_flags<std::int32_t>(n, 5 + n, 0),
                                                             LogicalOr<std::int32_t>{});
        const auto bytes = random_flags<std::uint8_t>(n, 6 + n, 4);
        check_cpu_matches_serial<std::uint8_t, std::uint64_t>(bytes, Sum<std::uint64_t>{});
        // Constant input.
        check_cpu_matches_serial<std::int32_t, std::int32_t>(std::vector<std::int32_t>(n, 1), Sum<std::int32_t>{});
    }
}

TEST_CASE("CPU scan matches the serial reference: non-commutative operators", "[scan][cpu]") {
    for (std::size_t n : kSizes) {
        std::mt19937 rng{unsigned(n)};
        std::vector<Mat2> mats(n);
        for (auto& m : mats)
            m = {std::uint32_t(rng() % 4), std::uint32_t(rng() % 4), std::uint32_t(rng() % 4),
                 std::uint32_t(rng() % 4)};
        check_cpu_matches_serial<Mat2, Mat2>(mats, Mat2Product{});
        // Affine maps whose coefficients are small integers stay exact in float, so the chunked
        // grouping must reproduce the serial result exactly.
        std::vector<Affine> maps(n);
        for (auto& f : maps) f = {rng() % 2 ? 1.0f : -1.0f, float(int(rng() % 9) - 4)};
        check_cpu_matches_serial<Affine, Affine>(maps, AffineCompose{});
    }
}

TEST_CASE("CPU scan of floats is independent of the thread count", "[scan][cpu]") {
    const std::size_t n = 1000003;
    const auto in = random_values<float>(n, 7);
    std::vector<float> one(n), many(n), ref(n);
    cpu_inclusive_scan(in.data(), one.data(), n, Sum<float>{}, 1);
    for (unsigned threads : {2u, 3u, 8u, 0u}) {
        cpu_inclusive_scan(in.data(), many.data(), n, Sum<float>{}, threads);
        CHECK(std::memcmp(one.data(), many.data(), n * sizeof(float)) == 0);
    }
    // Close to the serial reference (different grouping, so not bit-equal).
    serial_inclusive_scan(in.data(), ref.data(), n, Sum<float>{});
    double worst = 0, magnitude = 0;
    for (std::size_t i = 0; i < n; ++i) {
        magnitude += std::abs(in[i]);
        worst = std::max(worst, std::abs(double(one[i]) - ref[i]) / (1.0 + magnitude));
    }
    CHECK(worst < 1e-5);
}

TEST_CASE("CPU scan in place", "[scan][cpu]") {
    for (std::size_t n : {std::size_t(0), std::size_t(33), std::size_t(65537), std::size_t(1000003)}) {
        for (bool exclusive : {false, true}) {
            auto data = random_values<std::int64_t>(n, 11 + n);
            std::vector<std::int64_t> expected(n);
            exclusive ? serial_exclusive_scan(data.data(), expected.data(), n, Sum<std::int64_t>{})
                      : serial_inclusive_scan(data.data(), expected.data(), n, Sum<std::int64_t>{});
            exclusive ? cpu_exclusive_scan(data.data(), data.data(), n, Sum<std::int64_t>{}, 3)
                      : cpu_inclusive_scan(data.data(), data.data(), n, Sum<std::int64_t>{}, 3);
            CHECK(data == expected);
        }
    }
}

TEST_CASE("CPU scan chunking depends on n only", "[scan][cpu]") {
    CHECK(cpu_scan_chunks(0).count == 0);
    CHECK(cpu_scan_chunks(1).count == 1);
    CHECK(cpu_scan_chunks(65536).count == 1);
    CHECK(cpu_scan_chunks(65537).count == 2);
    const auto big = cpu_scan_chunks(std::size_t(1) << 32);
    CHECK(big.count <= 1024);
    CHECK(big.count * big.size >= (std::size_t(1) << 32));
}
