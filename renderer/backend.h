/// @file
/// The backend interface: what the frame driver and the apps talk to.
///
/// A backend turns a scene into a float image. `ref` (serial oracle), `cpu` (tile pipeline on
/// threads) and `cuda` (tile pipeline on the GPU) all produce the same bits. Apps never reach a
/// backend's internals: they pick one by name and call render().
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "renderer/image.h"
#include "renderer/scene.h"

namespace tilescan {

/// The time of one pipeline stage of one frame.
struct StageTime {
    std::string name;  ///< "cull+count", "scan", "emit", "bin", "shade" (the cuda backend: "cull+count",
                       ///< "scan+emit", "bin", "shade"; its direct binning: "cull", "count", "scan",
                       ///< "bin", "shade"); "upload" and "download" apart
    double ms;         ///< milliseconds
};

/// What one render() measured, for --stats and --json.
struct RenderStats {
    double total_ms = 0;          ///< the frame, from circles in place to the finished float image
    std::uint64_t blends = 0;     ///< pixel-circle coverings, when counted (see counted_blends)
    bool counted_blends = false;  ///< the viewer's device path does not count them
    std::uint64_t pairs = 0;      ///< (tile, circle) pairs binned; 0 for `ref`
    std::uint64_t bin_bytes = 0;  ///< memory the binning stages used
    std::uint32_t bands = 0;      ///< tile-row bands the frame was binned in (tile_bands.h); 0 for `ref`
    /// tiles the `cuda` backend shaded apart, a warp per pixel (tile_is_busy; from the frame after
    /// one that met busy tiles on)
    std::uint32_t busy_tiles = 0;
    std::vector<StageTime> stages;  ///< in pipeline order (summed over bands); empty for `ref`
};

/// A renderer: `ref`, `cpu` or `cuda`, all producing the same bits. Not thread-safe: a backend
/// reuses its buffers from frame to frame, so one object renders one frame at a time.
class Backend {
public:
    virtual ~Backend() = default;
    /// "ref", "cpu" or "cuda".
    virtual std::string name() const = 0;
    /// Renders `scene` into `image`, which the caller has sized (width x height > 0): cleared to
    /// the background, then every circle in draw order. Synchronous (the image is complete on
    /// return). Circles are not validated here (validate_scene).
    virtual RenderStats render(const Scene& scene, Image& image) = 0;

    /// Backends whose image lives in device memory (cuda) can also hand it over without a trip
    /// through host memory: render, then convert to 8-bit RGBA (the to_8bit rule of image_io.h,
    /// alpha 255, memory row 0 = bottom) straight into `device_rgba8` (width * height * 4 bytes,
    /// e.g. a mapped OpenGL pixel buffer). Host backends return false from renders_on_device().
    virtual bool renders_on_device() const { return false; }
    /// See renders_on_device(). The base version throws std::logic_error.
    virtual RenderStats render_to_device_rgba8(const Scene& scene, int width, int height, void* device_rgba8);
};

/// The backend names this build knows, in the order `auto` prefers them last to first.
std::vector<std::string> available_backend_names();

/// The channels of a frame its caller reads. PNG, PPM, PFM and the window show no alpha, and for
/// `rgb` frames a backend may skip the alpha sum and leave alpha NaN (the `cpu` backend does);
/// `rgba` frames (.f32, library callers by default) have all four channels exact.
enum class FrameChannels { rgba, rgb };

/// Settings a backend may use; the others ignore them.
struct BackendOptions {
    std::string binning = "scan";     ///< cuda: scan (ours) | sort | naive (the peers)
    unsigned threads = 0;             ///< cpu: worker threads, 0 = all cores
    std::uint64_t max_bin_bytes = 0;  ///< cpu, cuda: bin-memory budget, 0 = default_bin_budget (tile_bands.h)
    FrameChannels channels = FrameChannels::rgba;  ///< cpu: the channels the frames need
};

/// How the cuda backend bins circles into tiles: `scan`, the scan library's binning (ours), or one
/// of the two peers measured beside it: `sort`, (tile, circle) pairs with 64-bit keys through
/// cub::DeviceRadixSort, and `naive`, every tile's block testing every circle. Declared in the host
/// library so that commands built without CUDA check the names too.
enum class Binning { scan, sort, naive };
/// "scan" | "sort" | "naive", else InputError naming the known ones.
Binning parse_binning(const std::string& name);
/// The binning's name as parse_binning reads it.
const char* binning_name(Binning binning);

/// How the cuda backend's scan binning builds a frame's tile lists: `pairs`, from (tile, circle)
/// pairs emitted in circle order and binned by tile; `packed`, the same with each pair packed into
/// one 32-bit word (kernels/render/render_launch.h: packed pairs), which frames of more pairs than
/// the ordered binning's small-input paths take by default where the circle ids fit; `direct`,
/// from the circles chunk by chunk (kernels/render/render_launch.h: launch_direct_count ...),
/// which frames of large circles take by default; `compaction`, in each tile's shading block by
/// compacting the circles that touch the tile (launch_compact_and_shade_tiles), which frames of
/// few circles take by default; `regions`, the same with each tile testing only the circles listed
/// for its region of tiles (two-level compaction), which frames of a few thousand circles take by
/// default; `automatic`, each frame's choice. Declared in the host library so that commands built
/// without CUDA check the names too.
enum class ScanBinningPath { automatic, pairs, packed, direct, compaction, regions };
/// "pairs" | "packed" | "direct" | "compaction" | "regions", else InputError naming the known ones.
ScanBinningPath parse_scan_binning_path(const std::string& name);
/// The path's name as parse_scan_binning_path reads it ("automatic" for automatic).
const char* scan_binning_path_name(ScanBinningPath path);

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
