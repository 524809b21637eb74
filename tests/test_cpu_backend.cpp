// The `cpu` backend equals `ref` bit for bit: every built-in scene at small and odd sizes (larger
// ones where quick), adversarial scenes, animated frames, and its ordered binning against the
// serial reference.
#include <catch2/catch.hpp>
#include <random>

#include "kernels/primitives/ordered_binning_cpu.h"
#include "render_cases.h"
#include "renderer/cpu_backend.h"

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
