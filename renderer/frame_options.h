/// @file
/// The choices a caller may make about how the `cuda` backend executes a frame: which binning
/// (ours or a peer), and, for tests and tuning, overrides of the frame plan's own choices
/// (kernels/render/frame_plan.h decides everything else). Declared in the host library so that
/// commands built without CUDA parse and print the same names.
#pragma once

#include <optional>
#include <string>

namespace tilescan {

/// How circles are binned into tiles: `scan`, the scan library's binning (ours), or one of the two
/// peers measured beside it: `sort`, (tile, circle) pairs with 64-bit keys through
/// cub::DeviceRadixSort, and `naive`, every tile's block testing every circle.
enum class Binning { scan, sort, naive };
/// "scan" | "sort" | "naive", else InputError naming the known ones.
Binning parse_binning(const std::string& name);
/// The binning's name as parse_binning reads it.
const char* binning_name(Binning binning);

/// How the scan binning builds a frame's tile lists (docs/renderer.md describes each):
/// - `pairs`: (tile, circle) pairs emitted in circle order, binned by tile (ordered binning);
/// - `packed_pairs`: the same with each pair packed into one 32-bit word, sorted by a keys-only
///   radix sort over the tile bits;
/// - `direct`: from the circles chunk by chunk, without pairs (counts per tile and chunk, their
///   scan, an ordered scatter);
/// - `tile_compaction`: no lists; each tile's shading block compacts the circles that touch it;
/// - `region_compaction`: the same, each tile testing only its region's list of circles.
/// The last two skip binning altogether. Names on the command line (--scan-path): pairs, packed,
/// direct, compaction, regions.
enum class TileListStrategy { pairs, packed_pairs, direct, tile_compaction, region_compaction };
/// "pairs" | "packed" | "direct" | "compaction" | "regions", else InputError naming the known ones.
TileListStrategy parse_tile_list_strategy(const std::string& name);
/// The strategy's name as parse_tile_list_strategy reads it.
const char* tile_list_strategy_name(TileListStrategy strategy);

/// For tests and tuning: choices forced on the frame plan instead of its own.
struct PlanOverrides {
    /// The tile-list strategy wherever the frame fits it (plan_frame says where), else `pairs`.
    std::optional<TileListStrategy> tile_lists;
    /// Pixels a shading thread takes, 2 or 4; 0: the plan's choice.
    int shade_pixels = 0;
    /// Whether binned frames' tile blocks recompute the circles' boxes instead of reading them.
    std::optional<bool> boxes_from_geometry;
    /// Whether binned frames of flat circles try exact early termination's tail walk
    /// (docs/renderer.md, "Exact early termination") before the full walk.
    std::optional<bool> tail_walk;
};

/// Overrides that force the tile-list strategy alone.
inline PlanOverrides forced_tile_lists(TileListStrategy strategy) {
    PlanOverrides overrides;
    overrides.tile_lists = strategy;
    return overrides;
}

}  // namespace tilescan
