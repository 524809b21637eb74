// The `cuda` backend's host side (see cuda_backend.h): buffers, stage order, timing, peers.
#include "kernels/render/cuda_backend.h"

#include <algorithm>
#include <chrono>
#include <optional>
#include <stdexcept>
#include <vector>

#include "kernels/cuda_check.h"
#include "kernels/cuda_device.h"
#include "kernels/device_buffer.h"
#include "kernels/primitives/ordered_binning.h"
#include "kernels/primitives/radix_sort.h"
#include "kernels/render/render_launch.h"
#include "kernels/render/sort_binning.h"
#include "kernels/scan/scan.h"
#include "renderer/errors.h"
#include "renderer/tile_bands.h"

namespace tilescan {

namespace {

// Events around each stage of one frame, or around the whole frame; read after the frame's stream
// synchronizes. The events are kept and reused frame after frame; recorded during a stream capture
// they become event nodes of the frame's graph (cudaEventRecordExternal), so a replayed graph times
// itself too. Every event between two stages adds to the frame's time, which is why a frame timed
// whole has none.
class StageTimer {
public:
    explicit StageTimer(cudaStream_t stream) : stream_(stream) {}
    ~StageTimer() {
        for (cudaEvent_t e : events_) TS_CUDA_CHECK_NOTHROW(cudaEventDestroy(e));
    }
    StageTimer(const StageTimer&) = delete;
    StageTimer& operator=(const StageTimer&) = delete;
    // Starts the clock of a new frame; the events are reused.
    void start(FrameTiming timing) {
        timing_ = timing;
        names_.clear();
        used_ = 0;
        record("start");
    }
    // Ends a stage that is not the frame's last: a mark only when timing stages.
    void end_stage(const char* name) {
        if (timing_ == FrameTiming::per_stage) record(name);
    }
    // Ends the frame's last stage: that stage, or the whole frame as one stage named "frame".
    void end_frame(const char* last_stage) { record(timing_ == FrameTiming::per_stage ? last_stage : "frame"); }
    // Stage times between consecutive marks (the first mark starts the clock).
    std::vector<StageTime> stages() const {
        std::vector<StageTime> result;
        for (std::size_t k = 1; k < used_; ++k) {
            float ms = 0;
            TS_CUDA_CHECK(cudaEventElapsedTime(&ms, events_[k - 1], events_[k]));
            result.push_back({names_[k], ms});
        }
        return result;
    }

private:
    void record(const char* stage_that_ends) {
        if (used_ == events_.size()) {
            cudaEvent_t e;
            TS_CUDA_CHECK(cudaEventCreate(&e));
            events_.push_back(e);
        }
        cudaStreamCaptureStatus capturing = cudaStreamCaptureStatusNone;
        TS_CUDA_CHECK(cudaStreamIsCapturing(stream_, &capturing));
        const unsigned flags = capturing == cudaStreamCaptureStatusActive ? cudaEventRecordExternal : 0;
        TS_CUDA_CHECK(cudaEventRecordWithFlags(events_[used_++], stream_, flags));
        names_.push_back(stage_that_ends);
    }

    cudaStream_t stream_;
    FrameTiming timing_ = FrameTiming::per_stage;
    std::vector<cudaEvent_t> events_;
    std::size_t used_ = 0;
    std::vector<std::string> names_;
};

// What a captured frame graph bakes in: replaying it is right only while all of these are unchanged
// (kernel arguments, sizes and every device pointer the launches were given).
struct FrameGraphKey {
    Binning binning;
    ScanBinningPath path;  // the path the frame takes (never automatic)
    FrameTiming timing;
    int width, height, band_first_row, band_end_row;
    ShadingKind shading;
    BackgroundParams background;
    std::uint64_t capacity;
    std::uint32_t circles;
    const unsigned long long* blends;
    int shade_pixels;
    bool boxes_from_geometry;
    bool shade_busy_apart;
    std::vector<const void*> buffers;

