// The `cuda` backend's host side (see cuda_backend.h): the device memory of a frame, the order of
// its stages, its graph, its timing. Every choice of path comes from the frame plan (frame_plan.h).
#include "kernels/render/cuda_backend.h"

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <tuple>
#include <vector>

#include "kernels/cuda_check.h"
#include "kernels/cuda_device.h"
#include "kernels/cuda_resources.h"
#include "kernels/device_buffer.h"
#include "kernels/primitives/ordered_binning.h"
#include "kernels/primitives/radix_sort.h"
#include "kernels/render/bin.h"
#include "kernels/render/circle_facts.h"
#include "kernels/render/convert_rgba8.h"
#include "kernels/render/cull_count.h"
#include "kernels/render/device_circles.h"
#include "kernels/render/direct_binning.h"
#include "kernels/render/emit.h"
#include "kernels/render/shade.h"
#include "kernels/render/sort_binning.h"
#include "kernels/render/tile_compaction.h"
#include "kernels/scan/scan.h"
#include "renderer/errors.h"
#include "renderer/tile_bands.h"

namespace tilescan {

static_assert(kPackedPairsMinPairs == kChunkedBinningDispatchElements,
              "packed pairs start where the ordered binning takes its radix path");
static_assert(kMaxBinnedPairs == kOrderedBinningMaxElements - 2, "one band bins what ordered binning takes");

namespace {

// Events around each stage of one frame, or around the whole frame; read after the frame's stream
// synchronizes. The events are kept and reused frame after frame; recorded during a stream capture
// they become event nodes of the frame's graph (cudaEventRecordExternal), so a replayed graph times
// itself too. Every event between two stages adds to the frame's time, which is why a frame timed
// whole has none.
class StageTimer {
public:
    explicit StageTimer(cudaStream_t stream) : stream_(stream) {}
    // Starts the clock of a new frame; the events are reused.
    void start(StageTiming timing) {
        timing_ = timing;
        names_.clear();
        used_ = 0;
        record("start");
    }
    // Ends a stage that is not the frame's last: a mark only when timing stages.
    void end_stage(const char* name) {
        if (timing_ == StageTiming::per_stage) record(name);
    }
    // Ends the frame's last stage: that stage, or the whole frame as one stage named "frame".
    void end_frame(const char* last_stage) { record(timing_ == StageTiming::per_stage ? last_stage : "frame"); }
    // Stage times between consecutive marks (the first mark starts the clock).
    std::vector<StageTime> stages() const {
        std::vector<StageTime> result;
        for (std::size_t k = 1; k < used_; ++k) {
            float ms = 0;
            TS_CUDA_CHECK(cudaEventElapsedTime(&ms, events_[k - 1].get(), events_[k].get()));
            result.push_back({names_[k], ms});
        }
        return result;
    }

private:
    void record(const char* stage_that_ends) {
        if (used_ == events_.size()) events_.emplace_back();
        cudaStreamCaptureStatus capturing = cudaStreamCaptureStatusNone;
        TS_CUDA_CHECK(cudaStreamIsCapturing(stream_, &capturing));
        const unsigned flags = capturing == cudaStreamCaptureStatusActive ? cudaEventRecordExternal : 0;
        TS_CUDA_CHECK(cudaEventRecordWithFlags(events_[used_++].get(), stream_, flags));
        names_.push_back(stage_that_ends);
    }

    cudaStream_t stream_;
    StageTiming timing_ = StageTiming::per_stage;
    std::vector<CudaEvent> events_;
    std::size_t used_ = 0;
    std::vector<std::string> names_;
};

// A device buffer of the frame whose reallocations the frame's graph sees: a reserve that moves
// the memory advances the frame's allocation generation, part of the graph's key, so no buffer can
// be forgotten by the key.
template <typename Storage>
class Tracked {
public:
    explicit Tracked(std::uint64_t& generation) : generation_(&generation) {}
    void reserve(std::size_t count) {
        track([&] { storage_.reserve(count); });
    }
    void reserve_bytes(std::size_t bytes) {
        track([&] { storage_.reserve_bytes(bytes); });
    }
    auto data() { return storage_.data(); }
    auto data() const { return storage_.data(); }
    std::size_t bytes() const { return storage_.bytes(); }

private:
    template <typename Grow>
    void track(Grow grow) {
        const void* before = storage_.data();
        grow();
        if (storage_.data() != before) ++*generation_;
    }

    Storage storage_;
    std::uint64_t* generation_;
};
template <typename T>
using FrameBuffer = Tracked<DeviceBuffer<T>>;

// What a captured frame graph bakes in: replaying it is right only while all of these are
// unchanged (kernel arguments, sizes, and every device pointer: the allocation generation).
struct FrameGraphKey {
    Binning binning;
    FramePlan plan;
    FrameChannels channels;
    StageTiming timing;
    int width, height, band_first_row, band_end_row;
    ShadingKind shading;
    BackgroundParams background;
    std::uint64_t capacity;
    std::uint32_t circles;
    const unsigned long long* blends;
    std::uint64_t allocations;

    auto tied() const {
        return std::tie(binning, plan.tile_lists, plan.shade_pixels, plan.boxes_from_geometry, plan.order_tiles,
                        plan.busy_tiles_apart, plan.tail_walk, timing, channels, width, height, band_first_row,
                        band_end_row, shading, background.kind, background.r, background.g, background.b, capacity,
                        circles, blends, allocations);
    }
    bool operator==(const FrameGraphKey& o) const { return tied() == o.tied(); }
};

// The frame as a CUDA graph: captured when its key changes, replayed otherwise, so its launches,
// copies and events cost the GPU little each instead of waiting for the host to issue them one by
// one (small scenes are bound by exactly that).
class FrameGraph {
public:
    // Runs the frame of `key` on `stream` and waits for it: captured first where the key changed.
    template <typename Enqueue>
    void run(cudaStream_t stream, const FrameGraphKey& key, Enqueue enqueue) {
        if (!exec_ || !(key_ == key)) capture(stream, key, enqueue);
        TS_CUDA_CHECK(cudaGraphLaunch(exec_.get(), stream));
        TS_CUDA_CHECK(cudaStreamSynchronize(stream));
    }

private:
    // Captures what `enqueue` puts on `stream` (ending the capture if it throws) and instantiates it.
    template <typename Enqueue>
    void capture(cudaStream_t stream, const FrameGraphKey& key, Enqueue enqueue) {
        exec_.reset();
        TS_CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeRelaxed));
        cudaGraph_t captured = nullptr;
        try {
            enqueue();
        } catch (...) {
            TS_CUDA_CHECK_NOTHROW(cudaStreamEndCapture(stream, &captured));
            CudaGraph discarded(captured);
            throw;
        }
        TS_CUDA_CHECK(cudaStreamEndCapture(stream, &captured));
        const CudaGraph graph(captured);
        // Kernel nodes keep their captured stream's priority (the busy tiles' branch has the greatest).
        cudaGraphExec_t exec = nullptr;
        TS_CUDA_CHECK(cudaGraphInstantiateWithFlags(&exec, graph.get(), cudaGraphInstantiateFlagUseNodePriority));
        exec_.reset(exec);
        key_ = key;
    }

