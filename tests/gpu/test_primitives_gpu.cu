// GPU tests of the primitives (kernels/primitives): compaction (select by predicate and by flags,
// both algorithms), partition, find_repeats, histogram, radix sort (keys and pairs, four key
// types, 4- and 8-bit digits, bit ranges, in place, a device count's first keys), COO <-> CSR,
// ordered binning (each of its three paths forced at the others' thresholds and the chunked path's
// chunk edges, the public entry at every threshold, captured in a CUDA graph, and a device count's
// first elements), each against the serial CPU
// reference (itself tested against the standard library in tests/test_primitives_cpu.cpp),
// exactly, at sizes 0, 1, 31-33, one block +-1, one tile +-1, 10^6 + 3 and 2^24, with
// adversarial inputs. Outputs are poisoned first so unwritten elements fail. [sanitize] marks
// the small cases run under compute-sanitizer.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <random>
#include <utility>
#include <vector>

#include "gpu_test_preamble.h"
#include "kernels/primitives/compaction.cuh"
#include "kernels/primitives/compaction_cpu.h"
#include "kernels/primitives/find_repeats.h"
#include "kernels/primitives/histogram.h"
#include "kernels/primitives/ordered_binning.h"
#include "kernels/primitives/ordered_binning_cpu.h"
#include "kernels/primitives/ordered_binning_paths.h"
#include "kernels/primitives/radix_sort.h"
#include "kernels/primitives/radix_sort_cpu.h"
#include "kernels/primitives/sparse.h"
#include "kernels/primitives/sparse_cpu.h"
#include "kernels/scan/scan_cpu.h"