    bool operator==(const FrameGraphKey& o) const {
        return binning == o.binning && path == o.path && timing == o.timing && width == o.width && height == o.height &&
               band_first_row == o.band_first_row && band_end_row == o.band_end_row && shading == o.shading &&
               background.kind == o.background.kind && background.r == o.background.r &&
               background.g == o.background.g && background.b == o.background.b && capacity == o.capacity &&
               shade_pixels == o.shade_pixels && boxes_from_geometry == o.boxes_from_geometry && circles == o.circles &&
               blends == o.blends && shade_busy_apart == o.shade_busy_apart && buffers == o.buffers;
    }
};

// The binned frame as a CUDA graph: captured when its key changes, replayed otherwise, so its
// ~25 launches, copies and events cost the GPU about a microsecond each instead of waiting for the
// host to issue them one by one (small scenes are bound by exactly that).
class FrameGraph {
public:
    ~FrameGraph() { reset(); }
    bool matches(const FrameGraphKey& key) const { return exec_ != nullptr && key_ == key; }
    // Captures what `enqueue` puts on `stream` (ending the capture if it throws) and instantiates it.
    template <typename Enqueue>
    void capture(cudaStream_t stream, const FrameGraphKey& key, Enqueue enqueue) {
        reset();
        TS_CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeRelaxed));
        cudaGraph_t graph = nullptr;
        try {
            enqueue();
        } catch (...) {
            TS_CUDA_CHECK_NOTHROW(cudaStreamEndCapture(stream, &graph));
            if (graph) TS_CUDA_CHECK_NOTHROW(cudaGraphDestroy(graph));
            throw;
        }
        TS_CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
        // Kernel nodes keep their captured stream's priority (the busy tiles' branch has the greatest).
        const cudaError_t instantiated =
            cudaGraphInstantiateWithFlags(&exec_, graph, cudaGraphInstantiateFlagUseNodePriority);
        TS_CUDA_CHECK_NOTHROW(cudaGraphDestroy(graph));
        TS_CUDA_CHECK(instantiated);
        key_ = key;
    }
    void launch(cudaStream_t stream) const { TS_CUDA_CHECK(cudaGraphLaunch(exec_, stream)); }
    // Runs the frame of `key` on `stream` and waits for it: captured first where the key changed.
    template <typename Enqueue>
    void run(cudaStream_t stream, const FrameGraphKey& key, Enqueue enqueue) {
        if (!matches(key)) capture(stream, key, enqueue);
        launch(stream);
        TS_CUDA_CHECK(cudaStreamSynchronize(stream));
    }
    void reset() {
        if (exec_) TS_CUDA_CHECK_NOTHROW(cudaGraphExecDestroy(exec_));
        exec_ = nullptr;
    }

private:
    cudaGraphExec_t exec_ = nullptr;
    FrameGraphKey key_{};
};

template <typename T>
std::size_t bytes_of(const DeviceBuffer<T>& buffer) {
    return buffer.bytes();
}

}  // namespace

struct CudaBackend::Buffers {
    cudaStream_t stream = nullptr;
    cudaStream_t busy_stream = nullptr;  // the shading stage's busy-tile branch (launch_shade_tiles)
    cudaEvent_t busy_forked = nullptr, busy_joined = nullptr;
    std::uint32_t circles = 0;
    ShadingKind shading = kShadingFlat;
    BackgroundParams background{};
    DeviceBuffer<float> x, y, z, radius, r, g, b, a;
    DeviceBuffer<CircleShadingRecord> shading_records;
    DeviceBuffer<CircleBox> box;
    DeviceBuffer<std::uint32_t> pair_counts;
    DeviceBuffer<std::uint16_t> tile_masks;  // the count stage's, for the emission
    DeviceBuffer<std::uint32_t> big_circles, big_count;
    DeviceBuffer<std::uint64_t> big_first_slots;  // the emission's, for the big circles' kernel
    DeviceBuffer<std::uint64_t> pair_total;
    DeviceBuffer<std::uint32_t> pair_tiles, pair_circles, tile_circles;
    DeviceBuffer<std::uint32_t> packed_pairs;  // the packed path's words (tile_circles: sorted)
    DeviceBuffer<std::uint64_t> tile_offsets;
    DeviceBuffer<std::uint64_t> sort_keys, sorted_keys;
    DeviceBuffer<unsigned char> temp;
    ScanWorkspace scan_workspace;  // the emission's scan of the pair counts (PairEmission): no clearing
    DeviceBuffer<float> image;
    DeviceBuffer<unsigned long long> blends;
    DeviceBuffer<unsigned long long> row_pairs;  // [tiles_y], for the band planner
    DeviceBuffer<std::uint32_t> busy_tiles, busy_count, tile_order;
    DeviceBuffer<unsigned long long> compaction_tallies;    // [2]: CompactionTotals' pairs, finished blocks
    DeviceBuffer<std::uint32_t> region_ids, region_counts;  // two-level compaction's RegionLists
    std::uint64_t* host_total = nullptr;            // mapped pinned memory the emit stage copies the pair total to
    std::uint64_t* host_total_on_device = nullptr;  // its device alias
    std::uint32_t* host_busy_count = nullptr;       // mapped pinned memory the busy-tile list writes its count to
    std::uint32_t* host_busy_count_on_device = nullptr;
    std::uint32_t* host_busy_seen = nullptr;  // mapped pinned memory the main grid flags busy tiles in
    std::uint32_t* host_busy_seen_on_device = nullptr;
    // Whether the next frame shades busy tiles apart: on after a frame whose main grid met one,
    // off after a frame whose busy branch found none (BusyTiles).
    bool shade_busy_apart = false;
    std::uint64_t pair_capacity = 0;    // pairs the pair buffers hold (grow-only)
    std::unique_ptr<StageTimer> timer;  // the binned frame's stage events (in its graph)
    FrameGraph frame_graph;             // the binned frame, captured
    int width = 0, height = 0;

