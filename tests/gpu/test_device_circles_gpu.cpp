// The cuda backend's entries for circles already in device memory (render_device_circles) and for
// host circles with the image converted on the device (render_to_host): the image equals ref's bit
// for bit in every layout, a caller's image is written after the work pending on its stream, a bad
// circle raises the host's message, and pointers that are not the backend's device memory are
// refused.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <string>
#include <tuple>
#include <vector>

#include "device_copies.h"
#include "kernels/cuda_resources.h"
#include "kernels/render/cuda_backend.h"
#include "render_cases.h"
#include "renderer/errors.h"

using namespace tilescan;
using namespace tilescan::testing;

namespace {

// The scene's circles as (N, 8) rows, x y z radius r g b a.
std::vector<float> circle_rows(const Scene& scene) {
    std::vector<float> rows;
    for (std::size_t i = 0; i < scene.size(); ++i) {
        const Circle c = scene.circle(i);
        rows.insert(rows.end(), {c.x, c.y, c.z, c.radius, c.r, c.g, c.b, c.a});
    }
    return rows;
}

// The host image as render_device_circles and render_to_host lay it out: rows reversed when top_row_first, alpha kept
// when channels == 4.
std::vector<float> laid_out(const Image& image, int channels, bool top_row_first) {
    std::vector<float> out;
    for (int row = 0; row < image.height; ++row) {
        const int y = top_row_first ? image.height - 1 - row : row;
        for (int x = 0; x < image.width; ++x) {
            const Rgba& p = image.at(x, y);
            out.insert(out.end(), {p.r, p.g, p.b});
            if (channels == 4) out.push_back(p.a);
        }
    }
    return out;
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

DeviceCircleFrame frame_of(const Scene& scene, const float* rows, int width, int height) {
    DeviceCircleFrame frame;
    frame.rows = rows;
    frame.circles = scene.size();
    frame.shading = scene.shading;
    frame.background = scene.background;
    frame.width = width;
    frame.height = height;
    return frame;
}

HostCircleFrame host_frame_of(const Scene* scene, const std::vector<float>* rows, const Scene& drawn, int width,
                              int height) {
    HostCircleFrame frame;
    frame.scene = scene;
    frame.rows = rows ? rows->data() : nullptr;
    frame.circles = rows ? rows->size() / 8 : 0;
    frame.shading = drawn.shading;
    frame.background = drawn.background;
    frame.width = width;
    frame.height = height;
    return frame;
}

// The scenes of the layout cases, each with ref's image of it at an odd size (203 x 117).
struct LayoutCase {
    std::string name;
    Scene scene;
    Image expected;
};
std::vector<LayoutCase> layout_cases() {
    std::vector<LayoutCase> cases;
    for (const char* name : {"rgb", "snowsingle", "rand10k"}) {
        LayoutCase c{name, builtin_frame(name), Image(203, 117)};
        render_reference(c.scene, c.expected);
        cases.push_back(std::move(c));
    }
    return cases;
}

}  // namespace

TEST_CASE("cuda renders host circles into host memory like ref, in every layout",
          "[gpu][render][device_circles][sanitize]") {
    CudaBackend backend;
    for (const auto& [name, scene, expected] : layout_cases()) {
        const int width = expected.width, height = expected.height;
        const std::vector<float> rows = circle_rows(scene);
        for (const bool from_rows : {false, true}) {
            const HostCircleFrame frame =
                host_frame_of(from_rows ? nullptr : &scene, from_rows ? &rows : nullptr, scene, width, height);
            for (const int channels : {3, 4}) {
                for (const bool top : {true, false}) {
                    INFO(name << (from_rows ? " rows" : " Scene") << ", " << channels << " channels, top first "
                              << top);
                    std::vector<float> pixels(std::size_t(width) * height * channels, -1.0f);
                    const RenderStats stats = backend.render_to_host(frame, {channels, top}, pixels.data());
                    CHECK(same_bits(pixels, laid_out(expected, channels, top)));
                    REQUIRE(stats.stages.size() >= 3);
                    CHECK(stats.stages.front().name == "upload");
                    CHECK(stats.stages.back().name == "download");
                }
            }
        }
    }
    // The frame's shading and background are drawn, not the Scene's.
    const Scene snow = builtin_frame("snowsingle");
    Scene flat = snow;
    flat.shading = kShadingFlat;
    flat.background = {kBackgroundWhite, 1.0f, 1.0f, 1.0f};
    Image expected(96, 80);
    render_reference(flat, expected);
    std::vector<float> pixels(std::size_t(96) * 80 * 4);
    backend.render_to_host(host_frame_of(&snow, nullptr, flat, 96, 80), {4, false}, pixels.data());
    CHECK(same_bits(pixels, laid_out(expected, 4, false)));
    // A bad row: the host check's message, and the next frame renders.
    const Scene good = builtin_frame("rand10k");
    std::vector<float> rows = circle_rows(good);
    rows[5 * 8 + 3] = -1.0f;
    CHECK_THROWS_WITH(backend.render_to_host(host_frame_of(nullptr, &rows, good, 64, 64), {3, true}, pixels.data()),
                      "circles: circle 5: radius is negative (-1)");
    rows[5 * 8 + 3] = good.radius[5];
    backend.render_to_host(host_frame_of(nullptr, &rows, good, 96, 80), {4, false}, pixels.data());
    render_reference(good, expected);
    CHECK(same_bits(pixels, laid_out(expected, 4, false)));
}

TEST_CASE("cuda renders circles from device memory like ref, in every layout", "[gpu][render][device_circles]") {
    CudaBackend backend;
    for (const auto& [name, scene, expected] : layout_cases()) {
        const int width = expected.width, height = expected.height;
        const DeviceBuffer<float> rows = upload(circle_rows(scene));
        const DeviceCircleFrame frame = frame_of(scene, rows.data(), width, height);
        for (const int channels : {3, 4}) {
            for (const bool top : {true, false}) {
                const DeviceImage own = backend.render_device_circles(frame, {channels, top});
                CHECK(own.width == width);
                CHECK(own.channels == channels);
                const std::size_t floats = std::size_t(width) * height * channels;
                CHECK(same_bits(download(own.pixels.get(), floats), laid_out(expected, channels, top)));
                DeviceBuffer<float> callers(floats);
                const DeviceImage into = backend.render_device_circles(frame, {channels, top, callers.data()});
                CHECK(into.pixels.get() == callers.data());
                CHECK(same_bits(download(callers.data(), floats), laid_out(expected, channels, top)));
            }
        }
    }
}

// The caller's out is written after the work pending on out_stream: there a long run of memsets,
// then one filling out with NaNs, all queued before the frame, which must land before the image.
TEST_CASE("cuda writes a caller's image after the work pending on its stream", "[gpu][render][device_circles]") {
    CudaBackend backend;
    const Scene scene = builtin_frame("rand10k");
    Image expected(96, 80);
    render_reference(scene, expected);
    const DeviceBuffer<float> rows = upload(circle_rows(scene));
    const std::size_t floats = std::size_t(96) * 80 * 3;
    DeviceBuffer<float> out(floats);
    const std::size_t busy_bytes = std::size_t(256) << 20;
    DeviceBuffer<unsigned char> busy(busy_bytes);
    const CudaStream side;
    // The circles on the legacy default stream (out's own wait), or on out's (the circles' wait covers it).
    for (const bool circles_on_side : {false, true}) {
        for (int k = 0; k < 16; ++k) TS_CUDA_CHECK(cudaMemsetAsync(busy.data(), k, busy_bytes, side.get()));
        TS_CUDA_CHECK(cudaMemsetAsync(out.data(), 0xff, floats * sizeof(float), side.get()));
        DeviceCircleFrame frame = frame_of(scene, rows.data(), 96, 80);
        frame.wait_stream = circles_on_side ? side.get() : nullptr;
        backend.render_device_circles(frame, {{3, true}, out.data(), side.get()});
        CHECK(same_bits(download(out.data(), floats), laid_out(expected, 3, true)));
    }
}

TEST_CASE("cuda checks device circles as validate_scene does and goes on rendering", "[gpu][render][device_circles]") {
    CudaBackend backend;
    const Scene good = builtin_frame("rand10k");
    for (const auto& [index, field, value] : std::vector<std::tuple<std::size_t, int, float>>{
             {5, 3, -1.0f}, {77, 0, NAN}, {9999, 7, 1.5f}, {123, 1, 1e30f}, {0, 4, INFINITY}}) {
        std::vector<float> rows = circle_rows(good);
        rows[index * 8 + field] = value;
        rows[(index == 0 ? 1 : index - 1) * 8 + 3] = -2.0f;  // another bad circle, named only when first
        Scene bad = good;
        float* fields[] = {bad.x.data(), bad.y.data(), bad.z.data(), bad.radius.data(),
                           bad.r.data(), bad.g.data(), bad.b.data(), bad.a.data()};
        fields[field][index] = value;
        fields[3][index == 0 ? 1 : index - 1] = -2.0f;
        std::string host_message;
        try {
            validate_scene(bad, "circles");
        } catch (const InputError& error) {
            host_message = error.what();
        }
        REQUIRE(!host_message.empty());
        const DeviceBuffer<float> device_rows = upload(rows);
        CHECK_THROWS_WITH(backend.check_device_circles(frame_of(good, device_rows.data(), 64, 64)), host_message);
        try {
            backend.render_device_circles(frame_of(good, device_rows.data(), 64, 64), {});
            FAIL("a bad circle was rendered");
        } catch (const InputError& error) {
            CHECK(std::string(error.what()) == host_message);
        }
    }
    Image expected(64, 64);
    backend.render(good, expected);
    const DeviceBuffer<float> rows = upload(circle_rows(good));
    CHECK_NOTHROW(backend.check_device_circles(frame_of(good, rows.data(), 64, 64)));
    const DeviceImage image = backend.render_device_circles(frame_of(good, rows.data(), 64, 64), {4, false});
    CHECK(same_bits(download(image.pixels.get(), std::size_t(64) * 64 * 4), laid_out(expected, 4, false)));
}

TEST_CASE("cuda refuses device circles and images that are not its device memory", "[gpu][render][device_circles]") {
    CudaBackend backend;
    const Scene scene = builtin_frame("rgb");
    const std::vector<float> host_rows = circle_rows(scene);
    CHECK_THROWS_WITH(backend.render_device_circles(frame_of(scene, host_rows.data(), 16, 16), {}),
                      Catch::Contains("circles: the pointer is not CUDA device memory"));
    const DeviceBuffer<float> rows = upload(host_rows);
    std::vector<float> host_image(16 * 16 * 4);
    CHECK_THROWS_WITH(backend.render_device_circles(frame_of(scene, rows.data(), 16, 16), {4, true, host_image.data()}),
                      Catch::Contains("out: the pointer is not CUDA device memory"));
    CHECK_THROWS_AS(backend.render_device_circles(frame_of(scene, rows.data(), 0, 16), {}), InputError);
    CHECK_THROWS_AS(backend.render_device_circles(frame_of(scene, rows.data(), 16, 16), {5, true, nullptr}),
                    InputError);
}
