// Progress reports of a frame (renderer/progress.h): `ref` and `cpu` call the callback with
// fractions that never decrease and end at 1, never two calls at once and at most one per percent,
// one band or many, and the image is the same bits as without a callback.
#include <atomic>
#include <catch2/catch.hpp>
#include <vector>

#include "render_cases.h"
#include "renderer/backends.h"
#include "renderer/cpu_backend.h"

using namespace tilescan;
using namespace tilescan::testing;

namespace {

// Renders `scene` with a callback that records what it hears, and checks the contract.
void check_progress(Backend& backend, const Scene& scene, int width, int height) {
    std::vector<double> heard;
    std::atomic<int> inside{0};
    bool overlapped = false;
    backend.set_progress([&](double fraction) {
        overlapped |= inside.fetch_add(1) != 0;
        heard.push_back(fraction);
        inside.fetch_sub(1);
    });
    Image image(width, height);
    backend.render(scene, image);
    backend.set_progress({});
    Image quiet(width, height);
    backend.render(scene, quiet);
    INFO(backend.name() << " " << width << "x" << height << ": " << heard.size() << " calls");
    CHECK_FALSE(overlapped);
    REQUIRE_FALSE(heard.empty());
    CHECK(heard.size() <= 100);
    CHECK(heard.front() >= 0.0);
    CHECK(heard.back() == 1.0);
    for (std::size_t k = 1; k < heard.size(); ++k) CHECK(heard[k - 1] <= heard[k]);
    CHECK(images_match(quiet, image, 0.0f, backend.name() + "_progress"));
}

}  // namespace

TEST_CASE("ref reports progress that ends at 1", "[progress]") {
    const std::unique_ptr<Backend> backend = make_backend("ref");
    check_progress(*backend, builtin_frame("rand10k"), 160, 120);
    check_progress(*backend, builtin_frame("rgb"), 1, 1);
    check_progress(*backend, Scene{}, 16, 16);  // no circles: straight to 1
}

TEST_CASE("cpu reports progress that ends at 1, from its threads and over bands", "[progress]") {
    for (const unsigned threads : {1u, 4u}) {
        CpuBackend backend(threads);
        check_progress(backend, builtin_frame("rand10k"), 160, 120);
        check_progress(backend, builtin_frame("snowsingle"), 333, 197);
        check_progress(backend, Scene{}, 16, 16);
        CpuBackend banded(threads, 64 * 1024);
        check_progress(banded, builtin_frame("rand10k"), 256, 256);
        Image image(256, 256);
        CHECK(banded.render(builtin_frame("rand10k"), image).bands > 1);
    }
}

TEST_CASE("progress steps: one call per percent crossed, and 1 once", "[progress]") {
    std::vector<double> heard;
    const ProgressCallback record = [&](double fraction) { heard.push_back(fraction); };
    ProgressSteps steps(record, 1000);
    for (int k = 0; k < 1000; ++k) steps.advance(1);
    steps.finish();
    CHECK(heard.size() == 100);  // 0.01, 0.02 ... 1
    CHECK(heard.back() == 1.0);
    heard.clear();
    ProgressSteps past_total(record, 10);
    past_total.advance(25);
    past_total.finish();
    CHECK(heard == std::vector<double>{1.0});
    heard.clear();
    ProgressSteps nothing_to_do(record, 0);
    nothing_to_do.finish();
    CHECK(heard == std::vector<double>{1.0});
}
