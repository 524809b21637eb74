// The primitives benchmark: tilescan's compaction, partition, find_repeats, histogram and radix
// sort, and ordered binning side by side with cub::DeviceSelect / DevicePartition, cub::DeviceRunLengthEncode
// (NonTrivialRuns, for find_repeats), cub::DeviceHistogram, cub::DeviceRadixSort (also as the
// sort-based binning peer, on 64-bit (bin, index) keys) and thrust::sort, in one run, following
// the method of docs/development.md ("Benchmarks"): inputs generated on the device (random, never
// zeros), CUDA events around each call, 3 warm-ups, median of 20 (10 with --quick), every timed
// output checked (against CUB's output on the device, find_repeats against
// the multi-threaded CPU version, the ordered-binning paths against the serial CPU binning). The
// "ordered binning paths" rows time each binning path forced on the same input (2^12..2^18
// elements into 4097 bins) to set ordered_binning's dispatch thresholds.
//
//   tilescan_primitives_bench [--out DIR] [--quick] [--commit HASH] [--only GROUP] [--sizes LOG2,...]
// prints the table (markdown) and writes DIR/primitives_bench.md (with a header: date, commit,
// device, CUDA version) and DIR/primitives_bench.csv.
#include <thrust/device_ptr.h>
#include <thrust/execution_policy.h>
#include <thrust/sort.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cub/device/device_histogram.cuh>
#include <cub/device/device_partition.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_run_length_encode.cuh>
#include <cub/device/device_select.cuh>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "bench/bench_support.cuh"
#include "kernels/cuda_check.h"
#include "kernels/device_buffer.h"
#include "kernels/primitives/compaction.h"
#include "kernels/primitives/compaction_cpu.h"
#include "kernels/primitives/find_repeats.h"
#include "kernels/primitives/histogram.h"
#include "kernels/primitives/ordered_binning.h"
#include "kernels/primitives/ordered_binning_cpu.h"
#include "kernels/primitives/ordered_binning_paths.h"
#include "kernels/primitives/radix_sort.h"
#include "kernels/scan/scan.h"

using namespace tilescan;

namespace {

// kind 0: full-range random bits; kind 1: values 0..3 (runs for find_repeats); kind 2: float [0,1)
template <typename T>
__global__ void fill_kernel(T* data, std::size_t n, int kind, std::uint64_t seed) {
    for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
         i += std::size_t(gridDim.x) * blockDim.x) {
        const std::uint64_t h = bench::mix(i ^ (seed << 40));
        if (kind == 1)
            data[i] = T(h % 4);
        else if (kind == 2)
            data[i] = T(float(h >> 40) * (1.0f / 16777216.0f));
        else
            data[i] = T(h);
    }
}

template <typename T>
void fill(T* d, std::size_t n, int kind, std::uint64_t seed) {
    fill_kernel<<<1024, 256>>>(d, n, kind, seed);
    TS_CUDA_CHECK_LAUNCH();
}

__global__ void flags_kernel(const std::uint32_t* in, std::uint8_t* flags, std::size_t n, std::uint32_t bound) {
    for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
         i += std::size_t(gridDim.x) * blockDim.x)
        flags[i] = in[i] < bound ? 1 : 0;
}

template <typename T>
T read1(const T* d) {
    T h{};
    TS_CUDA_CHECK(cudaMemcpy(&h, d, sizeof(T), cudaMemcpyDeviceToHost));
    return h;
}

template <typename T>
std::vector<T> to_host(const T* d, std::size_t n) {
    std::vector<T> h(n);
    TS_CUDA_CHECK(cudaMemcpy(h.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost));
    return h;
}