namespace {

template <typename T>
DeviceBuffer<T> poisoned(std::size_t n) {
    DeviceBuffer<T> d(n + 1);
    TS_CUDA_CHECK(cudaMemset(d.data(), 0xa5, (n + 1) * sizeof(T)));
    return d;
}

template <typename T>
bool same_bits(const std::vector<T>& a, const std::vector<T>& b, std::size_t n) {
    return a.size() >= n && b.size() >= n && (n == 0 || std::memcmp(a.data(), b.data(), n * sizeof(T)) == 0);
}

std::uint64_t read_count(const DeviceBuffer<std::uint64_t>& d) { return download(d.data(), 1)[0]; }

std::vector<std::size_t> boundary_sizes(std::size_t block, std::size_t tile) {
    return {0, 1, 31, 32, 33, block - 1, block, block + 1, tile - 1, tile, tile + 1, 3 * tile + 17};
}

std::vector<std::uint32_t> random_u32(std::size_t n, std::uint32_t seed, std::uint32_t modulo = 0) {
    std::mt19937 rng(seed);
    std::vector<std::uint32_t> v(n);
    for (auto& x : v) x = modulo ? rng() % modulo : rng();
    return v;
}

// ---- compaction -------------------------------------------------------------------------------

template <typename T>
std::vector<T> compaction_input(std::size_t n, int dist) {
    const std::vector<std::uint32_t> r = random_u32(n, 17 + std::uint32_t(n) + dist);
    std::vector<T> v(n);
    for (std::size_t i = 0; i < n; ++i) {
        std::uint32_t x = r[i];
        if (dist == 1) x = 7;                                // constant: all kept or none
        if (dist == 2) x = (i / 37) % 2 ? 5u : 0xf0000000u;  // long alternating runs
        v[i] = T(x % 1000u);
    }
    return v;
}

// partition_if of `in` (on the device: d_in) against the serial reference: both halves, bit for bit.
template <typename T, typename Pred>
void check_partition(const std::vector<T>& in, const DeviceBuffer<T>& d_in, Pred pred) {
    const std::size_t n = in.size();
    std::vector<T> expect(n);
    const std::size_t kept = serial_partition_if(in.data(), n, pred, expect.data());
    DeviceBuffer<std::uint64_t> d_count(1);
    const std::size_t bytes = partition_temp_bytes<T>(n);
    DeviceBuffer<unsigned char> temp(bytes + 1);
    DeviceBuffer<T> d_out = poisoned<T>(n);
    partition_if(d_in.data(), d_out.data(), n, pred, d_count.data(), temp.data(), bytes);
    REQUIRE(read_count(d_count) == kept);
    CHECK(same_bits(download(d_out.data(), n), expect, n));
}

template <typename T>
void check_compaction(std::size_t n, int dist, SelectAlgorithm algorithm, bool flags_too, bool partition_too) {
    CAPTURE(n, dist, select_algorithm_name(algorithm));
    const std::vector<T> in = compaction_input<T>(n, dist);
    const LessThan<T> pred{T(500)};
    std::vector<T> expect(n);
    const std::size_t kept = serial_select_if(in.data(), n, pred, expect.data());
    DeviceBuffer<T> d_in = upload(in);
    DeviceBuffer<std::uint64_t> d_count(1);
    const std::size_t bytes = select_temp_bytes<T>(n, algorithm);
    DeviceBuffer<unsigned char> temp(bytes + 1);
    // Runs `select` (writing to its argument and d_count) and checks what it wrote.
    const auto check_select = [&](const char* how, const auto& select) {
        INFO(how);
        DeviceBuffer<T> d_out = poisoned<T>(n);
        select(d_out.data());
        REQUIRE(read_count(d_count) == kept);
        CHECK(same_bits(download(d_out.data(), n), expect, kept));
    };
    // The single pass also runs over the shared workspace (no clearing launch; tags).
    const bool workspace_too = algorithm == SelectAlgorithm::single_pass;
    ScanWorkspace& workspace = shared_workspace();
    if (workspace_too) workspace.reserve_bytes(select_workspace_bytes<T>(n));
    check_select("select_if", [&](T* out) {
        select_if(d_in.data(), out, n, pred, d_count.data(), temp.data(), bytes, nullptr, algorithm);
    });
    if (workspace_too)
        check_select("select_if with a workspace",
                     [&](T* out) { select_if(d_in.data(), out, n, pred, d_count.data(), workspace); });
    if (flags_too) {
        // Flags after one leading byte, so that they are also read from an address not aligned to
        // a round's flags (byte by byte instead of a round at a time).
        std::vector<std::uint8_t> flags(n + 1, 0);
        for (std::size_t i = 0; i < n; ++i) flags[i + 1] = pred(in[i]) ? std::uint8_t(1 + i % 250) : 0;
        DeviceBuffer<std::uint8_t> d_flags = upload(std::vector<std::uint8_t>(flags.begin() + 1, flags.end()));
        DeviceBuffer<std::uint8_t> d_shifted_flags = upload(flags);
        check_select("select_flagged", [&](T* out) {
            select_flagged(d_in.data(), d_flags.data(), out, n, d_count.data(), temp.data(), bytes, nullptr, algorithm);
        });
        check_select("select_flagged, unaligned flags", [&](T* out) {
            select_flagged(d_in.data(), d_shifted_flags.data() + 1, out, n, d_count.data(), temp.data(), bytes, nullptr,
                           algorithm);
        });
        if (workspace_too)
            check_select("select_flagged with a workspace", [&](T* out) {
                select_flagged(d_in.data(), d_flags.data(), out, n, d_count.data(), workspace);
            });
    }
    if (partition_too) {
        check_partition(in, d_in, pred);
        // The complement keeps what pred rejects: every element rejected where pred keeps all.
        check_partition(in, d_in, GreaterEqual<T>{T(500)});
    }
}

template <typename T>
void compaction_suite(bool large) {
    // The second boundary: one warp's part of the small tile, which each warp compacts on its own;
    // the third, the staged tile (two small tiles).
    const std::size_t tile = select_tile_elems<T>(SelectTiling::staged);
    std::vector<std::size_t> sizes =
        boundary_sizes(select_tile_elems<T>(SelectTiling::small) / scan_detail::kFastWarps, tile);
    if (large) sizes = {1000003, std::size_t(1) << 24};
    for (std::size_t n : sizes)
        for (int dist = 0; dist < 3; ++dist)
            for (SelectAlgorithm a : {SelectAlgorithm::single_pass, SelectAlgorithm::single_pass_two_level,
                                      SelectAlgorithm::reduce_then_scan})
                check_compaction<T>(n, dist, a, !large || dist == 0, a == SelectAlgorithm::single_pass);
}

// ---- find_repeats -----------------------------------------------------------------------------

template <typename T>
void check_find_repeats(const std::vector<T>& a) {
    const std::size_t n = a.size();
    CAPTURE(n);
    std::vector<std::uint32_t> expect(n);
    const std::size_t count = serial_find_repeats(a.data(), n, expect.data());
    DeviceBuffer<T> d_a = upload(a);
    DeviceBuffer<std::uint32_t> d_out = poisoned<std::uint32_t>(n);
    DeviceBuffer<std::uint64_t> d_count(1);
    const std::size_t bytes = find_repeats_temp_bytes<T>(n);
    DeviceBuffer<unsigned char> temp(bytes + 1);
    find_repeats(d_a.data(), n, d_out.data(), d_count.data(), temp.data(), bytes);
    REQUIRE(read_count(d_count) == count);
    CHECK(same_bits(download(d_out.data(), n), expect, count));
    INFO("with a workspace");
    ScanWorkspace& workspace = shared_workspace();
    workspace.reserve_bytes(find_repeats_workspace_bytes<T>(n));
    DeviceBuffer<std::uint32_t> d_out2 = poisoned<std::uint32_t>(n);
    find_repeats(d_a.data(), n, d_out2.data(), d_count.data(), workspace);
    REQUIRE(read_count(d_count) == count);
    CHECK(same_bits(download(d_out2.data(), n), expect, count));
}

// ---- radix sort -------------------------------------------------------------------------------

template <typename K>
std::vector<K> sort_keys_input(std::size_t n, int dist);

template <>
std::vector<std::uint32_t> sort_keys_input(std::size_t n, int dist) {
    std::vector<std::uint32_t> r = random_u32(n, 31 + std::uint32_t(n) + dist, dist == 2 ? 3 : 0);
    if (dist == 1) std::fill(r.begin(), r.end(), 0xabcdef01u);
    if (dist == 3)
        for (std::size_t i = 0; i < n; ++i) r[i] = std::uint32_t(n - i);
    if (dist == 4)
        for (auto& x : r) x &= 0xff000000u;  // only the top digit varies
    return r;
}
template <>
std::vector<std::int32_t> sort_keys_input(std::size_t n, int dist) {
    const auto r = sort_keys_input<std::uint32_t>(n, dist);
    std::vector<std::int32_t> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = std::int32_t(r[i]);
    return v;
}
template <>
std::vector<float> sort_keys_input(std::size_t n, int dist) {
    const auto r = sort_keys_input<std::uint32_t>(n, dist);
    const float specials[] = {
        0.0f,          -0.0f,         std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
        std::nanf(""), -std::nanf("")};
    std::vector<float> v(n);
    for (std::size_t i = 0; i < n; ++i)
        v[i] = (r[i] % 64 == 3) ? specials[(r[i] >> 6) % 6] : float(std::int32_t(r[i])) * 1e-3f;
    return v;
}
template <>
std::vector<std::uint64_t> sort_keys_input(std::size_t n, int dist) {
    const auto r = sort_keys_input<std::uint32_t>(n, dist);
    const auto s = random_u32(n, 77);
    std::vector<std::uint64_t> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = (std::uint64_t(r[i]) << 32) | (dist == 0 ? s[i] : 0u);
    return v;
}

// Sorts `keys` and compares them exactly with the serial sort; with `live`, only the first `live`
// of them by a device count (device_count.cuh), compared with the serial sort of those keys alone.
template <typename K>
void check_sort(const std::vector<K>& keys, int begin, int end, int digit_bits, bool pairs, bool in_place,
                std::optional<std::uint64_t> live = std::nullopt) {
    const std::size_t capacity = keys.size();
    const std::size_t n = live ? std::size_t(std::min<std::uint64_t>(capacity, *live)) : capacity;
    CAPTURE(capacity, n, begin, end, digit_bits, pairs, in_place);
    std::vector<std::uint32_t> values(capacity);
    for (std::size_t i = 0; i < capacity; ++i) values[i] = std::uint32_t(i * 2654435761u);
    std::vector<K> expect_k(keys.begin(), keys.begin() + std::ptrdiff_t(n));
    std::vector<std::uint32_t> expect_v(values.begin(), values.begin() + std::ptrdiff_t(n));
    serial_radix_sort_pairs(expect_k.data(), expect_v.data(), n, begin, end, digit_bits);
    DeviceBuffer<K> d_k = upload(keys);
    DeviceBuffer<std::uint32_t> d_v = upload(values);
    DeviceBuffer<K> d_ko = poisoned<K>(capacity);
    DeviceBuffer<std::uint32_t> d_vo = poisoned<std::uint32_t>(capacity);
    DeviceBuffer<std::uint64_t> d_live = upload(std::vector<std::uint64_t>{live.value_or(0)});
    const std::uint64_t* d_count = live ? d_live.data() : nullptr;
    K* out_k = in_place ? d_k.data() : d_ko.data();
    std::uint32_t* out_v = in_place ? d_v.data() : d_vo.data();
    if (pairs) {
        const std::size_t bytes = radix_sort_pairs_temp_bytes<K, std::uint32_t>(capacity, digit_bits);
        DeviceBuffer<unsigned char> temp(bytes + 1);
        radix_sort_pairs(d_k.data(), out_k, d_v.data(), out_v, capacity, temp.data(), bytes, nullptr, begin, end,
                         digit_bits, d_count);
        CHECK(same_bits(download(out_k, n), expect_k, n));
        CHECK(download(out_v, n) == expect_v);
    } else {
        const std::size_t bytes = radix_sort_keys_temp_bytes<K>(capacity, digit_bits);
        DeviceBuffer<unsigned char> temp(bytes + 1);
        radix_sort_keys(d_k.data(), out_k, capacity, temp.data(), bytes, nullptr, begin, end, digit_bits, d_count);
        CHECK(same_bits(download(out_k, n), expect_k, n));
    }
    if (!in_place) CHECK(same_bits(download(d_k.data(), capacity), keys, capacity));  // input untouched
}

template <typename K>
void sort_suite() {
    constexpr int kBits = int(8 * sizeof(K));
    for (std::size_t n : boundary_sizes(kRadixSortThreads, std::size_t(kRadixSortThreads) * radix_sort_items<K>())) {
        for (int dist = 0; dist < 5; ++dist) {
            const std::vector<K> keys = sort_keys_input<K>(n, dist);
            check_sort(keys, 0, kBits, 8, false, false);
            check_sort(keys, 0, kBits, 8, true, false);
            if (dist == 0 || dist == 4) {
                check_sort(keys, 0, kBits, 4, true, false);
                check_sort(keys, 0, 12, 8, true, false);
                check_sort(keys, 5, kBits - 3, 8, true, true);
                check_sort(keys, 4, 4, 8, true, false);
                check_sort(keys, 0, kBits, 8, false, true);
            }
        }
    }
}

// ---- ordered binning ---------------------------------------------------------------------------

// Which bins the keys fall in: uniformly random; all in the first, the middle or the last bin
// (every other bin empty); or four in five in the middle bin and the rest random, which mixes
// groups of equal bins of every size in a warp's 32 elements.
enum class BinKeys { random, first, middle, last, mostly_middle };

std::vector<std::uint32_t> binning_keys(std::size_t n, std::uint32_t bins, BinKeys kind) {
    std::vector<std::uint32_t> keys = random_u32(n, 23 + std::uint32_t(n) + bins, bins);
    for (std::size_t i = 0; i < n; ++i) {
        if (kind == BinKeys::first) keys[i] = 0;
        if (kind == BinKeys::middle || (kind == BinKeys::mostly_middle && i % 5)) keys[i] = bins / 2;
        if (kind == BinKeys::last) keys[i] = bins - 1;
    }
    return keys;
}

// Captures what `enqueue` puts on a new stream into a CUDA graph (relaxed mode, like the
// renderer's frame graph), replays it once and waits for it.
template <typename Enqueue>
void run_as_graph(Enqueue enqueue) {
    TS_CUDA_CHECK(cudaDeviceSynchronize());  // the inputs' uploads ran on the legacy stream
    cudaStream_t stream = nullptr;
    TS_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    TS_CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeRelaxed));
    enqueue(stream);
    cudaGraph_t graph = nullptr;
    TS_CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
    cudaGraphExec_t exec = nullptr;
    TS_CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
    TS_CUDA_CHECK(cudaGraphLaunch(exec, stream));
    TS_CUDA_CHECK(cudaStreamSynchronize(stream));
    TS_CUDA_CHECK(cudaGraphExecDestroy(exec));
    TS_CUDA_CHECK(cudaGraphDestroy(graph));
    TS_CUDA_CHECK(cudaStreamDestroy(stream));
}

