/// @file
/// GPU histogram, host API: 64-bit per-bin counts, exact (integer additions only), with the bin
/// rule shared with the CPU (EvenBins, histogram_cpu.h). Same machinery as the radix sort's
/// digit counting: each block counts its samples in shared memory (one row per warp when they fit;
/// a warp whose samples share one bin adds 32 at once, so a constant input
/// costs no more than a random one), then adds its non-zero counts to d_counts once per bin.
/// Up to 8192 bins in shared memory; more bins count straight into d_counts (same aggregation).
///
/// @code
///   tilescan::histogram_even(d_samples, n, tilescan::EvenBins<float>(256, 0.0f, 1.0f), d_counts, stream);
/// @endcode
///
/// d_counts[bins] is overwritten (no temporary storage is needed). Asynchronous; throws on errors.
/// Instantiated for int32, uint32 and float samples.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "kernels/primitives/histogram_cpu.h"

namespace tilescan {

/// d_counts[b] = the number of the n device samples in bin b of `bins` (samples outside
/// [lower, upper) are not counted). d_counts (device, bins.bins entries) is cleared on `stream`
/// first. Asynchronous; no temporary storage.
/// @throws std::invalid_argument bins.bins <= 0, null d_counts, or null d_samples with n > 0.
/// @throws CudaError when a CUDA call fails.
template <typename T>
void histogram_even(const T* d_samples, std::size_t n, EvenBins<T> bins, std::uint64_t* d_counts,
                    cudaStream_t stream = nullptr);

}  // namespace tilescan
