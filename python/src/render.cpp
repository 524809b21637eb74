// Rendering from Python: the Renderer class (a backend and its buffers, kept across calls) and the
// module's render / render_batch, which keep one Renderer per backend name. Circles are converted
// and checked while the GIL is held; rendering and the copy into the output array run without it,
// one frame at a time per Renderer (a backend is not thread-safe). Circles in CUDA memory go to the
// cuda backend where they are (DeviceBackend::render_device_circles), and their image comes back as
// a CudaImage or is written into the caller's CUDA array (out=).
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <optional>
#include <string>
#include <vector>

#include "bindings.h"
#include "convert.h"
#include "cuda_images.h"
#include "dlpack_arrays.h"
#include "kernels/scan/scan_cpu.h"  // cpu_parallel_ranges, cpu_scan_default_threads
#include "renderer/backends.h"
#include "renderer/device_backend.h"
#include "renderer/errors.h"
#include "typed_arrays.h"

namespace tilescan::python {

namespace {

// One frame of a call: a Scene object, or rows of an (N, 8) array, kept alive by the caller.
struct Frame {
    const Scene* scene = nullptr;
    CircleRows rows;
    std::string where;
};

// The settings of a call, parsed once for all of its frames.
struct Settings {
    int channels = 3;
    bool upper = true;
    std::optional<BackgroundParams> background;
    std::optional<ShadingKind> shading;

    Settings(const py::object& background_object, const py::object& shading_object, const std::string& channels_name,
             const std::string& origin)
        : channels(parse_channels(channels_name, "channels")), upper(parse_origin_upper(origin, "origin")) {
        if (!background_object.is_none()) background = parse_background(background_object, "background");
        if (!shading_object.is_none()) shading = parse_shading(py::str(shading_object), "shading");
    }
};

// A batch's frames in CUDA memory, split from a (B, N, 8) array or one from each (N, 8) item; a
// batch is all host or all CUDA memory.
std::vector<CudaArray> cuda_batch(const py::object& scenes, const std::vector<py::object>& items) {
    std::vector<CudaArray> frames;
    if (items.empty()) {
        const CudaArray whole = cuda_circle_array(scenes, true, "scenes");
        const std::size_t rows = whole.shape[1];
        for (std::size_t b = 0; b < whole.shape[0]; ++b) {
            CudaArray frame = whole;
            frame.data = whole.data + b * rows * 8;
            frame.shape = {rows, 8};
            frames.push_back(std::move(frame));
        }
        return frames;
    }
    for (std::size_t i = 0; i < items.size(); ++i) {
        const std::string where = "scenes[" + std::to_string(i) + "]";
        if (!is_cuda_array(items[i]))
            throw InputError(where +
                             ": not in CUDA memory while scenes[0] is (a batch is all host or all CUDA memory)");
        frames.push_back(cuda_circle_array(items[i], false, where));
    }
    return frames;
}

// What renders one frame at a time: a backend, the scene model of array frames (and of overridden
// scenes), capacity kept across calls, and the float image, reallocated only when the size changes.
struct Worker {
    std::unique_ptr<Backend> backend;
    Scene scene;
    Image image;
    RenderStats stats;
};

class Renderer {
public:
    Renderer(const std::string& backend, unsigned threads, std::uint64_t max_bin_bytes, unsigned batch_threads)
        : backend_name_(backend) {
        options_.threads = threads;
        options_.max_bin_bytes = max_bin_bytes;
        workers_.push_back(Worker{make_backend(backend, options_), {}, {}, {}});
        // Host backends render a batch's frames side by side, each worker with a backend of its own
        // (a backend renders one frame at a time); the cuda backend keeps its one device stream.
        batch_threads_ = workers_[0].backend->renders_on_device()
                             ? 1u
                             : (batch_threads == 0 ? cpu_scan_default_threads() : batch_threads);
    }

    std::string backend() const { return workers_[0].backend->name(); }