    Buffers() {
        TS_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
        int least_priority = 0, greatest_priority = 0;
        TS_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least_priority, &greatest_priority));
        TS_CUDA_CHECK(cudaStreamCreateWithPriority(&busy_stream, cudaStreamNonBlocking, greatest_priority));
        TS_CUDA_CHECK(cudaEventCreateWithFlags(&busy_forked, cudaEventDisableTiming));
        TS_CUDA_CHECK(cudaEventCreateWithFlags(&busy_joined, cudaEventDisableTiming));
        timer = std::make_unique<StageTimer>(stream);
        host_total = mapped_pinned<std::uint64_t>(host_total_on_device);
        host_busy_count = mapped_pinned<std::uint32_t>(host_busy_count_on_device);
        host_busy_seen = mapped_pinned<std::uint32_t>(host_busy_seen_on_device);
        pair_total.reserve(1);
        big_count.reserve(2);
        busy_count.reserve(1);
        blends.reserve(1);
        compaction_tallies.reserve(2);
        TS_CUDA_CHECK(cudaMemset(compaction_tallies.data(), 0, 2 * sizeof(unsigned long long)));
    }
    ~Buffers() {
        TS_CUDA_CHECK_NOTHROW(cudaFreeHost(host_total));
        TS_CUDA_CHECK_NOTHROW(cudaFreeHost(host_busy_count));
        TS_CUDA_CHECK_NOTHROW(cudaFreeHost(host_busy_seen));
        TS_CUDA_CHECK_NOTHROW(cudaEventDestroy(busy_forked));
        TS_CUDA_CHECK_NOTHROW(cudaEventDestroy(busy_joined));
        TS_CUDA_CHECK_NOTHROW(cudaStreamDestroy(busy_stream));
        TS_CUDA_CHECK_NOTHROW(cudaStreamDestroy(stream));
    }

    // One value of mapped pinned memory (written by a kernel, read by the host after the frame)
    // and its device alias.
    template <typename T>
    static T* mapped_pinned(T*& on_device) {
        T* host = nullptr;
        TS_CUDA_CHECK(cudaHostAlloc(reinterpret_cast<void**>(&host), sizeof(T), cudaHostAllocMapped));
        *host = 0;
        TS_CUDA_CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&on_device), host, 0));
        return host;
    }

    DeviceCircles device_circles() const {
        return {x.data(), y.data(), z.data(), radius.data(), r.data(), g.data(), b.data(), a.data(), circles};
    }
    CircleRecords records() { return {shading_records.data(), box.data()}; }
    BigCircles big() { return {big_circles.data(), big_count.data(), circles}; }
    PairEmission emission() {
        return {tile_masks.data(),    pair_counts.data(),    big_first_slots.data(), pair_total.data(),
                host_total_on_device, scan_workspace.data(), scan_workspace.bytes()};
    }
    CompactionTotals compaction_totals() {
        return {compaction_tallies.data(), compaction_tallies.data() + 1, host_total_on_device};
    }
    BusyTiles busy() {
        BusyTiles busy;
        busy.on_device.shade_apart = shade_busy_apart;
        busy.on_device.tiles = busy_tiles.data();
        busy.on_device.count = busy_count.data();
        busy.on_device.host_count = host_busy_count_on_device;
        busy.on_device.host_seen = host_busy_seen_on_device;
        busy.stream = busy_stream;
        busy.forked = busy_forked;
        busy.joined = busy_joined;
        return busy;
    }
    // Every device (and pinned host) pointer the binned frame's launches take.
    std::vector<const void*> frame_pointers() const {
        return {x.data(),
                y.data(),
                z.data(),
                radius.data(),
                r.data(),
                g.data(),
                b.data(),
                a.data(),
                shading_records.data(),
                box.data(),
                pair_counts.data(),
                tile_masks.data(),
                big_circles.data(),
                big_count.data(),
                big_first_slots.data(),
                pair_total.data(),
                pair_tiles.data(),
                pair_circles.data(),
                packed_pairs.data(),
                tile_circles.data(),
                tile_offsets.data(),
                sort_keys.data(),
                sorted_keys.data(),
                temp.data(),
                scan_workspace.data(),
                image.data(),
                busy_tiles.data(),
                busy_count.data(),
                compaction_tallies.data(),
                region_ids.data(),
                region_counts.data(),
                host_total,
                host_busy_count,
                host_busy_seen};
    }
    // The key of a frame's graph (FrameGraphKey): what its launches are given.
    FrameGraphKey graph_key(Binning binning, ScanBinningPath path, FrameTiming timing, const FrameParams& frame,
                            std::uint64_t capacity, const unsigned long long* blends, int shade_pixels,
                            bool boxes_from_geometry) const {
        return {binning,
                path,
                timing,
                frame.width,
                frame.height,
                frame.band_first_row,
                frame.band_end_row,
                frame.shading,
                frame.background,
                capacity,
                circles,
                blends,
                shade_pixels,
                boxes_from_geometry,
                shade_busy_apart,
                frame_pointers()};
    }
    std::uint64_t bin_bytes() const {
        return bytes_of(pair_counts) + bytes_of(tile_masks) + bytes_of(big_first_slots) + bytes_of(pair_tiles) +
               bytes_of(pair_circles) + bytes_of(packed_pairs) + bytes_of(tile_circles) + bytes_of(tile_offsets) +
               bytes_of(sort_keys) + bytes_of(sorted_keys) + bytes_of(temp) + scan_workspace.bytes() +
               bytes_of(row_pairs) + bytes_of(busy_tiles) + bytes_of(busy_count) + bytes_of(tile_order) +
               bytes_of(region_ids) + bytes_of(region_counts);
    }
};