template <typename T>
void to_device(T* d, const std::vector<T>& h) {
    TS_CUDA_CHECK(cudaMemcpy(d, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
}

int g_runs = 20;

double median_ms(const std::function<void()>& run) { return bench::median_ms(run, g_runs); }

struct Row {
    std::string primitive, variant;
    std::size_t n;
    double ours, cub, thrust;  // thrust < 0: not measured
    bool ok;
};
std::vector<Row> g_rows;

void add_row(Row r) {
    std::printf("| %s | %s | %s | %s | %s | %s | %s | %s |\n", r.primitive.c_str(), r.variant.c_str(),
                bench::size_name(r.n).c_str(), bench::fixed(r.ours, 4).c_str(), bench::fixed(r.cub, 4).c_str(),
                bench::fixed(r.cub / r.ours, 2).c_str(), r.thrust >= 0 ? bench::fixed(r.thrust, 4).c_str() : "-",
                r.ok ? "ok" : "MISMATCH");
    std::fflush(stdout);
    g_rows.push_back(r);
}

// ---- compaction -----------------------------------------------------------------------------

void bench_select(std::size_t n) {
    DeviceBuffer<std::uint32_t> in(n), out(n), ref(n);
    DeviceBuffer<std::uint8_t> flags(n);
    DeviceBuffer<std::uint64_t> count(1);
    DeviceBuffer<int> cub_count(1);
    fill(in.data(), n, 0, 1);
    const std::uint32_t bound = 0x80000000u;  // 50% kept
    flags_kernel<<<1024, 256>>>(in.data(), flags.data(), n, bound);
    TS_CUDA_CHECK_LAUNCH();
    const LessThan<std::uint32_t> pred{bound};
    std::size_t cub_bytes = 0, cub_bytes2 = 0, cub_bytes3 = 0;
    cub::DeviceSelect::If(nullptr, cub_bytes, in.data(), ref.data(), cub_count.data(), int(n), pred);
    cub::DeviceSelect::Flagged(nullptr, cub_bytes2, in.data(), flags.data(), ref.data(), cub_count.data(), int(n));
    cub::DevicePartition::If(nullptr, cub_bytes3, in.data(), ref.data(), cub_count.data(), int(n), pred);
    const std::size_t bytes = std::max({select_temp_bytes<std::uint32_t>(n, SelectAlgorithm::single_pass),
                                        select_temp_bytes<std::uint32_t>(n, SelectAlgorithm::single_pass_two_level),
                                        select_temp_bytes<std::uint32_t>(n, SelectAlgorithm::reduce_then_scan),
                                        partition_temp_bytes<std::uint32_t>(n), cub_bytes, cub_bytes2, cub_bytes3});
    DeviceBuffer<unsigned char> temp(bytes);

    const double cub_if = median_ms(
        [&] { cub::DeviceSelect::If(temp.data(), cub_bytes, in.data(), ref.data(), cub_count.data(), int(n), pred); });
    const std::uint64_t kept = std::uint64_t(read1(cub_count.data()));
    // Times `run` (it writes `out` and `count`) and checks what it wrote against CUB's kept
    // elements in `ref`; both are wiped first, so no earlier run's output can pass for its own.
    const auto time_and_check = [&](const std::function<void()>& run) {
        TS_CUDA_CHECK(cudaMemset(out.data(), 0xa5, n * sizeof(std::uint32_t)));
        TS_CUDA_CHECK(cudaMemset(count.data(), 0xff, sizeof(std::uint64_t)));
        const double ms = median_ms(run);
        const bool ok = read1(count.data()) == kept && bench::count_mismatches(out.data(), ref.data(), kept) == 0;
        return std::make_pair(ms, ok);
    };
    for (SelectAlgorithm a :
         {SelectAlgorithm::reduce_then_scan, SelectAlgorithm::single_pass_two_level, SelectAlgorithm::single_pass}) {
        const auto [ours, ok] = time_and_check(
            [&] { select_if(in.data(), out.data(), n, pred, count.data(), temp.data(), bytes, nullptr, a); });
        add_row({"select_if (50%) u32", select_algorithm_name(a), n, ours, cub_if, -1, ok});
    }
    // The single pass over a workspace: no launch to clear its status slots (compaction.h).
    ScanWorkspace workspace;
    workspace.reserve_bytes(select_workspace_bytes<std::uint32_t>(n));
    const auto [ours_workspace, workspace_ok] =
        time_and_check([&] { select_if(in.data(), out.data(), n, pred, count.data(), workspace); });
    add_row({"select_if (50%) u32", "single_pass (workspace)", n, ours_workspace, cub_if, -1, workspace_ok});
    const double cub_flagged = median_ms([&] {
        cub::DeviceSelect::Flagged(temp.data(), cub_bytes2, in.data(), flags.data(), ref.data(), cub_count.data(),
                                   int(n));
    });
    const auto [ours_flagged, flagged_ok] = time_and_check(
        [&] { select_flagged(in.data(), flags.data(), out.data(), n, count.data(), temp.data(), bytes); });
    add_row({"select_flagged (50%) u32", "single_pass", n, ours_flagged, cub_flagged, -1, flagged_ok});
    const auto [ours_flagged_workspace, flagged_workspace_ok] =
        time_and_check([&] { select_flagged(in.data(), flags.data(), out.data(), n, count.data(), workspace); });
    add_row({"select_flagged (50%) u32", "single_pass (workspace)", n, ours_flagged_workspace, cub_flagged, -1,
             flagged_workspace_ok});
    // CUB's partition writes the rejected elements in reverse, ours in input order: our rejected
    // half is compared with CUB's read backwards.
    const double cub_part = median_ms([&] {
        cub::DevicePartition::If(temp.data(), cub_bytes3, in.data(), ref.data(), cub_count.data(), int(n), pred);
    });
    auto [ours_part, part_ok] =
        time_and_check([&] { partition_if(in.data(), out.data(), n, pred, count.data(), temp.data(), bytes); });
    part_ok = part_ok && bench::count_mismatches(out.data() + kept, ref.data() + kept, n - kept, true) == 0;
    add_row({"partition_if (50%) u32", "resident or three phases (stable both halves)", n, ours_part, cub_part, -1,
             part_ok});
}

// ---- find_repeats ----------------------------------------------------------------------------

void bench_find_repeats(std::size_t n) {
    DeviceBuffer<std::int32_t> a(n), offsets(n), lengths(n);
    DeviceBuffer<std::uint32_t> idx(n);
    DeviceBuffer<std::uint64_t> count(1);
    DeviceBuffer<int> runs(1);
    fill(a.data(), n, 1, 2);
    std::size_t cub_bytes = 0;
    cub::DeviceRunLengthEncode::NonTrivialRuns(nullptr, cub_bytes, a.data(), offsets.data(), lengths.data(),
                                               runs.data(), int(n));
    const std::size_t bytes = std::max(find_repeats_temp_bytes<std::int32_t>(n), cub_bytes);
    DeviceBuffer<unsigned char> temp(bytes);
    const double cub_ms = median_ms([&] {
        cub::DeviceRunLengthEncode::NonTrivialRuns(temp.data(), cub_bytes, a.data(), offsets.data(), lengths.data(),
                                                   runs.data(), int(n));
    });
    // Checked on the host against the multi-threaded CPU version.
    std::vector<std::int32_t> h(n);
    TS_CUDA_CHECK(cudaMemcpy(h.data(), a.data(), n * 4, cudaMemcpyDeviceToHost));
    std::vector<std::uint32_t> expect(n);
    expect.resize(cpu_find_repeats(h.data(), n, expect.data()));
    // Times `run` (it writes `idx` and `count`) and checks what it wrote; both are wiped first, so
    // no earlier run's output can pass for its own.
    const auto time_and_check = [&](const std::function<void()>& run) {
        TS_CUDA_CHECK(cudaMemset(idx.data(), 0xa5, n * sizeof(std::uint32_t)));
        TS_CUDA_CHECK(cudaMemset(count.data(), 0xff, sizeof(std::uint64_t)));
        const double ms = median_ms(run);
        const bool ok = read1(count.data()) == expect.size() && to_host(idx.data(), expect.size()) == expect;
        return std::make_pair(ms, ok);
    };
    const auto [ours, ok] =
        time_and_check([&] { find_repeats(a.data(), n, idx.data(), count.data(), temp.data(), bytes); });
    add_row({"find_repeats i32 (values 0..3)", "vs RLE::NonTrivialRuns", n, ours, cub_ms, -1, ok});
    ScanWorkspace workspace;
    workspace.reserve_bytes(find_repeats_workspace_bytes<std::int32_t>(n));
    const auto [ours_workspace, workspace_ok] =
        time_and_check([&] { find_repeats(a.data(), n, idx.data(), count.data(), workspace); });
    add_row({"find_repeats i32 (values 0..3)", "vs RLE::NonTrivialRuns, ours with a workspace", n, ours_workspace,
             cub_ms, -1, workspace_ok});
}

// ---- histogram -------------------------------------------------------------------------------

void bench_histogram(std::size_t n) {
    DeviceBuffer<float> f(n);
    DeviceBuffer<std::uint32_t> u(n);
    fill(f.data(), n, 2, 3);
    fill(u.data(), n, 0, 4);
    constexpr int kBins = 256;
    DeviceBuffer<std::uint64_t> ours_counts(kBins);
    DeviceBuffer<unsigned int> cub_counts(kBins);
    std::size_t cub_bytes = 0, cub_bytes2 = 0;
    cub::DeviceHistogram::HistogramEven(nullptr, cub_bytes, f.data(), cub_counts.data(), kBins + 1, 0.0f, 1.0f, int(n));
    cub::DeviceHistogram::HistogramEven(nullptr, cub_bytes2, u.data(), cub_counts.data(), kBins + 1, 0u, 0xffffff00u,
                                        int(n));
    DeviceBuffer<unsigned char> temp(std::max(cub_bytes, cub_bytes2));
    auto check = [&] {
        std::vector<std::uint64_t> a(kBins);
        std::vector<unsigned int> b(kBins);
        TS_CUDA_CHECK(cudaMemcpy(a.data(), ours_counts.data(), kBins * 8, cudaMemcpyDeviceToHost));
        TS_CUDA_CHECK(cudaMemcpy(b.data(), cub_counts.data(), kBins * 4, cudaMemcpyDeviceToHost));
        for (int i = 0; i < kBins; ++i)
            if (a[i] != b[i]) return false;
        return true;
    };
    {
        const double cub_ms = median_ms([&] {
            cub::DeviceHistogram::HistogramEven(temp.data(), cub_bytes, f.data(), cub_counts.data(), kBins + 1, 0.0f,
                                                1.0f, int(n));
        });
        const EvenBins<float> rule(kBins, 0.0f, 1.0f);
        const double ours = median_ms([&] { histogram_even(f.data(), n, rule, ours_counts.data()); });
        add_row({"histogram 256 bins, float [0,1)", "", n, ours, cub_ms, -1, check()});
    }
    {
        const double cub_ms = median_ms([&] {
            cub::DeviceHistogram::HistogramEven(temp.data(), cub_bytes2, u.data(), cub_counts.data(), kBins + 1, 0u,
                                                0xffffff00u, int(n));
        });
        const EvenBins<std::uint32_t> rule(kBins, 0u, 0xffffff00u);
        const double ours = median_ms([&] { histogram_even(u.data(), n, rule, ours_counts.data()); });
        add_row({"histogram 256 bins, u32", "", n, ours, cub_ms, -1, check()});
    }
}

// ---- radix sort ------------------------------------------------------------------------------

template <typename K, bool kPairs>
void bench_sort(std::size_t n, int begin, int end, int digit_bits, bool with_thrust, const std::string& name,
                int key_kind = 0) {
    DeviceBuffer<K> keys(n), out(n), ref(n);
    DeviceBuffer<std::uint32_t> vals(kPairs ? n : 1), vout(kPairs ? n : 1), vref(kPairs ? n : 1);
    fill(keys.data(), n, key_kind, 5);
    if (kPairs) fill(vals.data(), n, 0, 6);
    std::size_t cub_bytes = 0;
    if constexpr (kPairs)
        cub::DeviceRadixSort::SortPairs(nullptr, cub_bytes, keys.data(), ref.data(), vals.data(), vref.data(), n, begin,
                                        end);
    else
        cub::DeviceRadixSort::SortKeys(nullptr, cub_bytes, keys.data(), ref.data(), n, begin, end);
    const std::size_t ours_bytes = kPairs ? radix_sort_pairs_temp_bytes<K, std::uint32_t>(n, digit_bits)
                                          : radix_sort_keys_temp_bytes<K>(n, digit_bits);
    DeviceBuffer<unsigned char> temp(std::max(cub_bytes, ours_bytes));
    const double cub_ms = median_ms([&] {
        if constexpr (kPairs)
            cub::DeviceRadixSort::SortPairs(temp.data(), cub_bytes, keys.data(), ref.data(), vals.data(), vref.data(),
                                            n, begin, end);
        else
            cub::DeviceRadixSort::SortKeys(temp.data(), cub_bytes, keys.data(), ref.data(), n, begin, end);
    });
    const double ours = median_ms([&] {
        if constexpr (kPairs)
            radix_sort_pairs(keys.data(), out.data(), vals.data(), vout.data(), n, temp.data(), ours_bytes, nullptr,
                             begin, end, digit_bits);
        else
            radix_sort_keys(keys.data(), out.data(), n, temp.data(), ours_bytes, nullptr, begin, end, digit_bits);
    });
    bool ok = bench::count_mismatches(out.data(), ref.data(), n) == 0;
    if (kPairs) ok = ok && bench::count_mismatches(vout.data(), vref.data(), n) == 0;
    double thrust_ms = -1;
    if (with_thrust) {
        thrust_ms = median_ms([&] {
            TS_CUDA_CHECK(cudaMemcpyAsync(out.data(), keys.data(), n * sizeof(K), cudaMemcpyDeviceToDevice));
            thrust::sort(thrust::device, thrust::device_ptr<K>(out.data()), thrust::device_ptr<K>(out.data() + n));
        });
        ok = ok && bench::count_mismatches(out.data(), ref.data(), n) == 0;
    }
    add_row(
        {name,
         std::to_string(digit_bits) + "-bit digits, bits [" + std::to_string(begin) + "," + std::to_string(end) + ")",
         n, ours, cub_ms, thrust_ms, ok});
}

// A sort whose length only the device knows: the renderer's bin stage sorts the emitted pairs of
// a capacity 1/8 larger (device_count.cuh). Ours sorts the first 8/9 of n keys (and values) by a
// device count; CUB, which takes its length from the host, sorts those 8/9 as they are: the ratio
// is what the count costs against a length the host knew.
void bench_sort_of_device_count(std::size_t n) {
    const std::size_t live = n / 9 * 8;
    DeviceBuffer<std::uint32_t> keys(n), out(n), ref(n), vals(n), vout(n), vref(n);
    DeviceBuffer<std::uint64_t> d_live(1);
    fill(keys.data(), n, 0, 5);
    fill(vals.data(), n, 0, 6);
    const std::uint64_t live_count = live;
    TS_CUDA_CHECK(cudaMemcpy(d_live.data(), &live_count, sizeof(live_count), cudaMemcpyHostToDevice));
    std::size_t cub_bytes = 0;
    cub::DeviceRadixSort::SortPairs(nullptr, cub_bytes, keys.data(), ref.data(), vals.data(), vref.data(), live, 0, 12);
    const std::size_t ours_bytes = radix_sort_pairs_temp_bytes<std::uint32_t, std::uint32_t>(n);
    DeviceBuffer<unsigned char> temp(std::max(cub_bytes, ours_bytes));
    const double cub_ms = median_ms([&] {
        cub::DeviceRadixSort::SortPairs(temp.data(), cub_bytes, keys.data(), ref.data(), vals.data(), vref.data(), live,
                                        0, 12);
    });
    const double ours = median_ms([&] {
        radix_sort_pairs(keys.data(), out.data(), vals.data(), vout.data(), n, temp.data(), ours_bytes, nullptr, 0, 12,
                         kRadixDefaultBits, d_live.data());
    });
    const bool ok = bench::count_mismatches(out.data(), ref.data(), live) == 0 &&
                    bench::count_mismatches(vout.data(), vref.data(), live) == 0;
    add_row({"radix sort pairs u32/u32, 12-bit range, 8/9 of n by a device count (CUB: the 8/9 by a host length)",
             "8-bit digits, bits [0,12)", n, ours, cub_ms, -1, ok});
}

void bench_sorts(std::size_t n) {
    bench_sort<std::uint32_t, false>(n, 0, 32, 8, true, "radix sort keys u32");
    bench_sort<std::uint32_t, false>(n, 0, 32, 4, false, "radix sort keys u32");
    bench_sort<std::uint32_t, true>(n, 0, 32, 8, false, "radix sort pairs u32/u32");
    bench_sort<std::uint64_t, false>(n, 0, 64, 8, false, "radix sort keys u64");
    bench_sort<std::uint64_t, true>(n, 0, 64, 8, false, "radix sort pairs u64/u32");
    bench_sort<std::uint32_t, false>(n, 0, 12, 8, false, "radix sort keys u32, 12-bit range");
    bench_sort<std::uint32_t, true>(n, 0, 12, 8, false, "radix sort pairs u32/u32, 12-bit range");
    // Few distinct digits: the ranking's lanes of one digit share a shared-memory mask and its atomics.
    bench_sort<std::uint32_t, false>(n, 0, 32, 8, false, "radix sort keys u32, 4 distinct values", 1);
    bench_sort_of_device_count(n);
}

// ---- ordered binning --------------------------------------------------------------------------

__global__ void binning_input_kernel(std::uint32_t* bins, std::uint32_t* values, std::uint64_t* pair_keys,
                                     std::size_t n, std::uint32_t num_bins) {
    for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
         i += std::size_t(gridDim.x) * blockDim.x) {
        bins[i] = std::uint32_t(bench::mix(i) % num_bins);
        values[i] = std::uint32_t(i);
        pair_keys[i] = (std::uint64_t(bins[i]) << 32) | values[i];
    }
}

// The value half of the peer's sorted (bin << 32 | index) keys, to compare with our binned values.
__global__ void low_words_kernel(const std::uint64_t* keys, std::uint32_t* low, std::size_t n) {
    for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
         i += std::size_t(gridDim.x) * blockDim.x)
        low[i] = std::uint32_t(keys[i]);
}

