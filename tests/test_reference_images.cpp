// Golden images: reference_images/ holds every built-in scene rendered by `ref` (PNG) and the
// sha256 of each float image (MANIFEST). Re-rendering must give the same float bits and the same
// PNG bytes, so any change of the rendering rules, the generators or the 8-bit rule shows here.
#include <array>
#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "renderer/image_io.h"
#include "renderer/ref_renderer.h"
#include "scenes/builtin_scenes.h"
#include "test_support.h"

using namespace tilescan;
using namespace tilescan::testing;

namespace {

struct GoldenEntry {
    std::string file;
    int size;
    std::string float_sha256;
};

std::vector<GoldenEntry> read_manifest() {
    std::ifstream manifest(source_dir() + "/reference_images/MANIFEST");
    std::vector<GoldenEntry> entries;
    std::string line;
    while (std::getline(manifest, line)) {
        if (line.empty() || line[0] == '#') continue;
        std::istringstream fields(line);
        GoldenEntry entry;
        fields >> entry.file >> entry.size >> entry.float_sha256;
        entries.push_back(entry);
    }
    return entries;
}

std::string scene_name_of(const std::string& file) { return file.substr(0, file.rfind('_')); }

}  // namespace

TEST_CASE("ref re-renders every golden image bit for bit", "[golden]") {
    const std::vector<GoldenEntry> entries = read_manifest();
    REQUIRE(entries.size() >= 15);
    const std::string scratch = scratch_dir("golden");
    for (const GoldenEntry& entry : entries) {
        SECTION(entry.file) {
            BuiltinScene builtin = make_builtin_scene(scene_name_of(entry.file), 0);
            if (builtin.animation) builtin.animation->advance(builtin.scene);
            Image image(entry.size, entry.size);
            render_reference(builtin.scene, image);
            write_image(image, scratch + "/image.f32");
            CHECK(sha256_of_file(scratch + "/image.f32") == entry.float_sha256);
            write_image(image, scratch + "/image.png");
            const Image golden_png = read_image(source_dir() + "/reference_images/" + entry.file);
            const Image our_png = read_image(scratch + "/image.png");
            CHECK(images_match(golden_png, our_png, 0.0f, "golden_" + entry.file));
        }
    }
}