namespace {

// --max-bin-memory, or half of the device memory free when the backend starts (tile_bands.h).
std::uint64_t bin_budget(std::uint64_t max_bin_bytes) {
    if (max_bin_bytes > 0) return max_bin_bytes;
    DeviceMemory memory;
    if (!cuda_device_memory(memory))
        throw std::runtime_error("cannot read the device's free memory for the bin budget");
    return default_bin_budget(memory.free_bytes);
}

// The current device's L2 cache, for shading_recomputes_boxes.
std::size_t device_l2_cache_bytes() { return std::size_t(current_device_attribute(cudaDevAttrL2CacheSize)); }

}  // namespace

CudaBackend::CudaBackend(Binning binning, std::uint64_t max_bin_bytes)
    : binning_(binning),
      bin_budget_(bin_budget(max_bin_bytes)),
      l2_cache_bytes_(device_l2_cache_bytes()),
      buffers_(std::make_unique<Buffers>()) {}
CudaBackend::~CudaBackend() = default;

namespace {

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

}  // namespace

void CudaBackend::upload(const Scene& scene) {
    Buffers& d = *buffers_;
    const std::size_t n = scene.size();
    if (n > 0xffffffffu) throw InputError("the cuda backend renders at most 2^32 - 1 circles per scene");
    with_out_of_memory_message("uploading the circles", [&] {
        const std::vector<float>* host[] = {&scene.x, &scene.y, &scene.z, &scene.radius,
                                            &scene.r, &scene.g, &scene.b, &scene.a};
        DeviceBuffer<float>* device[] = {&d.x, &d.y, &d.z, &d.radius, &d.r, &d.g, &d.b, &d.a};
        for (int k = 0; k < 8; ++k) {
            device[k]->reserve(n);
            if (n)
                TS_CUDA_CHECK(cudaMemcpyAsync(device[k]->data(), host[k]->data(), n * sizeof(float),
                                              cudaMemcpyHostToDevice, d.stream));
        }
        d.shading_records.reserve(n);
        d.box.reserve(n);
        d.pair_counts.reserve(n);
        d.tile_masks.reserve(n);
        d.big_circles.reserve(n);
        d.big_first_slots.reserve(n);
    });
    d.circles = static_cast<std::uint32_t>(n);
    d.shading = scene.shading;
    d.background = scene.background;
}

namespace {

// The sort peer's keys hold the tile above the circle id: bits [0, 32 + bits of the tile ids).
int sort_key_bits(std::uint32_t bins) { return 32 + ordered_binning_bin_bits(bins); }

// Device bytes the scan or sort binning holds for `pairs` pairs, as bin_and_shade reserves them:
// the emitted pairs, the binned circle ids and the binning's temporary storage. The scan binning's
// packed pairs take less (two words a pair and a keys-only sort's storage), so this bounds both.
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

}  // namespace

std::uint64_t CudaBackend::max_band_pairs() const {
    const std::uint64_t by_budget = bin_budget_ / bytes_per_pair(binning_);
    return std::min<std::uint64_t>(by_budget, kOrderedBinningMaxElements - 2);  // room for the sentinel bin
}

// Pixels a shading thread takes in a frame binned into `capacity` pairs: forced, or the layout
// shade_pixels_per_thread picks.
int CudaBackend::shade_pixels_for(std::uint64_t capacity) const {
    return forced_shade_pixels_ ? forced_shade_pixels_ : shade_pixels_per_thread(capacity, buffers_->circles);
}

