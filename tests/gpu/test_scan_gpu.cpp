// GPU tests of the scan library (kernels/scan/scan.h): every algorithm x element type x operator
// against the serial reference (scan_cpu.h), inclusive and exclusive, out of place and in place,
// at sizes 0, 1, 31-33, one block +-1, one tile +-1, 10^6 + 3, 2^24 and one size above 2^31;
// random and constant inputs; unaligned pointers; float results identical run to run. Outputs
// are poisoned before each run, so an element left unwritten fails. [sanitize] marks the small
// cases run under compute-sanitizer; [large] the case above 2^31 elements.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "gpu_test_preamble.h"
#include "kernels/scan/scan.h"
#include "kernels/scan/scan_cpu.h"
#include "kernels/scan/scan_example_ops.h"
#include "scan_test_kernels.h"

namespace {

// The boundary sizes for one (In, Out): the textbook block (1024) and the fast tile, each +-1.
template <typename In, typename Out>
std::vector<std::size_t> boundary_sizes() {
    const std::size_t tile = scan_detail::FastTile<In, Out>::tile;
    std::vector<std::size_t> s = {0, 1, 31, 32, 33, 1023, 1024, 1025, tile - 1, tile, tile + 1, 3 * tile + 7};
    std::sort(s.begin(), s.end());
    s.erase(std::unique(s.begin(), s.end()), s.end());
    return s;
}

template <typename T>
double magnitude(const T& v) {
    if constexpr (std::is_arithmetic<T>::value)
        return std::abs(double(v));
    else
        return 0.0;
}

// Compares a GPU result with the reference: exactly, or for floating-point sums within `tolerance`
// of (1 + the running sum of |x|), since the algorithms group the additions differently.
template <typename In, typename Out>
bool results_match(const std::vector<In>& in, const std::vector<Out>& actual, const std::vector<Out>& expected,
                   double tolerance, std::string& why) {
    double running = 0;
    for (std::size_t i = 0; i < expected.size(); ++i) {
        bool ok;
        if constexpr (std::is_floating_point<Out>::value) {
            if (i < in.size()) running += magnitude(in[i]);
            ok = tolerance == 0 ? actual[i] == expected[i]
                                : std::abs(double(actual[i]) - double(expected[i])) <= tolerance * (1.0 + running);
        } else {
            ok = actual[i] == expected[i];
        }
        if (!ok) {
            why = "first difference at element " + std::to_string(i) + " of " + std::to_string(expected.size());
            return false;
        }
    }
    return true;
}

// Runs every algorithm on `in` (inclusive and exclusive; out of place, in place when In == Out,
// with pointers offset by one element for the fast tile paths, and the single pass with a
// workspace) and checks each result and total against the serial reference.
template <typename In, typename Out, typename Op>
void check_scans(const std::vector<In>& in, Op op, const std::string& what, double tolerance = 0, bool in_place = true,
                 bool single_pass_only = false) {
    const std::size_t n = in.size();
    DeviceBuffer<In> d_in(n + 1);
    DeviceBuffer<Out> d_out(n + 1);
    DeviceBuffer<Out> d_total(1);
    std::vector<In> shifted(in);
    for (bool exclusive : {false, true}) {
        std::vector<Out> expected(n);
        const Out total = exclusive ? serial_exclusive_scan(in.data(), expected.data(), n, op)
                                    : serial_inclusive_scan(in.data(), expected.data(), n, op);
        for (ScanAlgorithm algorithm : kScanAlgorithms) {
            if (single_pass_only && algorithm != ScanAlgorithm::decoupled_lookback) continue;
            for (int variant = 0; variant < 4; ++variant) {  // 0 out of place, 1 in place, 2 unaligned, 3 workspace
                constexpr bool same_type = std::is_same<In, Out>::value;
                if (variant == 1 && !(same_type && in_place)) continue;
                if (variant == 2 && (n < 2 || algorithm < ScanAlgorithm::reduce_then_scan)) continue;
                if (variant == 3 && algorithm != ScanAlgorithm::decoupled_lookback) continue;
                const std::size_t offset = variant == 2 ? 1 : 0;
                const In* src = d_in.data() + offset;
                Out* dst = d_out.data() + offset;
                if constexpr (same_type) {
                    if (variant == 1) dst = const_cast<Out*>(src = d_out.data());
                }
                if (variant == 1) {
                    if constexpr (same_type) upload(d_out.data(), in);
                } else {
                    TS_CUDA_CHECK(cudaMemcpy(d_in.data() + offset, in.data(), n * sizeof(In), cudaMemcpyHostToDevice));
                    TS_CUDA_CHECK(cudaMemset(d_out.data(), 0xCD, (n + 1) * sizeof(Out)));
                }
                TS_CUDA_CHECK(cudaMemset(d_total.data(), 0xCD, sizeof(Out)));
                const std::size_t bytes = scan_temp_bytes<In, Out>(n, algorithm);
                DeviceBuffer<unsigned char> temp(bytes);
                ScanWorkspace& workspace = shared_workspace();
                if (variant == 3) workspace.reserve<In, Out>(n);
                if (variant == 3 && exclusive)
                    exclusive_scan(src, dst, n, op, workspace, nullptr, d_total.data());
                else if (variant == 3)
                    inclusive_scan(src, dst, n, op, workspace, nullptr, d_total.data());
                else if (exclusive)
                    exclusive_scan(src, dst, n, op, temp.data(), bytes, nullptr, algorithm, d_total.data());
                else
                    inclusive_scan(src, dst, n, op, temp.data(), bytes, nullptr, algorithm, d_total.data());
                TS_CUDA_CHECK(cudaDeviceSynchronize());
                const std::vector<Out> actual = download(dst, n);
                const std::vector<Out> got_total = download(d_total.data(), 1);
                std::string why;
                const bool match = results_match(in, actual, expected, tolerance, why);
                INFO(what << ": " << scan_algorithm_name(algorithm) << (exclusive ? " exclusive" : " inclusive")
                          << (variant == 1   ? " in place"
                              : variant == 2 ? " unaligned"
                              : variant == 3 ? " with a workspace"
                                             : "")
                          << ", n = " << n << ": " << why);
                CHECK(match);
                std::vector<Out> total_vec = {total};
                std::string why_total;
                CHECK(results_match(std::vector<In>(in.begin(), in.begin() + std::min<std::size_t>(n, 1)), got_total,
                                    total_vec, tolerance * double(std::max<std::size_t>(n, 1)), why_total));
            }
        }
    }
}

template <typename T>
std::vector<T> random_ints(std::size_t n, std::uint64_t seed, std::int64_t lo, std::int64_t hi) {
    std::mt19937_64 rng(seed);
    std::vector<T> v(n);
    for (auto& x : v) x = T(lo + std::int64_t(rng() % std::uint64_t(hi - lo + 1)));
    return v;
}

template <typename T>
std::vector<T> random_reals(std::size_t n, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> dist(-1.0, 1.0);
    std::vector<T> v(n);
    for (auto& x : v) x = T(dist(rng));
    return v;
}

// Truth values for logical and/or: 0 with probability 1 / zero_one_in, else 1.
template <typename T>
std::vector<T> random_truth(std::size_t n, std::uint64_t seed, unsigned zero_one_in) {
    std::mt19937_64 rng(seed);
    std::vector<T> v(n);
    for (auto& x : v) x = T(rng() % zero_one_in == 0 ? 0 : 1);
    return v;
}

std::vector<Mat2> random_mats(std::size_t n, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::vector<Mat2> v(n);
    for (auto& m : v)
        m = {std::uint32_t(rng() % 5), std::uint32_t(rng() % 5), std::uint32_t(rng() % 5), std::uint32_t(rng() % 5)};
    return v;
}

// a = +-1, b a small integer: every composition is exact in float, so any grouping is exact.
std::vector<Affine> random_affine(std::size_t n, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::vector<Affine> v(n);
    for (auto& f : v) f = {rng() % 2 ? 1.0f : -1.0f, float(int(rng() % 9) - 4)};
    return v;
}

void check_all_types(std::size_t n, std::uint64_t seed, bool all_ops) {
    check_scans<std::int32_t, std::int32_t>(random_ints<std::int32_t>(n, seed, -100, 100), Sum<std::int32_t>{},
                                            "int32 sum");
    check_scans<std::uint32_t, std::uint32_t>(random_ints<std::uint32_t>(n, seed + 1, 0, 0xffffffffll),
                                              Sum<std::uint32_t>{}, "uint32 sum");
    check_scans<std::int64_t, std::int64_t>(random_ints<std::int64_t>(n, seed + 2, -1000000, 1000000),
                                            Sum<std::int64_t>{}, "int64 sum");
    check_scans<float, float>(random_reals<float>(n, seed + 3), Sum<float>{}, "float sum", 2e-6);
    check_scans<double, double>(random_reals<double>(n, seed + 4), Sum<double>{}, "double sum", 1e-14);
    check_scans<std::int32_t, std::int32_t>(random_ints<std::int32_t>(n, seed + 5, -1000000, 1000000),
                                            Max<std::int32_t>{}, "int32 max");
    check_scans<Mat2, Mat2>(random_mats(n, seed + 6), Mat2Product{}, "mat2 product");
    check_scans<Affine, Affine>(random_affine(n, seed + 7), AffineCompose{}, "affine compose");
    check_scans<std::uint32_t, std::uint64_t>(random_ints<std::uint32_t>(n, seed + 8, 0, 0xffffffffll),
                                              Sum<std::uint64_t>{}, "uint32 -> uint64 sum");
    check_scans<std::int32_t, std::int32_t>(std::vector<std::int32_t>(n, 1), Sum<std::int32_t>{}, "constant int32 sum");
    if (!all_ops) return;
    check_scans<std::int32_t, std::int32_t>(random_ints<std::int32_t>(n, seed + 9, -1000000, 1000000),
                                            Min<std::int32_t>{}, "int32 min");
    check_scans<std::int32_t, std::int32_t>(random_ints<std::int32_t>(n, seed + 10, -1, 1), Product<std::int32_t>{},
                                            "int32 product");
    check_scans<std::uint32_t, std::uint32_t>(random_ints<std::uint32_t>(n, seed + 11, 0, 0xffffffffll),
                                              Product<std::uint32_t>{}, "uint32 product");
    check_scans<std::int32_t, std::int32_t>(random_truth<std::int32_t>(n, seed + 12, 200), LogicalAnd<std::int32_t>{},
                                            "int32 and");
    check_scans<std::int32_t, std::int32_t>(random_truth<std::int32_t>(n, seed + 13, 2), LogicalOr<std::int32_t>{},
                                            "int32 or");
    check_scans<std::uint32_t, std::uint32_t>(random_ints<std::uint32_t>(n, seed + 14, 0, 1),
                                              LogicalOr<std::uint32_t>{}, "uint32 or");
    check_scans<float, float>(random_reals<float>(n, seed + 15), Max<float>{}, "float max");
    check_scans<float, float>(random_reals<float>(n, seed + 16), Min<float>{}, "float min");
    check_scans<double, double>(random_reals<double>(n, seed + 17), Max<double>{}, "double max");
    check_scans<std::int64_t, std::int64_t>(random_ints<std::int64_t>(n, seed + 18, -1000000, 1000000),
                                            Min<std::int64_t>{}, "int64 min");
    check_scans<std::uint64_t, std::uint64_t>(random_ints<std::uint64_t>(n, seed + 19, 0, 0x7fffffffffffffffll),
                                              Sum<std::uint64_t>{}, "uint64 sum");
    check_scans<std::uint8_t, std::uint32_t>(random_ints<std::uint8_t>(n, seed + 20, 0, 255), Sum<std::uint32_t>{},
                                             "uint8 -> uint32 sum");
    check_scans<std::uint8_t, std::uint64_t>(random_ints<std::uint8_t>(n, seed + 21, 0, 1), Sum<std::uint64_t>{},
                                             "uint8 -> uint64 count");
}

std::vector<std::size_t> all_boundary_sizes() {
    std::vector<std::size_t> s;
    for (auto v : {boundary_sizes<std::int32_t, std::int32_t>(), boundary_sizes<std::int64_t, std::int64_t>(),
                   boundary_sizes<Mat2, Mat2>(), boundary_sizes<std::uint8_t, std::uint64_t>()})
        s.insert(s.end(), v.begin(), v.end());
    std::sort(s.begin(), s.end());
    s.erase(std::unique(s.begin(), s.end()), s.end());
    return s;
}

}  // namespace

