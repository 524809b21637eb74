/// @file
/// GPU stream compaction and partition, host API. An exclusive scan of kept counts gives every
/// kept element its output position; three ways to run that scan (SelectAlgorithm below): fused
/// single-pass kernels with the scan library's decoupled look-back (single-level or two-level),
/// or tile counts scanned with tilescan::exclusive_scan (scan.h). All are stable and exact.
///
/// @verbatim
///   select_if(d_in, d_out, n, pred, d_num_selected, ...)    d_out = kept elements, in order
///   select_flagged(d_in, d_flags, d_out, n, ...)             keeps d_in[i] where d_flags[i] != 0
///   partition_if(d_in, d_out, n, pred, d_num_selected, ...)  kept elements in order, then the
///                                                            rejected ones in order
/// @endverbatim
/// `*d_num_selected` (device memory, uint64) receives the kept count. d_out must not overlap d_in
/// and must hold n elements (select writes only the kept count). n < 2^32.
///
/// Like the scan library, nothing is allocated here: ask *_temp_bytes (depends on n and the
/// types only), pass at least that much device memory, reuse it freely. The calls are
/// asynchronous on `stream`; errors throw std::invalid_argument or CudaError.
///
/// Callers that compact again and again can give select_if and select_flagged the scan library's
/// ScanWorkspace (scan.h) instead of temporary storage: cleared once when allocated, it spares
/// each call the launch that empties the look-back's status slots. One workspace may serve scans
/// and compactions alike (calls one after another on one stream, as with temporary storage).
///
/// @code
///   tilescan::ScanWorkspace workspace;
///   workspace.reserve_bytes(tilescan::select_workspace_bytes<uint32_t>(n));
///   tilescan::select_if(d_in, d_out, n, pred, d_count, workspace, stream);
/// @endcode
///
/// Instantiated (compaction.cu) for T in {int32, uint32, float, uint64} with the predicates of
/// compaction_ops.h (NonZero, LessThan, GreaterEqual) and uint8 flags; CUDA code with other types
/// or predicates includes compaction.cuh and calls the same templates.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "kernels/enum_names.h"
#include "kernels/primitives/compaction_ops.h"
#include "kernels/scan/scan_policy.h"