bool CudaBackend::boxes_from_geometry() const {
    return forced_boxes_from_geometry_.value_or(shading_recomputes_boxes(buffers_->circles, l2_cache_bytes_));
}

// The pair buffers' capacity for frames of `pairs`: an eighth more, for scenes that grow frame by
// frame, within what one band may hold.
std::uint64_t CudaBackend::padded_pair_capacity(std::uint64_t pairs) const {
    return std::min(max_band_pairs(), pairs + pairs / 8);
}

// The path the band's frame takes to its tile lists (never automatic nor compaction): the sort
// peer's pairs; for the scan binning, the direct path where it fits within the bin-memory budget
// (its matrix replaces the pair buffers) and, unless forced, where it pays; else packed pairs
// where the circle ids fit and, unless forced, the pairs take the ordered binning's radix path
// (below that, its counting paths in one or three launches beat a sort); else pairs.
ScanBinningPath CudaBackend::binning_path(const FrameParams& frame, std::uint64_t capacity) const {
    if (binning_ != Binning::scan) return ScanBinningPath::pairs;
    const std::uint32_t circles = buffers_->circles, band_tiles = band_tile_count(frame);
    const bool direct_wanted = scan_path_ == ScanBinningPath::direct ||
                               (scan_path_ == ScanBinningPath::automatic && direct_binning_pays(circles, capacity));
    if (direct_wanted && direct_binning_fits(circles, band_tiles) &&
        direct_binning_temp_bytes(circles, band_tiles) + capacity * sizeof(std::uint32_t) <= bin_budget_)
        return ScanBinningPath::direct;
    const bool packed_wanted = scan_path_ == ScanBinningPath::packed ||
                               (scan_path_ == ScanBinningPath::automatic && capacity > kChunkedBinningDispatchElements);
    return packed_wanted && packed_pairs_fit(circles, band_tiles) ? ScanBinningPath::packed : ScanBinningPath::pairs;
}

// Stages 1-5 by pairs: counts, then the emission of (tile, circle) pairs in circle order into
// `capacity` slots, which scans the counts itself (PairEmission), then their binning by tile
// (ordered binning, a keys-only radix sort of packed pairs, or the sort peer's radix sort), by
// `path` (pairs or packed).
void CudaBackend::enqueue_pair_binning(const FrameParams& frame, std::uint64_t capacity, ScanBinningPath path) {
    Buffers& d = *buffers_;
    const std::uint32_t band_tiles = band_tile_count(frame);
    StageTimer& timer = *d.timer;
    // The total goes to the host after the frame, never in between.
    launch_cull_and_count(d.device_circles(), frame, d.records(), d.big(), d.pair_counts.data(), d.tile_masks.data(),
                          d.stream);
    timer.end_stage("cull+count");
    const PairEmission emission = d.emission();
    if (path == ScanBinningPath::packed) {
        launch_emit_packed_pairs(frame, d.records(), d.circles, d.big(), emission, capacity, d.packed_pairs.data(),
                                 d.stream);
        timer.end_stage("scan+emit");
        radix_sort_keys(d.packed_pairs.data(), d.tile_circles.data(), capacity, d.temp.data(), d.temp.bytes(), d.stream,
                        packed_circle_bits(band_tiles), 32, kRadixDefaultBits, emission.total);
        launch_packed_pair_offsets(d.tile_circles.data(), capacity, emission.total, frame, d.tile_offsets.data(),
                                   d.stream);
        timer.end_stage("bin");
    } else if (binning_ == Binning::scan) {
        launch_emit_pairs(frame, d.records(), d.circles, d.big(), emission, capacity, d.pair_tiles.data(),
                          d.pair_circles.data(), d.stream);
        timer.end_stage("scan+emit");
        ordered_binning(d.pair_tiles.data(), d.pair_circles.data(), capacity, band_tiles, d.tile_circles.data(),
                        d.tile_offsets.data(), d.temp.data(), d.temp.bytes(), d.stream, emission.total);
        timer.end_stage("bin");
    } else {
        launch_emit_sort_keys(frame, d.records(), d.circles, d.big(), emission, capacity, d.sort_keys.data(), d.stream);
        timer.end_stage("scan+emit");
        const std::uint32_t bins = band_tiles + 1;  // the band's tiles and the padding's sentinel
        sort_pair_keys(d.sort_keys.data(), d.sorted_keys.data(), capacity, sort_key_bits(bins), d.temp.data(),
                       d.temp.bytes(), d.stream);
        launch_split_sort_keys(d.sorted_keys.data(), capacity, band_tiles, d.tile_circles.data(), d.tile_offsets.data(),
                               d.stream);
        timer.end_stage("bin");
    }
}