TEST_CASE("GPU scans at boundary sizes: every algorithm, type and operator", "[gpu][scan]") {
    for (std::size_t n : all_boundary_sizes()) check_all_types(n, n * 7919, true);
}

TEST_CASE("GPU scans at 10^6 + 3 and 2^24", "[gpu][scan]") {
    check_all_types(1000003, 42, true);
    check_all_types(std::size_t(1) << 24, 43, false);
}

TEST_CASE("GPU scans recurse when the tile sums exceed one tile", "[gpu][scan]") {
    // tile + 1 fast tiles of int32 and a few elements more, so the scan of the tile sums is itself
    // multi-block.
    const std::size_t tile = scan_detail::FastTile<std::int32_t, std::int32_t>::tile;
    check_scans<std::int32_t, std::int32_t>(random_ints<std::int32_t>(tile * (tile + 1) + 3, 5, -60, 60),
                                            Sum<std::int32_t>{}, "int32 sum", 0, false);
}

// Inputs of held_min_input_bytes or more take the single pass whose tiles hold rounds in registers
// (scan_policy.h), a kernel of its own: checked just above the threshold for each kind of look-back
// and tile (regrouping, superblocks, non-commutative, 8-byte, widening), and below it by the cases
// above. The int32 sum is the recursion case before.
template <typename In, typename Out>
std::size_t just_above_held_threshold() {
    return scan_detail::held_min_input_bytes<In, Out>() / sizeof(In) +
           scan_detail::FastTile<In, Out, scan_detail::kFastHeldBytes>::tile + 7;
}