    CudaGraphExec exec_;
    FrameGraphKey key_{};
};

// The scene's circles on the device (reserved at upload).
struct SceneBuffers {
    explicit SceneBuffers(std::uint64_t& generation)
        : x(generation),
          y(generation),
          z(generation),
          radius(generation),
          r(generation),
          g(generation),
          b(generation),
          a(generation) {}
    FrameBuffer<float> x, y, z, radius, r, g, b, a;
    std::uint32_t circles = 0;
    ShadingKind shading = kShadingFlat;
    BackgroundParams background{};
    // The frame plan's FrameFacts::coverings_per_pixel: measured on circles uploaded from the host,
    // unknown (-1) for circles read in GPU memory.
    double coverings_per_pixel = -1.0;

    DeviceCircles device_circles() const {
        return {x.data(), y.data(), z.data(), radius.data(), r.data(), g.data(), b.data(), a.data(), circles};
    }
};

// Per circle: the cull's records and the count stage's results (reserved at upload).
struct CircleBuffers {
    explicit CircleBuffers(std::uint64_t& generation)
        : shading_records(generation),
          box(generation),
          pair_counts(generation),
          tile_masks(generation),
          big_circles(generation),
          big_count(generation),
          big_first_slots(generation) {
        big_count.reserve(2);
    }
    FrameBuffer<CircleShadingRecord> shading_records;
    FrameBuffer<CircleBox> box;
    FrameBuffer<std::uint32_t> pair_counts;
    FrameBuffer<std::uint16_t> tile_masks;  // the count stage's, for the emission
    FrameBuffer<std::uint32_t> big_circles, big_count;
    FrameBuffer<std::uint64_t> big_first_slots;  // the emission's, for the big circles' kernel

    void reserve(std::size_t circles) {
        shading_records.reserve(circles);
        box.reserve(circles);
        pair_counts.reserve(circles);
        tile_masks.reserve(circles);
        big_circles.reserve(circles);
        big_first_slots.reserve(circles);
    }
    CircleRecords records() { return {shading_records.data(), box.data()}; }
    BigCircles big(std::uint32_t circles) { return {big_circles.data(), big_count.data(), circles}; }
    std::uint64_t circle_bytes() const {
        return shading_records.bytes() + box.bytes() + pair_counts.bytes() + tile_masks.bytes() + big_circles.bytes() +
               big_count.bytes() + big_first_slots.bytes();
    }
};

// The tile lists and what builds them (reserved per pass, grow-only).
struct TileListBuffers {
    explicit TileListBuffers(std::uint64_t& generation)
        : pair_total(generation),
          pair_tiles(generation),
          pair_circles(generation),
          packed_pairs(generation),
          tile_circles(generation),
          tile_offsets(generation),
          sort_keys(generation),
          sorted_keys(generation),
          temp(generation),
          scan_workspace(generation),
          row_pairs(generation),
          tile_order(generation) {
        pair_total.reserve(1);
    }
    FrameBuffer<std::uint64_t> pair_total;
    FrameBuffer<std::uint32_t> pair_tiles, pair_circles;
    FrameBuffer<std::uint32_t> packed_pairs;  // the packed strategy's words (tile_circles: sorted)
    FrameBuffer<std::uint32_t> tile_circles;
    FrameBuffer<std::uint64_t> tile_offsets;
    FrameBuffer<std::uint64_t> sort_keys, sorted_keys;
    FrameBuffer<unsigned char> temp;
    Tracked<ScanWorkspace> scan_workspace;      // the emission's scan of the pair counts: no clearing
    FrameBuffer<unsigned long long> row_pairs;  // [tiles_y], for the band planner
    FrameBuffer<std::uint32_t> tile_order;      // the shading grid's, longest list first

    // What the bin-memory budget bounds (binning_bytes, and the direct binning's temporary storage).
    std::uint64_t pair_bytes() const {
        return pair_tiles.bytes() + pair_circles.bytes() + packed_pairs.bytes() + tile_circles.bytes() +
               sort_keys.bytes() + sorted_keys.bytes() + temp.bytes();
    }
    std::uint64_t circle_tile_bytes() const {
        return pair_total.bytes() + tile_offsets.bytes() + scan_workspace.bytes() + row_pairs.bytes() +
               tile_order.bytes();
    }
};

// The shading stage's branch for busy tiles (BusyTiles, launch_shade_tiles).
struct BusyTileBranch {
    explicit BusyTileBranch(std::uint64_t& generation) : tiles(generation), count(generation) { count.reserve(1); }
    CudaStream stream = CudaStream::with_greatest_priority();
    CudaEvent forked{true}, joined{true};
    FrameBuffer<std::uint32_t> tiles, count;
    MappedPinned<std::uint32_t> host_count;  // the busy-tile list's count
    MappedPinned<std::uint32_t> host_seen;   // flagged by the main grid where it meets a busy tile
    // Whether the frames shade busy tiles apart (next_busy_tiles_apart).
    bool apart = false;

    BusyTiles on(bool shade_apart) {
        BusyTiles busy;
        busy.on_device.shade_apart = shade_apart;
        busy.on_device.tiles = tiles.data();
        busy.on_device.count = count.data();
        busy.on_device.host_count = host_count.device();
        busy.on_device.host_seen = host_seen.device();
        busy.stream = stream.get();
        busy.forked = forked.get();
        busy.joined = joined.get();
        return busy;
    }
    std::uint64_t tile_bytes() const { return tiles.bytes() + count.bytes(); }
};