// What sort-based binning costs: cub::DeviceRadixSort of the 64-bit (bin << 32 | index) keys over
// the bits that vary (index bits and bin bits), into sorted_keys; temp must hold cub_bytes.
double time_sort_peer(const std::uint64_t* pair_keys, std::uint64_t* sorted_keys, std::size_t n, int end_bit,
                      void* temp, std::size_t cub_bytes) {
    return median_ms(
        [&] { TS_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(temp, cub_bytes, pair_keys, sorted_keys, n, 0, end_bit)); });
}

std::size_t sort_peer_temp_bytes(std::size_t n, int end_bit) {
    std::size_t bytes = 0;
    TS_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, bytes, static_cast<const std::uint64_t*>(nullptr),
                                                 static_cast<std::uint64_t*>(nullptr), n, 0, end_bit));
    return bytes;
}

// Ordered binning into `num_bins` bins against the sort-based peer.
void bench_binning(std::size_t n, std::uint32_t num_bins) {
    DeviceBuffer<std::uint32_t> bins(n), values(n), binned(n), peer_values(n);
    DeviceBuffer<std::uint64_t> offsets(num_bins + 1), pair_keys(n), sorted_keys(n);
    binning_input_kernel<<<1024, 256>>>(bins.data(), values.data(), pair_keys.data(), n, num_bins);
    TS_CUDA_CHECK_LAUNCH();
    const int end_bit = 32 + ordered_binning_bin_bits(num_bins);
    const std::size_t cub_bytes = sort_peer_temp_bytes(n, end_bit);
    const std::size_t ours_bytes = ordered_binning_temp_bytes(n, num_bins);
    DeviceBuffer<unsigned char> temp(std::max(cub_bytes, ours_bytes));
    const double cub_ms = time_sort_peer(pair_keys.data(), sorted_keys.data(), n, end_bit, temp.data(), cub_bytes);
    const double ours = median_ms([&] {
        ordered_binning(bins.data(), values.data(), n, num_bins, binned.data(), offsets.data(), temp.data(),
                        ours_bytes);
    });
    low_words_kernel<<<1024, 256>>>(sorted_keys.data(), peer_values.data(), n);
    TS_CUDA_CHECK_LAUNCH();
    const bool ok = bench::count_mismatches(binned.data(), peer_values.data(), n) == 0;
    add_row({"ordered binning, " + std::to_string(num_bins) + " bins",
             "vs CUB sort of u64 (bin, index) keys, bits [0," + std::to_string(end_bit) + ")", n, ours, cub_ms, -1,
             ok});
}