namespace tilescan {

class ScanWorkspace;

/// How a compaction finds each tile's output offset. All give the same output.
enum class SelectAlgorithm {
    /// One fused kernel; each tile finds its output offset by the scan library's single-level
    /// decoupled look-back over its predecessors' kept counts (a warp reads 128 status words at a
    /// time, back to the nearest inclusive prefix). The default: reads the input once. Where the
    /// tiles all fit on the GPU at once, one cooperative launch whose blocks
    /// add up their predecessors' counts after a grid-wide barrier instead (no clearing launch).
    single_pass,
    /// The same kernel with the scan library's two-level (superblock) look-back,
    /// kernels/scan/scan_lookback.cuh.
    single_pass_two_level,
    /// Count per tile, tilescan::exclusive_scan of the tile counts, scatter: reads the input twice.
    reduce_then_scan
};

#ifndef TILESCAN_SELECT_HELD_BYTES
/// The default of kSelectHeldBytes; defined before this header, it overrides it (tuning builds).
#define TILESCAN_SELECT_HELD_BYTES 64
#endif
/// Bytes of its tile a thread of the single-pass compaction holds in registers, beside the part it
/// stages in shared memory, over inputs of at least scan_detail::kHeldMinInputBytes (256 MiB), as
/// the scan library's single pass does (docs/tuning.md, "Compaction tiles").
constexpr std::size_t kSelectHeldBytes = TILESCAN_SELECT_HELD_BYTES;

#ifndef TILESCAN_SELECT_SMALL_BYTES
/// The default of kSelectSmallBytes; defined before this header, it overrides it (tuning builds).
#define TILESCAN_SELECT_SMALL_BYTES 128
#endif
/// Bytes a thread stages of the small tile (SelectTiling::small; docs/tuning.md, "Compaction tiles").
constexpr std::size_t kSelectSmallBytes = TILESCAN_SELECT_SMALL_BYTES;

/// The tiles of the GPU compaction kernels (select, partition, find_repeats): one block of
/// scan_detail::kFastThreads threads compacts one tile, a shape of the scan library's fast tile.
/// Sizes for 4-byte elements (half as many 8-byte ones). compaction.cuh says which call takes which.
enum class SelectTiling {
    staged,  ///< the fast tile: 256 bytes a thread staged in shared memory (8192 elements)
    small,   ///< kSelectSmallBytes a thread staged (4096 elements)
    held     ///< the fast tile and kSelectHeldBytes a thread held in registers (10240 elements)
};

/// The tiling of a compaction of n elements of T by `algorithm`, over a ScanWorkspace or
/// temporary storage: held rounds for the single pass from 256 MiB; the small tile for the single
/// pass over a workspace and for the three phases (reduce_then_scan, partition); else staged.
template <typename T>
constexpr SelectTiling select_tiling(std::size_t n, SelectAlgorithm algorithm, bool workspace) {
    if (algorithm == SelectAlgorithm::single_pass && n * sizeof(T) >= scan_detail::kHeldMinInputBytes)
        return SelectTiling::held;
    if (algorithm == SelectAlgorithm::reduce_then_scan || (algorithm == SelectAlgorithm::single_pass && workspace))
        return SelectTiling::small;
    return SelectTiling::staged;
}

/// Bytes a thread of a tiling stages in shared memory.
constexpr std::size_t select_staged_bytes(SelectTiling tiling) {
    return tiling == SelectTiling::small ? kSelectSmallBytes : scan_detail::kFastThreadBytes;
}
/// Bytes a thread of a tiling holds in registers (kSelectHeldBytes with held rounds, else 0).
constexpr std::size_t select_held_bytes(SelectTiling tiling) {
    return tiling == SelectTiling::held ? kSelectHeldBytes : 0;
}

/// The shape (rounds, vector width, elements) of a tiling's tile for elements of T.
template <typename T, SelectTiling kTiling>
using SelectTileShape =
    scan_detail::FastTile<T, std::uint32_t, select_held_bytes(kTiling), select_staged_bytes(kTiling)>;

/// Elements of T in one tile of a tiling. Tests take their boundary sizes from it.
template <typename T>
constexpr std::size_t select_tile_elems(SelectTiling tiling) {
    switch (tiling) {
        case SelectTiling::small:
            return SelectTileShape<T, SelectTiling::small>::tile;
        case SelectTiling::held:
            return SelectTileShape<T, SelectTiling::held>::tile;
        default:
            return SelectTileShape<T, SelectTiling::staged>::tile;
    }
}

/// The enumerator's name ("single_pass"), as the benchmark prints it.
inline const char* select_algorithm_name(SelectAlgorithm a) {
    static constexpr EnumNameTable<SelectAlgorithm, 3> kNames = {{
        {SelectAlgorithm::single_pass, "single_pass"},
        {SelectAlgorithm::single_pass_two_level, "single_pass_two_level"},
        {SelectAlgorithm::reduce_then_scan, "reduce_then_scan"},
    }};
    return enum_name(kNames, a);
}

/// Bytes of temporary device storage select_if / select_flagged of n elements of T need with
/// `algorithm` (0 when n == 0); depends on n, T and the algorithm only.
template <typename T>
std::size_t select_temp_bytes(std::size_t n, SelectAlgorithm algorithm = SelectAlgorithm::single_pass);

/// Writes the d_in[i] with pred(d_in[i]) to d_out[0, count), in input order, and count to
/// `*d_num_selected` (device). d_out holds n elements and does not overlap d_in; n < 2^32.
/// Asynchronous on `stream`; d_temp holds at least select_temp_bytes<T>(n, algorithm) bytes.
/// @throws std::invalid_argument too little temporary storage, null pointers or n >= 2^32.
/// @throws CudaError when a launch fails.
template <typename T, typename Pred>
void select_if(const T* d_in, T* d_out, std::size_t n, Pred pred, std::uint64_t* d_num_selected, void* d_temp,
               std::size_t temp_bytes, cudaStream_t stream = nullptr,
               SelectAlgorithm algorithm = SelectAlgorithm::single_pass);

/// As select_if, keeping d_in[i] where d_flags[i] != 0 (d_flags: n device elements).
template <typename T, typename Flag>
void select_flagged(const T* d_in, const Flag* d_flags, T* d_out, std::size_t n, std::uint64_t* d_num_selected,
                    void* d_temp, std::size_t temp_bytes, cudaStream_t stream = nullptr,
                    SelectAlgorithm algorithm = SelectAlgorithm::single_pass);

/// Bytes of a ScanWorkspace (ScanWorkspace::reserve_bytes) that select_if / select_flagged of n
/// elements of T need (0 when n == 0).
template <typename T>
std::size_t select_workspace_bytes(std::size_t n);

/// select_if by the single pass over `workspace` (reserved for select_workspace_bytes<T>(n) bytes
/// or more) instead of temporary storage: one launch fewer, the same output.
/// @throws std::invalid_argument too small a workspace, null pointers or n >= 2^32.
/// @throws CudaError when a launch fails.
template <typename T, typename Pred>
void select_if(const T* d_in, T* d_out, std::size_t n, Pred pred, std::uint64_t* d_num_selected,
               ScanWorkspace& workspace, cudaStream_t stream = nullptr);

/// select_flagged by the single pass over `workspace`; see the select_if above.
template <typename T, typename Flag>
void select_flagged(const T* d_in, const Flag* d_flags, T* d_out, std::size_t n, std::uint64_t* d_num_selected,
                    ScanWorkspace& workspace, cudaStream_t stream = nullptr);

/// Bytes of temporary device storage partition_if of n elements of T needs (0 when n == 0).
template <typename T>
std::size_t partition_temp_bytes(std::size_t n);

/// Writes the kept elements (pred true) to d_out in input order, then the rejected ones in input
/// order (both halves stable, unlike CUB's reversed rejected half); `*d_num_selected` receives
/// the kept count. Runs reduce_then_scan, or, where its tiles all fit on the GPU at once, one
/// cooperative launch that counts, meets at a grid-wide barrier and scatters. Sizes, storage and
/// errors as select_if, with partition_temp_bytes<T>(n) bytes of temporary storage.
template <typename T, typename Pred>
void partition_if(const T* d_in, T* d_out, std::size_t n, Pred pred, std::uint64_t* d_num_selected, void* d_temp,
                  std::size_t temp_bytes, cudaStream_t stream = nullptr);

}  // namespace tilescan
