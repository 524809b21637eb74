/// @file
/// The GPU scan API: inclusive and exclusive scans of n values on a CUDA stream, with any
/// associative operator (scan_ops.h) and any of the algorithms in scan_algorithm.h.
///
/// The calls never allocate: the caller asks scan_temp_bytes for the temporary storage a call
/// needs (it depends on n, the types and the algorithm, never on the data), provides it, and may
/// reuse it for any later call that needs no more. Errors throw: std::invalid_argument for bad
/// arguments (too little temporary storage, null pointers, sizes beyond the grid), CudaError
/// (kernels/cuda_check.h) for CUDA failures. The calls are asynchronous like kernel launches.
///
/// @code
///   std::size_t bytes = tilescan::scan_temp_bytes<uint32_t, uint64_t>(n);
///   tilescan::DeviceBuffer<unsigned char> temp(bytes);
///   tilescan::exclusive_scan(d_counts, d_offsets, n, tilescan::Sum<uint64_t>{}, temp.data(), bytes,
///                            stream, tilescan::ScanAlgorithm::decoupled_lookback, d_total);
/// @endcode
///
/// In values are converted to Out before combining (uint32 counts -> uint64 offsets); d_out may
/// equal d_in when the types match. d_total, when not null, receives the reduction of all n values
/// (identity for n == 0), so a caller learns the total without scanning n + 1 elements.
///
/// Callers that scan again and again (a renderer's every frame) can give the single pass a
/// ScanWorkspace instead: it is cleared once when allocated, so each call is one kernel launch
/// instead of two, which counts where launches dominate (n up to about 2^20).
///
/// @code
///   tilescan::ScanWorkspace workspace;
///   workspace.reserve<uint32_t, uint64_t>(n);  // allocates and clears when it grows
///   tilescan::exclusive_scan(d_counts, d_offsets, n, tilescan::Sum<uint64_t>{}, workspace, stream, d_total);
/// @endcode
///
/// The templates are defined in scan.cuh. Plain C++ callers use the explicit instantiations listed
/// in scan_instantiate_*.cu; CUDA callers with their own operators or types include scan.cuh in
/// their .cu and write TS_SCAN_INSTANTIATE(In, Out, Op) (or just call the templates).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "kernels/device_buffer.h"
#include "kernels/scan/scan_algorithm.h"
#include "kernels/scan/scan_ops.h"
#include "kernels/scan/scan_policy.h"

namespace tilescan {

/// The algorithm used when a call names none: the single pass, which moves the fewest bytes.
constexpr ScanAlgorithm kDefaultScanAlgorithm = ScanAlgorithm::decoupled_lookback;

/// Bytes of temporary device storage a scan of n In values into Out needs (0 when n == 0). A pure
/// function of n, the types and the algorithm: the three-phase driver holds its tile sums (every
/// recursion level), the single pass a tile counter and a status slot per tile and per superblock.
template <typename In, typename Out = In>
std::size_t scan_temp_bytes(std::size_t n, ScanAlgorithm algorithm = kDefaultScanAlgorithm) {
    if (n == 0) return 0;
    return algorithm == ScanAlgorithm::decoupled_lookback ? scan_detail::lookback_bytes<In, Out>(n)
                                                          : scan_detail::three_phase_bytes<In, Out>(n, algorithm);
}

/// Device storage the single passes (the scan's ScanAlgorithm::decoupled_lookback, and select_if,
/// select_flagged and find_repeats of compaction.h) keep from call to call: their tile counter and
/// status slots. Every slot it publishes carries the call's number, so the
/// next call reads the previous calls' slots as empty and needs no clearing launch (docs/scan.md,
/// "A workspace instead of temporary storage"). Calls sharing one workspace must not overlap
/// (one stream, or streams ordered by events), as with temporary storage; they may be captured in
/// a CUDA graph and replayed. Movable, not copyable.
class ScanWorkspace {
public:
    /// Room for single-pass scans of up to n In values into Out. When it grows, it reallocates and
    /// clears the memory, then waits for the clearing (synchronous, like cudaMalloc); it never
    /// shrinks. @throws CudaError when the allocation fails.
    template <typename In, typename Out = In>
    void reserve(std::size_t n) {
        reserve_bytes(scan_detail::lookback_bytes<In, Out>(n));
    }
    /// Room for `bytes` (as select_workspace_bytes, compaction.h, asks for compactions); grows as
    /// reserve does.
    void reserve_bytes(std::size_t bytes) {
        if (bytes <= memory_.bytes()) return;
        memory_.reserve(bytes);
        TS_CUDA_CHECK(cudaMemset(memory_.data(), 0, memory_.bytes()));
        TS_CUDA_CHECK(cudaStreamSynchronize(nullptr));
    }
    unsigned char* data() { return memory_.data(); }              ///< Device memory: counters, then slots.
    const unsigned char* data() const { return memory_.data(); }  ///< Device memory: counters, then slots.
    std::size_t bytes() const { return memory_.bytes(); }         ///< Bytes allocated.

private:
    DeviceBuffer<unsigned char> memory_;
};

/// d_out[i] = d_in[0] op ... op d_in[i], for i < n; asynchronous on `stream`.
///
/// d_in and d_out hold n elements of device memory (d_out == d_in allowed when In == Out; no
/// alignment beyond the element's). d_temp holds at least scan_temp_bytes<In, Out>(n, algorithm)
/// bytes not in use by a call still running on another stream. Elements are combined earlier-left, so
/// `op` need not commute; floating-point results depend on n and `algorithm` only, never on
/// timing (docs/scan.md, "Order of operations"). d_total (device, may be null) receives the
/// reduction of all n values, op's identity when n == 0.
/// @throws std::invalid_argument too little temporary storage, a null d_in or d_out with n > 0,
///         or more tiles than one grid can launch.
/// @throws CudaError when a launch fails.
template <typename In, typename Out, typename Op>
void inclusive_scan(const In* d_in, Out* d_out, std::size_t n, Op op, void* d_temp, std::size_t temp_bytes,
                    cudaStream_t stream = nullptr, ScanAlgorithm algorithm = kDefaultScanAlgorithm,
                    Out* d_total = nullptr);

/// d_out[0] = identity, d_out[i] = d_in[0] op ... op d_in[i - 1]; otherwise as inclusive_scan.
/// d_total still receives the reduction of all n values, which an exclusive scan does not write.
template <typename In, typename Out, typename Op>
void exclusive_scan(const In* d_in, Out* d_out, std::size_t n, Op op, void* d_temp, std::size_t temp_bytes,
                    cudaStream_t stream = nullptr, ScanAlgorithm algorithm = kDefaultScanAlgorithm,
                    Out* d_total = nullptr);

/// inclusive_scan by the single pass over `workspace` (reserved for at least n In values into Out)
/// instead of temporary storage: one launch, the same results bit for bit.
/// @throws std::invalid_argument a workspace reserved for fewer values, a null d_in or d_out with
///         n > 0, or more tiles than one grid can launch.
/// @throws CudaError when a launch fails.
template <typename In, typename Out, typename Op>
void inclusive_scan(const In* d_in, Out* d_out, std::size_t n, Op op, ScanWorkspace& workspace,
                    cudaStream_t stream = nullptr, Out* d_total = nullptr);

/// exclusive_scan by the single pass over `workspace`; see the inclusive_scan above.
template <typename In, typename Out, typename Op>
void exclusive_scan(const In* d_in, Out* d_out, std::size_t n, Op op, ScanWorkspace& workspace,
                    cudaStream_t stream = nullptr, Out* d_total = nullptr);

}  // namespace tilescan
