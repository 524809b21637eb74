/// @file
/// GPU find_repeats (the seed's "problem 1"): every index i with a[i] == a[i + 1], in increasing
/// order (3 4 4 5 6 7 7 -> 1 5). It is stream compaction of indices whose predicate looks at a
/// neighbour, so it runs on the compaction kernel (compaction.cuh) with the scan library's
/// single-pass look-back; one pass over a, output written once. CPU versions: compaction_cpu.h.
///
/// @code
///   std::size_t bytes = tilescan::find_repeats_temp_bytes<int>(n);
///   tilescan::find_repeats(d_a, n, d_indices /* [n - 1] */, d_count, d_temp, bytes, stream);
/// @endcode
///
/// `*d_count` (device, uint64) receives the number of indices. n < 2^32. Instantiated for
/// int32, uint32, float, int64, uint64. No allocation; asynchronous; throws on errors.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace tilescan {

class ScanWorkspace;

/// Bytes of temporary device storage find_repeats of n elements of T needs (0 when n <= 1).
template <typename T>
std::size_t find_repeats_temp_bytes(std::size_t n);

/// Writes every i with d_a[i] == d_a[i + 1] to d_indices (room for n - 1, increasing) and their
/// number to `*d_count` (device). Asynchronous on `stream`.
/// @throws std::invalid_argument too little temporary storage, null pointers or n >= 2^32.
/// @throws CudaError when a launch fails.
template <typename T>
void find_repeats(const T* d_a, std::size_t n, std::uint32_t* d_indices, std::uint64_t* d_count, void* d_temp,
                  std::size_t temp_bytes, cudaStream_t stream = nullptr);

/// Bytes of a ScanWorkspace (ScanWorkspace::reserve_bytes) that find_repeats of n elements of T
/// needs (0 when n <= 1).
template <typename T>
std::size_t find_repeats_workspace_bytes(std::size_t n);

/// find_repeats over `workspace` (reserved for find_repeats_workspace_bytes<T>(n) bytes or more)
/// instead of temporary storage: one launch fewer, the same output (compaction.h).
template <typename T>
void find_repeats(const T* d_a, std::size_t n, std::uint32_t* d_indices, std::uint64_t* d_count,
                  ScanWorkspace& workspace, cudaStream_t stream = nullptr);

}  // namespace tilescan