    py::object render(const py::object& circles, const py::object& size, const py::object& background,
                      const py::object& shading, const std::string& channels, const std::string& origin,
                      const py::object& out) {
        const Settings settings(background, shading, channels, origin);
        if (is_cuda_array(circles))
            return run_cuda({cuda_circle_array(circles, false, "circles")}, false, size, settings, out);
        return run({circles}, false, size, settings, out);
    }

    py::object render_batch(const py::object& scenes, const py::object& size, const py::object& background,
                            const py::object& shading, const std::string& channels, const std::string& origin,
                            const py::object& out) {
        const Settings settings(background, shading, channels, origin);
        if (is_cuda_array(scenes)) return run_cuda(cuda_batch(scenes, {}), true, size, settings, out);
        std::vector<py::object> items;
        if (py::isinstance<py::array>(scenes)) {
            const py::array array = py::reinterpret_borrow<py::array>(scenes);
            if (array.ndim() != 3 || array.shape(2) != 8)
                throw InputError("scenes: expected a (B, N, 8) array or a sequence of scenes, got shape " +
                                 shape_text(array));
            for (py::ssize_t b = 0; b < array.shape(0); ++b) items.push_back(array[py::int_(b)]);
        } else if (py::isinstance<py::sequence>(scenes) && !py::isinstance<py::str>(scenes)) {
            for (const py::handle item : scenes) items.push_back(py::reinterpret_borrow<py::object>(item));
        } else {
            throw InputError("scenes: expected a (B, N, 8) array or a sequence of scenes, got " +
                             std::string(py::str(py::type::of(scenes).attr("__name__"))));
        }
        if (!items.empty() && is_cuda_array(items[0]))
            return run_cuda(cuda_batch(scenes, items), true, size, settings, out);
        return run(items, true, size, settings, out);
    }

    py::dict stats() const {
        py::dict stats;
        stats["total_ms"] = last_stats_.total_ms;
        stats["pairs"] = last_stats_.pairs;
        stats["bands"] = last_stats_.bands;
        stats["blends"] =
            last_stats_.counted_blends ? py::object(py::int_(last_stats_.blends)) : py::object(py::none());
        py::list stages;
        for (const StageTime& stage : last_stats_.stages) stages.append(py::make_tuple(stage.name, stage.ms));
        stats["stages"] = stages;
        return stats;
    }

private:
    py::array run(const std::vector<py::object>& items, bool batch, const py::object& size_object,
                  const Settings& settings, const py::object& out_object) {
        // Conversions hold new arrays (named columns, lists): `keep` owns them until the frames are done.
        std::vector<py::object> keep;
        std::vector<Frame> frames;
        for (std::size_t i = 0; i < items.size(); ++i) {
            Frame frame;
            frame.where = batch ? "scenes[" + std::to_string(i) + "]" : "circles";
            if (py::isinstance<Scene>(items[i])) {
                frame.scene = &items[i].cast<const Scene&>();
                keep.push_back(items[i]);
            } else {
                py::array array = circle_array(items[i], frame.where);
                frame.rows = circle_rows(array, frame.where);
                keep.push_back(array);
            }
            frames.push_back(std::move(frame));
        }
        const ImageSize size = frame_size(frames, size_object);

        const int channels = settings.channels;
        std::vector<py::ssize_t> shape = {size.height, size.width, channels};
        if (batch) shape.insert(shape.begin(), static_cast<py::ssize_t>(frames.size()));
        py::array out = output_array(out_object, shape);
        float* const pixels = static_cast<float*>(out.mutable_data());
        const std::size_t frame_floats = static_cast<std::size_t>(size.width) * size.height * channels;

        py::gil_scoped_release release;
        std::lock_guard<std::mutex> lock(mutex_);
        // A batch checks every frame's rows before it renders one, so that a bad frame leaves `out`
        // as it was (a single frame is checked before its image is written).
        if (frames.size() > 1)
            for (const Frame& frame : frames)
                if (!frame.scene) check_circle_rows(frame.rows, frame.where, options_.threads);
        const std::size_t workers = std::min<std::size_t>(batch_threads_, frames.size());
        while (workers_.size() < workers) workers_.push_back(Worker{make_backend(backend_name_, options_), {}, {}, {}});
        // RGB frames let the backends skip the alpha sum (FrameChannels): exact early termination's gain.
        for (Worker& worker : workers_)
            worker.backend->set_channels(channels == 4 ? FrameChannels::rgba : FrameChannels::rgb);
        // Worker w renders frames w, w + workers, ...; each stops at its first failure, and the
        // failure of the lowest frame is raised, as a serial loop would raise it.
        std::vector<std::size_t> failed_frame(workers, frames.size());
        std::vector<std::exception_ptr> failure(workers);
        if (workers == 0) return out;
        // A frame's host loops (the rows taken, the image copied out) get the backend's threads when
        // one frame renders at a time, else the frame's worker alone.
        const unsigned frame_threads = workers == 1 ? options_.threads : 1u;
        cpu_parallel_ranges(workers, static_cast<unsigned>(workers), [&](std::size_t first, std::size_t last) {
            for (std::size_t w = first; w < last; ++w) {
                for (std::size_t i = w; i < frames.size(); i += workers) {
                    try {
                        render_frame(workers_[w], frames[i], size, settings, frame_threads, pixels + i * frame_floats);
                    } catch (...) {
                        failed_frame[w] = i;
                        failure[w] = std::current_exception();
                        break;
                    }
                }
            }
        });
        std::size_t first_failure = 0;
        for (std::size_t w = 1; w < workers; ++w)
            if (failed_frame[w] < failed_frame[first_failure]) first_failure = w;
        if (failure[first_failure]) std::rethrow_exception(failure[first_failure]);
        last_stats_ = workers_[(frames.size() - 1) % workers].stats;
        return out;
    }

