// The backend interface: what the frame driver and the apps talk to.
//
// A backend turns a scene into a float image. `ref` (serial oracle), `cpu` (tile pipeline on
// threads) and `cuda` (tile pipeline on the GPU) all produce the same bits. Apps never reach a
// backend's internals: they pick one by name and call render().
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "renderer/image.h"
#include "renderer/scene.h"

namespace tilescan {

struct StageTime {
    std::string name;  // "cull+count", "scan", "emit", "bin", "shade"; "upload" and "download" apart
    double ms;
};

// What one render() measured, for --stats and --json.
struct RenderStats {
    double total_ms = 0;          // the frame, from circles in place to the finished float image
    std::uint64_t blends = 0;     // pixel-circle coverings, when counted (see counted_blends)
    bool counted_blends = false;  // the naive peer and the viewer's device path do not count them
    std::uint64_t pairs = 0;      // (tile, circle) pairs binned; 0 for `ref`
    std::uint64_t bin_bytes = 0;  // memory the binning stages used
    std::uint32_t bands = 0;      // tile-row bands the frame was binned in (tile_bands.h); 0 for `ref`
    std::vector<StageTime> stages;
};

class Backend {
public:
    virtual ~Backend() = default;
    virtual std::string name() const = 0;
    // Renders `scene` into `image`, which the caller has sized (width x height > 0).
    virtual RenderStats render(const Scene& scene, Image& image) = 0;

    // Backends whose image lives in device memory (cuda) can also hand it over without a trip
    // through host memory: render, then convert to 8-bit RGBA (the to_8bit rule of image_io.h,
    // alpha 255, memory row 0 = bottom) straight into `device_rgba8` (width * height * 4 bytes,
    // e.g. a mapped OpenGL pixel buffer). Host backends return false from renders_on_device().
    virtual bool renders_on_device() const { return false; }
    virtual RenderStats render_to_device_rgba8(const Scene& scene, int width, int height, void* device_rgba8);
};

// The backend names this build knows, in the order `auto` prefers them last to first.
std::vector<std::string> available_backend_names();

struct BackendOptions {
    std::string binning = "scan";     // cuda: scan (ours) | sort | naive (the peers)
    unsigned threads = 0;             // cpu: worker threads, 0 = all cores
    std::uint64_t max_bin_bytes = 0;  // cpu, cuda: bin-memory budget, 0 = default_bin_budget (tile_bands.h)
};

// The bin-memory budget (--max-bin-memory), and what each tile backend does with it:
// - cpu (done): budget = max_bin_bytes, or default_bin_budget(available_host_memory_bytes()) at
//   construction. The count stage also sums pairs per tile row; plan_tile_bands cuts the rows
//   into bands of at most budget / kCpuBytesPerPair pairs; each band is counted, scanned, emitted,
//   binned and shaded over its rows alone (tile index relative to the band's first row), with
//   pair buffers that never grow beyond the budget. stats.bands says how many bands were used.
// - cuda (TO DO, the lead, in kernels/render): the same with the same planner: budget =
//   max_bin_bytes, or default_bin_budget(free bytes of cuda_device_memory()) at construction;
//   bytes_per_pair = every device byte the binning allocates per pair (pair tiles, pair circles,
//   binned circles, sort keys and scratch of the peers); per-row pair totals from the count
//   kernel (atomics are fine there: sums do not depend on order); the row totals copied to the
//   host; then, per band, emit only the pairs of its rows, bin them into its tiles, shade its
//   tiles. Grow-only buffers capped at the band's needs; stats.bands filled in. A budget error
//   (one row over the budget) is an InputError from plan_tile_bands, raised before allocating.

// "auto" picks cuda when a device is present, else cpu. Unknown or unavailable names raise
// InputError naming what is available.
std::unique_ptr<Backend> make_backend(const std::string& name, const BackendOptions& options = {});

}  // namespace tilescan
