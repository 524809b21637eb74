// The scan+emit stage (emit.cu): each circle's (tile, circle) pairs in circle order, their slots
// from a single-pass scan of the counts, as pair arrays, packed words or the sort peer's keys.
// Every launcher is asynchronous on `stream` and checks its launch.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "kernels/render/frame_params.h"

namespace tilescan {

// What the emission reads of launch_cull_and_count's and where it keeps its slots. The emission
// scans the pair counts itself, a single pass over tiles of circles with the scan library's
// decoupled look-back (TilePrefix, scan_device.cuh), so no scan runs between the count and the
// emission.
struct PairEmission {
    const std::uint16_t* tile_masks;   // [circles]
    const std::uint32_t* pair_counts;  // [circles], read for circles of mask 0
    std::uint64_t* big_first_slots;    // [circles], each big circle's first slot (written)
    std::uint64_t* total;              // [1] on the device: the frame's pairs (written)
    std::uint64_t* host_total;         // [1] the device's alias of mapped pinned memory (written)
    unsigned char* scan_storage;       // pair_slot_scan_bytes(circles) of a ScanWorkspace (tagged slots)
    std::size_t scan_bytes;            // the workspace's bytes
};
std::size_t pair_slot_scan_bytes(std::uint32_t circles);
// Its tiles: 256 circles, or 1024 in frames of at least kEmitManyRoundsCircles, whose tiles then
// still outnumber the GPU's SMs (emit.cu, emission_rounds; docs/tuning.md#emission-tiles).
constexpr std::uint32_t kEmitManyRoundsCircles = 1u << 19;

// Writes each circle's (band tile, circle) pairs at consecutive slots in circle order, tiles in
// row-major order (small circles' from the count stage's tile masks), into `capacity` slots: pairs
// past the capacity are dropped (the caller compares the total with it after the frame: the total
// is copied to *host_total). The total stays in *emission.total, the device count
// (device_count.cuh) the bin stage takes: the slots [total, capacity) are neither written nor
// binned.
void launch_emit_pairs(const FrameParams& frame, const CircleRecords& records, std::uint32_t circles,
                       const BigCircles& big, const PairEmission& emission, std::uint64_t capacity,
                       std::uint32_t* pair_tiles,    // [capacity]
                       std::uint32_t* pair_circles,  // [capacity]
                       cudaStream_t stream);

// Packed pairs: where every circle id fits below the band's tile id in one 32-bit word
// (packed_pairs_fit, frame_plan.h), a pair is the word tile << packed_circle_bits | circle, so
// emission writes one word a pair instead of two and the binning sorts keys alone, over the tile
// bits, with the primitives' radix sort: stable, so each tile's circles stay in draw order
// (docs/tuning.md#packed-pairs).
// launch_emit_pairs' contract, one word a pair in `words` [capacity].
void launch_emit_packed_pairs(const FrameParams& frame, const CircleRecords& records, std::uint32_t circles,
                              const BigCircles& big, const PairEmission& emission, std::uint64_t capacity,
                              std::uint32_t* words, cudaStream_t stream);
// The sort peer's emission: one 64-bit key (tile << 32 | circle) per pair, the same capacity rule
// (padding keys: sentinel tile << 32).
void launch_emit_sort_keys(const FrameParams& frame, const CircleRecords& records, std::uint32_t circles,
                           const BigCircles& big, const PairEmission& emission, std::uint64_t capacity,
                           std::uint64_t* pair_keys, cudaStream_t stream);

}  // namespace tilescan