// The ordered-binning paths side by side on the same input, to set ordered_binning's dispatch
// thresholds: each path that takes (n, num_bins), forced (ordered_binning_paths.h), then the
// public entry with the thresholds it has now. Every timed result is checked exactly, values and
// offsets, against the serial CPU binning; the CUB column is the sort-based peer, as above.
void bench_binning_paths(std::size_t n, std::uint32_t num_bins) {
    DeviceBuffer<std::uint32_t> bins(n), values(n), binned(n);
    DeviceBuffer<std::uint64_t> offsets(num_bins + 1), pair_keys(n), sorted_keys(n);
    binning_input_kernel<<<1024, 256>>>(bins.data(), values.data(), pair_keys.data(), n, num_bins);
    TS_CUDA_CHECK_LAUNCH();
    std::vector<std::uint32_t> expected(n);
    std::vector<std::uint64_t> expected_offsets(std::size_t(num_bins) + 1);
    serial_ordered_binning(to_host(bins.data(), n).data(), to_host(values.data(), n).data(), n, num_bins,
                           expected.data(), expected_offsets.data());
    DeviceBuffer<std::uint32_t> d_expected(n);
    DeviceBuffer<std::uint64_t> d_expected_offsets(expected_offsets.size());
    to_device(d_expected.data(), expected);
    to_device(d_expected_offsets.data(), expected_offsets);
    const int end_bit = 32 + ordered_binning_bin_bits(num_bins);
    const std::size_t cub_bytes = sort_peer_temp_bytes(n, end_bit);
    const std::size_t ours_bytes = ordered_binning_temp_bytes(n, num_bins);
    DeviceBuffer<unsigned char> temp(std::max(cub_bytes, ours_bytes));
    const double cub_ms = time_sort_peer(pair_keys.data(), sorted_keys.data(), n, end_bit, temp.data(), cub_bytes);
    const std::string primitive = "ordered binning paths, " + std::to_string(num_bins) + " bins";
    const auto time_and_check = [&](const std::string& variant, const std::function<void()>& bin) {
        TS_CUDA_CHECK(cudaMemset(binned.data(), 0xa5, n * sizeof(std::uint32_t)));  // unwritten slots fail
        TS_CUDA_CHECK(cudaMemset(offsets.data(), 0xa5, (std::size_t(num_bins) + 1) * sizeof(std::uint64_t)));
        const double ms = median_ms(bin);
        const bool ok = bench::count_mismatches(binned.data(), d_expected.data(), n) == 0 &&
                        bench::count_mismatches(offsets.data(), d_expected_offsets.data(), num_bins + 1) == 0;
        add_row({primitive, variant, n, ms, cub_ms, -1, ok});
    };
    for (const OrderedBinningPath path :
         {OrderedBinningPath::single_block, OrderedBinningPath::chunked, OrderedBinningPath::radix_sort}) {
        if (!binning_path_fits(path, n, num_bins)) continue;
        time_and_check(std::string(binning_path_name(path)) + " path, forced", [&] {
            ordered_binning_on_path(path, bins.data(), values.data(), n, num_bins, binned.data(), offsets.data(),
                                    temp.data(), ours_bytes);
        });
    }
    time_and_check(std::string("ordered_binning, picks ") + binning_path_name(chosen_binning_path(n, num_bins)), [&] {
        ordered_binning(bins.data(), values.data(), n, num_bins, binned.data(), offsets.data(), temp.data(),
                        ours_bytes);
    });
}

}  // namespace