// Stages 1-5 directly from the circles: a cull without counts, counts per (tile, chunk), their
// scan, and the ordered scatter of circle ids (direct_binning.cu).
void CudaBackend::enqueue_direct_binning(const FrameParams& frame, std::uint64_t capacity) {
    Buffers& d = *buffers_;
    StageTimer& timer = *d.timer;
    launch_cull(d.device_circles(), frame, d.records(), d.stream);
    timer.end_stage("cull");
    launch_direct_count(frame, d.records(), d.circles, d.temp.data(), d.stream);
    timer.end_stage("count");
    launch_direct_scan(frame, d.circles, d.temp.data(), d.stream);
    timer.end_stage("scan");
    launch_direct_scatter(frame, d.records(), d.circles, d.temp.data(), d.tile_offsets.data(), d.tile_circles.data(),
                          capacity, d.host_total_on_device, d.stream);
    timer.end_stage("bin");
}

// Stages 1-6 over the frame's band, onto the stream (bin_and_shade captures them as a graph).
void CudaBackend::enqueue_bin_and_shade(const FrameParams& frame, std::uint64_t capacity, unsigned long long* blends,
                                        FrameTiming timing, int shade_pixels, bool boxes_from_geometry,
                                        ScanBinningPath path) {
    Buffers& d = *buffers_;
    d.timer->start(timing);
    if (path == ScanBinningPath::direct)
        enqueue_direct_binning(frame, capacity);
    else
        enqueue_pair_binning(frame, capacity, path);
    const std::uint32_t circle_id_mask =
        path == ScanBinningPath::packed ? packed_circle_id_mask(band_tile_count(frame)) : ~std::uint32_t(0);
    std::uint32_t* tile_order = shading_orders_tiles(frame.shading, shade_pixels, capacity, band_tile_count(frame))
                                    ? d.tile_order.data()
                                    : nullptr;
    launch_shade_tiles(frame, d.records(), d.tile_offsets.data(), d.tile_circles.data(), circle_id_mask, tile_order,
                       d.busy(), shade_pixels, boxes_from_geometry, d.image.data(), blends, d.stream);
    d.timer->end_frame("shade");
}

RenderStats CudaBackend::bin_and_shade(const FrameParams& frame, std::uint64_t capacity, unsigned long long* blends,
                                       FrameTiming timing) {
    Buffers& d = *buffers_;
    const std::uint32_t band_tiles = band_tile_count(frame);
    const std::uint32_t bins = band_tiles + 1;  // the sort peer's sentinel tile too
    const ScanBinningPath path = binning_path(frame, capacity);
    with_out_of_memory_message("allocating the tile bins", [&] {
        d.tile_offsets.reserve(std::size_t(bins) + 1);
        d.busy_tiles.reserve(bins);
        d.tile_order.reserve(bins);
        d.tile_circles.reserve(capacity);
        if (path == ScanBinningPath::direct) {
            d.temp.reserve(direct_binning_temp_bytes(d.circles, band_tiles));
            return;
        }
        d.scan_workspace.reserve_bytes(pair_slot_scan_bytes(d.circles));
        if (path == ScanBinningPath::packed) {
            d.packed_pairs.reserve(capacity);
            d.temp.reserve(radix_sort_keys_temp_bytes<std::uint32_t>(capacity));
        } else if (binning_ == Binning::scan) {
            d.pair_tiles.reserve(capacity);
            d.pair_circles.reserve(capacity);
            d.temp.reserve(ordered_binning_temp_bytes(capacity, band_tiles));
        } else {
            d.sort_keys.reserve(capacity);
            d.sorted_keys.reserve(capacity);
            d.temp.reserve(sort_pair_keys_temp_bytes(capacity, sort_key_bits(bins)));
        }
    });
    const int shade_pixels = shade_pixels_for(capacity);
    const bool boxes = boxes_from_geometry();
    const FrameGraphKey key = d.graph_key(binning_, path, timing, frame, capacity, blends, shade_pixels, boxes);
    *d.host_busy_seen = 0;  // before the launch, so the frame's kernels see it
    d.frame_graph.run(d.stream, key,
                      [&] { enqueue_bin_and_shade(frame, capacity, blends, timing, shade_pixels, boxes, path); });
    RenderStats stats;
    stats.stages = d.timer->stages();
    stats.pairs = d.circles ? *d.host_total : 0;
    stats.busy_tiles = d.shade_busy_apart ? *d.host_busy_count : 0;
    d.shade_busy_apart = d.shade_busy_apart ? stats.busy_tiles > 0 : *d.host_busy_seen != 0;
    return stats;
}