// Bins `keys` into `bins` with
// `bin(d_keys, d_values, n, d_binned, d_offsets, temp, temp_bytes, d_count)` and compares the binned
// values and the offsets exactly with the serial reference; with `live`, only the first `live` keys
// by a device count (d_count; null without `live`), compared with the serial binning of those keys
// alone. Each value is distinct, so a wrong order inside a bin fails too.
template <typename Bin>
void check_binning_by(const std::vector<std::uint32_t>& keys, std::uint32_t bins, Bin bin,
                      std::optional<std::uint64_t> live = std::nullopt) {
    const std::size_t capacity = keys.size();
    const std::size_t n = live ? std::size_t(std::min<std::uint64_t>(capacity, *live)) : capacity;
    std::vector<std::uint32_t> values(capacity);
    for (std::size_t i = 0; i < capacity; ++i) values[i] = std::uint32_t(i) * 2654435761u;  // odd factor: distinct
    std::vector<std::uint32_t> expected(n);
    std::vector<std::uint64_t> expected_offsets(std::size_t(bins) + 1);
    serial_ordered_binning(keys.data(), values.data(), n, bins, expected.data(), expected_offsets.data());
    DeviceBuffer<std::uint32_t> d_keys = upload(keys), d_values = upload(values);
    DeviceBuffer<std::uint32_t> d_binned = poisoned<std::uint32_t>(capacity);
    DeviceBuffer<std::uint64_t> d_offsets = poisoned<std::uint64_t>(std::size_t(bins) + 1);
    DeviceBuffer<std::uint64_t> d_live = upload(std::vector<std::uint64_t>{live.value_or(0)});
    const std::size_t temp_bytes = ordered_binning_temp_bytes(capacity, bins);
    DeviceBuffer<unsigned char> temp(temp_bytes + 1);
    bin(d_keys.data(), d_values.data(), capacity, d_binned.data(), d_offsets.data(), temp.data(), temp_bytes,
        live ? d_live.data() : nullptr);
    CHECK(download(d_binned.data(), n) == expected);
    CHECK(download(d_offsets.data(), std::size_t(bins) + 1) == expected_offsets);
}

// Through the public entry, directly or captured in a CUDA graph and replayed; `live` as in
// check_binning_by.
void check_binning(const std::vector<std::uint32_t>& keys, std::uint32_t bins, bool as_graph = false,
                   std::optional<std::uint64_t> live = std::nullopt) {
    CAPTURE(keys.size(), bins, as_graph, live.value_or(keys.size()),
            binning_path_name(chosen_binning_path(keys.size(), bins)));
    check_binning_by(
        keys, bins,
        [&](const std::uint32_t* d_keys, const std::uint32_t* d_values, std::size_t n, std::uint32_t* d_binned,
            std::uint64_t* d_offsets, void* temp, std::size_t temp_bytes, const std::uint64_t* d_count) {
            const auto bin = [&](cudaStream_t stream) {
                ordered_binning(d_keys, d_values, n, bins, d_binned, d_offsets, temp, temp_bytes, stream, d_count);
            };
            if (as_graph)
                run_as_graph(bin);
            else
                bin(nullptr);
        },
        live);
}

