// Scenes from Python: the Scene class (tilescan's scene model, built from any accepted form of
// circles and checked as scene files are), the built-in scenes by name and the scene files.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <string>

#include "bindings.h"
#include "convert.h"
#include "renderer/errors.h"
#include "renderer/scene_io.h"
#include "scenes/builtin_scenes.h"
#include "typed_arrays.h"

namespace tilescan::python {

namespace {

Scene make_scene(const py::object& circles, const std::string& shading, const py::object& background,
                 const py::object& size) {
    Scene scene;
    if (!circles.is_none()) {
        const py::array array = circle_array(circles, "circles");
        fill_checked_circles(scene, circle_rows(array, "circles"), "circles");
    }
    scene.shading = parse_shading(shading, "shading");
    scene.background = parse_background(background, "background");
    if (!size.is_none()) {
        const ImageSize checked = parse_image_size(size, "size");
        scene.default_width = checked.width;
        scene.default_height = checked.height;
    }
    return scene;
}

// A Scene argument, or circles made into one (flat, white, no size).
Scene scene_argument(const py::object& scene) {
    if (py::isinstance<Scene>(scene)) return scene.cast<Scene>();
    return make_scene(scene, "flat", py::str("white"), py::none());
}

// A read-only numpy view of one of the scene's fields, keeping the Scene alive.
py::array field_view(const py::object& owner, const std::vector<float>& field) {
    py::array view(py::dtype::of<float>(), {static_cast<py::ssize_t>(field.size())}, {py::ssize_t(sizeof(float))},
                   field.data(), owner);
    view.attr("setflags")(py::arg("write") = false);
    return view;
}

// A built-in scene and its animation, at frame `frame` (frame 0: built, advanced once).
struct BuiltinAnimation {
    std::string name;
    BuiltinScene built;
    long frame = 0;