// The compaction the frame takes instead of binning, if any: one level for every frame of the
// naive peer; with the scan binning, the path forced where the frame fits it, else (automatic)
// one level for frames of few circles, two levels for frames of thousands (by the regions'
// tests, regions x circles), and one level again for frames of circles so large that its tests
// cost less than binning their pairs (by the pairs of the last frame). Neither needs bin memory,
// so neither needs bands.
std::optional<ScanBinningPath> CudaBackend::compaction_path(const FrameParams& frame) const {
    if (binning_ == Binning::naive) return ScanBinningPath::compaction;
    const std::uint32_t circles = buffers_->circles;
    if (binning_ != Binning::scan || circles == 0) return std::nullopt;
    const std::uint64_t tiles = std::uint64_t(frame.grid.tiles_x) * std::uint64_t(frame.grid.tiles_y);
    const std::uint64_t regions = region_count(frame.grid);
    const bool regions_fit = region_compaction_fits(circles, regions, bin_budget_);
    const bool automatic = scan_path_ == ScanBinningPath::automatic;
    if (regions_fit &&
        (scan_path_ == ScanBinningPath::regions || (automatic && region_compaction_pays(circles, regions))))
        return ScanBinningPath::regions;
    if (tile_compaction_fits(circles) && (scan_path_ == ScanBinningPath::compaction ||
                                          (automatic && tile_compaction_pays(circles, tiles, buffers_->pair_capacity))))
        return ScanBinningPath::compaction;
    return std::nullopt;
}

// The frame by tile compaction: the cull, then one kernel that lists and shades each tile (after a
// kernel that lists each region's circles, for `regions`).
RenderStats CudaBackend::compact_and_shade(const FrameParams& frame, ScanBinningPath path, unsigned long long* blends,
                                           FrameTiming timing) {
    Buffers& d = *buffers_;
    const int shade_pixels = shade_pixels_for(d.pair_capacity);
    RegionLists regions{nullptr, nullptr};
    if (path == ScanBinningPath::regions) {
        const std::uint64_t count = region_count(frame.grid);
        with_out_of_memory_message("allocating the region lists", [&] {
            d.region_ids.reserve(count * d.circles);
            d.region_counts.reserve(count);
        });
        regions.ids = d.region_ids.data();
        regions.counts = d.region_counts.data();
    }
    // The compaction kernel reads the boxes the cull stores; it never recomputes them.
    const bool boxes_from_geometry = false;
    const FrameGraphKey key = d.graph_key(binning_, path, timing, frame, 0, blends, shade_pixels, boxes_from_geometry);
    d.frame_graph.run(d.stream, key, [&] {
        d.timer->start(timing);
        launch_cull(d.device_circles(), frame, d.records(), d.stream);
        d.timer->end_stage("cull");
        if (path == ScanBinningPath::regions) {
            launch_list_region_circles(frame, d.records(), d.circles, regions, d.stream);
            d.timer->end_stage("list regions");
        }
        launch_compact_and_shade_tiles(frame, d.records(), d.circles, regions, d.compaction_totals(), shade_pixels,
                                       d.image.data(), blends, d.stream);
        d.timer->end_frame("compact+shade");
    });
    RenderStats stats;
    stats.stages = d.timer->stages();
    stats.pairs = *d.host_total;
    stats.bands = 1;
    return stats;
}

// The frame in tile-row bands that each fit the budget (renderer/tile_bands.h), when all of its
// pairs at once would not.
RenderStats CudaBackend::bin_and_shade_in_bands(const FrameParams& frame, unsigned long long* blends,
                                                FrameTiming timing) {
    Buffers& d = *buffers_;
    with_out_of_memory_message("allocating the row totals", [&] { d.row_pairs.reserve(frame.grid.tiles_y); });
    launch_count_row_pairs(frame, d.records(), d.circles, d.row_pairs.data(), d.stream);
    std::vector<std::uint64_t> row_pairs(frame.grid.tiles_y);
    TS_CUDA_CHECK(cudaMemcpyAsync(row_pairs.data(), d.row_pairs.data(), row_pairs.size() * sizeof(std::uint64_t),
                                  cudaMemcpyDeviceToHost, d.stream));
    TS_CUDA_CHECK(cudaStreamSynchronize(d.stream));
    const std::uint64_t per_pair = bytes_per_pair(binning_);
    const std::vector<TileBand> bands = plan_tile_bands(row_pairs, per_pair, max_band_pairs() * per_pair);
    RenderStats stats;
    for (const TileBand& band : bands) {
        FrameParams band_frame = frame;
        band_frame.band_first_row = band.first_row;
        band_frame.band_end_row = band.end_row;
        const RenderStats pass = bin_and_shade(band_frame, band.pairs, blends, timing);
        add_stages(stats.stages, pass.stages);
        stats.pairs += pass.pairs;
        stats.busy_tiles += pass.busy_tiles;
    }
    stats.bands = static_cast<std::uint32_t>(bands.size());
    return stats;
}