TEST_CASE("GPU single pass over large inputs: tiles that hold rounds in registers", "[gpu][scan]") {
    REQUIRE(scan_detail::lookback_holds_rounds<float, float>(just_above_held_threshold<float, float>()));
    check_scans<float, float>(random_reals<float>(just_above_held_threshold<float, float>(), 31), Sum<float>{},
                              "float sum", 2e-6, true, true);
    check_scans<std::int64_t, std::int64_t>(
        random_ints<std::int64_t>(just_above_held_threshold<std::int64_t, std::int64_t>(), 32, -1000000, 1000000),
        Max<std::int64_t>{}, "int64 max", 0, true, true);
    check_scans<Affine, Affine>(random_affine(just_above_held_threshold<Affine, Affine>(), 33), AffineCompose{},
                                "affine compose", 0, true, true);
    check_scans<std::uint32_t, std::uint64_t>(
        random_ints<std::uint32_t>(just_above_held_threshold<std::uint32_t, std::uint64_t>(), 34, 0, 0xffffffffll),
        Sum<std::uint64_t>{}, "uint32 -> uint64 sum", 0, true, true);
}

TEST_CASE("GPU single pass over large inputs waits its load turn: under compute-sanitizer too",
          "[gpu][scan][sanitize]") {
    // Over large inputs a tile loads only once the tile a load window before it has published its
    // aggregate (wait_for_load_turn, scan_lookback.cuh): a third of the tiles the GPU holds at once,
    // so with more tiles than it holds the window holds tiles back. Integer sums from
    // kHeldMinInputBytes of input:
    const std::size_t n = just_above_held_threshold<std::int32_t, std::int32_t>();
    REQUIRE(scan_detail::lookback_takes_load_turns<std::int32_t, std::int32_t, Sum<std::int32_t>>(n));
    REQUIRE(scan_detail::lookback_tiles<std::int32_t, std::int32_t>(n) >
            testing::scan_test_single_pass_shape_int32_sum().capacity);
    check_scans<std::int32_t, std::int32_t>(random_ints<std::int32_t>(n, 35, -1000, 1000), Sum<std::int32_t>{},
                                            "int32 sum", 0, true, true);
    // The two-level look-back waits its turn from far smaller inputs.
    const std::size_t maps = scan_detail::kLoadTurnsMinTwoLevelBytes / sizeof(Affine) + 12295;
    REQUIRE(scan_detail::lookback_takes_load_turns<Affine, Affine, AffineCompose>(maps));
    REQUIRE(scan_detail::lookback_tiles<Affine, Affine>(maps) > testing::scan_test_single_pass_shape_affine().capacity);
    check_scans<Affine, Affine>(random_affine(maps, 36), AffineCompose{}, "affine compose", 0, true, true);
}