// On `path`, forced (ordered_binning_paths.h); the caller makes sure the path fits.
void check_binning_on_path(const std::vector<std::uint32_t>& keys, std::uint32_t bins, OrderedBinningPath path,
                           std::optional<std::uint64_t> live = std::nullopt) {
    CAPTURE(keys.size(), bins, live.value_or(keys.size()), binning_path_name(path));
    check_binning_by(
        keys, bins,
        [&](const std::uint32_t* d_keys, const std::uint32_t* d_values, std::size_t n, std::uint32_t* d_binned,
            std::uint64_t* d_offsets, void* temp, std::size_t temp_bytes, const std::uint64_t* d_count) {
            ordered_binning_on_path(path, d_keys, d_values, n, bins, d_binned, d_offsets, temp, temp_bytes, nullptr,
                                    d_count);
        },
        live);
}

constexpr OrderedBinningPath kAllBinningPaths[] = {OrderedBinningPath::single_block, OrderedBinningPath::chunked,
                                                   OrderedBinningPath::radix_sort};

constexpr BinKeys kAllBinKeys[] = {BinKeys::random, BinKeys::first, BinKeys::middle, BinKeys::last,
                                   BinKeys::mostly_middle};

// `keys` with those past the first `live` set to `past`: values that would show up in a sort's or
// a binning's first `live` results if a device count of `live` were not heeded.
template <typename T>
std::vector<T> with_keys_past(std::vector<T> keys, std::uint64_t live, T past) {
    if (live < keys.size()) std::fill(keys.begin() + std::ptrdiff_t(live), keys.end(), past);
    return keys;
}

}  // namespace

TEST_CASE("GPU select and partition at boundary sizes", "[gpu][primitives][compaction]") {
    compaction_suite<std::int32_t>(false);
    compaction_suite<std::uint32_t>(false);
    compaction_suite<float>(false);
    compaction_suite<std::uint64_t>(false);
}

TEST_CASE("GPU select and partition at 10^6 + 3 and 2^24", "[gpu][primitives][compaction]") {
    compaction_suite<std::int32_t>(true);
    compaction_suite<std::uint64_t>(true);
}

// The single pass and partition run resident (one cooperative launch: no look-back, no separate
// scan) while their tiles all fit on the GPU at once: at the most tiles the device holds (792 for
// the single pass on a GPU of 132 SMs) and at one more, where partition takes the three phases and the
// single pass over temporary storage the self-clearing launch (one cooperative launch whose blocks
// clear the look-back's slots, several tiles a block), up to its most tiles and one more, where
// it takes a clearing launch and the look-back; select_if, select_flagged, partition_if and
// find_repeats against the serial reference.
TEST_CASE("GPU select, partition and find_repeats at the resident kernels' limits", "[gpu][primitives][compaction]") {
    using Source = prim_detail::PredicateSource<std::uint32_t, LessThan<std::uint32_t>>;
    constexpr auto kResident = prim_detail::SelectMode::scatter_resident;
    constexpr SelectTiling kSelectTiling = prim_detail::resident_select_tiling<std::uint32_t>(false);
    constexpr SelectTiling kPartitionTiling = prim_detail::resident_select_tiling<std::uint32_t>(true);
    const std::size_t select_tiles =
        scan_detail::resident_tile_capacity<prim_detail::select_kernel<Source, kResident, false, kSelectTiling>>();
    const std::size_t partition_tiles =
        scan_detail::resident_tile_capacity<prim_detail::select_kernel<Source, kResident, true, kPartitionTiling>>();
    const std::size_t self_clearing_tiles =
        co_resident_blocks<prim_detail::select_kernel<Source, prim_detail::SelectMode::scatter_self_clearing, false,
                                                      SelectTiling::staged>,
                           scan_detail::kFastThreads>() *
        scan_detail::kSelfClearingMaxRounds;
    REQUIRE(select_tiles > 1);  // every GPU this project runs on launches cooperatively
    REQUIRE(partition_tiles > 1);
    REQUIRE(self_clearing_tiles > select_tiles);
    const std::size_t tile = select_tile_elems<std::uint32_t>(kSelectTiling);
    REQUIRE(select_tiling<std::uint32_t>(self_clearing_tiles * tile + 1, SelectAlgorithm::single_pass,
                                         /*workspace=*/false) == SelectTiling::staged);
    for (std::size_t n :
         {select_tiles * tile, select_tiles * tile + 1, self_clearing_tiles * tile, self_clearing_tiles * tile + 1}) {
        for (int dist = 0; dist < 3; ++dist)
            check_compaction<std::uint32_t>(n, dist, SelectAlgorithm::single_pass, true, false);
        check_find_repeats(random_u32(n + 1, 9, 2));  // n + 1 values: n candidates
    }
    const std::size_t partition_tile = select_tile_elems<std::uint32_t>(kPartitionTiling);
    for (std::size_t n : {partition_tiles * partition_tile, partition_tiles * partition_tile + 1})
        for (int dist = 0; dist < 3; ++dist)
            check_compaction<std::uint32_t>(n, dist, SelectAlgorithm::reduce_then_scan, false, true);
}

// The self-clearing single pass with fewer blocks than tiles, so that each block takes several
// tiles by ticket, over storage full of stale published prefixes (a slot it failed to empty would
// be taken, an uncleared counter would hand out tiles past the end): select_if against the serial
// reference. Small enough for racecheck, which watches each block's shared memory pass from tile
// to tile.
TEST_CASE("GPU select's self-clearing single pass, blocks taking several tiles",
          "[gpu][primitives][compaction][sanitize]") {
    using Source = prim_detail::PredicateSource<std::uint32_t, LessThan<std::uint32_t>>;
    const std::size_t tile = select_tile_elems<std::uint32_t>(SelectTiling::staged);
    for (const auto& [tiles, blocks] : {std::pair<std::size_t, unsigned>{2, 1}, {19, 4}, {40, 3}}) {
        const std::size_t n = tiles * tile - 7;
        CAPTURE(n, blocks);
        const std::vector<std::uint32_t> in = compaction_input<std::uint32_t>(n, 0);
        const LessThan<std::uint32_t> pred{500};
        std::vector<std::uint32_t> expect(n);
        const std::size_t kept = serial_select_if(in.data(), n, pred, expect.data());
        DeviceBuffer<std::uint32_t> d_in = upload(in);
        DeviceBuffer<std::uint32_t> d_out = poisoned<std::uint32_t>(n);
        DeviceBuffer<std::uint64_t> d_count(1);
        const std::size_t bytes = scan_detail::single_level_lookback_bytes<std::uint32_t>(tiles);
        DeviceBuffer<unsigned char> temp(bytes);
        const unsigned long long stale = (static_cast<unsigned long long>(scan_detail::kFlagPrefix) << 32) | 3u;
        upload(reinterpret_cast<unsigned long long*>(temp.data()),
               std::vector<unsigned long long>(bytes / sizeof(unsigned long long), stale));
        prim_detail::SelectParams p{};
        p.n = p.load_n = n;
        p.aligned = true;
        p.num_selected = reinterpret_cast<unsigned long long*>(d_count.data());
        const auto lookback = scan_detail::single_level_lookback<std::uint32_t>(temp.data(), bytes);
        p.counters = lookback.counters;
        p.single_level = lookback.tiles;
        launch_cooperative(prim_detail::select_kernel<Source, prim_detail::SelectMode::scatter_self_clearing, false,
                                                      SelectTiling::staged>,
                           blocks, scan_detail::kFastThreads, nullptr, Source{d_in.data(), pred}, d_out.data(), p);
        TS_CUDA_CHECK(cudaDeviceSynchronize());
        REQUIRE(read_count(d_count) == kept);
        CHECK(same_bits(download(d_out.data(), n), expect, kept));
    }
}