    // Frames whose circles are in CUDA memory, on the cuda backend's device, into one CudaImage, or
    // into `out` when it is a CUDA array (returned as it is, as the host path returns its out).
    py::object run_cuda(const std::vector<CudaArray>& arrays, bool batch, const py::object& size_object,
                        const Settings& settings, const py::object& out_object) {
        auto* device = dynamic_cast<DeviceBackend*>(workers_[0].backend.get());
        const std::string first = batch ? "scenes[0]" : "circles";
        if (!device) {
            const std::vector<std::string> names = available_backend_names();
            if (std::find(names.begin(), names.end(), "cuda") == names.end())
                throw InputError(first +
                                 ": in CUDA memory, which needs the cuda backend, and this build or machine "
                                 "has none: copy it to the host first, e.g. tensor.cpu().numpy()");
            throw InputError(first + ": in CUDA memory, which needs the cuda backend; this Renderer's is '" +
                             backend() + "' (pass backend=\"cuda\")");
        }
        DeviceCircleFrame frame;
        // Unless named, DeviceCircleFrame's flat shading on white, as host arrays render.
        if (settings.shading) frame.shading = *settings.shading;
        if (settings.background) frame.background = *settings.background;
        for (std::size_t i = 0; i < arrays.size(); ++i) {
            if (arrays[i].device >= 0 && arrays[i].device != device->device())
                throw InputError((batch ? "scenes[" + std::to_string(i) + "]" : first) + ": on CUDA device " +
                                 std::to_string(arrays[i].device) + ", and the cuda backend renders on device " +
                                 std::to_string(device->device()));
        }
        const ImageSize size = frame_size({}, size_object);
        frame.width = size.width;
        frame.height = size.height;
        std::vector<std::size_t> shape = {std::size_t(size.height), std::size_t(size.width),
                                          std::size_t(settings.channels)};
        if (batch) shape.insert(shape.begin(), arrays.size());
        const std::size_t frame_floats = std::size_t(size.width) * size.height * settings.channels;

        // A frame reads its circles after their stream's work and writes `out` after out's: a DLPack
        // `out` is asked for the first frame's circles' stream, an interface's names its own, a bare
        // capsule's is the legacy default stream.
        void* const stream = arrays.empty() ? kLegacyDefaultStream : arrays[0].stream;
        std::optional<CudaArray> target;
        if (!out_object.is_none()) {
            if (!is_cuda_array(out_object))
                throw InputError("out: expected a CUDA array of shape " + shape_text(shape) + " (the " +
                                 (batch ? "scenes" : "circles") + " are in CUDA memory, and so is the image), got " +
                                 std::string(py::str(py::type::of(out_object).attr("__name__"))));
            target = cuda_image_array(out_object, shape, stream, "out");
            if (target->device >= 0 && target->device != device->device())
                throw InputError("out: on CUDA device " + std::to_string(target->device) +
                                 ", and the cuda backend renders on device " + std::to_string(device->device()));
        }
        CudaImage image;
        {
            py::gil_scoped_release release;
            std::lock_guard<std::mutex> lock(mutex_);
            float* pixels = nullptr;
            if (target) {
                pixels = target->data;
            } else {
                image.pixels = device->allocate_device_floats(std::max<std::size_t>(1, arrays.size() * frame_floats));
                pixels = image.pixels.get();
            }
            const auto frame_of = [&](std::size_t i) {
                DeviceCircleFrame one = frame;
                one.rows = arrays[i].data;
                one.circles = arrays[i].shape[0];
                one.wait_stream = arrays[i].stream;
                one.where = batch ? "scenes[" + std::to_string(i) + "]" : "circles";
                return one;
            };
            // Every frame of a batch is checked before any is drawn, so a bad one leaves `out` as it was.
            if (arrays.size() > 1)
                for (std::size_t i = 0; i < arrays.size(); ++i) device->check_device_circles(frame_of(i));
            for (std::size_t i = 0; i < arrays.size(); ++i) {
                // An image allocated here is written after the circles' stream alone: naming none
                // would wait on the legacy default stream, and so on every blocking stream's work.
                const DeviceImageLayout layout{{settings.channels, settings.upper},
                                               pixels + i * frame_floats,
                                               target ? target->stream : arrays[i].stream};
                last_stats_ = device->render_device_circles(frame_of(i), layout).stats;
            }
        }
        if (target) return out_object;
        image.device = device->device();
        image.shape = std::move(shape);
        return py::cast(std::move(image));
    }

