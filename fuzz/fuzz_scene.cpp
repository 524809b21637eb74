// libFuzzer target for the scene readers (renderer/scene_io.h): read_scene_file on the fuzzer's
// bytes, saved as TILESCAN_FUZZ_SUFFIX. Built twice: `fuzz_scene_text` (.scene, seeded with text
// scenes and fuzz_scene_text.dict) and `fuzz_scene_binary` (.tsb, seeded with binary scenes); the reader picks
// text or binary by the first bytes, so each target also reaches the other's rejections.
//
// A scene the reader accepts must be valid (validate_scene), round-trip bit for bit through both
// file forms, and render without undefined behaviour and with the same bits on `ref` and `cpu`:
// whatever a reader lets through reaches culling, binning and shading, so this is where values
// that are legal but extreme (huge positions and radii, denormals) are checked.
#include <cstring>

#include "fuzz/fuzz_support.h"
#include "renderer/backends.h"
#include "renderer/scene_io.h"

#ifndef TILESCAN_FUZZ_SUFFIX
#define TILESCAN_FUZZ_SUFFIX ".scene"
#endif

namespace {

using namespace tilescan;

bool same_bits(const Image& lhs, const Image& rhs) {
    return lhs.width == rhs.width && lhs.height == rhs.height && lhs.pixels.size() == rhs.pixels.size() &&
           std::memcmp(lhs.pixels.data(), rhs.pixels.data(), lhs.pixels.size() * sizeof(Rgba)) == 0;
}

void check_accepted(const Scene& scene) {
    validate_scene(scene, "accepted scene");  // throws InputError, which the caller turns into an abort
    FUZZ_REQUIRE((scene.default_width == 0 && scene.default_height == 0) ||
                 (scene.default_width >= 1 && scene.default_width <= 65536 && scene.default_height >= 1 &&
                  scene.default_height <= 65536));

    // Round trips: text in memory, binary through a file.
    FUZZ_REQUIRE(parse_scene_text(format_scene_text(scene), "round trip") == scene);
    const std::string binary = tilescan_fuzz::temp_dir() + "/round_trip.tsb";
    write_scene_file(scene, binary);
    FUZZ_REQUIRE(read_scene_file(binary) == scene);

    // Small, non-square, two tiles by one and a bit: partial tiles on both axes.
    static const std::unique_ptr<Backend> ref = make_backend("ref");
    static const std::unique_ptr<Backend> cpu = make_backend("cpu", BackendOptions{"scan", 1});
    Image expected(19, 17), actual(19, 17);
    ref->render(scene, expected);
    cpu->render(scene, actual);
    FUZZ_REQUIRE(same_bits(expected, actual));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string path = tilescan_fuzz::write_input(data, size, TILESCAN_FUZZ_SUFFIX);
    tilescan_fuzz::expect_input_error_or_success([&] {
        const Scene scene = read_scene_file(path);
        try {
            check_accepted(scene);
        } catch (const std::exception& error) {
            std::fprintf(stderr, "accepted scene failed a later step: %s\n", error.what());
            std::abort();
        }
    });
    return 0;
}