// Sizes of at least 256 MiB, where the single pass holds rounds in registers: whole tiles, and a
// last tile ending one element into the first warp's held rounds, one into the second warp's part,
// one short of full.
template <typename T>
std::vector<std::size_t> held_round_sizes() {
    using Shape = SelectTileShape<T, SelectTiling::held>;
    const std::size_t tile = Shape::tile;
    const std::size_t staged = std::size_t(Shape::R_staged) * 32 * Shape::V;
    const std::size_t whole = (scan_detail::kHeldMinInputBytes / sizeof(T) + tile - 1) / tile * tile;
    return {whole, whole + staged + 1, whole + tile / scan_detail::kFastWarps + 1, whole + tile - 1};
}

TEST_CASE("GPU select and find_repeats over 256 MiB hold rounds in registers", "[gpu][primitives][compaction]") {
    for (std::size_t n : held_round_sizes<std::int32_t>()) {
        REQUIRE(select_tiling<std::int32_t>(n, SelectAlgorithm::single_pass, /*workspace=*/false) ==
                SelectTiling::held);
        REQUIRE(select_tiling<std::int32_t>(n, SelectAlgorithm::single_pass, /*workspace=*/true) == SelectTiling::held);
        check_compaction<std::int32_t>(n, 0, SelectAlgorithm::single_pass, n % 2 == 1, false);
    }
    check_compaction<std::int32_t>(held_round_sizes<std::int32_t>()[1], 1, SelectAlgorithm::single_pass, false, false);
    check_compaction<std::int32_t>(held_round_sizes<std::int32_t>()[2], 2, SelectAlgorithm::single_pass, false, false);
    check_compaction<std::uint64_t>(held_round_sizes<std::uint64_t>()[1], 0, SelectAlgorithm::single_pass, false,
                                    false);
    check_find_repeats(random_u32(held_round_sizes<std::uint32_t>()[3] + 1, 3, 2));
}

TEST_CASE("GPU select with an unaligned input pointer", "[gpu][primitives][compaction]") {
    const std::size_t n = 100001;
    const std::vector<std::int32_t> in = compaction_input<std::int32_t>(n + 1, 0);
    DeviceBuffer<std::int32_t> d_in = upload(in);
    DeviceBuffer<std::int32_t> d_out = poisoned<std::int32_t>(n);
    DeviceBuffer<std::uint64_t> d_count(1);
    const NonZero<std::int32_t> pred{};
    std::vector<std::int32_t> expect(n);
    const std::size_t kept = serial_select_if(in.data() + 1, n, pred, expect.data());
    const std::size_t bytes = select_temp_bytes<std::int32_t>(n);
    DeviceBuffer<unsigned char> temp(bytes);
    select_if(d_in.data() + 1, d_out.data(), n, pred, d_count.data(), temp.data(), bytes);
    REQUIRE(read_count(d_count) == kept);
    CHECK(same_bits(download(d_out.data(), n), expect, kept));
}

// A workspace serves compactions as it serves scans (kernels/scan/scan_lookback.cuh): one launch
// a call, tags that tell calls apart, and the call of the last tag clearing every slot.
TEST_CASE("GPU compaction over a workspace: tags wrap, scans share it, too small is refused",
          "[gpu][primitives][compaction][sanitize]") {
    using T = std::uint32_t;
    const std::size_t n = 5 * select_tile_elems<T>(SelectTiling::small) + 17;  // six tiles: the look-back
    const LessThan<T> pred{T(500)};
    const std::vector<T> in = compaction_input<T>(n, 0);
    std::vector<T> expect(n);
    const std::size_t kept = serial_select_if(in.data(), n, pred, expect.data());
    DeviceBuffer<T> d_in = upload(in);
    DeviceBuffer<std::uint64_t> d_count(1);
    ScanWorkspace workspace;
    workspace.reserve<std::int64_t>(3 * n);  // more slots than the compaction uses: the clear must reach them all
    REQUIRE(workspace.bytes() >= select_workspace_bytes<T>(n));
    const auto check_select = [&] {
        DeviceBuffer<T> d_out = poisoned<T>(n);
        select_if(d_in.data(), d_out.data(), n, pred, d_count.data(), workspace);
        REQUIRE(read_count(d_count) == kept);
        CHECK(same_bits(download(d_out.data(), n), expect, kept));
    };

    SECTION("the call of the last tag clears every slot, so the next tag-0 call reads none of 2^30 calls ago") {
        fill_with_stale_prefixes(workspace, 777u);
        set_call_number(workspace, scan_detail::kLastTag - 1);
        for (int call = 0; call < 4; ++call) {  // tags 2^30 - 2, 2^30 - 1 (clears), 0, 1
            INFO("call " << call);
            check_select();
            if (call == 1) {
                const std::vector<unsigned long long> after = workspace_status(workspace);
                CHECK(std::count(after.begin(), after.end(), 0ull) == std::ptrdiff_t(after.size()));
            }
        }
        CHECK(call_counter(workspace) == (static_cast<unsigned long long>(scan_detail::kLastTag) + 3) << 32);
    }

    SECTION("scans and compactions take turns on one workspace") {
        const std::vector<std::int64_t> values(3 * n, 3);
        std::vector<std::int64_t> sums(3 * n);
        serial_exclusive_scan(values.data(), sums.data(), values.size(), Sum<std::int64_t>{});
        DeviceBuffer<std::int64_t> d_values = upload(values);
        DeviceBuffer<std::int64_t> d_sums(3 * n);
        for (int turn = 0; turn < 3; ++turn) {
            INFO("turn " << turn);
            check_select();
            exclusive_scan(d_values.data(), d_sums.data(), values.size(), Sum<std::int64_t>{}, workspace);
            CHECK(download(d_sums.data(), sums.size()) == sums);
        }
    }

    SECTION("too small a workspace is refused") {
        ScanWorkspace small;
        small.reserve_bytes(select_workspace_bytes<T>(n) - 1);
        DeviceBuffer<T> d_out(n);
        DeviceBuffer<std::uint32_t> d_indices(n);
        CHECK_THROWS_AS(select_if(d_in.data(), d_out.data(), n, pred, d_count.data(), small), std::invalid_argument);
        CHECK_THROWS_AS(select_flagged(d_in.data(), reinterpret_cast<const std::uint8_t*>(d_in.data()), d_out.data(), n,
                                       d_count.data(), small),
                        std::invalid_argument);
        CHECK_THROWS_AS(find_repeats(d_in.data(), n, d_indices.data(), d_count.data(), small), std::invalid_argument);
    }
}