TEST_CASE("GPU float scans are identical run to run", "[gpu][scan]") {
    const std::size_t n = std::size_t(1) << 24;
    const auto in = random_reals<float>(n, 99);
    std::mt19937_64 rng(5);
    std::vector<Affine> maps(n);
    for (auto& f : maps) f = {float(0.5 + 0.5 * (rng() % 1000) / 1000.0), float(int(rng() % 2001) - 1000) / 997.0f};
    DeviceBuffer<float> d_in(n), d_out(n);
    DeviceBuffer<Affine> d_maps(n), d_composed(n);
    upload(d_in.data(), in);
    upload(d_maps.data(), maps);
    for (ScanAlgorithm algorithm : kScanAlgorithms) {
        std::vector<float> first;
        std::vector<Affine> first_maps;
        for (int run = 0; run < 4; ++run) {
            const std::size_t bytes =
                std::max(scan_temp_bytes<float>(n, algorithm), scan_temp_bytes<Affine>(n, algorithm));
            DeviceBuffer<unsigned char> temp(bytes);
            inclusive_scan(d_in.data(), d_out.data(), n, Sum<float>{}, temp.data(), bytes, nullptr, algorithm);
            inclusive_scan(d_maps.data(), d_composed.data(), n, AffineCompose{}, temp.data(), bytes, nullptr,
                           algorithm);
            const auto out = download(d_out.data(), n);
            const auto composed = download(d_composed.data(), n);
            if (run == 0) {
                first = out;
                first_maps = composed;
            } else {
                INFO(scan_algorithm_name(algorithm) << " run " << run);
                CHECK(std::memcmp(first.data(), out.data(), n * sizeof(float)) == 0);
                CHECK(std::memcmp(first_maps.data(), composed.data(), n * sizeof(Affine)) == 0);
            }
        }
    }
}

