/// @file
/// CPU half of the sparse-matrix format conversions (serial references).
///
/// - COO -> CSR: row_offsets[r] = number of entries in rows < r (counts per row, then an exclusive
/// scan; row_offsets[n_rows] = nnz); columns and values are reordered by row, stably (entries of
/// one row keep their input order), so already row-sorted input comes out unchanged.
/// - CSR -> COO: rows[k] = r for row_offsets[r] <= k < row_offsets[r + 1].
///
/// Indices are int32 as in CSR libraries; rows must lie in [0, n_rows).
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "kernels/scan/scan_cpu.h"

namespace tilescan {

/// The reference COO -> CSR (stable by row).
/// @throws std::invalid_argument when a row index is outside [0, n_rows).
template <typename Value>
void serial_coo_to_csr(const std::int32_t* rows, const std::int32_t* cols, const Value* vals, std::size_t nnz,
                       std::int32_t n_rows, std::int32_t* row_offsets /* [n_rows + 1] */,
                       std::int32_t* csr_cols /* [nnz] */, Value* csr_vals /* [nnz] */) {
    std::vector<std::int32_t> counts(std::size_t(n_rows) + 1, 0);
    for (std::size_t k = 0; k < nnz; ++k) {
        if (rows[k] < 0 || rows[k] >= n_rows) throw std::invalid_argument("coo_to_csr: row index out of range");
        ++counts[std::size_t(rows[k])];
    }
    serial_exclusive_scan(counts.data(), row_offsets, std::size_t(n_rows) + 1, Sum<std::int32_t>{});
    std::vector<std::int32_t> next(row_offsets, row_offsets + n_rows);
    for (std::size_t k = 0; k < nnz; ++k) {
        const std::int32_t p = next[std::size_t(rows[k])]++;
        csr_cols[p] = cols[k];
        csr_vals[p] = vals[k];
    }
}

/// The reference CSR -> COO: rows[k] = r for row_offsets[r] <= k < row_offsets[r + 1].
inline void serial_csr_to_coo(const std::int32_t* row_offsets /* [n_rows + 1] */, std::int32_t n_rows,
                              std::int32_t* rows /* [row_offsets[n_rows]] */) {
    for (std::int32_t r = 0; r < n_rows; ++r)
        for (std::int32_t k = row_offsets[r]; k < row_offsets[r + 1]; ++k) rows[k] = r;
}

}  // namespace tilescan