TEST_CASE("GPU find_repeats: the seed's example and adversarial inputs", "[gpu][primitives][find_repeats][sanitize]") {
    check_find_repeats(std::vector<std::int32_t>{3, 4, 4, 5, 6, 7, 7});
    // Warp parts of the small tile (the workspace's), whole staged tiles (two small ones).
    const auto sizes_of = [](auto zero) {
        using T = decltype(zero);
        return boundary_sizes(select_tile_elems<T>(SelectTiling::small) / scan_detail::kFastWarps,
                              select_tile_elems<T>(SelectTiling::staged));
    };
    std::vector<std::size_t> sizes = sizes_of(std::uint32_t());
    for (std::size_t n : sizes_of(std::uint64_t())) sizes.push_back(n);
    for (std::size_t n : sizes) {
        for (std::uint32_t modulo : {0u, 2u, 1u}) {
            const auto r = random_u32(n, 5 + modulo, modulo);
            check_find_repeats(r);
            std::vector<std::uint64_t> w(r.begin(), r.end());
            check_find_repeats(w);
        }
    }
}

TEST_CASE("GPU find_repeats at 10^6 + 3 and 2^24", "[gpu][primitives][find_repeats]") {
    for (std::size_t n : {std::size_t(1000003), std::size_t(1) << 24}) {
        const auto r = random_u32(n, 8, 4);
        std::vector<float> f(r.begin(), r.end());
        check_find_repeats(f);
    }
}

TEST_CASE("GPU histogram: exact counts, constant input, many bins", "[gpu][primitives][histogram]") {
    for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(33), std::size_t(4097), std::size_t(1000003),
                          std::size_t(1) << 24}) {
        CAPTURE(n);
        const auto r = random_u32(n, 9, 1u << 21);
        for (int bins : {1, 256, 5000, 100000}) {
            CAPTURE(bins);
            const EvenBins<std::uint32_t> rule(bins, 0u, 1u << 20);
            std::vector<std::uint64_t> expect(static_cast<std::size_t>(bins));
            serial_histogram(r.data(), n, rule, expect.data());
            DeviceBuffer<std::uint32_t> d = upload(r);
            DeviceBuffer<std::uint64_t> counts = poisoned<std::uint64_t>(std::size_t(bins));
            histogram_even(d.data(), n, rule, counts.data());
            CHECK(download(counts.data(), std::size_t(bins)) == expect);
            if (n > 1) {  // samples not aligned to 16 bytes take the sample-by-sample loads
                serial_histogram(r.data() + 1, n - 1, rule, expect.data());
                histogram_even(d.data() + 1, n - 1, rule, counts.data());
                CHECK(download(counts.data(), std::size_t(bins)) == expect);
            }
        }
        std::vector<float> f(n, 0.25f);
        for (std::size_t i = 0; i < n; i += 3) f[i] = float(r[i] % 1000) / 1000.0f;
        const EvenBins<float> frule(64, 0.0f, 1.0f);
        std::vector<std::uint64_t> expect(64);
        serial_histogram(f.data(), n, frule, expect.data());
        DeviceBuffer<float> d = upload(f);
        DeviceBuffer<std::uint64_t> counts(64);
        histogram_even(d.data(), n, frule, counts.data());
        CHECK(download(counts.data(), 64) == expect);
    }
    // Float samples take one wave of blocks while the chunks are few a block (histogram.cu), up to
    // 2048 blocks past that: 2^26 + 5 (about 16 chunks a block on a GPU of 132 SMs) and 2^27 + 1 (past it).
    for (std::size_t n : {(std::size_t(1) << 26) + 5, (std::size_t(1) << 27) + 1}) {
        CAPTURE(n);
        std::vector<float> f(n);
        std::mt19937 rng(11);
        std::uniform_real_distribution<float> unit(-0.25f, 1.25f);  // some outside the range, counted nowhere
        for (float& x : f) x = unit(rng);
        const EvenBins<float> rule(256, 0.0f, 1.0f);
        std::vector<std::uint64_t> expect(256);
        serial_histogram(f.data(), n, rule, expect.data());
        DeviceBuffer<float> d = upload(f);
        DeviceBuffer<std::uint64_t> counts = poisoned<std::uint64_t>(256);
        histogram_even(d.data(), n, rule, counts.data());
        CHECK(download(counts.data(), 256) == expect);
    }
}

TEST_CASE("GPU radix sort of uint32 keys and pairs at boundary sizes", "[gpu][primitives][radix]") {
    sort_suite<std::uint32_t>();
}
TEST_CASE("GPU radix sort of int32 keys and pairs at boundary sizes", "[gpu][primitives][radix]") {
    sort_suite<std::int32_t>();
}
TEST_CASE("GPU radix sort of float keys and pairs at boundary sizes", "[gpu][primitives][radix]") {
    sort_suite<float>();
}
TEST_CASE("GPU radix sort of uint64 keys and pairs at boundary sizes", "[gpu][primitives][radix]") {
    sort_suite<std::uint64_t>();
}

TEST_CASE("GPU radix sort at 10^6 + 3 and 2^24", "[gpu][primitives][radix]") {
    for (std::size_t n : {std::size_t(1000003), std::size_t(1) << 24}) {
        check_sort(sort_keys_input<std::uint32_t>(n, 0), 0, 32, 8, true, false);
        check_sort(sort_keys_input<std::uint32_t>(n, 2), 0, 32, 8, false, false);
        check_sort(sort_keys_input<float>(n, 0), 0, 32, 4, false, false);
        check_sort(sort_keys_input<std::uint64_t>(n, 0), 0, 64, 8, true, false);
        check_sort(sort_keys_input<std::uint32_t>(n, 0), 0, 12, 8, true, true);
    }
}