    // One frame into pixels[height][width][channels] (flipped when upper). A device backend takes
    // the frame's circles as they are, rows unpacked and checked on its device, and converts the
    // image there (render_to_host); a host backend renders the scene model into the worker's image,
    // copied out after. A Scene's circles were checked when it was made.
    static void render_frame(Worker& worker, const Frame& frame, const ImageSize& size, const Settings& settings,
                             unsigned threads, float* pixels) {
        const Scene* scene = frame.scene;
        if (auto* device = dynamic_cast<DeviceBackend*>(worker.backend.get())) {
            HostCircleFrame host;
            host.scene = scene;
            host.rows = frame.rows.data;
            host.circles = frame.rows.count;
            host.where = frame.where;
            host.shading = settings.shading.value_or(scene ? scene->shading : host.shading);
            host.background = settings.background.value_or(scene ? scene->background : host.background);
            host.width = size.width;
            host.height = size.height;
            worker.stats = device->render_to_host(host, {settings.channels, settings.upper}, pixels);
            return;
        }
        if (!scene || settings.background || settings.shading) {
            if (scene) {
                worker.scene = *scene;
            } else {
                fill_checked_circles(worker.scene, frame.rows, frame.where, threads);
                worker.scene.shading = kShadingFlat;
                worker.scene.background = {kBackgroundWhite, 1.0f, 1.0f, 1.0f};
            }
            if (settings.shading) worker.scene.shading = *settings.shading;
            if (settings.background) worker.scene.background = *settings.background;
            scene = &worker.scene;
        }
        try {
            if (worker.image.width != size.width || worker.image.height != size.height) {
                worker.image = Image();  // the old buffer goes before the new one comes
                worker.image = allocate_image(size.width, size.height);
            }
            worker.stats = worker.backend->render(*scene, worker.image);
        } catch (const std::bad_alloc&) {
            throw OutOfMemory("not enough memory to render " + std::to_string(scene->size()) + " circles at " +
                              std::to_string(size.width) + "x" + std::to_string(size.height));
        }
        copy_image_out(worker.image, pixels, settings.channels, settings.upper, threads);
    }