// Tile compaction's totals and two-level compaction's region lists.
struct CompactionBuffers {
    explicit CompactionBuffers(std::uint64_t& generation)
        : tallies(generation), region_ids(generation), region_counts(generation) {
        tallies.reserve(2);
        TS_CUDA_CHECK(cudaMemset(tallies.data(), 0, 2 * sizeof(unsigned long long)));
    }
    FrameBuffer<unsigned long long> tallies;  // [2]: CompactionTotals' pairs, finished blocks
    FrameBuffer<std::uint32_t> region_ids, region_counts;

    std::uint64_t region_bytes() const { return region_ids.bytes() + region_counts.bytes(); }  // within the budget
};

// --max-bin-memory, or half of the device memory free when the backend starts (tile_bands.h).
std::uint64_t bin_budget(std::uint64_t max_bin_bytes) {
    if (max_bin_bytes > 0) return max_bin_bytes;
    DeviceMemory memory;
    if (!cuda_device_memory(memory))
        throw std::runtime_error("cannot read the device's free memory for the bin budget");
    return default_bin_budget(memory.free_bytes);
}

// The whole frame as one band of tile rows.
FrameParams frame_params(int width, int height, ShadingKind shading, const BackgroundParams& background) {
    const TileGrid grid = tile_grid(width, height);
    return {width, height, 1.0f / (float)width, 1.0f / (float)height, grid, shading, background, 0, grid.tiles_y};
}

// Turns a device allocation failure into the one-line user error of the bad-input contract.
template <typename Body>
auto with_out_of_memory_message(const char* what, Body body) -> decltype(body()) {
    try {
        return body();
    } catch (const CudaError& error) {
        if (!error.out_of_memory()) throw;
        cudaGetLastError();  // an allocation failure is not sticky: clear it and carry on
        std::size_t free_bytes = 0, total_bytes = 0;
        cudaMemGetInfo(&free_bytes, &total_bytes);
        throw InputError(std::string("GPU out of memory while ") + what + " (" + std::to_string(free_bytes >> 20) +
                         " MiB free of " + std::to_string(total_bytes >> 20) + " MiB)");
    }
}

// The sort peer's keys hold the tile above the circle id: bits [0, 32 + bits of the tile ids).
int sort_key_bits(std::uint32_t bins) { return 32 + ordered_binning_bin_bits(bins); }

// Device bytes the scan or sort binning holds for `pairs` pairs, as reserve_pass reserves them:
// the emitted pairs, the binned circle ids and the binning's temporary storage. Packed pairs take
// less (two words a pair and a keys-only sort's storage), so this bounds both.
std::uint64_t binning_bytes(Binning binning, std::uint64_t pairs, std::uint32_t bins) {
    constexpr std::uint64_t kId = sizeof(std::uint32_t), kKey = sizeof(std::uint64_t);
    if (binning == Binning::scan)  // pair_tiles, pair_circles, tile_circles
        return pairs * 3 * kId + ordered_binning_temp_bytes(pairs, bins);
    // sort_keys, sorted_keys, tile_circles
    return pairs * (2 * kKey + kId) + sort_pair_keys_temp_bytes(pairs, sort_key_bits(bins));
}

// The band planner's bytes per pair: binning_bytes of a large frame per pair, rounded up.
std::uint64_t bytes_per_pair(Binning binning) {
    const std::uint64_t probe = std::uint64_t(1) << 24;
    return (binning_bytes(binning, probe, 1u << 16) + probe - 1) / probe;
}

// Stage times of several passes over bands, summed by stage name in first-seen order.
void add_stages(std::vector<StageTime>& into, const std::vector<StageTime>& stages) {
    for (const StageTime& stage : stages) {
        auto same = std::find_if(into.begin(), into.end(), [&](const StageTime& s) { return s.name == stage.name; });
        if (same == into.end())
            into.push_back(stage);
        else
            same->ms += stage.ms;
    }
}

// InputError unless `pointer` is memory of `device` that its kernels can read (device or managed).
void require_device_memory(const void* pointer, int device, const std::string& what) {
    cudaPointerAttributes attributes{};
    const cudaError_t result = cudaPointerGetAttributes(&attributes, pointer);
    if (result == cudaErrorInvalidValue) {
        cudaGetLastError();  // a pointer CUDA does not know: not sticky, cleared
        throw InputError(what + ": the pointer is not CUDA device memory");
    }
    TS_CUDA_CHECK(result);
    if (attributes.type != cudaMemoryTypeDevice && attributes.type != cudaMemoryTypeManaged)
        throw InputError(what + ": the pointer is not CUDA device memory");
    if (attributes.device != device)
        throw InputError(what + ": the memory is on CUDA device " + std::to_string(attributes.device) +
                         ", the cuda backend renders on device " + std::to_string(device));
}

// InputError unless the scene's `circles` fit the 32-bit circle ids; `where` ("" or "circles: ")
// starts the message.
void check_circle_count(std::size_t circles, const std::string& where) {
    if (circles > kMaxCircles) throw InputError(where + "the cuda backend renders at most 2^32 - 1 circles per scene");
}

// InputError unless a frame of width x height in images of `channels` floats a pixel can be made.
void check_frame_layout(int width, int height, int channels) {
    if (channels != 3 && channels != 4)
        throw InputError("image: " + std::to_string(channels) + " channels, expected 3 or 4");
    if (width < 1 || height < 1 || width > kMaxImageSide || height > kMaxImageSide ||
        std::int64_t(width) * height > kMaxImagePixels)
        throw InputError("image: size " + std::to_string(width) + "x" + std::to_string(height) +
                         " is outside the image limits");
}

// The device current now, where the backend's memory and streams are made.
int current_device() {
    int device = 0;
    TS_CUDA_CHECK(cudaGetDevice(&device));
    return device;
}

// Makes `device` current while it lives, then the caller's again: a caller (PyTorch, CuPy) may
// have made another device current since the backend was made.
class DeviceScope {
public:
    explicit DeviceScope(int device) {
        TS_CUDA_CHECK(cudaGetDevice(&previous_));
        if (previous_ != device) TS_CUDA_CHECK(cudaSetDevice(device));
        changed_ = previous_ != device;
    }
    ~DeviceScope() {
        if (changed_) TS_CUDA_CHECK_NOTHROW(cudaSetDevice(previous_));
    }
    DeviceScope(const DeviceScope&) = delete;
    DeviceScope& operator=(const DeviceScope&) = delete;

private:
    int previous_ = 0;
    bool changed_ = false;
};

double milliseconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