// Scans the first n of `in` (inclusive) from temporary storage, from a workspace and by the
// look-back alone (`look_back`), and checks that all three give the same bits; `path` names the
// one temporary storage takes.
template <typename T, typename Op>
void check_same_bits(const std::vector<T>& in, std::size_t n, Op op, void (*look_back)(const T*, T*, std::size_t),
                     const std::string& what, const char* path) {
    DeviceBuffer<T> d_in(n), from_temp(n), from_workspace(n), looked_back(n);
    upload(d_in.data(), std::vector<T>(in.begin(), in.begin() + std::ptrdiff_t(n)));
    const std::size_t bytes = scan_temp_bytes<T>(n);
    DeviceBuffer<unsigned char> temp(bytes);
    inclusive_scan(d_in.data(), from_temp.data(), n, op, temp.data(), bytes);
    ScanWorkspace& workspace = shared_workspace();
    workspace.reserve<T>(n);
    inclusive_scan(d_in.data(), from_workspace.data(), n, op, workspace);
    look_back(d_in.data(), looked_back.data(), n);
    const std::vector<T> expected = download(looked_back.data(), n);
    INFO(what << ", n = " << n << ", temporary storage takes " << path);
    CHECK(std::memcmp(download(from_temp.data(), n).data(), expected.data(), n * sizeof(T)) == 0);
    CHECK(std::memcmp(download(from_workspace.data(), n).data(), expected.data(), n * sizeof(T)) == 0);
}

// No more tiles than the GPU holds at once take the resident scan (one launch, a grid-wide barrier
// instead of status words) from temporary storage, and from a workspace for operators that do not
// regroup exactly; more tiles, the look-back: from temporary storage as one self-clearing launch up
// to a few times the tiles the GPU holds (its tiles past the load window wait their turn: the
// two-level look-back takes turns from kLoadTurnsMinTwoLevelBytes of input), else after a clearing
// launch. The resident scan combines the tiles' aggregates in the look-back's order, so every path
// must give the look-back kernel's bits: float sums and a non-commutative float operator from a
// few tiles to the most the device holds (792 on a GPU of 132 SMs, 24 superblocks), one tile more, from the
// first input that takes load turns, and one tile past the self-clearing launch's. Every
// algorithm's results against the serial reference, the resident scan's included, are checked
// above (boundary sizes, 10^6 + 3, 2^24).
TEST_CASE("GPU single pass: the resident scan and the self-clearing launch give the look-back's bits", "[gpu][scan]") {
    const testing::SinglePassShape sums = testing::scan_test_single_pass_shape_float_sum();
    const testing::SinglePassShape maps = testing::scan_test_single_pass_shape_affine();
    REQUIRE(sums.capacity > 1);  // every GPU this project runs on launches cooperatively
    REQUIRE(maps.capacity > 1);
    const std::size_t most_sums = sums.capacity * sums.tile, most_maps = maps.capacity * maps.tile;
    const std::size_t turns_sums = scan_detail::kLoadTurnsMinTwoLevelBytes / sizeof(float) + 1;
    const std::size_t turns_maps = scan_detail::kLoadTurnsMinTwoLevelBytes / sizeof(Affine) + 1;
    REQUIRE(!scan_detail::lookback_takes_load_turns<float, float, Sum<float>>(most_sums + 1));
    REQUIRE(!scan_detail::lookback_takes_load_turns<Affine, Affine, AffineCompose>(most_maps + 1));
    REQUIRE((most_sums + 1 < turns_sums && most_maps + 1 < turns_maps));
    const std::size_t past_sums = sums.self_clearing_tiles * sums.tile + 1;
    const std::size_t past_maps = maps.self_clearing_tiles * maps.tile + 1;
    REQUIRE((turns_sums < past_sums && turns_maps < past_maps));
    const auto reals = random_reals<float>(past_sums, 17);
    std::mt19937_64 rng(18);
    std::vector<Affine> affine(past_maps);  // inexact compositions: the grouping shows in the bits
    for (auto& f : affine) f = {float(0.5 + 0.5 * (rng() % 1000) / 1000.0), float(int(rng() % 2001) - 1000) / 997.0f};
    // (n, the path temporary storage takes)
    const auto sizes = [](std::size_t tile, std::size_t most, std::size_t turns, std::size_t past) {
        return std::vector<std::pair<std::size_t, const char*>>{
            {3 * tile + 5, "the resident scan"},
            {100 * tile - 1, "the resident scan"},
            {most, "the resident scan"},
            {most + 1, "the self-clearing launch"},
            {turns, "the self-clearing launch with load turns"},
            {past, "a clearing launch, the look-back with load turns"}};
    };
    for (const auto& [n, path] : sizes(sums.tile, most_sums, turns_sums, past_sums))
        check_same_bits(reals, n, Sum<float>{}, testing::scan_test_look_back_float_sum, "float sum", path);
    for (const auto& [n, path] : sizes(maps.tile, most_maps, turns_maps, past_maps))
        check_same_bits(affine, n, AffineCompose{}, testing::scan_test_look_back_affine, "affine compose", path);
}

