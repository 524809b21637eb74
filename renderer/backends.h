/// @file
/// The backends by name: which ones this build and machine offer, and a backend made from its
/// name and settings. Sits above the interface (renderer/backend.h) and the backends themselves.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "renderer/backend.h"

namespace tilescan {

/// The backend names this build knows, in the order `auto` prefers them last to first.
std::vector<std::string> available_backend_names();

/// Settings a backend may use; the others ignore them.
struct BackendOptions {
    std::string binning = "scan";     ///< cuda: scan (ours) | sort | naive (the peers: Binning)
    unsigned threads = 0;             ///< cpu: worker threads, 0 = all cores
    std::uint64_t max_bin_bytes = 0;  ///< cpu, cuda: bin-memory budget, 0 = default_bin_budget (tile_bands.h)
    FrameChannels channels = FrameChannels::rgba;  ///< cpu, cuda: the channels the frames need
};

/// The bin-memory budget (--max-bin-memory): a tile backend whose frame has more (tile, circle)
/// pairs than the budget holds bins and shades it in bands of tile rows (renderer/tile_bands.h),
/// with the same bits. `cpu`: budget = max_bin_bytes, or default_bin_budget of the available host
/// memory at construction; it sums pairs per tile row in its count stage. `cuda`: max_bin_bytes,
/// or default_bin_budget of the free device memory at construction; a frame whose pairs fit runs
/// as one band, otherwise a row-count kernel feeds the planner. A row alone over the budget is an
/// InputError from plan_tile_bands. RenderStats::bands says how many bands a frame used.

/// A backend by name: "ref", "cpu", "cuda" or "auto" ("auto" picks cuda when a device is present,
/// else cpu). Unknown or unavailable names raise InputError naming what is available, as do an
/// unknown binning and a binning other than "scan" for a backend that is not cuda.
std::unique_ptr<Backend> make_backend(const std::string& name, const BackendOptions& options = {});

}  // namespace tilescan
