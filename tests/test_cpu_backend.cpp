// The `cpu` backend equals `ref` bit for bit: every built-in scene at small and odd sizes (larger
// ones where quick), adversarial scenes, animated frames, the same under a bin-memory budget so
// small that every frame is binned in many bands, and its ordered binning against the serial
// reference.
#include <algorithm>
#include <catch2/catch.hpp>
#include <numeric>
#include <random>

#include "kernels/primitives/ordered_binning_cpu.h"
#include "kernels/render/frame_params.h"
#include "render_cases.h"
#include "renderer/cpu_backend.h"
#include "renderer/errors.h"
#include "renderer/shared/tile_geometry.h"

using namespace tilescan;
using namespace tilescan::testing;

TEST_CASE("cpu renders every built-in scene like ref", "[cpu_backend]") {
    CpuBackend backend;
    for (const std::string& name : builtin_scene_names()) {
        SECTION(name) {
            const Scene scene = builtin_frame(name);
            for (const auto& [w, h] : {std::pair{1, 1}, {333, 197}, {256, 256}})
                CHECK(renders_like_ref(backend, scene, w, h, name + "_" + std::to_string(w) + "x" + std::to_string(h)));
        }
    }
}

TEST_CASE("cpu renders like ref at 1024x1024 and 1000x700", "[cpu_backend][slow]") {
    CpuBackend backend;
    for (const std::string name : {"rgb", "pattern", "rand10k", "snowsingle", "fireworks", "micro2M"}) {
        SECTION(name) {
            CHECK(renders_like_ref(backend, builtin_frame(name), 1024, 1024, name + "_1024"));
            CHECK(renders_like_ref(backend, builtin_frame(name), 1000, 700, name + "_1000x700"));
        }
    }
}

TEST_CASE("cpu renders adversarial scenes like ref", "[cpu_backend]") {
    CpuBackend backend(3);  // an odd thread count: the result must not depend on it
    for (const AdversarialScene& a : adversarial_scenes()) {
        SECTION(a.name) { CHECK(renders_like_ref(backend, a.scene, a.width, a.height, a.name)); }
    }
}

namespace {

// The (tile, circle) pairs of each tile (row-major), counted the slow, obvious way: every circle
// against every tile of its tile rectangle, with the exact overlap test the binning uses.
std::vector<std::uint64_t> tile_pairs_by_brute_force(const Scene& scene, int width, int height) {
    const TileGrid grid = tile_grid(width, height);
    std::vector<std::uint64_t> tiles(std::size_t(grid.tiles_x) * grid.tiles_y, 0);
    for (std::size_t i = 0; i < scene.size(); ++i) {
        const CircleFootprint c = circle_footprint(scene.x[i], scene.y[i], scene.radius[i], width, height);
        if (box_is_empty(c.box)) continue;
        const NearestCentre nearest = nearest_centre(c, width, height, 1.0f / width, 1.0f / height);
        const TileRect rect = tile_rect_of_box(c.box);
        for (int ty = rect.ty0; ty < rect.ty1; ++ty)
            for (int tx = rect.tx0; tx < rect.tx1; ++tx)
                tiles[std::size_t(ty) * grid.tiles_x + tx] +=
                    circle_touches_tile(c, nearest, tx, ty, 1.0f / width, 1.0f / height);
    }
    return tiles;
}

}  // namespace

TEST_CASE("the busy-tile scenes make exactly their named tiles busy", "[cpu_backend][busy]") {
    // The cuda tests expect the busy-tile shading to take these tiles: check the lists' lengths
    // against the one rule (tile_is_busy).
    const auto busy_tiles_of = [](const Scene& scene, int width, int height) {
        const TileGrid grid = tile_grid(width, height);
        const std::vector<std::uint64_t> lists = tile_pairs_by_brute_force(scene, width, height);
        const std::uint64_t pairs = std::accumulate(lists.begin(), lists.end(), std::uint64_t(0));
        std::vector<std::pair<int, int>> busy;
        for (std::size_t t = 0; t < lists.size(); ++t)
            if (tile_is_busy(lists[t], pairs, std::uint32_t(lists.size())))
                busy.push_back({int(t % grid.tiles_x), int(t / grid.tiles_x)});
        return busy;
    };
    const std::vector<std::pair<int, int>> two = {{2, 1}, {5, 4}};
    CHECK(busy_tiles_of(busy_tiles_scene(90, 75, two, 4000, kShadingFlat), 90, 75) == two);
    std::vector<std::pair<int, int>> many = busy_tiles_scene_many_tiles();
    std::vector<std::pair<int, int>> found =
        busy_tiles_of(busy_tiles_scene(320, 320, many, 2600, kShadingFlat), 320, 320);
    std::sort(many.begin(), many.end(), [](auto a, auto b) {  // busy_tiles_of lists them row by row
        return std::pair{a.second, a.first} < std::pair{b.second, b.first};
    });
    CHECK(found == many);
}