TEST_CASE("GPU radix sort of a device count's first keys", "[gpu][primitives][radix]") {
    // Counts of none, one, a tile -1, +0, +1, all but one, all, and more than the capacity (all).
    for (const std::size_t capacity : {std::size_t(3 * 7680 + 5), std::size_t(1000003)})
        for (const std::uint64_t live :
             {std::uint64_t(0), std::uint64_t(1), std::uint64_t(7679), std::uint64_t(7680), std::uint64_t(7681),
              std::uint64_t(capacity - 1), std::uint64_t(capacity), std::uint64_t(capacity) + 12345}) {
            // The keys past the count are the type's lowest, which would sort first if read.
            const auto u32 = with_keys_past(sort_keys_input<std::uint32_t>(capacity, 0), live, 0u);
            const auto u64 = with_keys_past(sort_keys_input<std::uint64_t>(capacity, 0), live, std::uint64_t(0));
            const auto f32 =
                with_keys_past(sort_keys_input<float>(capacity, 0), live, std::numeric_limits<float>::lowest());
            check_sort(u32, 0, 32, 8, false, false, live);
            check_sort(u32, 0, 32, 8, true, false, live);
            check_sort(u64, 0, 64, 8, true, false, live);
            check_sort(f32, 0, 32, 4, false, false, live);
        }
}

TEST_CASE("GPU ordered binning of a device count's first elements, each path", "[gpu][primitives][binning][sanitize]") {
    // Every path that takes the capacity, and the public entry, at counts of none, one, a short
    // chunk +1, all but one, all, and more than the capacity.
    for (const std::size_t capacity : {std::size_t(300), kChunkedBinningShortChunk * 3 + 7, std::size_t(70001)})
        for (const std::uint64_t live :
             {std::uint64_t(0), std::uint64_t(1), std::uint64_t(kChunkedBinningShortChunk + 1),
              std::uint64_t(capacity - 1), std::uint64_t(capacity), std::uint64_t(capacity) + 3}) {
            // The keys past the count are in bin 0, where they would show up if read.
            const auto keys = with_keys_past(binning_keys(capacity, 4097, BinKeys::mostly_middle), live, 0u);
            for (const OrderedBinningPath path : kAllBinningPaths)
                if (binning_path_fits(path, capacity, 4097)) check_binning_on_path(keys, 4097, path, live);
            check_binning(keys, 4097, false, live);
        }
}

TEST_CASE("GPU COO -> CSR -> COO against the serial reference", "[gpu][primitives][sparse]") {
    for (std::size_t nnz : {std::size_t(0), std::size_t(1), std::size_t(33), std::size_t(5000), std::size_t(1000003)}) {
        for (std::int32_t n_rows : {1, 7, 1000, 300000}) {
            for (bool sorted : {false, true}) {
                CAPTURE(nnz, n_rows, sorted);
                const auto r = random_u32(nnz, 3 + n_rows, std::uint32_t(n_rows));
                std::vector<std::int32_t> rows(nnz), cols(nnz);
                std::vector<double> vals(nnz);
                for (std::size_t k = 0; k < nnz; ++k) {
                    rows[k] = std::int32_t(r[k]);
                    cols[k] = std::int32_t(k % 1013);
                    vals[k] = double(k) * 0.5;
                }
                if (sorted) std::sort(rows.begin(), rows.end());
                std::vector<std::int32_t> offsets(std::size_t(n_rows) + 1), ecols(nnz);
                std::vector<double> evals(nnz);
                serial_coo_to_csr(rows.data(), cols.data(), vals.data(), nnz, n_rows, offsets.data(), ecols.data(),
                                  evals.data());
                DeviceBuffer<std::int32_t> d_rows = upload(rows), d_cols = upload(cols);
                DeviceBuffer<double> d_vals = upload(vals);
                DeviceBuffer<std::int32_t> d_off = poisoned<std::int32_t>(std::size_t(n_rows) + 1);
                DeviceBuffer<std::int32_t> d_ocols = poisoned<std::int32_t>(nnz);
                DeviceBuffer<double> d_ovals = poisoned<double>(nnz);
                const std::size_t bytes = coo_to_csr_temp_bytes(nnz, n_rows);
                DeviceBuffer<unsigned char> temp(bytes + 1);
                coo_to_csr(d_rows.data(), d_cols.data(), d_vals.data(), nnz, n_rows, d_off.data(), d_ocols.data(),
                           d_ovals.data(), temp.data(), bytes, nullptr, sorted);
                CHECK(download(d_off.data(), std::size_t(n_rows) + 1) == offsets);
                CHECK(download(d_ocols.data(), nnz) == ecols);
                CHECK(same_bits(download(d_ovals.data(), nnz), evals, nnz));
                std::vector<std::int32_t> erows(nnz);
                serial_csr_to_coo(offsets.data(), n_rows, erows.data());
                const std::size_t cbytes = csr_to_coo_temp_bytes(nnz);
                DeviceBuffer<unsigned char> ctemp(cbytes + 1);
                DeviceBuffer<std::int32_t> d_back = poisoned<std::int32_t>(nnz);
                csr_to_coo(d_off.data(), n_rows, nnz, d_back.data(), ctemp.data(), cbytes);
                CHECK(download(d_back.data(), nnz) == erows);
            }
        }
    }
}

TEST_CASE("GPU ordered binning at the edges of the single-block path", "[gpu][primitives][binning]") {
    // Sizes around a warp's round, the block and the threshold (n = 7 leaves a warp's segment
    // empty); bins past kSmallBinningMaxBins, like n past the threshold, take the chunked path.
    const std::size_t t = kSmallBinningDispatchElements;
    for (const std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(7), std::size_t(31), std::size_t(32),
                                std::size_t(33), std::size_t(255), std::size_t(256), std::size_t(257), t - 1, t, t + 1})
        for (const std::uint32_t bins : {1u, 2u, 4097u, kSmallBinningMaxBins, kSmallBinningMaxBins + 1})
            for (const BinKeys kind : kAllBinKeys) check_binning(binning_keys(n, bins, kind), bins);
}

TEST_CASE("GPU ordered binning at the edges of the chunked path", "[gpu][primitives][binning]") {
    // Through the public entry: either side of the chunked path's threshold and of its bin limit
    // (past either, the radix path), and a bin count the single-block kernel does not take.
    const std::size_t t = kChunkedBinningDispatchElements;
    for (const std::size_t n : {kSmallBinningDispatchElements + 1, t - 1, t, t + 1})
        for (const std::uint32_t bins :
             {1u, 4097u, kSmallBinningMaxBins + 1, kChunkedBinningMaxBins, kChunkedBinningMaxBins + 1})
            for (const BinKeys kind : kAllBinKeys) check_binning(binning_keys(n, bins, kind), bins);
}