// Everything a frame runs on: its stream, its device memory by stage, its graph and timer.
struct CudaBackend::Frame {
    std::uint64_t allocations = 0;  // advanced by every reallocation (Tracked): part of the graph's key
    CudaStream stream;
    SceneBuffers scene{allocations};
    CircleBuffers circles{allocations};
    TileListBuffers lists{allocations};
    BusyTileBranch busy{allocations};
    CompactionBuffers compaction{allocations};
    FrameBuffer<float> image{allocations};
    FrameBuffer<unsigned long long> blends{allocations};
    DeviceBuffer<DeviceCircleFacts> circle_facts{1};        // the scene's colours and alphas, for the tail walk
    DeviceBuffer<float> equal_alpha_sums{kEqualAlphaSums};  // the sums of a scene of one alpha (circle_facts.h)
    MappedPinned<DeviceCircleFacts> circle_facts_on_host;   // its copy, for the plans of RGBA frames
    CudaEvent circle_facts_copied{true};                    // after the copy
    MappedPinned<std::uint64_t> host_total;                 // the frame's pairs, copied by its emission or compaction
    DeviceBuffer<unsigned long long> first_bad_circle{1};   // load_rows' check
    DeviceBuffer<float> host_rows;                          // render_to_host's rows, as the caller laid them out
    DeviceBuffer<float> exported;                           // the image in a caller's layout, for the host
    CudaEvent circles_ready{true};                          // the caller's stream, where device circles come from
    CudaEvent out_ready{true};                              // the caller's stream, where a device image goes
    std::uint64_t pair_capacity = 0;                        // pairs the pair buffers hold (grow-only memory)
    StageTimer timer{stream.get()};
    FrameGraph graph;
    int width = 0, height = 0;
    FrameChannels channels = FrameChannels::rgba;  // the frame's: RGB frames' tail walk skips alpha

    Frame() { blends.reserve(1); }

    PairEmission emission() {
        return {circles.tile_masks.data(),   circles.pair_counts.data(), circles.big_first_slots.data(),
                lists.pair_total.data(),     host_total.device(),        lists.scan_workspace.data(),
                lists.scan_workspace.bytes()};
    }
    CompactionTotals compaction_totals() {
        return {compaction.tallies.data(), compaction.tallies.data() + 1, host_total.device()};
    }
    std::uint64_t pair_bytes() const { return lists.pair_bytes() + compaction.region_bytes(); }
    std::uint64_t circle_tile_bytes() const {
        return circles.circle_bytes() + lists.circle_tile_bytes() + busy.tile_bytes() + compaction.tallies.bytes();
    }
};

CudaBackend::CudaBackend(Binning binning, std::uint64_t max_bin_bytes)
    : device_(current_device()),
      binning_(binning),
      bin_budget_(bin_budget(max_bin_bytes)),
      l2_cache_bytes_(std::size_t(current_device_attribute(cudaDevAttrL2CacheSize))),
      order_tiles_shared_max_(order_tiles_shared_limit()),
      frame_(std::make_unique<Frame>()) {}
CudaBackend::~CudaBackend() = default;

void CudaBackend::upload(const Scene& scene) { upload_circles(scene, scene.shading, scene.background); }

void CudaBackend::upload_circles(const Scene& scene, ShadingKind shading, const BackgroundParams& background) {
    Frame& f = *frame_;
    const std::size_t n = scene.size();
    check_circle_count(n, "");
    f.scene.circles = 0;  // until set_scene: an upload that fails leaves nothing to render
    with_out_of_memory_message("uploading the circles", [&] {
        const std::vector<float>* host[] = {&scene.x, &scene.y, &scene.z, &scene.radius,
                                            &scene.r, &scene.g, &scene.b, &scene.a};
        SceneBuffers& s = f.scene;
        FrameBuffer<float>* device[] = {&s.x, &s.y, &s.z, &s.radius, &s.r, &s.g, &s.b, &s.a};
        for (int k = 0; k < 8; ++k) {
            device[k]->reserve(n);
            if (n)
                TS_CUDA_CHECK(cudaMemcpyAsync(device[k]->data(), host[k]->data(), n * sizeof(float),
                                              cudaMemcpyHostToDevice, f.stream.get()));
        }
        f.circles.reserve(n);
    });
    set_scene(n, shading, background,
              shading == kShadingFlat ? mean_coverings(scene.x.data(), scene.y.data(), scene.radius.data(), n) : -1.0);
}

// The scene's buffers hold `circles` circles now: what the frames read beside them, and the colour
// range of the tail walk's brackets. Where finding the circles' facts fails the scene holds no
// circles: a frame must not shade new circles with another scene's facts.
void CudaBackend::set_scene(std::size_t circles, ShadingKind shading, const BackgroundParams& background,
                            double coverings_per_pixel) {
    Frame& f = *frame_;
    f.scene.circles = static_cast<std::uint32_t>(circles);
    f.scene.shading = shading;
    f.scene.background = background;
    f.scene.coverings_per_pixel = coverings_per_pixel;
    try {
        launch_circle_facts(f.scene.device_circles(), background, f.equal_alpha_sums.data(), f.circle_facts.data(),
                            f.stream.get());
        TS_CUDA_CHECK(cudaMemcpyAsync(&f.circle_facts_on_host.host(), f.circle_facts.data(), sizeof(DeviceCircleFacts),
                                      cudaMemcpyDeviceToHost, f.stream.get()));
        TS_CUDA_CHECK(cudaEventRecord(f.circle_facts_copied.get(), f.stream.get()));
    } catch (...) {
        f.scene.circles = 0;
        throw;
    }
}

// Whether the scene's flat circles count their alpha over `background` (alpha_counted), by the
// circle facts' copy: RGBA frames wait for the upload's facts here, as they would for the frame.
bool CudaBackend::alpha_counted_on_host(const BackgroundParams& background) const {
    const Frame& f = *frame_;
    TS_CUDA_CHECK(cudaEventSynchronize(f.circle_facts_copied.get()));
    return alpha_counted(f.circle_facts_on_host.host(), background);
}