// The self-clearing launch with fewer blocks than tiles, so that each block takes several tiles by
// ticket, over storage full of stale prefixes (a slot it failed to empty would be taken): int32
// sums (the single-level look-back) against the serial reference, float sums and affine
// composition (the two-level look-back) against the look-back kernel's bits; each at once and with
// load turns of a window smaller than the blocks, so that tiles of the first wave wait their turn
// too (a turn read before the barrier would find a stale prefix's flag). Small enough for
// racecheck, which watches each block's shared memory pass from tile to tile.
TEST_CASE("GPU single pass over temporary storage clears its own slots, blocks taking several tiles",
          "[gpu][scan][sanitize]") {
    const testing::SinglePassShape ints = testing::scan_test_single_pass_shape_int32_sum();
    const std::size_t n = 37 * ints.tile + 5;
    const auto in = random_ints<std::int32_t>(n, 61, -1000, 1000);
    std::vector<std::int32_t> expected(n);
    serial_inclusive_scan(in.data(), expected.data(), n, Sum<std::int32_t>{});
    DeviceBuffer<std::int32_t> d_in(n), d_out(n);
    upload(d_in.data(), in);
    for (const std::size_t window : {0, 2}) {
        testing::scan_test_self_clearing_int32_sum(d_in.data(), d_out.data(), n, 4, window);
        INFO("int32 sum, load window " << window);
        CHECK(download(d_out.data(), n) == expected);
    }

    const auto same_bits = [](const auto& values, auto look_back, auto self_clearing, unsigned blocks,
                              std::size_t window) {
        using T = typename std::decay_t<decltype(values)>::value_type;
        const std::size_t count = values.size();
        DeviceBuffer<T> d_values(count), looked_back(count), cleared_itself(count);
        upload(d_values.data(), values);
        look_back(d_values.data(), looked_back.data(), count);
        self_clearing(d_values.data(), cleared_itself.data(), count, blocks, window);
        INFO(count << " values, " << blocks << " blocks, load window " << window);
        CHECK(std::memcmp(download(cleared_itself.data(), count).data(), download(looked_back.data(), count).data(),
                          count * sizeof(T)) == 0);
    };
    const auto reals = random_reals<float>(41 * testing::scan_test_single_pass_shape_float_sum().tile + 3, 62);
    const auto maps = random_affine(23 * testing::scan_test_single_pass_shape_affine().tile + 1, 63);
    for (const std::size_t window : {0, 1}) {
        same_bits(reals, testing::scan_test_look_back_float_sum, testing::scan_test_self_clearing_float_sum, 3, window);
        same_bits(maps, testing::scan_test_look_back_affine, testing::scan_test_self_clearing_affine, 5, 3 * window);
    }
}

// An int32 sum of n values through the workspace, checked against the serial reference.
void check_workspace_sum(ScanWorkspace& workspace, std::size_t n, std::uint64_t seed) {
    const auto in = random_ints<std::int32_t>(n, seed, -1000, 1000);
    std::vector<std::int32_t> expected(n);
    serial_exclusive_scan(in.data(), expected.data(), n, Sum<std::int32_t>{});
    DeviceBuffer<std::int32_t> d_in(n), d_out(n);
    upload(d_in.data(), in);
    TS_CUDA_CHECK(cudaMemset(d_out.data(), 0xCD, n * sizeof(std::int32_t)));
    exclusive_scan(d_in.data(), d_out.data(), n, Sum<std::int32_t>{}, workspace);
    CHECK(download(d_out.data(), n) == expected);
}