TEST_CASE("GPU ordered binning, each path forced, at chunk edges and thresholds", "[gpu][primitives][binning]") {
    // Every path that takes the input, on the same keys: one chunk -1, +0, +1 and several chunks +1,
    // with short chunks (up to kChunkedBinningShortChunkElements) and long ones (beyond it); either
    // side of each dispatch threshold and of each path's size limit. Bins: one, the renderer's
    // 4097, and the largest count the chunked path takes.
    const std::size_t c = kChunkedBinningChunk, sc = kChunkedBinningShortChunk,
                      short_most = kChunkedBinningShortChunkElements, small = kSmallBinningDispatchElements,
                      one_block = kSmallBinningMaxElements, mid = kChunkedBinningDispatchElements,
                      most = kChunkedBinningMaxElements;
    std::vector<std::size_t> sizes = {
        0,       1,         33,        sc - 1,        sc,         sc + 1,         2 * sc + 1,         7 * sc + 1,
        small,   small + 1, one_block, one_block + 1, short_most, short_most + 1, short_most + c + 1, mid,
        mid + 1, most,      most + 1};
    std::sort(sizes.begin(), sizes.end());  // thresholds may coincide with limits
    sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
    for (const std::size_t n : sizes)
        for (const std::uint32_t bins : {1u, 4097u, kChunkedBinningMaxBins})
            for (const BinKeys kind : kAllBinKeys) {
                const std::vector<std::uint32_t> keys = binning_keys(n, bins, kind);
                for (const OrderedBinningPath path : kAllBinningPaths)
                    if (binning_path_fits(path, n, bins)) check_binning_on_path(keys, bins, path);
            }
}

TEST_CASE("GPU ordered binning at large sizes and many bins", "[gpu][primitives][binning]") {
    for (const std::size_t n : {std::size_t(1023), std::size_t(1025), std::size_t(1000003), std::size_t(1) << 24})
        for (const std::uint32_t bins : {1u, 2u, 300u, 4096u, 1u << 20})
            for (const BinKeys kind : {BinKeys::random, BinKeys::mostly_middle})
                check_binning(binning_keys(n, bins, kind), bins);
}

TEST_CASE("GPU ordered binning captured in a CUDA graph, all three paths", "[gpu][primitives][binning]") {
    for (const std::size_t n :
         {std::size_t(0), std::size_t(4000), kSmallBinningDispatchElements + 1, kChunkedBinningDispatchElements + 1})
        check_binning(binning_keys(n, 4097, BinKeys::random), 4097, true);
}

TEST_CASE("GPU ordered binning, small cases for compute-sanitizer", "[gpu][primitives][binning][sanitize]") {
    for (const std::size_t n :
         {std::size_t(0), std::size_t(1), std::size_t(33), std::size_t(257), std::size_t(4097), std::size_t(70001)})
        for (const std::uint32_t bins : {1u, 300u, 4097u, kSmallBinningMaxBins})
            for (const BinKeys kind : {BinKeys::random, BinKeys::mostly_middle})
                check_binning(binning_keys(n, bins, kind), bins);
    // Each path forced on a partial second short chunk and on a partial last long one, into the
    // renderer's bin count.
    for (const BinKeys kind : {BinKeys::random, BinKeys::mostly_middle})
        for (const std::size_t n : {kChunkedBinningShortChunk + 33, kChunkedBinningShortChunkElements + 33}) {
            const std::vector<std::uint32_t> keys = binning_keys(n, 4097, kind);
            for (const OrderedBinningPath path : kAllBinningPaths)
                if (binning_path_fits(path, n, 4097)) check_binning_on_path(keys, 4097, path);
        }
}

TEST_CASE("GPU primitives API errors", "[gpu][primitives][sanitize]") {
    DeviceBuffer<std::uint32_t> d(64);
    DeviceBuffer<std::uint64_t> count(1);
    const std::size_t bytes = select_temp_bytes<std::uint32_t>(64);
    CHECK(bytes > 0);
    CHECK_THROWS_AS(select_if(d.data(), d.data(), 64, NonZero<std::uint32_t>{}, count.data(), nullptr, 0),
                    std::invalid_argument);
    const std::size_t sbytes = radix_sort_keys_temp_bytes<std::uint32_t>(64);
    DeviceBuffer<unsigned char> temp(sbytes);
    CHECK_THROWS_AS(radix_sort_keys(d.data(), d.data(), 64, temp.data(), sbytes - 1), std::invalid_argument);
    CHECK_THROWS_AS(radix_sort_keys(d.data(), d.data(), 64, temp.data(), sbytes, nullptr, 0, 40),
                    std::invalid_argument);
    CHECK_THROWS_AS(radix_sort_keys_temp_bytes<std::uint32_t>(64, 5), std::invalid_argument);
    // ordered_binning checks its arguments before choosing a path: 64 elements in 16 bins would
    // take the single-block kernel.
    const std::size_t bbytes = ordered_binning_temp_bytes(64, 16);
    DeviceBuffer<unsigned char> btemp(bbytes + 1);
    DeviceBuffer<std::uint32_t> binned(64);
    DeviceBuffer<std::uint64_t> offsets(17);
    CHECK_THROWS_AS(ordered_binning(d.data(), d.data(), 64, 0, binned.data(), offsets.data(), btemp.data(), bbytes),
                    std::invalid_argument);
    CHECK_THROWS_AS(
        ordered_binning(d.data(), binned.data(), 64, 16, binned.data(), offsets.data(), btemp.data(), bbytes),
        std::invalid_argument);
    CHECK_THROWS_AS(
        ordered_binning(d.data(), d.data(), 64, 16, binned.data(), offsets.data(), btemp.data(), bbytes - 1),
        std::invalid_argument);
    CHECK_THROWS_AS(ordered_binning(d.data(), d.data(), kOrderedBinningMaxElements, 16, binned.data(), offsets.data(),
                                    btemp.data(), bbytes),
                    std::invalid_argument);
    // A forced path that does not take the input throws before any work (bins beyond both
    // shared-memory paths: the radix path's temporary storage, which bbytes covers, suffices).
    for (const OrderedBinningPath path : {OrderedBinningPath::single_block, OrderedBinningPath::chunked})
        CHECK_THROWS_AS(ordered_binning_on_path(path, d.data(), d.data(), 64, kChunkedBinningMaxBins + 1, binned.data(),
                                                offsets.data(), btemp.data(), bbytes),
                        std::invalid_argument);
}

TEST_CASE("GPU primitives, small cases for compute-sanitizer", "[gpu][primitives][sanitize]") {
    for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(33), std::size_t(8193), std::size_t(20000)}) {
        check_compaction<std::int32_t>(n, 0, SelectAlgorithm::single_pass, true, true);
        check_compaction<std::int32_t>(n, 2, SelectAlgorithm::reduce_then_scan, true, false);
        check_compaction<std::int32_t>(n, 0, SelectAlgorithm::single_pass_two_level, true, false);
        const auto keys = sort_keys_input<std::uint32_t>(n, 0);
        check_sort(keys, 0, 32, 8, true, false);
        check_sort(keys, 0, 32, 4, false, true);
        check_sort(sort_keys_input<std::uint64_t>(n, 0), 0, 64, 8, true, false);
    }
}