// The scene's buffers := `circles` rows of 8 floats in device memory (after the work on the stream so
// far), checked there: a bad row throws validate_scene's message and leaves nothing to render.
void CudaBackend::load_rows(const float* device_rows, std::size_t n, const std::string& where, ShadingKind shading,
                            const BackgroundParams& background, double coverings_per_pixel) {
    Frame& f = *frame_;
    SceneBuffers& s = f.scene;
    s.circles = 0;  // until the rows are checked, the buffers hold nothing to render
    with_out_of_memory_message("allocating the circles", [&] {
        for (FrameBuffer<float>* field : {&s.x, &s.y, &s.z, &s.radius, &s.r, &s.g, &s.b, &s.a}) field->reserve(n);
        f.circles.reserve(n);
    });
    const CircleFields fields{s.x.data(), s.y.data(), s.z.data(), s.radius.data(),
                              s.r.data(), s.g.data(), s.b.data(), s.a.data()};
    check_rows(device_rows, n, where, &fields);
    set_scene(n, shading, background, coverings_per_pixel);
}

// Checks `n` rows of 8 floats in device memory on the frame's stream, unpacking them into `fields`
// on the way unless it is null, and throws the host check's InputError for the first bad one.
void CudaBackend::check_rows(const float* device_rows, std::size_t n, const std::string& where,
                             const CircleFields* fields) {
    Frame& f = *frame_;
    const cudaStream_t stream = f.stream.get();
    TS_CUDA_CHECK(cudaMemsetAsync(f.first_bad_circle.data(), 0xff, sizeof(unsigned long long), stream));
    if (fields)
        launch_unpack_circle_rows(device_rows, n, *fields, f.first_bad_circle.data(), stream);
    else
        launch_check_circle_rows(device_rows, n, f.first_bad_circle.data(), stream);
    unsigned long long first_bad = 0;
    TS_CUDA_CHECK(
        cudaMemcpyAsync(&first_bad, f.first_bad_circle.data(), sizeof first_bad, cudaMemcpyDeviceToHost, stream));
    TS_CUDA_CHECK(cudaStreamSynchronize(stream));
    if (first_bad == ~0ull) return;
    // The message is the host check's: the bad row comes to the host for circle_problem to read.
    Circle bad{};
    static_assert(sizeof(Circle) == 8 * sizeof(float), "a Circle is one row");
    TS_CUDA_CHECK(cudaMemcpy(&bad, device_rows + first_bad * 8, sizeof bad, cudaMemcpyDeviceToHost));
    throw InputError(invalid_circle_message(where, first_bad, bad));
}

std::uint64_t CudaBackend::band_pair_limit() const {
    return tilescan::max_band_pairs(bin_budget_, bytes_per_pair(binning_));
}

FrameFacts CudaBackend::facts(const FrameParams& frame, std::uint64_t capacity, bool first_pass) const {
    const Frame& f = *frame_;
    FrameFacts facts;
    facts.binning = binning_;
    facts.circles = f.scene.circles;
    facts.grid = frame.grid;
    facts.band_first_row = frame.band_first_row;
    facts.band_end_row = frame.band_end_row;
    facts.shading = frame.shading;
    facts.pair_capacity = capacity;
    facts.first_pass = first_pass;
    facts.bin_budget = bin_budget_;
    facts.l2_cache_bytes = l2_cache_bytes_;
    facts.order_tiles_shared_max = order_tiles_shared_max_;
    facts.direct_binning_bytes = direct_binning_temp_bytes(f.scene.circles, band_tile_count(frame));
    facts.busy_tiles_apart = f.busy.apart;
    facts.coverings_per_pixel = f.scene.coverings_per_pixel;
    facts.alpha = f.channels == FrameChannels::rgba;
    facts.alpha_counted = facts.alpha && frame.shading == kShadingFlat && alpha_counted_on_host(frame.background);
    return facts;
}

// The pass's device memory, by its plan: grown where the pass needs more, never shrunk.
void CudaBackend::reserve_pass(const FrameParams& frame, const FramePlan& plan, std::uint64_t capacity) {
    Frame& f = *frame_;
    TileListBuffers& lists = f.lists;
    const std::uint32_t band_tiles = band_tile_count(frame);
    const std::uint32_t bins = band_tiles + 1;  // the sort peer's sentinel tile too
    if (!plan.binned()) {
        if (plan.tile_lists != TileListStrategy::region_compaction) return;
        const std::uint64_t regions = region_count(frame.grid);
        with_out_of_memory_message("allocating the region lists", [&] {
            f.compaction.region_ids.reserve(regions * f.scene.circles);
            f.compaction.region_counts.reserve(regions);
        });
        return;
    }
    with_out_of_memory_message("allocating the tile bins", [&] {
        lists.tile_offsets.reserve(std::size_t(bins) + 1);
        f.busy.tiles.reserve(bins);
        lists.tile_order.reserve(bins);
        lists.tile_circles.reserve(capacity);
        if (plan.tile_lists == TileListStrategy::direct) {
            lists.temp.reserve(direct_binning_temp_bytes(f.scene.circles, band_tiles));
            return;
        }
        lists.scan_workspace.reserve_bytes(pair_slot_scan_bytes(f.scene.circles));
        if (plan.tile_lists == TileListStrategy::packed_pairs) {
            lists.packed_pairs.reserve(capacity);
            lists.temp.reserve(radix_sort_keys_temp_bytes<std::uint32_t>(capacity));
        } else if (binning_ == Binning::scan) {
            lists.pair_tiles.reserve(capacity);
            lists.pair_circles.reserve(capacity);
            lists.temp.reserve(ordered_binning_temp_bytes(capacity, band_tiles));
        } else {
            lists.sort_keys.reserve(capacity);
            lists.sorted_keys.reserve(capacity);
            lists.temp.reserve(sort_pair_keys_temp_bytes(capacity, sort_key_bits(bins)));
        }
    });
}

