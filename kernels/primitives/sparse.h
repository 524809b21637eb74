/// @file
/// GPU sparse-matrix format conversions, host API (CPU references: sparse_cpu.h).
///
/// - coo_to_csr: row counts (warp-aggregated atomics), then the scan library's exclusive scan gives
///   d_row_offsets[0 .. n_rows] (the scan's total lands in d_row_offsets[n_rows] = nnz). Columns
///   and values are reordered by row, stably: with rows_sorted they are copied as they are;
///   otherwise a radix sort of (row, position) pairs over only the bits that row indices use
///   (end_bit = bit width of n_rows - 1) gives the permutation, then one gather.
/// - csr_to_coo: each non-empty row r marks d_rows[d_row_offsets[r]] = r over zeros, then an
///   inclusive max-scan (scan library) spreads each row index over its entries.
///
/// Rows must lie in [0, n_rows) (not checked on the device); int32 indices, nnz < 2^31.
/// No allocation (ask *_temp_bytes), asynchronous, throws on errors. Values: float, double.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace tilescan {

/// Bytes of temporary device storage coo_to_csr needs.
/// @throws std::invalid_argument n_rows < 0.
std::size_t coo_to_csr_temp_bytes(std::size_t nnz, std::int32_t n_rows);

/// COO (d_rows, d_cols, d_vals: nnz device entries each) to CSR, stably by row, asynchronous on
/// `stream`. Instantiated for float and double values.
/// @throws std::invalid_argument n_rows < 0, nnz >= 2^31, entries without rows, too little
///         temporary storage or null pointers.
/// @throws CudaError when a CUDA call fails.
template <typename Value>
void coo_to_csr(const std::int32_t* d_rows, const std::int32_t* d_cols, const Value* d_vals, std::size_t nnz,
                std::int32_t n_rows, std::int32_t* d_row_offsets /* [n_rows + 1] */,
                std::int32_t* d_csr_cols /* [nnz] */, Value* d_csr_vals /* [nnz] */, void* d_temp,
                std::size_t temp_bytes, cudaStream_t stream = nullptr, bool rows_sorted = false);

/// Bytes of temporary device storage csr_to_coo of nnz entries needs.
std::size_t csr_to_coo_temp_bytes(std::size_t nnz);

/// CSR row offsets to one row index per entry (d_rows[k] = r for d_row_offsets[r] <= k <
/// d_row_offsets[r + 1]), asynchronous on `stream`.
/// @throws std::invalid_argument n_rows < 0, nnz >= 2^31, too little temporary storage or null
///         pointers.
/// @throws CudaError when a CUDA call fails.
void csr_to_coo(const std::int32_t* d_row_offsets /* [n_rows + 1] */, std::int32_t n_rows, std::size_t nnz,
                std::int32_t* d_rows /* [nnz] */, void* d_temp, std::size_t temp_bytes, cudaStream_t stream = nullptr);

}  // namespace tilescan