int main(int argc, char** argv) {
    const bench::Arguments args =
        bench::parse_arguments(argc, argv,
                               "tilescan_primitives_bench [--out DIR] [--quick] [--commit HASH] "
                               "[--only select|find_repeats|histogram|sort|binning] [--sizes LOG2,...]",
                               true);
    if (!args.ok) return 2;
    const std::set<std::string> groups = {"select", "find_repeats", "histogram", "sort", "binning"};
    if (!args.only.empty() && groups.count(args.only) == 0) {
        std::fprintf(stderr, "tilescan_primitives_bench: --only %s: no such group\n", args.only.c_str());
        return 2;
    }
    const std::string& out_dir = args.out_dir;
    const std::string& commit = args.commit;
    const bool quick = args.quick;
    try {
        if (quick) g_runs = 10;
        std::ostringstream header;
        header << "# Primitives benchmark: tilescan vs CUB (and thrust::sort)\n\n"
               << bench::environment_lines(commit) << "- method: CUDA events around each call, 3 warm-ups, median of "
               << g_runs
               << "; inputs generated on the device; outputs checked against CUB's (find_repeats against the CPU "
                  "version)\n- ratio = CUB time / our time (> 1: we are faster); thrust ms includes one "
                  "device-to-device copy of "
                  "the keys (thrust::sort sorts in place)\n\n"
               << "| primitive | variant | N | ours ms | CUB ms | ratio | thrust ms | check |\n"
               << "|---|---|---|---|---|---|---|---|\n";
        std::printf("%s", header.str().c_str());
        std::vector<std::size_t> sizes = {std::size_t(1) << 20, std::size_t(1) << 24, std::size_t(1) << 28};
        if (quick) sizes = {std::size_t(1) << 20, std::size_t(1) << 24};
        if (!args.sizes.empty()) sizes = args.sizes;
        // --only GROUP: that group's rows alone (tuning runs).
        const auto wanted = [&](const char* group) { return args.only.empty() || args.only == group; };
        if (wanted("select"))
            for (std::size_t n : sizes) bench_select(n);
        if (wanted("find_repeats"))
            for (std::size_t n : sizes) bench_find_repeats(n);
        if (wanted("histogram"))
            for (std::size_t n : sizes) bench_histogram(n);
        if (wanted("sort"))
            for (std::size_t n : sizes) bench_sorts(n);
        if (wanted("binning")) {
            for (std::size_t n : sizes) bench_binning(n, 4096);
            // The renderer's small frames: a 1024x1024 image in 16x16 tiles, plus the sentinel bin
            // (a fixed sweep, left out when --sizes picks the sizes).
            if (args.sizes.empty())
                for (int log2_n = 12; log2_n <= 18; ++log2_n) bench_binning_paths(std::size_t(1) << log2_n, 4097);
        }
        bool all_ok = true;
        std::ostringstream table, csv;
        csv << "primitive,variant,n,ours_ms,cub_ms,ratio,thrust_ms,check\n";
        for (const Row& r : g_rows) {
            all_ok = all_ok && r.ok;
            table << "| " << r.primitive << " | " << r.variant << " | " << bench::size_name(r.n) << " | "
                  << bench::fixed(r.ours, 4) << " | " << bench::fixed(r.cub, 4) << " | "
                  << bench::fixed(r.cub / r.ours, 2) << " | " << (r.thrust >= 0 ? bench::fixed(r.thrust, 4) : "-")
                  << " | " << (r.ok ? "ok" : "MISMATCH") << " |\n";
            csv << '"' << r.primitive << "\",\"" << r.variant << "\"," << r.n << "," << r.ours << "," << r.cub << ","
                << r.cub / r.ours << "," << r.thrust << "," << (r.ok ? "ok" : "mismatch") << "\n";
        }
        if (!out_dir.empty()) {
            std::ofstream(out_dir + "/primitives_bench.md") << header.str() << table.str();
            std::ofstream(out_dir + "/primitives_bench.csv") << csv.str();
        }
        return all_ok ? 0 : 1;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "error: %s\n", e.what());
        return 1;
    }
}