// Captures `scan` (an exclusive int32 sum of n elements from `in` into `out` on `stream`) in a CUDA
// graph and replays it four times, with new input each time, checking every result.
template <typename Scan>
void check_graph_replays(std::size_t n, const Scan& scan) {
    DeviceBuffer<std::int32_t> d_in(n), d_out(n);
    cudaStream_t stream;  // a blocking stream: its launches wait for upload's copies on the legacy stream
    TS_CUDA_CHECK(cudaStreamCreate(&stream));
    cudaGraph_t graph;
    TS_CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    scan(d_in.data(), d_out.data(), stream);
    TS_CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
    cudaGraphExec_t exec;
    TS_CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
    for (int replay = 0; replay < 4; ++replay) {
        const auto in = random_ints<std::int32_t>(n, 200 + replay, -1000, 1000);
        std::vector<std::int32_t> expected(n);
        serial_exclusive_scan(in.data(), expected.data(), n, Sum<std::int32_t>{});
        upload(d_in.data(), in);
        TS_CUDA_CHECK(cudaGraphLaunch(exec, stream));
        TS_CUDA_CHECK(cudaStreamSynchronize(stream));
        INFO("replay " << replay);
        CHECK(download(d_out.data(), n) == expected);
    }
    TS_CUDA_CHECK(cudaGraphExecDestroy(exec));
    TS_CUDA_CHECK(cudaGraphDestroy(graph));
    TS_CUDA_CHECK(cudaStreamDestroy(stream));
}

TEST_CASE("GPU scans with a workspace: tags wrap, graphs replay (temporary storage too)", "[gpu][scan][sanitize]") {
    const std::size_t n = 5 * scan_detail::FastTile<std::int32_t, std::int32_t>::tile + 17;
    ScanWorkspace workspace;
    workspace.reserve<std::int64_t>(3 * n);  // more slots than n int32 use: the clear must reach them all

    SECTION("the call of the last tag clears every slot, so the next tag-0 call reads none of 2^30 calls ago") {
        fill_with_stale_prefixes(workspace, 12345u);
        set_call_number(workspace, scan_detail::kLastTag - 1);
        for (int call = 0; call < 4; ++call) {  // tags 2^30 - 2, 2^30 - 1 (clears), 0, 1
            INFO("call " << call);
            check_workspace_sum(workspace, n, 100 + call);
            if (call == 1) {
                const std::vector<unsigned long long> after = workspace_status(workspace);
                CHECK(std::count(after.begin(), after.end(), 0ull) == std::ptrdiff_t(after.size()));
            }
        }
        CHECK(call_counter(workspace) == (static_cast<unsigned long long>(scan_detail::kLastTag) + 3) << 32);
    }

    SECTION("a captured scan replays right with new input each time") {
        check_graph_replays(n, [&](const std::int32_t* in, std::int32_t* out, cudaStream_t stream) {
            exclusive_scan(in, out, n, Sum<std::int32_t>{}, workspace, stream);
        });
    }

    SECTION("a captured scan over temporary storage (the resident scan, a cooperative launch) replays right") {
        const std::size_t bytes = scan_temp_bytes<std::int32_t>(n);
        DeviceBuffer<unsigned char> temp(bytes);
        check_graph_replays(n, [&](const std::int32_t* in, std::int32_t* out, cudaStream_t stream) {
            exclusive_scan(in, out, n, Sum<std::int32_t>{}, temp.data(), bytes, stream);
        });
    }

    // Beyond the resident tiles temporary storage takes the self-clearing launch (cooperative), and
    // beyond its tiles a clearing launch with the look-back as its programmatic dependent.
    const testing::SinglePassShape resident = testing::scan_test_single_pass_shape_int32_sum();
    for (const std::size_t tiles : {resident.capacity + 1, resident.self_clearing_tiles + 1}) {
        const std::size_t beyond = tiles * resident.tile + 17;
        DYNAMIC_SECTION("a captured scan over temporary storage of " << tiles + 1 << " tiles replays right") {
            const std::size_t bytes = scan_temp_bytes<std::int32_t>(beyond);
            DeviceBuffer<unsigned char> temp(bytes);
            check_graph_replays(beyond, [&](const std::int32_t* in, std::int32_t* out, cudaStream_t stream) {
                exclusive_scan(in, out, beyond, Sum<std::int32_t>{}, temp.data(), bytes, stream);
            });
        }
    }

    SECTION("too small a workspace is refused") {
        const std::size_t beyond = std::size_t(1) << 22;  // 512 tiles, the workspace has slots for ~30
        DeviceBuffer<std::int32_t> d(beyond);
        CHECK_THROWS_AS(exclusive_scan(d.data(), d.data(), beyond, Sum<std::int32_t>{}, workspace),
                        std::invalid_argument);
        ScanWorkspace empty;
        CHECK_THROWS_AS(exclusive_scan(d.data(), d.data(), n, Sum<std::int32_t>{}, empty), std::invalid_argument);
    }
}