    // The size named, else the frames' own (a Scene's size line), which must agree, else the default.
    static ImageSize frame_size(const std::vector<Frame>& frames, const py::object& size) {
        if (!size.is_none()) return parse_image_size(size, "size");
        ImageSize chosen{kDefaultImageSide, kDefaultImageSide};
        bool from_scene = false;
        for (const Frame& frame : frames) {
            if (!frame.scene || frame.scene->default_width <= 0) continue;
            const ImageSize own{frame.scene->default_width, frame.scene->default_height};
            if (from_scene && (own.width != chosen.width || own.height != chosen.height))
                throw InputError("size: the scenes name different sizes (" + std::to_string(chosen.width) + "x" +
                                 std::to_string(chosen.height) + ", " + std::to_string(own.width) + "x" +
                                 std::to_string(own.height) + "): pass size=");
            chosen = own;
            from_scene = true;
        }
        return chosen;
    }

    static py::array output_array(const py::object& out, const std::vector<py::ssize_t>& shape) {
        if (out.is_none()) return py::array_t<float>(shape);
        const std::vector<std::size_t> want(shape.begin(), shape.end());
        if (!py::isinstance<py::array>(out)) {
            if (is_cuda_array(out))
                throw InputError(
                    "out: a CUDA array, written only for circles in CUDA memory: pass a numpy array of shape " +
                    shape_text(want) + " for host circles");
            throw InputError("out: expected a numpy array");
        }
        py::array array = py::reinterpret_borrow<py::array>(out);
        require_dtype<float>(array, "out");
        require_c_contiguous(array, "out");
        if (!array.writeable()) throw InputError("out: the array is read-only");
        bool same = array.ndim() == static_cast<py::ssize_t>(shape.size());
        for (std::size_t d = 0; same && d < shape.size(); ++d) same = array.shape(d) == shape[d];
        if (!same) throw InputError("out: shape " + shape_text(array) + ", expected " + shape_text(want));
        return array;
    }