TEST_CASE("cpu renders animated frames like ref", "[cpu_backend]") {
    CpuBackend backend;
    for (const std::string name : {"bouncingballs", "hypnosis", "fireworks", "snow"}) {
        BuiltinScene builtin = make_builtin_scene(name, 0);
        for (int frame = 0; frame < 40; ++frame) {
            builtin.animation->advance(builtin.scene);
            if (frame % 13 == 0)
                CHECK(renders_like_ref(backend, builtin.scene, 200, 150, name + "_frame" + std::to_string(frame)));
        }
    }
}

namespace {

// The (tile, circle) pairs of each tile row, from tile_pairs_by_brute_force.
std::vector<std::uint64_t> row_pairs_by_brute_force(const Scene& scene, int width, int height) {
    const TileGrid grid = tile_grid(width, height);
    const std::vector<std::uint64_t> tiles = tile_pairs_by_brute_force(scene, width, height);
    std::vector<std::uint64_t> rows(grid.tiles_y, 0);
    for (std::size_t t = 0; t < tiles.size(); ++t) rows[t / grid.tiles_x] += tiles[t];
    return rows;
}

// The smallest budget that can bin the frame: its busiest tile row alone (at least one pair).
std::uint64_t smallest_budget(const Scene& scene, int width, int height) {
    const std::vector<std::uint64_t> rows = row_pairs_by_brute_force(scene, width, height);
    return std::max<std::uint64_t>(1, *std::max_element(rows.begin(), rows.end())) * kCpuBytesPerPair;
}

// Renders under the smallest budget (many bands) and one pair above it; both must equal ref, and
// the pairs must equal the brute-force count.
void check_banded(const Scene& scene, int width, int height, const std::string& name, unsigned threads = 0) {
    const std::vector<std::uint64_t> rows = row_pairs_by_brute_force(scene, width, height);
    const std::uint64_t total = std::accumulate(rows.begin(), rows.end(), std::uint64_t(0));
    for (const std::uint64_t extra : {std::uint64_t(0), kCpuBytesPerPair}) {
        CpuBackend backend(threads, smallest_budget(scene, width, height) + extra);
        Image expected(width, height), actual(width, height);
        render_reference(scene, expected);
        const RenderStats stats = backend.render(scene, actual);
        INFO(name << " " << width << "x" << height << ", budget " << backend.bin_budget() << ", " << stats.bands
                  << " bands");
        CHECK(stats.pairs == total);
        CHECK(stats.pair_bytes <= backend.bin_budget());
        CHECK(images_match(expected, actual, 0.0f, "cpu_banded_" + name));
    }
}

// Scenes whose pairs crowd where bands are cut: everything in one tile row, one circle covering
// the whole image, rows with no circle at all between busy ones.
std::vector<AdversarialScene> band_scenes() {
    std::vector<AdversarialScene> scenes;
    Scene one_row, huge, gaps;
    for (int k = 0; k < 300; ++k) {
        one_row.push_back({(k % 97) / 96.0f, 0.55f, 0, 0.004f + (k % 5) * 0.003f, (k % 3) / 2.0f, 0.5f, 1, 0.5f});
        gaps.push_back({(k % 89) / 88.0f,
                        (k % 3 == 0   ? 0.05f
                         : k % 3 == 1 ? 0.5f
                                      : 0.95f),
                        0, 0.01f + (k % 4) * 0.004f, 1, (k % 7) / 6.0f, 0, 0.3f});
    }
    huge.push_back({0.5f, 0.5f, 0, 5.0f, 0.2f, 0.4f, 0.6f, 0.75f});
    huge.push_back({0.3f, 0.6f, 0, 0.1f, 1, 0, 0, 0.5f});
    scenes.push_back({"all_in_one_tile_row", std::move(one_row), 200, 160});
    scenes.push_back({"one_huge_circle", std::move(huge), 123, 250});
    scenes.push_back({"empty_rows_between", std::move(gaps), 176, 400});
    return scenes;
}

}  // namespace

TEST_CASE("cpu under a tiny bin-memory budget renders built-in scenes like ref, band by band", "[cpu_backend][bands]") {
    for (const std::string name : {"rgb", "pattern", "rand10k", "biglittle", "snowsingle", "hypnosis", "fireworks"}) {
        SECTION(name) {
            check_banded(builtin_frame(name), 160, 120, name);
            check_banded(builtin_frame(name), 37, 301, name + "_tall");
        }
    }
}