TEST_CASE("GPU scan API errors", "[gpu][scan][sanitize]") {
    DeviceBuffer<int> d(4096 * 3);
    const std::size_t bytes = scan_temp_bytes<int>(4096 * 3);
    REQUIRE(bytes > 0);
    DeviceBuffer<unsigned char> temp(bytes);
    CHECK_THROWS_AS(inclusive_scan(d.data(), d.data(), 4096 * 3, Sum<int>{}, temp.data(), bytes - 1),
                    std::invalid_argument);
    CHECK_THROWS_AS(inclusive_scan(d.data(), d.data(), 4096 * 3, Sum<int>{}, nullptr, bytes), std::invalid_argument);
    CHECK_THROWS_AS(inclusive_scan(static_cast<const int*>(nullptr), d.data(), 5, Sum<int>{}, temp.data(), bytes),
                    std::invalid_argument);
    // n == 0 needs no storage and still reports the identity as the total.
    CHECK(scan_temp_bytes<int>(0) == 0);
    DeviceBuffer<int> total(1);
    TS_CUDA_CHECK(cudaMemset(total.data(), 0xCD, sizeof(int)));
    exclusive_scan(d.data(), d.data(), 0, Max<int>{}, nullptr, 0, nullptr, kDefaultScanAlgorithm, total.data());
    CHECK(download(total.data(), 1)[0] == Max<int>::identity());
}

TEST_CASE("GPU scans, small cases for compute-sanitizer", "[gpu][scan][sanitize]") {
    for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(33), std::size_t(1025), std::size_t(4097),
                          std::size_t(3 * 4096 + 5)}) {
        check_scans<std::int32_t, std::int32_t>(random_ints<std::int32_t>(n, n, -100, 100), Sum<std::int32_t>{},
                                                "int32 sum");
        check_scans<std::int64_t, std::int64_t>(random_ints<std::int64_t>(n, n, -100, 100), Sum<std::int64_t>{},
                                                "int64 sum");
        check_scans<float, float>(random_reals<float>(n, n), Sum<float>{}, "float sum", 2e-6);
        check_scans<Mat2, Mat2>(random_mats(n, n), Mat2Product{}, "mat2 product");
        check_scans<Affine, Affine>(random_affine(n, n), AffineCompose{}, "affine compose");
        check_scans<std::uint8_t, std::uint64_t>(random_ints<std::uint8_t>(n, n, 0, 1), Sum<std::uint64_t>{},
                                                 "uint8 -> uint64 count");
    }
}

TEST_CASE("GPU scans above 2^31 elements", "[gpu][scan][large]") {
    const std::size_t n = (std::size_t(1) << 31) + 4097 * 3 + 11;
    std::size_t free_bytes = 0, total_bytes = 0;
    TS_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    if (free_bytes < n * (1 + 8) + (std::size_t(1) << 30)) {
        WARN("skipped: " << (free_bytes >> 30) << " GiB free, the test needs about 20");
        return;
    }
    DeviceBuffer<std::uint8_t> flags(n);
    testing::scan_test_fill_flags(flags.data(), n);
    for (ScanAlgorithm algorithm : {ScanAlgorithm::decoupled_lookback, ScanAlgorithm::reduce_then_scan}) {
        DeviceBuffer<std::uint64_t> offsets(n);
        DeviceBuffer<std::uint64_t> total(1);
        const std::size_t bytes = scan_temp_bytes<std::uint8_t, std::uint64_t>(n, algorithm);
        DeviceBuffer<unsigned char> temp(bytes);
        exclusive_scan(flags.data(), offsets.data(), n, Sum<std::uint64_t>{}, temp.data(), bytes, nullptr, algorithm,
                       total.data());
        TS_CUDA_CHECK(cudaDeviceSynchronize());
        // Check in slices against a running count.
        const std::size_t slice = std::size_t(1) << 27;
        std::vector<std::uint64_t> host(slice);
        std::uint64_t count = 0;
        std::size_t first_bad = n;
        for (std::size_t first = 0; first < n && first_bad == n; first += slice) {
            const std::size_t m = std::min(slice, n - first);
            TS_CUDA_CHECK(cudaMemcpy(host.data(), offsets.data() + first, m * 8, cudaMemcpyDeviceToHost));
            for (std::size_t i = 0; i < m; ++i) {
                if (host[i] != count) {
                    first_bad = first + i;
                    break;
                }
                count += testing::scan_test_flag(first + i);
            }
        }
        INFO(scan_algorithm_name(algorithm) << ": first difference at " << first_bad << " of " << n);
        CHECK(first_bad == n);
        CHECK(download(total.data(), 1)[0] == count);
    }
}