    std::string backend_name_;
    BackendOptions options_;
    unsigned batch_threads_ = 1;
    std::vector<Worker> workers_;  // [0] renders single frames; more join for batches
    RenderStats last_stats_;       // the last frame's
    std::mutex mutex_;
};

// The module's render / render_batch: one Renderer per backend name, made at first use.
Renderer& shared_renderer(const std::string& backend) {
    static std::map<std::string, std::unique_ptr<Renderer>> renderers;
    std::unique_ptr<Renderer>& renderer = renderers[backend];
    if (!renderer) renderer = std::make_unique<Renderer>(backend, 0, 0, 1);
    return *renderer;
}

}  // namespace

void bind_renderer(py::module_& module) {
    py::class_<Renderer>(module, "Renderer", R"doc(
A backend and its buffers, kept from call to call (animation, fitting loops).

Renderer(backend="auto", *, threads=0, max_bin_bytes=0, batch_threads=1)

backend: "auto" (cuda when a device is present, else cpu), "cpu", "ref" or "cuda".
threads: the cpu backend's worker threads (0: all cores).
max_bin_bytes: the tile backends' bin-memory budget (0: the default share of memory).
batch_threads: frames of a render_batch call rendered side by side, each by a backend of its own
  (0: one per core; host backends only). Small frames render fastest with threads=1 and
  batch_threads=0: a frame's own threads cost more than such a frame.
One frame renders at a time per Renderer; calls from several threads wait their turn.
)doc")
        .def(py::init<const std::string&, unsigned, std::uint64_t, unsigned>(), py::arg("backend") = "auto",
             py::kw_only(), py::arg("threads") = 0, py::arg("max_bin_bytes") = 0, py::arg("batch_threads") = 1)
        .def_property_readonly("backend", &Renderer::backend, "The backend's name: \"ref\", \"cpu\" or \"cuda\".")
        .def_property_readonly("stats", &Renderer::stats,
                               "What the last frame measured: total_ms, pairs, bands, stages (name, ms), and blends:\n"
                               "an RGBA frame's pixel-circle coverings (ref's count), an RGB frame's blends\n"
                               "performed (fewer where exact early termination skips some), None where not counted.")
        .def("render", &Renderer::render, py::arg("circles"), py::arg("size") = py::none(), py::kw_only(),
             py::arg("background") = py::none(), py::arg("shading") = py::none(), py::arg("channels") = "rgb",
             py::arg("origin") = "upper", py::arg("out") = py::none(), "See tilescan.render.")
        .def("render_batch", &Renderer::render_batch, py::arg("scenes"), py::arg("size") = py::none(), py::kw_only(),
             py::arg("background") = py::none(), py::arg("shading") = py::none(), py::arg("channels") = "rgb",
             py::arg("origin") = "upper", py::arg("out") = py::none(), "See tilescan.render_batch.");

    // The module's two functions: a Renderer's methods on the shared renderer of `backend`.
    using Method = py::object (Renderer::*)(const py::object&, const py::object&, const py::object&, const py::object&,
                                            const std::string&, const std::string&, const py::object&);
    const auto def_shared = [&](const char* name, Method method, const char* input, const char* doc) {
        module.def(
            name,
            [method](const py::object& scenes, const py::object& size, const py::object& background,
                     const py::object& shading, const std::string& backend, const std::string& channels,
                     const std::string& origin, const py::object& out) {
                return (shared_renderer(backend).*method)(scenes, size, background, shading, channels, origin, out);
            },
            py::arg(input), py::arg("size") = py::none(), py::kw_only(), py::arg("background") = py::none(),
            py::arg("shading") = py::none(), py::arg("backend") = "auto", py::arg("channels") = "rgb",
            py::arg("origin") = "upper", py::arg("out") = py::none(), doc);
    };
    def_shared("render", &Renderer::render, "circles", R"doc(
Renders circles into a new (H, W, 3) or (H, W, 4) float32 array.

circles: an (N, 8) float32 array (x y z radius r g b a per row, the scene format's order, drawn in
  row order), named columns (a dict or a structured array with x y radius r g b a, z optional), a
  tilescan.Scene, or a host tensor through DLPack. With the cuda backend, an (N, 8) float32
  C-contiguous tensor in CUDA memory (DLPack or __cuda_array_interface__) is read where it is and
  the image returned in CUDA memory as a tilescan.CudaImage, or written into out.
size: an int (square) or (width, height); default: the Scene's own size, else 1024.
background: "white", "snow-gradient" or (r, g, b); default: the Scene's, else white.
shading: "flat" or "snow"; default: the Scene's, else flat.
channels: "rgb", or "rgba" (alpha: the background's 1 plus every covering circle's alpha).
origin: "upper" (row 0 at the top, as images are shown) or "lower" (row 0 at the bottom: y up).
out: a float32 C-contiguous array of the result's shape to write into and return instead of a new
  one: a numpy array for host circles; for circles in CUDA memory a writable CUDA array (DLPack or
  __cuda_array_interface__) on the cuda backend's device, complete when render returns.
The bits equal `tilescan render` with the same scene and size, on every backend.
)doc");
    def_shared("render_batch", &Renderer::render_batch, "scenes", R"doc(
Renders B scenes in one call into a (B, H, W, 3|4) float32 array, each frame equal to render().

scenes: a (B, N, 8) float32 array or a sequence of anything render() takes (counts may differ);
  a (B, N, 8) tensor in CUDA memory, or a sequence of (N, 8) ones, gives a (B, H, W, 3|4) CudaImage
  (or fills a CUDA out of that shape).
The other arguments are render()'s and apply to every frame.
)doc");
}

}  // namespace tilescan::python
