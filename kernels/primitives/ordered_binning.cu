// GPU ordered binning (see ordered_binning.h): digit passes of count -> scan -> stable scatter.
#include <stdexcept>
#include <string>

#include "kernels/cuda_check.h"
#include "kernels/primitives/lower_bound.cuh"
#include "kernels/primitives/ordered_binning.h"
#include "kernels/scan/scan.h"

namespace tilescan {

namespace {

constexpr int kBlock = 256;
constexpr int kWarpsPerBlock = kBlock / 32;
constexpr int kRoundsPerWarp = 32;
constexpr std::size_t kItemsPerWarp = std::size_t(32) * kRoundsPerWarp;  // 1024 consecutive elements
constexpr int kMaxDigitBits = 8;
constexpr int kMaxRadix = 1 << kMaxDigitBits;

// How the bin id is cut into digits: `passes` digits of `digit_bits` bits each.
struct DigitPlan {
    int passes;
    int digit_bits;
};

DigitPlan digit_plan(std::uint32_t num_bins) {
    int bits = 0;
    while (bits < 32 && (std::uint64_t(1) << bits) < num_bins) ++bits;
    const int passes = (bits + kMaxDigitBits - 1) / kMaxDigitBits;
    return {passes, passes ? (bits + passes - 1) / passes : 0};
}

// Each warp owns kItemsPerWarp consecutive elements: the unit of the digit-count matrix.
std::size_t warp_count(std::size_t n) { return (n + kItemsPerWarp - 1) / kItemsPerWarp; }
unsigned block_count(std::size_t warps) { return static_cast<unsigned>((warps + kWarpsPerBlock - 1) / kWarpsPerBlock); }

std::size_t aligned(std::size_t bytes) { return (bytes + 255) & ~std::size_t(255); }

// The carve-up of the caller's temporary storage.
struct BinningTemp {
    std::uint32_t* keys_a;        // [n] digit-sorted bins, ping
    std::uint32_t* keys_b;        // [n] pong
    std::uint32_t* values;        // [n] values between passes
    std::uint32_t* digit_counts;  // [radix * warps], digit-major
    std::uint64_t* digit_starts;  // [radix * warps], their exclusive scan
    void* scan_temp;
    std::size_t scan_temp_bytes;
    std::size_t total_bytes;
};

BinningTemp carve_temp(std::size_t n, std::uint32_t num_bins, void* base) {
    const DigitPlan plan = digit_plan(num_bins);
    const std::size_t counts = warp_count(n) * (std::size_t(1) << plan.digit_bits);
    BinningTemp t{};
    t.scan_temp_bytes = scan_temp_bytes<std::uint32_t, std::uint64_t>(counts);
    const std::size_t sizes[] = {aligned(n * 4),      aligned(n * 4),      aligned(n * 4),
                                 aligned(counts * 4), aligned(counts * 8), aligned(t.scan_temp_bytes)};
    char* p = static_cast<char*>(base);
    void** slots[] = {reinterpret_cast<void**>(&t.keys_a),       reinterpret_cast<void**>(&t.keys_b),
                      reinterpret_cast<void**>(&t.values),       reinterpret_cast<void**>(&t.digit_counts),
                      reinterpret_cast<void**>(&t.digit_starts), &t.scan_temp};
    for (int k = 0; k < 6; ++k) {
        *slots[k] = p;
        p += sizes[k];
        t.total_bytes += sizes[k];
    }
    return t;
}

__device__ inline std::uint32_t lanes_below() {
    std::uint32_t mask;
    asm("mov.u32 %0, %%lanemask_lt;" : "=r"(mask));
    return mask;
}

// The lanes of this warp holding the same digit as this lane (0 for lanes past n): one ballot per
// digit bit, which is several times faster than __match_any_sync on sm_90.
__device__ inline std::uint32_t lanes_with_digit(std::uint32_t digit, int digit_bits, bool valid) {
    std::uint32_t peers = __ballot_sync(0xffffffffu, valid);
    for (int b = 0; b < digit_bits; ++b) {
        const bool bit = (digit >> b) & 1u;
        const std::uint32_t ones = __ballot_sync(0xffffffffu, bit);
        peers &= bit ? ones : ~ones;
    }
    return valid ? peers : 0u;
}

// counts[digit * warps + warp] = how many of the warp's elements have that digit. Equal digits in
// a round are counted once by their lowest lane (a warp vote), so no atomics are needed.
__global__ void count_digits_kernel(const std::uint32_t* __restrict__ keys, std::size_t n, std::size_t warps, int shift,
                                    int digit_bits, std::uint32_t* __restrict__ counts) {
    const std::uint32_t mask = (1u << digit_bits) - 1;
    __shared__ std::uint32_t histogram[kWarpsPerBlock][kMaxRadix];
    const int lane = threadIdx.x & 31;
    const int warp = threadIdx.x >> 5;
    const std::size_t global_warp = std::size_t(blockIdx.x) * kWarpsPerBlock + warp;
    if (global_warp >= warps) return;
    std::uint32_t* my_histogram = histogram[warp];
    for (std::uint32_t d = lane; d <= mask; d += 32) my_histogram[d] = 0;
    __syncwarp();
    const std::size_t base = global_warp * kItemsPerWarp;
    for (int round = 0; round < kRoundsPerWarp; ++round) {
        const std::size_t i = base + std::size_t(round) * 32 + lane;
        const bool valid = i < n;
        const std::uint32_t digit = valid ? (keys[i] >> shift) & mask : 0u;
        const std::uint32_t peers = lanes_with_digit(digit, digit_bits, valid);
        if (valid && (peers & lanes_below()) == 0) my_histogram[digit] += __popc(peers);
        __syncwarp();
    }
    for (std::uint32_t d = lane; d <= mask; d += 32) counts[std::size_t(d) * warps + global_warp] = my_histogram[d];
}

// Moves each (key, value) to starts[digit][warp] + its rank among the warp's earlier elements of the
// same digit. A warp walks its elements in rounds of 32 (lane order = input order); inside a round
// equal digits are ranked by vote, and the warp's running slot per digit advances by their number.
// No block-wide synchronization: warps are independent.
__global__ void scatter_digits_kernel(const std::uint32_t* __restrict__ keys_in,
                                      const std::uint32_t* __restrict__ values_in, std::size_t n, std::size_t warps,
                                      int shift, int digit_bits, const std::uint64_t* __restrict__ starts,
                                      std::uint32_t* __restrict__ keys_out, std::uint32_t* __restrict__ values_out) {
    const std::uint32_t mask = (1u << digit_bits) - 1;
    __shared__ std::uint64_t next_slot[kWarpsPerBlock][kMaxRadix];
    const int lane = threadIdx.x & 31;
    const int warp = threadIdx.x >> 5;
    const std::size_t global_warp = std::size_t(blockIdx.x) * kWarpsPerBlock + warp;
    if (global_warp >= warps) return;
    std::uint64_t* my_slots = next_slot[warp];
    for (std::uint32_t d = lane; d <= mask; d += 32) my_slots[d] = starts[std::size_t(d) * warps + global_warp];
    __syncwarp();
    const std::size_t base = global_warp * kItemsPerWarp;
    for (int round = 0; round < kRoundsPerWarp; ++round) {
        const std::size_t i = base + std::size_t(round) * 32 + lane;
        const bool valid = i < n;
        const std::uint32_t key = valid ? keys_in[i] : 0;
        const std::uint32_t digit = valid ? (key >> shift) & mask : 0u;
        const std::uint32_t peers = lanes_with_digit(digit, digit_bits, valid);
        const std::uint32_t rank = __popc(peers & lanes_below());
        if (valid) {
            const std::uint64_t slot = my_slots[digit] + rank;
            if (keys_out) keys_out[slot] = key;
            values_out[slot] = values_in[i];
        }
        __syncwarp();
        if (valid && rank == 0) my_slots[digit] += __popc(peers);
        __syncwarp();
    }
}

// offsets[b] = the first position of the sorted bins holding a bin >= b (offsets[num_bins] = n).
__global__ void bin_offsets_kernel(const std::uint32_t* __restrict__ sorted_bins, std::size_t n, std::uint32_t num_bins,
                                   std::uint64_t* __restrict__ offsets) {
    const std::uint64_t b = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (b > num_bins) return;
    offsets[b] = first_index_of_bin(b, n, [&](std::size_t i) { return std::uint64_t(sorted_bins[i]); });
}

void run_digit_pass(const std::uint32_t* keys_in, const std::uint32_t* values_in, std::size_t n, int shift,
                    int digit_bits, const BinningTemp& t, std::uint32_t* keys_out, std::uint32_t* values_out,
                    cudaStream_t stream) {
    const std::size_t warps = warp_count(n);
    count_digits_kernel<<<block_count(warps), kBlock, 0, stream>>>(keys_in, n, warps, shift, digit_bits,
                                                                   t.digit_counts);
    TS_CUDA_CHECK_LAUNCH();
    exclusive_scan(t.digit_counts, t.digit_starts, warps << digit_bits, Sum<std::uint64_t>{}, t.scan_temp,
                   t.scan_temp_bytes, stream);
    scatter_digits_kernel<<<block_count(warps), kBlock, 0, stream>>>(keys_in, values_in, n, warps, shift, digit_bits,
                                                                     t.digit_starts, keys_out, values_out);
    TS_CUDA_CHECK_LAUNCH();
}

}  // namespace

std::size_t ordered_binning_temp_bytes(std::size_t n, std::uint32_t num_bins) {
    return carve_temp(n, num_bins, nullptr).total_bytes;
}

void ordered_binning(const std::uint32_t* d_bins, const std::uint32_t* d_values, std::size_t n, std::uint32_t num_bins,
                     std::uint32_t* d_binned, std::uint64_t* d_offsets, void* d_temp, std::size_t temp_bytes,
                     cudaStream_t stream) {
    if (num_bins == 0) throw std::invalid_argument("ordered_binning: num_bins must be at least 1");
    if (n > 0 && d_binned == d_values) throw std::invalid_argument("ordered_binning: d_binned must not alias d_values");
    if (block_count(warp_count(n)) > 0x7fffffffu)
        throw std::invalid_argument("ordered_binning: n is beyond the grid limit");
    const BinningTemp t = carve_temp(n, num_bins, d_temp);
    if (temp_bytes < t.total_bytes)
        throw std::invalid_argument("ordered_binning: temporary storage of " + std::to_string(temp_bytes) + " bytes, " +
                                    std::to_string(t.total_bytes) + " needed");
    const DigitPlan plan = digit_plan(num_bins);
    const std::uint32_t* sorted_bins = d_bins;
    if (n == 0 || plan.passes == 0) {
        if (n > 0) TS_CUDA_CHECK(cudaMemcpyAsync(d_binned, d_values, n * 4, cudaMemcpyDeviceToDevice, stream));
    } else {
        const std::uint32_t* keys_in = d_bins;
        const std::uint32_t* values_in = d_values;
        for (int pass = 0; pass < plan.passes; ++pass) {
            // Alternate buffers so the last pass lands in d_binned, and no pass reads what it writes.
            const bool to_caller = (plan.passes - 1 - pass) % 2 == 0;
            std::uint32_t* keys_out = pass % 2 == 0 ? t.keys_a : t.keys_b;
            std::uint32_t* values_out = to_caller ? d_binned : t.values;
            run_digit_pass(keys_in, values_in, n, pass * plan.digit_bits, plan.digit_bits, t, keys_out, values_out,
                           stream);
            keys_in = keys_out;
            values_in = values_out;
        }
        sorted_bins = keys_in;
    }
    const unsigned offset_blocks = static_cast<unsigned>((std::uint64_t(num_bins) + 1 + 255) / 256);
    bin_offsets_kernel<<<offset_blocks, 256, 0, stream>>>(sorted_bins, n, num_bins, d_offsets);
    TS_CUDA_CHECK_LAUNCH();
}

}  // namespace tilescan