// Cull, count, then the emission of (tile, circle) pairs in circle order into `capacity` slots,
// which scans the counts itself (PairEmission), then their binning by tile: ordered binning, a
// keys-only radix sort of packed pairs, or the sort peer's radix sort.
void CudaBackend::enqueue_pair_binning(const FrameParams& frame, const FramePlan& plan, std::uint64_t capacity) {
    Frame& f = *frame_;
    TileListBuffers& lists = f.lists;
    const cudaStream_t stream = f.stream.get();
    const std::uint32_t circles = f.scene.circles, band_tiles = band_tile_count(frame);
    // The total goes to the host after the frame, never in between.
    launch_cull_and_count(f.scene.device_circles(), frame, f.circles.records(), f.circles.big(circles),
                          f.circles.pair_counts.data(), f.circles.tile_masks.data(), stream);
    f.timer.end_stage("cull+count");
    const PairEmission emission = f.emission();
    if (plan.tile_lists == TileListStrategy::packed_pairs) {
        launch_emit_packed_pairs(frame, f.circles.records(), circles, f.circles.big(circles), emission, capacity,
                                 lists.packed_pairs.data(), stream);
        f.timer.end_stage("scan+emit");
        radix_sort_keys(lists.packed_pairs.data(), lists.tile_circles.data(), capacity, lists.temp.data(),
                        lists.temp.bytes(), stream, packed_circle_bits(band_tiles), 32, kRadixDefaultBits,
                        emission.total);
        launch_packed_pair_offsets(lists.tile_circles.data(), capacity, emission.total, frame,
                                   lists.tile_offsets.data(), stream);
        f.timer.end_stage("bin");
    } else if (binning_ == Binning::scan) {
        launch_emit_pairs(frame, f.circles.records(), circles, f.circles.big(circles), emission, capacity,
                          lists.pair_tiles.data(), lists.pair_circles.data(), stream);
        f.timer.end_stage("scan+emit");
        ordered_binning(lists.pair_tiles.data(), lists.pair_circles.data(), capacity, band_tiles,
                        lists.tile_circles.data(), lists.tile_offsets.data(), lists.temp.data(), lists.temp.bytes(),
                        stream, emission.total);
        f.timer.end_stage("bin");
    } else {
        launch_emit_sort_keys(frame, f.circles.records(), circles, f.circles.big(circles), emission, capacity,
                              lists.sort_keys.data(), stream);
        f.timer.end_stage("scan+emit");
        const std::uint32_t bins = band_tiles + 1;  // the band's tiles and the padding's sentinel
        sort_pair_keys(lists.sort_keys.data(), lists.sorted_keys.data(), capacity, sort_key_bits(bins),
                       lists.temp.data(), lists.temp.bytes(), stream);
        launch_split_sort_keys(lists.sorted_keys.data(), capacity, band_tiles, lists.tile_circles.data(),
                               lists.tile_offsets.data(), stream);
        f.timer.end_stage("bin");
    }
}

// The tile lists directly from the circles: a cull without counts, counts per (tile, chunk), their
// scan, and the ordered scatter of circle ids (direct_binning.h).
void CudaBackend::enqueue_direct_binning(const FrameParams& frame, std::uint64_t capacity) {
    Frame& f = *frame_;
    const cudaStream_t stream = f.stream.get();
    const std::uint32_t circles = f.scene.circles;
    unsigned char* temp = f.lists.temp.data();
    launch_cull(f.scene.device_circles(), frame, f.circles.records(), stream);
    f.timer.end_stage("cull");
    launch_direct_count(frame, f.circles.records(), circles, temp, stream);
    f.timer.end_stage("count");
    launch_direct_scan(frame, circles, temp, stream);
    f.timer.end_stage("scan");
    launch_direct_scatter(frame, f.circles.records(), circles, temp, f.lists.tile_offsets.data(),
                          f.lists.tile_circles.data(), capacity, f.host_total.device(), stream);
    f.timer.end_stage("bin");
}

TailWalk CudaBackend::tail_walk(const FramePlan& plan) const {
    return {plan.tail_walk ? frame_->circle_facts.data() : nullptr, frame_->channels == FrameChannels::rgba};
}

// The cull, then one kernel that lists and shades each tile (after a kernel that lists each
// region's circles, for region compaction).
void CudaBackend::enqueue_compaction(const FrameParams& frame, const FramePlan& plan, unsigned long long* blends) {
    Frame& f = *frame_;
    const cudaStream_t stream = f.stream.get();
    const std::uint32_t circles = f.scene.circles;
    RegionLists regions{nullptr, nullptr};
    if (plan.tile_lists == TileListStrategy::region_compaction)
        regions = {f.compaction.region_ids.data(), f.compaction.region_counts.data()};
    launch_cull(f.scene.device_circles(), frame, f.circles.records(), stream);
    f.timer.end_stage("cull");
    if (regions.ids) {
        launch_list_region_circles(frame, f.circles.records(), circles, regions, stream);
        f.timer.end_stage("list regions");
    }
    launch_compact_and_shade_tiles(frame, f.circles.records(), circles, regions, f.compaction_totals(),
                                   plan.shade_pixels, tail_walk(plan), f.image.data(), blends, stream);
    f.timer.end_frame("compact+shade");
}

// The pass's stages over the frame's band, onto the stream (run_pass captures them as a graph).
void CudaBackend::enqueue_pass(const FrameParams& frame, const FramePlan& plan, std::uint64_t capacity,
                               unsigned long long* blends, StageTiming timing) {
    Frame& f = *frame_;
    f.timer.start(timing);
    if (!plan.binned()) {
        enqueue_compaction(frame, plan, blends);
        return;
    }
    if (plan.tile_lists == TileListStrategy::direct)
        enqueue_direct_binning(frame, capacity);
    else
        enqueue_pair_binning(frame, plan, capacity);
    const std::uint32_t band_tiles = band_tile_count(frame);
    const std::uint32_t circle_id_mask =
        plan.tile_lists == TileListStrategy::packed_pairs ? packed_circle_id_mask(band_tiles) : ~std::uint32_t(0);
    launch_shade_tiles(frame, f.circles.records(), f.lists.tile_offsets.data(), f.lists.tile_circles.data(),
                       circle_id_mask, plan.order_tiles ? f.lists.tile_order.data() : nullptr,
                       f.busy.on(plan.busy_tiles_apart), plan.shade_pixels, plan.boxes_from_geometry, tail_walk(plan),
                       f.image.data(), blends, f.stream.get());
    f.timer.end_frame("shade");
}

