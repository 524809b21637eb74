/// @file
/// Ordered binning on the GPU: a stable counting sort of elements by bin, the renderer's binning
/// of circles into tiles (see ordered_binning_cpu.h for the CPU versions and a worked example).
///
/// Element i lies in bin d_bins[i] and carries d_values[i]. The result: d_binned holds the values
/// grouped by bin, in input order inside each bin, and bin b owns d_binned[d_offsets[b],
/// d_offsets[b + 1]) (d_offsets has num_bins + 1 entries, 64-bit).
///
/// How: three paths, chosen per call (thresholds below); all give the same bits and take order
/// from input positions, never from atomics.
/// - Small inputs (n <= kSmallBinningDispatchElements and num_bins <= kSmallBinningMaxBins, and the
///   device grants the shared memory): one kernel of one block of 8 warps, a
///   counting sort in shared memory. Warp w owns the w-th eighth of the input, in order. It counts
///   its eighth into its own counter per bin (equal bins of a warp's 32 elements added once, by one
///   lane); the block scans the counters bin-major, warp-minor, so counter (b, w) becomes the slot
///   of warp w's first element of bin b, and counter (b, 0) is bin b's offset; then each warp walks
///   its eighth again and writes each element to its counter plus its rank among the equal bins of
///   lower lanes, advancing the counter. One launch, where the radix path takes five.
/// - Mid-size inputs, and small ones with too many bins for one block (n <=
///   kChunkedBinningDispatchElements and num_bins <= kChunkedBinningMaxBins): the same counting
///   sort over many blocks, one per chunk of chunked_binning_chunk(n) consecutive elements. (1) Each
///   chunk counts its elements per bin in shared memory and writes the column
///   counts[bin * chunks + chunk]; (2) one exclusive scan of those counts with the scan library
///   turns entry (b, c) into the slot of chunk c's first element of bin b, and entry (b, 0) is bin
///   b's offset; (3) each chunk loads its column as per-bin cursors and one warp walks the chunk in
///   input order, writing each element to its cursor plus its rank among the equal bins of lower
///   lanes. Three launches (count, which also clears the scan's status, the scan, scatter), each
///   short.
/// - Otherwise: a stable LSD radix sort of the (bin, value) pairs over the bin id's bits only
///   (radix_sort.h: per 8-bit digit, counts per partition of the input -> one exclusive scan with
///   the scan library -> a block-local stable ranking and a scatter of each digit's run); 4096 bins
///   take two passes. The bin offsets are then searched for in the sorted bins (a warp per bin,
///   32 probes a round, up to 2^15 bins; a thread per bin beyond).
///
/// Sizes: n < 2^32 elements per call (kOrderedBinningMaxElements; larger inputs are split by the
/// caller, as the renderer bands its tile grid), any num_bins >= 1; offsets are 64-bit.
/// Never allocates: ordered_binning_temp_bytes() tells the temporary storage a call needs: enough
/// for every path that can take (n, num_bins), whichever the thresholds pick, so it depends on n
/// and num_bins but not on the dispatch. Asynchronous on `stream` and capturable in a CUDA graph
/// (the small path also sets its kernel's shared-memory limit, a host-side attribute, not stream
/// work); CUDA failures throw CudaError, bad arguments std::invalid_argument.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "kernels/primitives/bin_bits.h"  // ordered_binning_bin_bits

