// Tests of renderer/image_diff: tolerance 0 is bit for bit, NaN always differs, the first differing
// pixel is reported in file order, PSNR, and the heat map shows one-ulp differences.
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>

#include "renderer/errors.h"
#include "renderer/image_diff.h"

using tilescan::Image;
using tilescan::ImageDiff;

namespace {

Image constant_image(int width, int height, tilescan::Rgba value) {
    Image image(width, height);
    for (auto& p : image.pixels) p = value;
    return image;
}

float max_channel(const tilescan::Rgba& p) { return std::fmax(std::fmax(p.r, p.g), p.b); }

}  // namespace

TEST_CASE("identical images", "[image_diff]") {
    const Image a = constant_image(5, 3, {0.2f, 0.4f, 0.6f, 1.0f});
    const ImageDiff diff = tilescan::compare_images(a, a, 0.0f);
    CHECK(diff.differing_pixels == 0);
    CHECK(diff.max_abs_difference == 0.0f);
    CHECK(std::isinf(diff.psnr));
    CHECK(diff.first_x == -1);
    CHECK(diff.first_y == -1);
}

TEST_CASE("tolerance 0 is bit for bit; a tolerance absorbs small differences", "[image_diff]") {
    const Image a = constant_image(4, 4, {0.5f, 0.5f, 0.5f, 1.0f});
    Image b = a;
    b.at(1, 2).g = std::nextafter(0.5f, 1.0f);  // one ulp

    ImageDiff diff = tilescan::compare_images(a, b, 0.0f);
    CHECK(diff.differing_pixels == 1);
    CHECK(diff.max_abs_difference == std::nextafter(0.5f, 1.0f) - 0.5f);
    CHECK(diff.first_x == 1);
    CHECK(diff.first_y == 1);  // memory row 2 of 4 is file row 1 (counted from the top)
    CHECK(diff.psnr > 100.0);
    CHECK(tilescan::compare_images(a, b, 1e-6f).differing_pixels == 0);

    Image zeros = constant_image(2, 2, {0.0f, 0.0f, 0.0f, 1.0f});
    Image negative_zeros = zeros;
    negative_zeros.at(0, 0).b = -0.0f;
    CHECK(tilescan::compare_images(zeros, negative_zeros, 0.0f).differing_pixels == 1);
    CHECK(tilescan::compare_images(zeros, negative_zeros, 1e-9f).differing_pixels == 0);
}

TEST_CASE("the first differing pixel is the first in file order", "[image_diff]") {
    const Image a = constant_image(6, 5, {1.0f, 1.0f, 1.0f, 1.0f});
    Image b = a;
    b.at(0, 0).r = 0.0f;  // bottom-left: last row in file order
    b.at(4, 3).b = 0.0f;  // file row 1
    b.at(5, 3).b = 0.0f;
    const ImageDiff diff = tilescan::compare_images(a, b, 0.0f);
    CHECK(diff.differing_pixels == 3);
    CHECK(diff.first_x == 4);
    CHECK(diff.first_y == 1);
    CHECK(diff.max_abs_difference == 1.0f);
}

TEST_CASE("equal bits are equal, NaN and infinity included; a NaN differs from any other value", "[image_diff]") {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const float inf = std::numeric_limits<float>::infinity();
    const Image a = constant_image(2, 2, {nan, inf, -inf, 1.0f});
    for (const float tolerance : {0.0f, 1.0f}) {
        const ImageDiff same = tilescan::compare_images(a, a, tolerance);
        CHECK(same.differing_pixels == 0);  // an image equals itself
        CHECK(same.max_abs_difference == 0.0f);
    }
    Image b = a;
    b.at(1, 1).r = 0.0f;  // NaN against a number
    b.at(0, 0).g = 5.0f;  // infinity against a number
    b.at(1, 0).b = inf;   // -inf against +inf
    const ImageDiff diff = tilescan::compare_images(a, b, 1.0f);
    CHECK(diff.differing_pixels == 3);
    CHECK(std::isinf(diff.max_abs_difference));
    Image other_nan = a;
    other_nan.at(0, 1).r = -nan;  // another NaN's bits
    CHECK(tilescan::compare_images(a, other_nan, 1.0f).differing_pixels == 1);
}

TEST_CASE("alpha is compared only when asked", "[image_diff]") {
    const Image a = constant_image(3, 3, {0.1f, 0.2f, 0.3f, 1.0f});
    Image b = a;
    b.at(2, 2).a = 2.5f;
    CHECK(tilescan::compare_images(a, b, 0.0f).differing_pixels == 1);
    CHECK(tilescan::compare_images(a, b, 0.0f, false).differing_pixels == 0);
    CHECK(tilescan::compare_images(a, b, 0.0f, false).max_abs_difference == 0.0f);
}

TEST_CASE("PSNR over RGB clamped to [0, 1]", "[image_diff]") {
    const Image a = constant_image(8, 8, {0.0f, 0.0f, 0.0f, 1.0f});
    const Image b = constant_image(8, 8, {0.1f, 0.1f, 0.1f, 1.0f});
    CHECK(tilescan::compare_images(a, b, 0.0f).psnr == Approx(20.0).epsilon(1e-5));  // MSE 0.01
    const Image bright = constant_image(8, 8, {1.0f, 1.0f, 1.0f, 1.0f});
    const Image brighter = constant_image(8, 8, {1.2f, 1.0f, 1.0f, 1.0f});
    const ImageDiff diff = tilescan::compare_images(bright, brighter, 0.0f);
    CHECK(diff.differing_pixels == 64);
    CHECK(std::isinf(diff.psnr));
}

TEST_CASE("images of different sizes cannot be compared", "[image_diff]") {
    CHECK_THROWS_AS(tilescan::compare_images(Image(2, 3), Image(3, 2), 0.0f), tilescan::InputError);
    CHECK_THROWS_WITH(tilescan::diff_heat_map(Image(2, 3), Image(2, 4)),
                      "cannot compare images of different sizes: 2x3 and 2x4");
}

TEST_CASE("the heat map dims equal pixels and colours differences by size", "[image_diff]") {
    const Image a = constant_image(4, 1, {0.9f, 0.9f, 0.9f, 1.0f});
    Image b = a;
    b.at(1, 0).r = std::nextafter(0.9f, 0.0f);  // one ulp
    b.at(2, 0).r = 0.8f;
    b.at(3, 0).r = 0.0f;
    const Image map = tilescan::diff_heat_map(a, b);
    REQUIRE(map.width == 4);
    REQUIRE(map.height == 1);
    CHECK(max_channel(map.at(0, 0)) < 0.4f);  // equal: a dim grey
    CHECK(map.at(0, 0).r == map.at(0, 0).b);
    CHECK(max_channel(map.at(1, 0)) == 1.0f);  // one ulp: fully saturated, clearly visible
    CHECK(map.at(1, 0).b > map.at(1, 0).r);    // ... and at the blue end
    CHECK(map.at(2, 0).r > map.at(1, 0).r);    // larger differences are redder
    CHECK(map.at(3, 0).r == 1.0f);
    CHECK(map.at(3, 0).g < map.at(2, 0).g);
    for (const auto& p : map.pixels) CHECK(p.a == 1.0f);
}