// One pass over the frame's band by `plan`, as a graph, and what it measured. Only binned passes
// feed the busy-tile branch's state.
RenderStats CudaBackend::run_pass(const FrameParams& frame, const FramePlan& plan, std::uint64_t capacity,
                                  unsigned long long* blends, StageTiming timing) {
    Frame& f = *frame_;
    reserve_pass(frame, plan, capacity);
    // A compacted pass bakes in no capacity (its kernels take none).
    const std::uint64_t baked_capacity = plan.binned() ? capacity : 0;
    const FrameGraphKey key{binning_,
                            plan,
                            f.channels,
                            timing,
                            frame.width,
                            frame.height,
                            frame.band_first_row,
                            frame.band_end_row,
                            frame.shading,
                            frame.background,
                            baked_capacity,
                            f.scene.circles,
                            blends,
                            f.allocations};
    if (plan.binned()) f.busy.host_seen.host() = 0;  // before the launch, so the frame's kernels see it
    f.graph.run(f.stream.get(), key, [&] { enqueue_pass(frame, plan, capacity, blends, timing); });
    RenderStats stats;
    stats.stages = f.timer.stages();
    if (!plan.binned()) {
        stats.pairs = f.host_total.host();
        return stats;
    }
    stats.pairs = f.scene.circles ? f.host_total.host() : 0;
    stats.busy_tiles = plan.busy_tiles_apart ? f.busy.host_count.host() : 0;
    f.busy.apart = next_busy_tiles_apart(plan.busy_tiles_apart, stats.busy_tiles, f.busy.host_seen.host() != 0);
    return stats;
}

// The frame in tile-row bands that each fit the budget (renderer/tile_bands.h), when all of its
// pairs at once would not.
RenderStats CudaBackend::run_bands(const FrameParams& frame, unsigned long long* blends, StageTiming timing) {
    Frame& f = *frame_;
    const cudaStream_t stream = f.stream.get();
    with_out_of_memory_message("allocating the row totals", [&] { f.lists.row_pairs.reserve(frame.grid.tiles_y); });
    launch_count_row_pairs(frame, f.circles.records(), f.scene.circles, f.lists.row_pairs.data(), stream);
    std::vector<std::uint64_t> row_pairs(frame.grid.tiles_y);
    TS_CUDA_CHECK(cudaMemcpyAsync(row_pairs.data(), f.lists.row_pairs.data(), row_pairs.size() * sizeof(std::uint64_t),
                                  cudaMemcpyDeviceToHost, stream));
    TS_CUDA_CHECK(cudaStreamSynchronize(stream));
    const std::uint64_t per_pair = bytes_per_pair(binning_);
    const std::vector<TileBand> bands = plan_tile_bands(row_pairs, per_pair, band_pair_limit() * per_pair);
    RenderStats stats;
    for (const TileBand& band : bands) {
        FrameParams band_frame = frame;
        band_frame.band_first_row = band.first_row;
        band_frame.band_end_row = band.end_row;
        const FramePlan plan = plan_frame(facts(band_frame, band.pairs, false), overrides_);
        const RenderStats pass = run_pass(band_frame, plan, band.pairs, blends, timing);
        add_stages(stats.stages, pass.stages);
        stats.pairs += pass.pairs;
        stats.busy_tiles += pass.busy_tiles;
    }
    stats.bands = static_cast<std::uint32_t>(bands.size());
    return stats;
}

RenderStats CudaBackend::render_uploaded(int width, int height, bool count_blends, StageTiming timing) {
    return render_frame(width, height, count_blends, timing, channels_);
}

RenderStats CudaBackend::render_frame(int width, int height, bool count_blends, StageTiming timing,
                                      FrameChannels channels) {
    Frame& f = *frame_;
    f.channels = channels;
    const FrameParams frame = frame_params(width, height, f.scene.shading, f.scene.background);
    const std::size_t pixels = std::size_t(width) * height;
    with_out_of_memory_message("allocating the image", [&] { f.image.reserve(pixels * 4); });
    f.width = width;
    f.height = height;
    unsigned long long* blends = count_blends ? f.blends.data() : nullptr;
    const auto reset_blends = [&] {
        if (count_blends)
            TS_CUDA_CHECK(cudaMemsetAsync(f.blends.data(), 0, sizeof(unsigned long long), f.stream.get()));
    };
    reset_blends();
    // Pair buffers sized by the last frame, so a frame runs without a host round trip; a frame with
    // more pairs runs again with room for them, or in bands beyond the budget (the stats then
    // describe the pass that made the image).
    const FramePlan plan = plan_frame(facts(frame, f.pair_capacity, true), overrides_);
    RenderStats stats = run_pass(frame, plan, f.pair_capacity, blends, timing);
    stats.bands = 1;
    if (!plan.binned()) {
        f.pair_capacity = capacity_after_compaction(stats.pairs, f.pair_capacity, band_pair_limit());
    } else {
        const AfterPass after = after_binned_pass(stats.pairs, f.pair_capacity, band_pair_limit());
        if (after.next != AfterPass::Next::done) reset_blends();
        f.pair_capacity = after.capacity;
        if (after.next == AfterPass::Next::run_again) {
            const FramePlan again = plan_frame(facts(frame, f.pair_capacity, false), overrides_);
            stats = run_pass(frame, again, f.pair_capacity, blends, timing);
            stats.bands = 1;
        } else if (after.next == AfterPass::Next::bands) {
            stats = run_bands(frame, blends, timing);
        }
    }
    for (const StageTime& stage : stats.stages) stats.total_ms += stage.ms;
    if (count_blends) {
        unsigned long long total = 0;
        TS_CUDA_CHECK(cudaMemcpy(&total, f.blends.data(), sizeof total, cudaMemcpyDeviceToHost));
        stats.blends = total;
        stats.counted_blends = true;
    }
    stats.pair_bytes = f.pair_bytes();
    stats.circle_tile_bytes = f.circle_tile_bytes();
    return stats;
}

void CudaBackend::download(Image& image) {
    const Frame& f = *frame_;
    if (image.width != f.width || image.height != f.height) image = Image(f.width, f.height);
    TS_CUDA_CHECK(cudaMemcpyAsync(image.data(), f.image.data(), std::size_t(f.width) * f.height * 4 * sizeof(float),
                                  cudaMemcpyDeviceToHost, f.stream.get()));
    TS_CUDA_CHECK(cudaStreamSynchronize(f.stream.get()));
}

RenderStats CudaBackend::render(const Scene& scene, Image& image) {
    HostCircleFrame frame;
    frame.scene = &scene;
    frame.shading = scene.shading;
    frame.background = scene.background;
    frame.width = image.width;
    frame.height = image.height;
    return render_host_frame(frame, channels_, {4, false}, image.data());
}

RenderStats CudaBackend::render_to_host(const HostCircleFrame& frame, const ImageLayout& layout, float* pixels) {
    return render_host_frame(frame, layout.channels == 4 ? FrameChannels::rgba : FrameChannels::rgb, layout, pixels);
}