namespace tilescan {

/// Elements one call bins at most (exclusive): positions inside the radix sort are 32-bit.
constexpr std::size_t kOrderedBinningMaxElements = std::size_t(1) << 32;

/// Largest n the single-block kernel takes (its 32-bit indices and counters; it is dispatched only
/// up to kSmallBinningDispatchElements, where the chunked path overtakes it).
constexpr std::size_t kSmallBinningMaxElements = std::size_t(1) << 13;

/// Largest num_bins for the single-block kernel: its 8 warps' 32-bit counters per bin, plus 8 words
/// of scratch, fit in 160 KiB of shared memory ((160 * 1024 - 32) / 32 bins), below what large GPUs
/// allow a block, so that more of the SM's L1 and shared memory stays cache.
constexpr std::uint32_t kSmallBinningMaxBins = 5119;

/// Consecutive elements per chunk of the chunked path: one block per chunk, whose scatter is one
/// warp walking the chunk in rounds of 32 (see ordered_binning.cu for why one warp).
constexpr std::size_t kChunkedBinningChunk = 1024;

/// The chunk length for inputs of up to kChunkedBinningShortChunkElements elements: short chunks
/// make each scattering warp walk 8 rounds, not 32. The rounds are the path's longest step at these
/// sizes, and the 4x larger count matrix adds less to its scan (docs/tuning.md#ordered-binning-paths).
constexpr std::size_t kChunkedBinningShortChunk = 256;

/// The largest input cut into chunks of kChunkedBinningShortChunk (chunked_binning_chunk).
constexpr std::size_t kChunkedBinningShortChunkElements = std::size_t(1) << 15;

/// The chunk length of the chunked path for n elements.
constexpr std::size_t chunked_binning_chunk(std::size_t n) {
    return n <= kChunkedBinningShortChunkElements ? kChunkedBinningShortChunk : kChunkedBinningChunk;
}

/// Largest n the chunked path takes: its count matrix (n / chunked_binning_chunk(n) chunks by
/// num_bins) stays at most 256 x 8192 words (8 MiB, resident in a large GPU's L2 between the three
/// steps; short chunks stop at 2^15 / 256 = 128 chunks).
constexpr std::size_t kChunkedBinningMaxElements = std::size_t(1) << 18;

/// Largest num_bins for the chunked path: a block's 32-bit counter per bin fits the 48 KiB of
/// shared memory a kernel gets without opting in (8192 bins: 32 KiB), several blocks per SM.
constexpr std::uint32_t kChunkedBinningMaxBins = 8192;

/// Dispatch thresholds: ordered_binning gives inputs of up to kSmallBinningDispatchElements
/// elements to the single-block kernel, up to kChunkedBinningDispatchElements to the chunked path
/// (each when num_bins fits it too), and the rest to the radix path: each where it is the fastest
/// (docs/tuning.md#ordered-binning-paths).
constexpr std::size_t kSmallBinningDispatchElements = 4608;
/// The radix path catches up with the chunked path here (docs/tuning.md#ordered-binning-paths).
constexpr std::size_t kChunkedBinningDispatchElements = std::size_t(1) << 17;
static_assert(kSmallBinningDispatchElements <= kSmallBinningMaxElements &&
                  kChunkedBinningDispatchElements <= kChunkedBinningMaxElements,
              "a threshold may not send a path inputs beyond its limits");

/// Bytes of temporary device storage ordered_binning of n elements into num_bins bins needs, on any
/// path that can take them (so also when a test or benchmark forces one: ordered_binning_paths.h).
std::size_t ordered_binning_temp_bytes(std::size_t n, std::uint32_t num_bins);

/// Stable counting sort of n elements by bin, asynchronous on `stream`: d_binned receives d_values
/// grouped by bin (input order inside a bin), d_offsets[b] the first slot of bin b and
/// d_offsets[num_bins] = n. All pointers are device memory; d_binned must not alias d_values.
/// Bins must be < num_bins (not checked on the device: a larger one corrupts the result, and on the
/// single-block and chunked paths lands outside their shared counters). Exact and deterministic:
/// positions come from scans, never from atomics. Small inputs take the single-block kernel, mid-size ones the
/// chunked path, others radix_sort_pairs over bits [0, ceil(log2 num_bins)) (see the file comment).
/// With a device count d_count (kernels/primitives/device_count.cuh), only the first
/// min(n, *d_count) elements are binned (d_offsets[num_bins] is their number), the count being read
/// on the device: n picks the path and sizes the launches, an earlier kernel may write the count.
/// @throws std::invalid_argument num_bins == 0, d_binned == d_values, n >= kOrderedBinningMaxElements,
///         or too little temporary storage.
/// @throws CudaError when a CUDA call fails.
void ordered_binning(const std::uint32_t* d_bins,    // [n], each < num_bins
                     const std::uint32_t* d_values,  // [n]
                     std::size_t n, std::uint32_t num_bins,
                     std::uint32_t* d_binned,   // [n]
                     std::uint64_t* d_offsets,  // [num_bins + 1]
                     void* d_temp, std::size_t temp_bytes, cudaStream_t stream = nullptr,
                     const std::uint64_t* d_count = nullptr);

}  // namespace tilescan