TEST_CASE("cpu under a tiny bin-memory budget renders adversarial scenes like ref", "[cpu_backend][bands]") {
    std::vector<AdversarialScene> scenes = band_scenes();
    for (AdversarialScene& a : adversarial_scenes()) scenes.push_back(std::move(a));
    for (const AdversarialScene& a : scenes) {
        SECTION(a.name) { check_banded(a.scene, a.width, a.height, a.name, 3); }
    }
}

TEST_CASE("cpu bands really split the frame, and a budget below one row is refused before binning",
          "[cpu_backend][bands]") {
    const Scene scene = builtin_frame("rand10k");
    const std::uint64_t smallest = smallest_budget(scene, 256, 256);
    Image image(256, 256);
    CpuBackend unlimited;
    CHECK(unlimited.render(scene, image).bands == 1);
    CpuBackend tight(0, smallest);
    const RenderStats stats = tight.render(scene, image);
    CHECK(stats.bands >= 8);  // 16 tile rows of similar weight, one or two per band
    CHECK(stats.pairs == unlimited.render(scene, image).pairs);
    // The budget bounds the pair buffers; the per-circle arrays are reported apart, beyond it.
    CHECK(stats.pair_bytes <= smallest);
    CHECK(stats.circle_tile_bytes >= scene.size() * kCpuBytesPerCircle);
    CHECK(stats.circle_tile_bytes > smallest);
    CpuBackend too_small(0, smallest - 1);
    CHECK_THROWS_AS(too_small.render(scene, image), InputError);
}

TEST_CASE("cpu under a tiny budget renders animated frames like ref, reusing its buffers", "[cpu_backend][bands]") {
    for (const std::string name : {"bouncingballs", "snow"}) {
        BuiltinScene builtin = make_builtin_scene(name, 0);
        std::vector<Scene> frames;
        for (int frame = 0; frame < 30; ++frame) {
            builtin.animation->advance(builtin.scene);
            if (frame % 7 == 0) frames.push_back(builtin.scene);
        }
        // The smallest budget every frame fits: one backend, its buffers reused, band counts varying.
        std::uint64_t budget = 0;
        for (const Scene& frame : frames) budget = std::max(budget, smallest_budget(frame, 120, 90));
        CpuBackend backend(0, budget);
        for (std::size_t k = 0; k < frames.size(); ++k) {
            Image expected(120, 90), actual(120, 90);
            render_reference(frames[k], expected);
            const RenderStats stats = backend.render(frames[k], actual);
            INFO(name << " frame " << 7 * k << ": " << stats.bands << " bands");
            CHECK(images_match(expected, actual, 0.0f, "cpu_banded_" + name + "_frame" + std::to_string(7 * k)));
        }
    }
}

TEST_CASE("cpu ordered binning equals the serial reference", "[cpu_backend][binning]") {
    std::mt19937 random(7);
    for (const std::size_t n :
         {std::size_t(0), std::size_t(1), std::size_t(33), std::size_t(65537), std::size_t(1000003)}) {
        for (const std::uint32_t bins : {1u, 7u, 4096u, 1u << 20}) {
            std::vector<std::uint32_t> keys(n), values(n);
            const bool skewed = n % 2 == 1;  // everything in one bin but a few
            for (std::size_t i = 0; i < n; ++i) {
                keys[i] = skewed && i % 97 ? bins - 1 : random() % bins;
                values[i] = static_cast<std::uint32_t>(random());
            }
            std::vector<std::uint32_t> expected(n), actual(n);
            std::vector<std::uint64_t> expected_offsets(bins + 1), actual_offsets(bins + 1);
            serial_ordered_binning(keys.data(), values.data(), n, bins, expected.data(), expected_offsets.data());
            cpu_ordered_binning(keys.data(), values.data(), n, bins, actual.data(), actual_offsets.data(), 5);
            CHECK(expected == actual);
            CHECK(expected_offsets == actual_offsets);
        }
    }
    // The worked example of ordered_binning_cpu.h.
    const std::uint32_t keys[] = {2, 0, 2, 1, 0};
    const std::uint32_t values[] = {10, 11, 12, 13, 14};
    std::uint32_t binned[5];
    std::uint64_t offsets[4];
    serial_ordered_binning(keys, values, 5, 3, binned, offsets);
    CHECK(std::vector<std::uint32_t>(binned, binned + 5) == std::vector<std::uint32_t>{11, 14, 13, 10, 12});
    CHECK(std::vector<std::uint64_t>(offsets, offsets + 4) == std::vector<std::uint64_t>{0, 2, 3, 5});
}