// The frame of host circles: uploaded (a Scene's fields, or the rows to be unpacked and checked on
// the device), rendered, and its image brought to `pixels` in `layout`'s order, converted on the
// device unless it is the frame's own (RGBA, bottom row first).
RenderStats CudaBackend::render_host_frame(const HostCircleFrame& in, FrameChannels channels, const ImageLayout& layout,
                                           float* pixels) {
    const DeviceScope on_device(device_);
    Frame& f = *frame_;
    const cudaStream_t stream = f.stream.get();
    check_frame_layout(in.width, in.height, layout.channels);
    const auto upload_start = std::chrono::steady_clock::now();
    if (in.scene) {
        upload_circles(*in.scene, in.shading, in.background);
    } else {
        check_circle_count(in.circles, in.where + ": ");
        with_out_of_memory_message("uploading the circles", [&] { f.host_rows.reserve(in.circles * 8); });
        if (in.circles)
            TS_CUDA_CHECK(cudaMemcpyAsync(f.host_rows.data(), in.rows, in.circles * 8 * sizeof(float),
                                          cudaMemcpyHostToDevice, stream));
        const double coverings =
            in.shading == kShadingFlat ? mean_coverings(in.rows, in.rows + 1, in.rows + 3, in.circles, 8) : -1.0;
        load_rows(f.host_rows.data(), in.circles, in.where, in.shading, in.background, coverings);
    }
    TS_CUDA_CHECK(cudaStreamSynchronize(stream));
    const double upload_ms = milliseconds_since(upload_start);
    RenderStats stats = render_frame(in.width, in.height, true, StageTiming::per_stage, channels);

    const auto download_start = std::chrono::steady_clock::now();
    const std::size_t floats = std::size_t(in.width) * in.height * layout.channels;
    const float* image = f.image.data();
    if (layout.channels != 4 || layout.top_row_first) {
        with_out_of_memory_message("allocating the image", [&] { f.exported.reserve(floats); });
        launch_export_image(f.image.data(), in.width, in.height, layout.channels, layout.top_row_first,
                            f.exported.data(), stream);
        image = f.exported.data();
    }
    TS_CUDA_CHECK(cudaMemcpyAsync(pixels, image, floats * sizeof(float), cudaMemcpyDeviceToHost, stream));
    TS_CUDA_CHECK(cudaStreamSynchronize(stream));
    stats.stages.insert(stats.stages.begin(), {"upload", upload_ms});
    stats.stages.push_back({"download", milliseconds_since(download_start)});
    return stats;
}

RenderStats CudaBackend::render_to_device_rgba8(const Scene& scene, int width, int height, void* device_rgba8) {
    upload(scene);
    RenderStats stats = render_uploaded(width, height, false, StageTiming::whole_frame);
    launch_convert_to_rgba8(frame_->image.data(), width, height, static_cast<std::uint8_t*>(device_rgba8),
                            frame_->stream.get());
    TS_CUDA_CHECK(cudaStreamSynchronize(frame_->stream.get()));
    return stats;
}

// The frame's circles come straight from the caller's rows into the buffers upload fills (checked on
// the way), and its image goes out in the caller's layout: the frame between is render_uploaded's.
DeviceImage CudaBackend::render_device_circles(const DeviceCircleFrame& in, const DeviceImageLayout& layout) {
    const DeviceScope on_device(device_);
    Frame& f = *frame_;
    const cudaStream_t stream = f.stream.get();
    check_frame_layout(in.width, in.height, layout.channels);
    if (layout.out) require_device_memory(layout.out, device_, "out");

    const auto unpack_start = std::chrono::steady_clock::now();
    wait_for_rows(in);
    load_rows(in.rows, in.circles, in.where, in.shading, in.background, -1.0);
    const double unpack_ms = milliseconds_since(unpack_start);

    DeviceImage image;
    image.stats = render_frame(in.width, in.height, true, StageTiming::per_stage,
                               layout.channels == 4 ? FrameChannels::rgba : FrameChannels::rgb);
    const auto export_start = std::chrono::steady_clock::now();
    image.width = in.width;
    image.height = in.height;
    image.channels = layout.channels;
    image.device = device_;
    const std::size_t floats = std::size_t(in.width) * in.height * layout.channels;
    if (layout.out) {
        image.pixels = std::shared_ptr<float>(std::shared_ptr<float>(), layout.out);  // the caller's: not owned
        if (layout.out_stream != in.wait_stream) {
            TS_CUDA_CHECK(cudaEventRecord(f.out_ready.get(), static_cast<cudaStream_t>(layout.out_stream)));
            TS_CUDA_CHECK(cudaStreamWaitEvent(stream, f.out_ready.get(), 0));
        }
    } else {
        image.pixels = allocate_device_floats(floats);
    }
    launch_export_image(f.image.data(), in.width, in.height, layout.channels, layout.top_row_first, image.pixels.get(),
                        stream);
    TS_CUDA_CHECK(cudaStreamSynchronize(stream));
    image.stats.stages.insert(image.stats.stages.begin(), {"unpack", unpack_ms});
    image.stats.stages.push_back({"export", milliseconds_since(export_start)});
    return image;
}

void CudaBackend::check_device_circles(const DeviceCircleFrame& in) {
    const DeviceScope on_device(device_);
    wait_for_rows(in);
    check_rows(in.rows, in.circles, in.where, nullptr);
}

// The frame's stream waits for the work issued so far to the rows' stream, once the rows are known
// to be a count the frame holds in device memory of this device.
void CudaBackend::wait_for_rows(const DeviceCircleFrame& in) {
    Frame& f = *frame_;
    check_circle_count(in.circles, in.where + ": ");
    if (in.circles) require_device_memory(in.rows, device_, in.where);
    TS_CUDA_CHECK(cudaEventRecord(f.circles_ready.get(), static_cast<cudaStream_t>(in.wait_stream)));
    TS_CUDA_CHECK(cudaStreamWaitEvent(f.stream.get(), f.circles_ready.get(), 0));
}

std::shared_ptr<float> CudaBackend::allocate_device_floats(std::size_t count) {
    const DeviceScope on_device(device_);
    return with_out_of_memory_message("allocating an image", [&] {
        const auto owner = std::make_shared<DeviceBuffer<float>>(count);
        return std::shared_ptr<float>(owner, owner->data());
    });
}

std::unique_ptr<DeviceBackend> make_cuda_backend(Binning binning, std::uint64_t max_bin_bytes) {
    return std::make_unique<CudaBackend>(binning, max_bin_bytes);
}

}  // namespace tilescan