    BuiltinAnimation(const std::string& scene_name, std::uint32_t seed)
        : name(scene_name), built(make_builtin_scene(scene_name, seed)) {
        if (built.animation) built.animation->advance(built.scene);
    }
    void advance() {
        if (built.animation) built.animation->advance(built.scene);
        ++frame;
    }
};

}  // namespace

void bind_scenes(py::module_& module) {
    py::class_<Scene> scene(module, "Scene", R"doc(
Circles in draw order with their shading, background and optional size: tilescan's scene model.

Scene(circles=None, *, shading="flat", background="white", size=None)

circles: anything tilescan.render takes as circles; they are copied and checked (finite numbers,
radius >= 0, 0 <= alpha <= 1, |x|, |y|, radius <= 1e18), each problem a ValueError naming the circle.
)doc");
    scene
        .def(py::init(&make_scene), py::arg("circles") = py::none(), py::kw_only(), py::arg("shading") = "flat",
             py::arg("background") = "white", py::arg("size") = py::none())
        .def("__len__", &Scene::size)
        .def_property_readonly(
            "circles",
            [](const Scene& self) {
                py::array_t<float> rows({static_cast<py::ssize_t>(self.size()), py::ssize_t(8)});
                float* out = rows.mutable_data();
                const std::vector<float>* fields[8] = {&self.x, &self.y, &self.z, &self.radius,
                                                       &self.r, &self.g, &self.b, &self.a};
                for (std::size_t i = 0; i < self.size(); ++i)
                    for (int c = 0; c < 8; ++c) out[i * 8 + c] = (*fields[c])[i];
                return rows;
            },
            "A new (N, 8) float32 array: x y z radius r g b a per circle.")
        .def_property_readonly("x", [](py::object self) { return field_view(self, self.cast<const Scene&>().x); })
        .def_property_readonly("y", [](py::object self) { return field_view(self, self.cast<const Scene&>().y); })
        .def_property_readonly("z", [](py::object self) { return field_view(self, self.cast<const Scene&>().z); })
        .def_property_readonly("radius",
                               [](py::object self) { return field_view(self, self.cast<const Scene&>().radius); })
        .def_property_readonly("r", [](py::object self) { return field_view(self, self.cast<const Scene&>().r); })
        .def_property_readonly("g", [](py::object self) { return field_view(self, self.cast<const Scene&>().g); })
        .def_property_readonly("b", [](py::object self) { return field_view(self, self.cast<const Scene&>().b); })
        .def_property_readonly("a", [](py::object self) { return field_view(self, self.cast<const Scene&>().a); })
        .def_property(
            "shading", [](const Scene& self) { return shading_name(self.shading); },
            [](Scene& self, const std::string& name) { self.shading = parse_shading(name, "shading"); },
            "\"flat\" or \"snow\".")
        .def_property(
            "background", [](const Scene& self) { return background_object(self.background); },
            [](Scene& self, const py::object& value) { self.background = parse_background(value, "background"); },
            "\"white\", \"snow-gradient\" or (r, g, b).")
        .def_property(
            "size",
            [](const Scene& self) -> py::object {
                if (self.default_width <= 0) return py::none();
                return py::make_tuple(self.default_width, self.default_height);
            },
            [](Scene& self, const py::object& value) {
                ImageSize checked;
                if (!value.is_none()) checked = parse_image_size(value, "size");
                self.default_width = checked.width;
                self.default_height = checked.height;
            },
            "(width, height) the scene asks to be rendered at, or None.")
        .def("__eq__",
             [](const Scene& self, const py::object& other) {
                 return py::isinstance<Scene>(other) && self == other.cast<const Scene&>();
             })
        .def("__repr__", [](const Scene& self) {
            std::string text = "<tilescan.Scene: " + std::to_string(self.size()) + " circles, " +
                               shading_name(self.shading) + ", background " +
                               std::string(py::repr(background_object(self.background)));
            if (self.default_width > 0)
                text += ", size " + std::to_string(self.default_width) + "x" + std::to_string(self.default_height);
            return text + ">";
        });
    scene.attr("__hash__") = py::none();

    py::class_<BuiltinAnimation>(module, "BuiltinScene", R"doc(
A built-in scene by name, at a frame of its animation (static scenes never move).

BuiltinScene(name, seed=0): frame 0, the frame `tilescan render NAME` draws.
seed: replaces the course's srand(0) (0: the course's own scene).
)doc")
        .def(py::init<const std::string&, std::uint32_t>(), py::arg("name"), py::arg("seed") = 0)
        .def_property_readonly("name", [](const BuiltinAnimation& self) { return self.name; })
        .def_property_readonly(
            "scene", [](BuiltinAnimation& self) -> const Scene& { return self.built.scene; },
            py::return_value_policy::reference_internal, "The current frame's Scene (changes with advance()).")
        .def_property_readonly("frame", [](const BuiltinAnimation& self) { return self.frame; })
        .def_property_readonly("animated", [](const BuiltinAnimation& self) { return bool(self.built.animation); })
        .def("advance", &BuiltinAnimation::advance, "Moves to the next frame (frame k: k + 1 steps).");

    module.def("builtin_scene_names", &builtin_scene_names, "The built-in scenes' names.");
    module.def(
        "builtin_scene",
        [](const std::string& name, std::uint32_t seed, long frame) {
            if (frame < 0) throw InputError("frame: " + std::to_string(frame) + " is negative");
            BuiltinAnimation animation(name, seed);
            for (long k = 0; k < frame && animation.built.animation; ++k) animation.advance();
            return std::move(animation.built.scene);
        },
        py::arg("name"), py::kw_only(), py::arg("seed") = 0, py::arg("frame") = 0,
        "Built-in scene `name` at `frame` (frame k: built, advanced k + 1 times), as `tilescan render NAME` "
        "draws it.");

    module.def(
        "load_scene", [](const py::object& path) { return read_scene_file(path_string(path)); }, py::arg("path"),
        "Reads a text (.scene) or binary (.tsb) scene file; which one is decided by its first bytes.");
    module.def(
        "save_scene",
        [](const py::object& path, const py::object& scene) {
            write_scene_file(scene_argument(scene), path_string(path));
        },
        py::arg("path"), py::arg("scene"),
        "Writes a Scene (or circles) whole or not at all: binary when the path ends in .tsb, text otherwise.");
    module.def(
        "parse_scene", [](const std::string& text, const std::string& name) { return parse_scene_text(text, name); },
        py::arg("text"), py::arg("name") = "<string>", "Parses the text scene format; errors start with `name`.");
    module.def(
        "format_scene", [](const py::object& scene) { return format_scene_text(scene_argument(scene)); },
        py::arg("scene"), "The text scene format of a Scene (or circles), every number read back exactly.");
}

}  // namespace tilescan::python
