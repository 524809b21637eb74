// Conformance with the course renderer: `ref` reproduces the asst3 images of all 14 scenes, read
// from ../shared/conformance/asst3 at test time (never copied into the project). Flat scenes must
// match bit for bit; snow scenes within 1e-6 (the course used glibc's expf, we use one portable exp
// shared by every backend). rand1M and micro2M have no scene file: they come from our generators,
// so these tests also check the generators, and their 1024 images are checked by sha256.
#include <array>
#include <catch2/catch.hpp>
#include <cstdio>
#include <string>

#include "renderer/image_io.h"
#include "renderer/ref_renderer.h"
#include "renderer/scene_io.h"
#include "scenes/builtin_scenes.h"
#include "test_support.h"

using namespace tilescan;
using namespace tilescan::testing;

namespace {

bool is_snow(const std::string& scene) { return scene == "snow" || scene == "snowsingle"; }

// The scene the course drew: its stored file where there is one, else our generator's frame 0.
Scene conformance_scene(const std::string& dir, const std::string& name) {
    const std::string path = dir + "/" + name + ".scene";
    if (file_exists(path)) return read_scene_file(path);
    BuiltinScene builtin = make_builtin_scene(name, 0);
    if (builtin.animation) builtin.animation->advance(builtin.scene);
    return std::move(builtin.scene);
}

// Renders `name` at size x size and compares with the course's float image NAME<suffix>.
bool matches_course_image(const std::string& dir, const std::string& name, int size, const std::string& suffix) {
    const Image expected = read_raw_rgba_f32(dir + "/" + name + suffix, size, size);
    Image actual(size, size);
    render_reference(conformance_scene(dir, name), actual);
    return images_match(expected, actual, is_snow(name) ? 1e-6f : 0.0f, name + "_" + std::to_string(size));
}

}  // namespace

TEST_CASE("ref reproduces the course's 256x256 images of all 14 scenes", "[conformance]") {
    const std::string dir = require_conformance("256x256 conformance images");
    if (dir.empty()) return;
    for (const std::string name : {"rgb", "rgby", "pattern", "rand10k", "rand100k", "rand1M", "biglittle", "littlebig",
                                   "micro2M", "bouncingballs", "fireworks", "hypnosis", "snow", "snowsingle"}) {
        SECTION(name) { CHECK(matches_course_image(dir, name, 256, "_256.f32")); }
    }
}

TEST_CASE("ref reproduces the course's stored 1024x1024 float images", "[conformance][slow]") {
    const std::string dir = require_conformance("1024x1024 conformance images");
    if (dir.empty()) return;
    for (const std::string name : {"rgb", "rgby", "pattern", "rand10k", "rand100k", "biglittle", "littlebig",
                                   "bouncingballs", "fireworks", "hypnosis", "snow"}) {
        SECTION(name) { CHECK(matches_course_image(dir, name, 1024, "_1024.f32.gz")); }
    }
}

TEST_CASE("ref's 1024x1024 rand1M and micro2M have the course's sha256", "[conformance][slow]") {
    const std::string dir = require_conformance("rand1M/micro2M image hashes");
    if (dir.empty()) return;
    const std::pair<const char*, const char*> expected[] = {
        {"rand1M", "1889fe2ca66187ba62f0d295b8e9b6c813883cc9051966cd0be87ace027c79dd"},
        {"micro2M", "72211a923c216f2fffda6f27def091e4b60359e847fedcc286742f7716171b0b"},
    };
    for (const auto& [name, digest] : expected) {
        SECTION(name) {
            Image image(1024, 1024);
            render_reference(conformance_scene(dir, name), image);
            const std::string path = scratch_dir(std::string("hash_") + name) + "/image.f32";
            write_image(image, path);  // raw float RGBA, top row first: the layout that was hashed
            CHECK(sha256_of_file(path) == digest);
        }
    }
}
