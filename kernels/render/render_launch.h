// Host entry points of the render kernels, one per pipeline stage (architecture.md):
//   1-2. cull + bound + count launch_cull_and_count
//   3-4. scan + emit          launch_emit_pairs or launch_emit_packed_pairs (scan binning) /
//                             launch_emit_sort_keys (sort peer): the emission scans the counts
//                             itself with the scan library's look-back (PairEmission)
//   5. bin                    launch_packed_pair_offsets, after the primitives' radix sort (packed
//                             pairs); launch_split_sort_keys, after cub::DeviceRadixSort (sort peer)
//   6. shade                  launch_shade_tiles (busy tiles included)
// Frames of few circles take launch_cull, then launch_compact_and_shade_tiles instead of 2-6; so
// does every frame of the naive peer.
// Stage 5's ordered binning and radix sort are the primitives' own calls.
// Every launcher is asynchronous on `stream` and checks its launch.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "kernels/render/frame_params.h"

namespace tilescan {

// The shading stage's busy tiles (tile_is_busy). With shade_apart they are listed on the device
// and shaded on a stream of their own, forked from the frame's stream and joined back into it;
// without, the main grid shades them like any tile and sets *host_seen, so that the caller can
// turn the branch on for the next frames (frames without busy tiles then pay nothing for it).
// The part the kernels take:
struct BusyTilesOnDevice {
    bool shade_apart;
    std::uint32_t* tiles;       // [band tiles]: band tile ids, increasing
    std::uint32_t* count;       // [1] on the device
    std::uint32_t* host_count;  // mapped pinned memory (device alias): the count, with shade_apart
    std::uint32_t* host_seen;   // mapped pinned memory (device alias): set to 1 without shade_apart
};
// and the branch's stream and events:
struct BusyTiles {
    BusyTilesOnDevice on_device;
    cudaStream_t stream;         // created with the device's greatest priority (see launch_shade_tiles)
    cudaEvent_t forked, joined;  // ordering only, no timing
};

// Packs every circle's records and finds the tiles of the frame's band it really touches, keeping
// which ones in tile_masks for the emission (bit t: tile t of the circle's band-clipped tile
// rectangle, row-major), so that it does not test them again; the mask's population is the
// circle's pair count. Circles whose tile rectangle is large are listed in `big` and counted a warp
// or block per circle (mask 0, count in pair_counts), as are culled ones (mask 0, count 0).
void launch_cull_and_count(const DeviceCircles& circles, const FrameParams& frame, const CircleRecords& records,
                           const BigCircles& big,
                           std::uint32_t* pair_counts,  // [circles], written for circles of mask 0
                           std::uint16_t* tile_masks,   // [circles]
                           cudaStream_t stream);

// Packs every circle's records only: the direct binning's first stage.
void launch_cull(const DeviceCircles& circles, const FrameParams& frame, const CircleRecords& records,
                 cudaStream_t stream);

// Direct binning (kernels/render/direct_binning.cu): the tile lists without (tile, circle) pairs.
// Chunks of circles (direct_chunk_circles) count their tiles into a (tile x chunk) matrix, the scan
// library scans it tile-major, and each chunk scatters its circle ids into the lists in order. Each
// thread of a chunk's block walks the chunk's circles one after another, so a chunk's time grows
// with its circles' tiles: it pays only for circles of many tiles each.
// Circles a chunk takes: the largest power of two up to kDirectMaxChunkCircles that still leaves
// kDirectTargetChunks chunks (1 for scenes of fewer circles than that), so a chunk's walk is
// short where there are few circles and the GPU has chunks enough to keep it busy.
// H200, quick bench, ms per frame, pairs / direct with chunks of 32 only / with these sizes: rgb
// (3 circles) 0.043 / 0.041 / 0.031, hypnosis (25) 0.067 / 0.151 / 0.041, biglittle 0.99 / 0.95 /
// 0.94 (32 either way); pattern (7 pairs a circle) 0.058 / 0.068 / 0.060, fireworks (4) 0.036 /
// 0.055 / 0.057, rand10k (46) 0.149 / 0.150 (32 either way).
constexpr std::uint32_t kDirectMaxChunkCircles = 32;
constexpr std::uint32_t kDirectTargetChunks = 256;
std::uint32_t direct_chunk_circles(std::uint32_t circles);
// It fits while the matrix stays small: at most kDirectMaxTiles tiles in the band (the tiles'
// counters live in shared memory) and kDirectMaxEntries entries.
constexpr std::uint32_t kDirectMaxTiles = 8192;
constexpr std::size_t kDirectMaxEntries = std::size_t(1) << 22;
bool direct_binning_fits(std::uint32_t circles, std::uint32_t band_tiles);
// It pays where the circles cover kDirectMinPairsPerCircle tiles each on average, and in frames
// of up to kDirectSmallFrameCircles circles where they cover kDirectSmallFrameMinPairsPerCircle
// (`pairs`: the capacity the last frame left, as for shade_pixels_per_thread). H200, 2026-12-02,
// quick bench, random circles of one radius each, ms per frame pairs / direct (tables:
// bench/results/2026-12-02-render-h200-path-crossover.md): 10 tiles a circle, 4096 circles 0.070 /
// 0.061, 8192 0.076 / 0.080; 24 tiles, 4096 0.081 / 0.068, 8192 0.097 / 0.093, 12288 0.115 /
// 0.122; 5 tiles, 4096 0.052 / 0.057.
constexpr std::uint64_t kDirectMinPairsPerCircle = 64;
constexpr std::uint32_t kDirectSmallFrameCircles = 4096;
constexpr std::uint64_t kDirectSmallFrameMinPairsPerCircle = 8;
bool direct_binning_pays(std::uint32_t circles, std::uint64_t pairs);
// Its temporary storage: the matrix, the scan's storage and the total.
std::size_t direct_binning_temp_bytes(std::uint32_t circles, std::uint32_t band_tiles);
// The three steps, on `temp` of direct_binning_temp_bytes, after launch_cull. The scatter writes
// tile_offsets [band tiles + 1] and tile_circles [capacity], clamped to the capacity (the caller
// compares the total, copied to *host_total, with it after the frame, as for the pairs path).
void launch_direct_count(const FrameParams& frame, const CircleRecords& records, std::uint32_t circles, void* temp,
                         cudaStream_t stream);
void launch_direct_scan(const FrameParams& frame, std::uint32_t circles, void* temp, cudaStream_t stream);
void launch_direct_scatter(const FrameParams& frame, const CircleRecords& records, std::uint32_t circles, void* temp,
                           std::uint64_t* tile_offsets, std::uint32_t* tile_circles, std::uint64_t capacity,
                           std::uint64_t* host_total, cudaStream_t stream);

// What the emission reads of launch_cull_and_count's and where it keeps its slots. The emission
// scans the pair counts itself, a single pass over tiles of circles with the scan library's
// decoupled look-back (look_back_regrouping), so no scan runs between the count and the emission.
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
// still outnumber the GPU's SMs (binning_kernels.cu, emission_rounds).
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
// (packed_pairs_fit), a pair is the word tile << packed_circle_bits | circle, so emission writes
// one word a pair instead of two and the binning sorts keys alone, over the tile bits, with the
// primitives' radix sort: stable, so each tile's circles stay in draw order. H200, radix sort of
// 2^24 pairs by a 12-bit range (2026-12-02, the items20 table in bench/results): 0.212 ms for keys
// against 0.278 for key-value pairs; frames against pairs in one call (2026-12-02, the packed-pairs
// table), ms: rand1M 0.918 -> 0.886 (bin stage 0.117 -> 0.088), rand100k 0.790 -> 0.764 (0.106 ->
// 0.083), rand10k 0.136 -> 0.133, snowsingle 0.234 -> 0.232. Emission did not get faster (rand1M
// 0.056 -> 0.055): it is bound by the tile tests, not the stores.
int packed_circle_bits(std::uint32_t band_tiles);
// A packed word's circle id is word & packed_circle_id_mask(band tiles).
std::uint32_t packed_circle_id_mask(std::uint32_t band_tiles);
bool packed_pairs_fit(std::uint32_t circles, std::uint32_t band_tiles);
// launch_emit_pairs' contract, one word a pair in `words` [capacity].
void launch_emit_packed_pairs(const FrameParams& frame, const CircleRecords& records, std::uint32_t circles,
                              const BigCircles& big, const PairEmission& emission, std::uint64_t capacity,
                              std::uint32_t* words, cudaStream_t stream);
// From the first *d_words of `capacity` packed words sorted by tile: each tile's [begin, end) into
// tile_offsets [band tiles + 1]. The sorted words themselves are the tile lists, read through
// packed_circle_id_mask (launch_shade_tiles' circle_id_mask).
void launch_packed_pair_offsets(const std::uint32_t* sorted_words, std::size_t capacity, const std::uint64_t* d_words,
                                const FrameParams& frame, std::uint64_t* tile_offsets, cudaStream_t stream);

// The sort peer's emission: one 64-bit key (tile << 32 | circle) per pair, the same capacity rule
// (padding keys: sentinel tile << 32).
void launch_emit_sort_keys(const FrameParams& frame, const CircleRecords& records, std::uint32_t circles,
                           const BigCircles& big, const PairEmission& emission, std::uint64_t capacity,
                           std::uint64_t* pair_keys, cudaStream_t stream);

// row_pairs[ty] = the (tile, circle) pairs of tile row ty over the whole grid, for the band
// planner (renderer/tile_bands.h). Needs the records of launch_cull_and_count.
void launch_count_row_pairs(const FrameParams& frame, const CircleRecords& records, std::uint32_t circles,
                            unsigned long long* row_pairs,  // [tiles_y]
                            cudaStream_t stream);

// From keys sorted by (tile, circle): the circle ids in order and each tile's [begin, end); the
// sentinel tile's padding sorts last and is cut off by tile_offsets[tiles].
void launch_split_sort_keys(const std::uint64_t* sorted_keys, std::size_t pairs, std::uint32_t tiles,
                            std::uint32_t* tile_circles,  // [pairs]
                            std::uint64_t* tile_offsets,  // [tiles + 1]
                            cudaStream_t stream);

// The pixels each thread of the shading stage takes, 2 or 4 (2 in either case with 8x8 tiles),
// for a frame of `pairs` (tile, circle) pairs from `circles` circles: four when the circles cover
// many tiles each (large circles, which every warp of a tile meets), else two. On the H200 four pixels shaded rand100k
// (46 pairs a circle) 0.80 -> 0.67 ms and biglittle 0.87 -> 0.74 ms, but rand10M (1.9) 2.15 -> 2.39 ms.
int shade_pixels_per_thread(std::uint64_t pairs, std::uint32_t circles);

// Whether the shading stage recomputes each staged circle's pixel box from its geometry record
// (the cull stage's own function of x, y and radius) instead of reading records.box. A tile's
// circles are scattered over the records, so each record a tile block reads is a 32-byte sector
// gathered per (tile, circle) pair. Where the frame's records (shading record and box: 40 bytes a
// circle) fit in the L2 cache, those gathers hit it and the recomputation (about 30 instructions a
// staged circle) is pure cost; where they overflow it, each gather is a memory access and the box
// is one of the two. H200 (60 MB of L2), every tile block recomputing against none, frame ms,
// measured when geometry and paint were still two arrays, the box one gather of three
// (bench/results/2026-12-02-render-h200-box-from-geometry.md): micro2M (2M circles, 80 MB of
// records) 0.311 -> 0.301, rand10M (400 MB) 2.276 -> 2.269, but rand1M (40 MB) 0.792 -> 0.801 and
// biglittle (0.4 MB, compacted) 0.851 -> 0.876. Not measured again since the two became one record.
bool shading_recomputes_boxes(std::uint32_t circles, std::size_t l2_cache_bytes);

// Whether the shading grid takes the band's tiles longest list first (launch_shade_tiles'
// tile_order): its blocks start in grid order, so the last ones are then the shortest and the SMs
// run out of work together instead of waiting on a few long tiles. For the wide layout and snow
// flakes, with at least kOrderedShadingPairsPerTile pairs a tile (`pairs`: the capacity the last
// frame left) and as many band tiles as one block can order (their list lengths in its shared
// memory: about 57,000 tiles on the H200, 15,000 on a 64 KiB GPU; 2048 x 2048 has 16,384). Nsight
// Compute saw those grids' SMs busy for 92-94 % of the kernel, the narrow flat layout's for 95-98 %
// (bench/results/2026-12-03-render-h200-regions-bound.md). Ordered against not, H200, 2026-12-03,
// two rounds, shading ms (bench/results/2026-12-03-render-h200-longest-tiles-first.md): rand100k
// (wide) 0.551 -> 0.523, snowsingle 0.171 -> 0.165; the narrow flat layout gained nothing (rand1M
// 0.632 -> 0.630, rand10M 1.498 -> 1.497) or lost (micro2M 0.148 -> 0.157), so it keeps tile order.
constexpr std::uint64_t kOrderedShadingPairsPerTile = 16;
bool shading_orders_tiles(ShadingKind shading, int pixels_per_thread, std::uint64_t pairs, std::uint32_t band_tiles);

// One block per tile of the frame's band: clears, blends the tile's circles in list order, writes
// each pixel once, pixels_per_thread (shade_pixels_per_thread) pixels a thread, recomputing the
// circles' boxes with boxes_from_geometry (shading_recomputes_boxes). With
// busy.shade_apart, busy tiles are listed into `busy` and shaded by a warp per pixel on
// busy.stream, forked from `stream` and joined back before this returns (in stream order);
// without, the main grid shades them and reports them in *busy.host_seen. `blends`, when not
// null, accumulates the number of blends. A list entry's circle id is entry & circle_id_mask (all
// ones but for packed pairs).
void launch_shade_tiles(const FrameParams& frame, const CircleRecords& records,
                        const std::uint64_t* tile_offsets,  // [band tiles + 1]
                        const std::uint32_t* tile_circles,  // [pairs]
                        std::uint32_t circle_id_mask,
                        std::uint32_t* tile_order,  // [band tiles] scratch (shading_orders_tiles); null: tile order
                        const BusyTiles& busy, int pixels_per_thread, bool boxes_from_geometry,
                        float* image,  // [height][width][4], row 0 = bottom
                        unsigned long long* blends, cudaStream_t stream);

// Tile compaction: frames of few circles skip binning. After launch_cull, one block per tile of
// the whole frame tests every circle against its tile (the binning's exact tile test), compacts
// those that touch it in draw order, and shades them; O(tiles x circles) tests, so it pays only
// for few circles (tile_compaction_pays) and fits up to kTileCompactionMaxCircles (the most a
// forced path takes: beyond that its tests cost more than any frame should).
// H200, 1024x1024, quick bench, ms per frame, pairs / compaction: rgb (3 circles) 0.043 / 0.019,
// bouncingballs (10) 0.030 / 0.018, hypnosis (25) 0.067 / 0.033, fireworks (315) 0.037 / 0.033,
// pattern (1217) 0.058 / 0.043, rand10k (10000) 0.149 / 0.240: the tests cost about 17 us per
// 1000 circles, the binning stages of such frames 0.03-0.08 ms. Where they cross
// (scripts/crossover-bench, rand10k's first N circles): 2048 0.082 / 0.062, 2560 0.087 / 0.075,
// 3072 0.092 / 0.084, 3584 0.098 / 0.098, 4096 0.099 / 0.107. Against direct binning as well
// (2026-12-02, bench/results/2026-12-02-render-h200-path-crossover.md), past 2048 circles it paid
// only for circles of 64 tiles or more, up to 3072 circles: pairs / direct / compaction, 3072
// circles of 5 tiles 0.053 / 0.063 / 0.072, of 24 tiles 0.079 / 0.070 / 0.083; biglittle's first
// 3072 circles (620 tiles each) 0.347 / 0.322 / 0.299. With the coalesced tests of 360d368 (its
// full render table, naive peer = compaction of every frame, against the scan binning): biglittle
// 0.847 / 0.902, littlebig 0.840 / 0.883 (10000 circles, 41M tests for 6.2M pairs), rand10k
// 0.199 / 0.134 (41M tests for 0.46M pairs). Its cost grows with the tests (circles x tiles),
// binning's with the pairs, so past 2048 circles it pays while the tests stay within
// kTileCompactionTestsPerPair per pair of the last frame: won at 6.6 tests a pair, lost at 89 (and
// at 170 before 360d368); 16 is not a measured crossing but keeps near the side that won. Where
// two-level compaction pays (region_compaction_pays, below) it goes first: biglittle and
// littlebig take it.
constexpr std::uint32_t kTileCompactionMaxCircles = 16384;
constexpr std::uint32_t kTileCompactionPaysCircles = 2048;
constexpr std::uint64_t kTileCompactionTestsPerPair = 16;
inline bool tile_compaction_fits(std::uint32_t circles) { return circles <= kTileCompactionMaxCircles; }
inline bool tile_compaction_pays(std::uint32_t circles, std::uint64_t tiles, std::uint64_t pairs) {
    return circles <= kTileCompactionPaysCircles ||
           std::uint64_t(circles) * tiles <= kTileCompactionTestsPerPair * pairs;
}
// The frame's (tile, circle) pairs, for the host: the blocks add their list lengths to *pairs and
// count themselves in *finished_blocks; the last one stores the total into *host_total (mapped
// pinned memory, read after the frame) and clears both for the next frame (both start at zero).
struct CompactionTotals {
    unsigned long long* pairs;
    unsigned long long* finished_blocks;
    std::uint64_t* host_total;
};
// Two-level tile compaction: a first kernel lists, for each region of 2^kRegionTilesLog2 x
// 2^kRegionTilesLog2 tiles, the circles whose pixel box meets it, in draw order (region r's at
// ids[r * circles, r * circles + counts[r]): each list has room for every circle of the frame);
// each tile's block then tests its region's list
// instead of every circle. The region lists cost regions x circles box tests, the tiles' tests
// tiles x the mean region list, against tiles x circles for one level.
// Regions of 4 x 4 tiles (64 x 64 pixels). Of 2 x 2, 4 x 4 and 8 x 8 (H200, 2026-12-03, quick
// bench, two-level compaction forced, ms per frame) rand10k 0.117 / 0.106 / 0.109, pattern 0.037 /
// 0.033 / 0.033, hypnosis 0.032 / 0.028 / 0.027, rgb 0.024 / 0.021 / 0.020: smaller regions
// list fewer candidates per tile but test every circle against more regions.
constexpr int kRegionTilesLog2 = 2;
struct RegionLists {
    std::uint32_t* ids;     // [regions * circles]; null: one level (every tile tests every circle)
    std::uint32_t* counts;  // [regions]
};
// Regions across `tiles` tiles, the last one partial where they do not divide evenly.
TS_HD inline int regions_along(int tiles) { return (tiles + (1 << kRegionTilesLog2) - 1) >> kRegionTilesLog2; }
inline std::uint64_t region_count(const TileGrid& grid) {
    return std::uint64_t(regions_along(grid.tiles_x)) * std::uint64_t(regions_along(grid.tiles_y));
}
// Whether a frame fits two-level compaction: at most kRegionCompactionMaxCircles circles (the most
// a forced path takes: its list kernel tests regions x circles boxes), whose region lists (each
// able to hold every circle) fit the bin-memory budget.
constexpr std::uint32_t kRegionCompactionMaxCircles = 65536;
inline bool region_compaction_fits(std::uint32_t circles, std::uint64_t regions, std::uint64_t budget_bytes) {
    return circles <= kRegionCompactionMaxCircles &&
           regions * (std::uint64_t(circles) + 1) * sizeof(std::uint32_t) <= budget_bytes;
}
// Whether two-level compaction pays: past kTileCompactionPaysCircles (one level wins below), while
// the region lists' tests, regions x circles, stay within those of 24576 circles at 1024 x 1024
// (256 regions). Measured on the H200 (2026-12-03, scripts/crossover-bench, ms per frame, pairs /
// one level / two levels): rand10k's first 2048 circles 0.075 / 0.045 / 0.041, 4096 0.085 / 0.080
// / 0.056, 10000 0.130 / 0.182 / 0.106; biglittle (10000 circles of 620 tiles) one level 0.835,
// two 0.814. Past 16384 circles, with the tile kernel at the binned shading's occupancy (pairs /
// two levels): 24576 circles of radius 4 px 0.055 / 0.043, of 24 px 0.102 / 0.089, snowsingle's
// first 24576 0.069 / 0.067; 32768 circles of 4 and 24 px still won (0.058 / 0.050, 0.120 /
// 0.109) but snowsingle's first 32768 lost (0.077 / 0.088), so the bound stops at 24576.
constexpr std::uint64_t kRegionCompactionMaxTests = std::uint64_t(256) * 24576;
inline bool region_compaction_pays(std::uint32_t circles, std::uint64_t regions) {
    return circles > kTileCompactionPaysCircles && regions * circles <= kRegionCompactionMaxTests;
}
void launch_list_region_circles(const FrameParams& frame, const CircleRecords& records, std::uint32_t circles,
                                const RegionLists& regions, cudaStream_t stream);
// Regions null (regions.ids): one level.
void launch_compact_and_shade_tiles(const FrameParams& frame, const CircleRecords& records, std::uint32_t circles,
                                    const RegionLists& regions, const CompactionTotals& totals, int pixels_per_thread,
                                    float* image,  // [height][width][4], row 0 = bottom
                                    unsigned long long* blends, cudaStream_t stream);

// 8-bit RGBA (quantize_8bit, alpha 255) of a float image, for display.
void launch_convert_to_rgba8(const float* image, int width, int height, std::uint8_t* rgba8, cudaStream_t stream);

}  // namespace tilescan