RenderStats CudaBackend::render_uploaded(int width, int height, bool count_blends, FrameTiming timing) {
    Buffers& d = *buffers_;
    const FrameParams frame = frame_params(width, height, d.shading, d.background);
    const std::size_t pixels = std::size_t(width) * height;
    with_out_of_memory_message("allocating the image", [&] { d.image.reserve(pixels * 4); });
    d.width = width;
    d.height = height;
    unsigned long long* blends = count_blends ? d.blends.data() : nullptr;
    const auto reset_blends = [&] {
        if (count_blends) TS_CUDA_CHECK(cudaMemsetAsync(d.blends.data(), 0, sizeof(unsigned long long), d.stream));
    };
    reset_blends();
    RenderStats stats;
    if (const std::optional<ScanBinningPath> compaction = compaction_path(frame)) {
        stats = compact_and_shade(frame, *compaction, blends, timing);
        // The pairs path's capacity rule, for the shading layout (shade_pixels_per_thread) and a
        // later frame that bins: grow, or shrink below half.
        if (stats.pairs > d.pair_capacity || stats.pairs < d.pair_capacity / 2)
            d.pair_capacity = padded_pair_capacity(stats.pairs);
    } else {
        // Pair buffers sized by the last frame, so a frame runs without a host round trip; a frame
        // with more pairs runs again with room for them, or in bands beyond the budget (the stats
        // then describe the pass that made the image).
        stats = bin_and_shade(frame, d.pair_capacity, blends, timing);
        stats.bands = 1;
        if (stats.pairs > d.pair_capacity) {
            reset_blends();
            if (stats.pairs <= max_band_pairs()) {
                // A first frame takes what it needs; a scene that grew may grow further.
                d.pair_capacity = d.pair_capacity > 0 ? padded_pair_capacity(stats.pairs) : stats.pairs;
                stats = bin_and_shade(frame, d.pair_capacity, blends, timing);
                stats.bands = 1;
            } else {
                stats = bin_and_shade_in_bands(frame, blends, timing);
            }
        } else if (stats.pairs < d.pair_capacity / 2) {
            // Padding is binned too: after a much busier frame (another scene in the viewer), bin
            // only what this one needs from the next frame on; the memory stays allocated.
            d.pair_capacity = padded_pair_capacity(stats.pairs);
        }
    }
    for (const StageTime& stage : stats.stages) stats.total_ms += stage.ms;
    if (count_blends) {
        unsigned long long total = 0;
        TS_CUDA_CHECK(cudaMemcpy(&total, d.blends.data(), sizeof total, cudaMemcpyDeviceToHost));
        stats.blends = total;
        stats.counted_blends = true;
    }
    stats.bin_bytes = d.bin_bytes();
    return stats;
}

void CudaBackend::download(Image& image) {
    const Buffers& d = *buffers_;
    if (image.width != d.width || image.height != d.height) image = Image(d.width, d.height);
    TS_CUDA_CHECK(cudaMemcpyAsync(image.data(), d.image.data(), std::size_t(d.width) * d.height * 4 * sizeof(float),
                                  cudaMemcpyDeviceToHost, d.stream));
    TS_CUDA_CHECK(cudaStreamSynchronize(d.stream));
}

const float* CudaBackend::device_image() const { return buffers_->image.data(); }

namespace {

double milliseconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

RenderStats CudaBackend::render(const Scene& scene, Image& image) {
    const auto upload_start = std::chrono::steady_clock::now();
    upload(scene);
    TS_CUDA_CHECK(cudaStreamSynchronize(buffers_->stream));
    const double upload_ms = milliseconds_since(upload_start);
    RenderStats stats = render_uploaded(image.width, image.height, true, FrameTiming::per_stage);
    const auto download_start = std::chrono::steady_clock::now();
    download(image);
    stats.stages.insert(stats.stages.begin(), {"upload", upload_ms});
    stats.stages.push_back({"download", milliseconds_since(download_start)});
    return stats;
}

RenderStats CudaBackend::render_to_device_rgba8(const Scene& scene, int width, int height, void* device_rgba8) {
    upload(scene);
    RenderStats stats = render_uploaded(width, height, false, FrameTiming::whole_frame);
    launch_convert_to_rgba8(buffers_->image.data(), width, height, static_cast<std::uint8_t*>(device_rgba8),
                            buffers_->stream);
    TS_CUDA_CHECK(cudaStreamSynchronize(buffers_->stream));
    return stats;
}

}  // namespace tilescan
