// Exact alpha by counting (renderer/shared/counted_alpha.h): the unit of an alpha, the rule's
// verdicts and its counts against serial sums, a sum the rule refuses because counting it would
// round differently, frames of one alpha (counted by circles), the covered run of a row (tile_geometry.h:
// covered_columns, and farther_covered_columns from the nearest row outwards) against every column's own test, the
// walk of a band's rows and of a tile's (for_each_covered_row), and the cpu backend's RGBA frames that count alpha
// against `ref`.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "render_cases.h"
#include "renderer/cpu_backend.h"
#include "renderer/shared/counted_alpha.h"
#include "renderer/shared/tile_geometry.h"

using namespace tilescan;
using namespace tilescan::testing;

namespace {

bool same_bits(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// The serial sum, as blend_premultiplied adds alpha: the background, then each alpha in order.
float serial_alpha(float background, const std::vector<float>& alphas) {
    float sum = background;
    for (const float a : alphas) sum += a;
    return sum;
}

CircleAlphas alphas_of(const std::vector<float>& alphas) {
    CircleAlphas frame;
    for (const float a : alphas) include_alpha(frame, a);
    return frame;
}

// The count of `alphas` in the frame's unit, as a backend counts them (in any order).
float counted_sum(float background, const CircleAlphas& frame, const std::vector<float>& alphas) {
    const AlphaUnit unit = alpha_unit(frame, background);
    std::int32_t units = 0;
    for (std::size_t k = alphas.size(); k-- > 0;) units += alpha_in_units(alphas[k], unit);
    return counted_alpha(background, units, unit);
}

// The columns of the row whose centres the circle covers inside its box, each by its own test.
std::vector<int> covered_by_test(const CircleFootprint& c, float py, float inverse_width) {
    std::vector<int> columns;
    for (int column = c.box.x0; column < c.box.x1; ++column)
        if (covers_squared(squared_distance(c.x, c.y, pixel_center(column, inverse_width), py), c.squared_radius))
            columns.push_back(column);
    return columns;
}

}  // namespace

TEST_CASE("alpha_unit_exponent: the weight of an alpha's lowest set bit", "[counted_alpha]") {
    CHECK(alpha_unit_exponent(1.0f) == 0);
    CHECK(alpha_unit_exponent(0.5f) == -1);
    CHECK(alpha_unit_exponent(0.75f) == -2);
    CHECK(alpha_unit_exponent(3.0f * 0x1p-20f) == -20);
    CHECK(alpha_unit_exponent(std::nextafter(1.0f, 0.0f)) == -24);
    CHECK(alpha_unit_exponent(0.1f) == -27);  // 0x3dcccccd: an odd significand, exponent -4 - 23
    CHECK(alpha_unit_exponent(std::numeric_limits<float>::denorm_min()) == -149);
    CHECK(alpha_unit_exponent(0.0f) == kNoAlphaUnit);
    CHECK(alpha_unit_exponent(-0.0f) == kNoAlphaUnit);
}

TEST_CASE("alpha_sums_are_counts: where it holds, counts equal serial sums bit for bit", "[counted_alpha]") {
    std::mt19937 random(41);
    int counted_frames = 0;
    for (int trial = 0; trial < 2000; ++trial) {
        // Alphas that are multiples of 2^-k, k from 0 to 26, so that the bound holds for short
        // lists and not for long ones of fine units.
        const int k = int(random() % 27);
        const std::size_t length = random() % 3000;
        std::vector<float> alphas(length);
        for (float& a : alphas)
            a = random() % 5 == 0 ? 0.0f : std::ldexp(float(random() % ((1u << k) + 1)), -k);  // in [0, 1]
        const float background = trial % 3 == 0 ? 0.0f : trial % 3 == 1 ? 1.0f : -0.75f;
        const CircleAlphas frame = alphas_of(alphas);
        if (!alpha_sums_are_counts(frame, background)) continue;
        ++counted_frames;
        INFO("trial " << trial << ", unit 2^-" << k << ", " << length << " alphas");
        CHECK(same_bits(counted_sum(background, frame, alphas), serial_alpha(background, alphas)));
        // Any pixel's covering circles are some of the frame's: a subset, in order.
        std::vector<float> subset;
        for (const float a : alphas)
            if (random() % 2) subset.push_back(a);
        CHECK(same_bits(counted_sum(background, frame, subset), serial_alpha(background, subset)));
    }
    CHECK(counted_frames > 1000);
}

TEST_CASE("alpha_sums_are_counts: refused where a sum can round, or the background breaks it", "[counted_alpha]") {
    // 1 + 2^-24 is a tie that rounds to 1, so the serial sum of three such alphas stays 1, while
    // their count, 3 units, lands on 1 + 2^-22: the bound 1 + 3 * 2^-24 > 2^0 refuses them.
    const std::vector<float> fine(3, 0x1p-24f);
    const CircleAlphas frame = alphas_of(fine);
    CHECK_FALSE(alpha_sums_are_counts(frame, 1.0f));
    CHECK(serial_alpha(1.0f, fine) == 1.0f);
    CHECK(counted_sum(1.0f, frame, fine) != serial_alpha(1.0f, fine));  // why the rule refuses
    // With a background of 0 the same alphas add exactly, and are counted.
    CHECK(alpha_sums_are_counts(frame, 0.0f));
    CHECK(same_bits(counted_sum(0.0f, frame, fine), serial_alpha(0.0f, fine)));

    const CircleAlphas halves = alphas_of(std::vector<float>(1000, 0.5f));
    CHECK(alpha_sums_are_counts(halves, 1.0f));
    CHECK_FALSE(alpha_sums_are_counts(halves, -0.0f));  // -0 + 0 is +0: a pixel covered by nothing differs
    CHECK_FALSE(alpha_sums_are_counts(halves, NAN));
    CHECK_FALSE(alpha_sums_are_counts(halves, INFINITY));
    CHECK_FALSE(alpha_sums_are_counts(halves, 0.25f + 0x1p-24f));  // a unit of 2^-24: within 2^0 only
    // 2^25 circles of alpha 1/2 reach 2^24 + 1 over a background of 1: past 2^(24 - 1).
    CircleAlphas many = halves;
    many.circles = std::uint64_t(1) << 25;
    CHECK_FALSE(alpha_sums_are_counts(many, 1.0f));
    many.circles = (std::uint64_t(1) << 24) - 4;
    CHECK(alpha_sums_are_counts(many, 1.0f));
    // Alphas all 0: counted in units of the background's.
    const CircleAlphas zeros = alphas_of(std::vector<float>(10, 0.0f));
    CHECK(alpha_sums_are_counts(zeros, 0.3f));
    CHECK(same_bits(counted_sum(0.3f, zeros, std::vector<float>(10, 0.0f)), 0.3f));
}

TEST_CASE("alphas_all_equal: one alpha's bits in every circle", "[counted_alpha]") {
    CHECK(alphas_all_equal(alphas_of(std::vector<float>(5, 0.3f))));
    CHECK_FALSE(alphas_all_equal(alphas_of({})));
    CHECK_FALSE(alphas_all_equal(alphas_of({0.3f, 0.3f, std::nextafter(0.3f, 1.0f)})));
    CHECK_FALSE(alphas_all_equal(alphas_of({0.0f, -0.0f})));  // equal as floats, not as addends of -0
    // Merged as the backends merge threads' findings, empty parts included.
    CircleAlphas merged = alphas_of({});
    merge_circle_alphas(merged, alphas_of({0.3f, 0.3f}));
    merge_circle_alphas(merged, alphas_of({}));
    CHECK(alphas_all_equal(merged));
    merge_circle_alphas(merged, alphas_of({0.3f}));
    CHECK(alphas_all_equal(merged));
    CHECK(merged.circles == 3);
    merge_circle_alphas(merged, alphas_of({0.5f}));
    CHECK_FALSE(alphas_all_equal(merged));
    // Either rule counts: one alpha of no short unit, or mixed alphas of one; neither, not.
    CHECK(alpha_is_counted(alphas_of(std::vector<float>(5, 0.3f)), 1.0f));
    CHECK(alpha_is_counted(alphas_of({0.25f, 0.5f, 0.75f}), 1.0f));
    CHECK_FALSE(alpha_is_counted(alphas_of({0.3f, 0.5f}), 1.0f));
}

TEST_CASE("covered_columns and farther_covered_columns: the run each column's own test finds", "[counted_alpha]") {
    std::mt19937 random(43);
    std::uniform_real_distribution<float> unit(-0.2f, 1.2f), exponent(-12.0f, 2.0f);
    int rows_checked = 0, runs_found = 0;
    for (int trial = 0; trial < 4000; ++trial) {
        const int width = 1 + int(random() % 300), height = 1 + int(random() % 300);
        const float inverse_width = 1.0f / float(width), inverse_height = 1.0f / float(height);
        float x = unit(random), y = unit(random), radius = std::exp2(exponent(random));
        if (trial % 50 == 0) {  // extreme coordinates: few significant bits left at the image
            x = (trial % 100 == 0 ? -1.0f : 1.0f) * 3e6f;
            radius = 3e6f + 0.5f;
        }
        const CircleFootprint c = circle_footprint(x, y, radius, width, height);
        if (box_is_empty(c.box)) continue;
        const NearestCentre nearest = nearest_centre(c, width, height, inverse_width, inverse_height);
        // Each row's run found directly, and from the nearest row outwards, each within the last.
        PixelRun farther[2] = {};
        for (int side = 0; side < 2; ++side) {
            const int step = side == 0 ? 1 : -1;
            for (int row = nearest.row; row >= c.box.y0 && row < c.box.y1; row += step) {
                const float py = pixel_center(row, inverse_height);
                const std::vector<int> expected = covered_by_test(c, py, inverse_width);
                const PixelRun run = covered_columns(c, nearest.column, py, width, inverse_width);
                farther[side] = row == nearest.row ? run : farther_covered_columns(c, farther[side], py, inverse_width);
                ++rows_checked;
                INFO("trial " << trial << ": x " << x << " y " << y << " r " << radius << ", " << width << "x" << height
                              << ", row " << row);
                REQUIRE(run.last - run.first == int(expected.size()));
                REQUIRE(farther[side].last - farther[side].first == int(expected.size()));
                if (expected.empty()) continue;
                ++runs_found;
                CHECK(run.first == expected.front());
                CHECK(run.last == expected.back() + 1);
                CHECK(farther[side].first == expected.front());
                CHECK(farther[side].last == expected.back() + 1);
            }
        }
    }
    CHECK(runs_found > 10000);
    CHECK(rows_checked > runs_found);
}

// The backends' walk of a circle's rows: over a band of the image's rows (the cpu backend's alpha
// stage) and within a tile, its box clipped to the tile (the cuda backend's tile blocks), every
// row's run that the walk visits, and no other, is the one each column's own test finds.
TEST_CASE("for_each_covered_row: the runs of a band's rows and of a tile's", "[counted_alpha]") {
    std::mt19937 random(44);
    std::uniform_real_distribution<float> unit(-0.2f, 1.2f), exponent(-9.0f, 1.0f);
    int rows_checked = 0, runs_found = 0, clipped_runs = 0;
    for (int trial = 0; trial < 3000; ++trial) {
        const int width = 1 + int(random() % 200), height = 1 + int(random() % 200);
        const float inverse_width = 1.0f / float(width), inverse_height = 1.0f / float(height);
        const CircleFootprint whole =
            circle_footprint(unit(random), unit(random), std::exp2(exponent(random)), width, height);
        if (box_is_empty(whole.box)) continue;
        // A band of rows, and a tile's part of the box (both possibly empty).
        const int band_first = int(random() % unsigned(height)), band_end = band_first + 1 + int(random() % 40);
        const int tile_x0 = int(random() % unsigned(width)) & ~(kTileSize - 1);
        const int tile_y0 = int(random() % unsigned(height)) & ~(kTileSize - 1);
        CircleFootprint tile = whole;
        tile.box = {std::max(whole.box.x0, tile_x0), std::min(whole.box.x1, tile_x0 + kTileSize),
                    std::max(whole.box.y0, tile_y0), std::min(whole.box.y1, tile_y0 + kTileSize)};
        const auto check = [&](const CircleFootprint& c, int first_row, int end_row, bool clipped) {
            first_row = std::max(first_row, c.box.y0);
            end_row = std::min(end_row, c.box.y1);
            if (box_is_empty(c.box)) return;
            std::vector<PixelRun> runs(std::size_t(std::max(0, end_row - first_row)), PixelRun{0, 0});
            for_each_covered_row(c, nearest_centre(c, width, height, inverse_width, inverse_height), first_row, end_row,
                                 width, inverse_width, inverse_height, [&](int row, const PixelRun& run) {
                                     REQUIRE(row >= first_row);
                                     REQUIRE(row < end_row);
                                     CHECK(runs[std::size_t(row - first_row)].last == 0);  // once a row
                                     REQUIRE(run.first < run.last);
                                     runs[std::size_t(row - first_row)] = run;
                                 });
            for (int row = first_row; row < end_row; ++row) {
                const std::vector<int> expected = covered_by_test(c, pixel_center(row, inverse_height), inverse_width);
                const PixelRun run = runs[std::size_t(row - first_row)];
                INFO("trial " << trial << ", " << width << "x" << height << ", row " << row);
                ++rows_checked;
                REQUIRE(run.last - run.first == int(expected.size()));
                if (expected.empty()) continue;
                ++runs_found;
                clipped_runs += clipped ? 1 : 0;
                CHECK(run.first == expected.front());
                CHECK(run.last == expected.back() + 1);
            }
        };
        check(whole, band_first, band_end, false);
        check(tile, tile.box.y0, tile.box.y1, true);
    }
    CHECK(runs_found > 10000);
    CHECK(clipped_runs > 3000);
    CHECK(rows_checked > runs_found);
}

TEST_CASE("cpu's RGBA frames count alpha where a rule holds, and equal ref", "[counted_alpha]") {
    std::vector<AdversarialScene> scenes;
    // Dense lists, so that tiles take the tail walk: alphas of mixed units (counted in eighths), one
    // alpha finer than the bound allows among halves (not counted: the tail tiles sum in order),
    // one alpha of no short unit in every circle (0.3: its sums round, counted by circles), and
    // alphas of no short unit that differ (not counted).
    Scene mixed = random_scene(51, 2500, 97, 30, 60, 0.0f, 1.0f, 0.5f, 0.5f);
    for (std::size_t k = 0; k < mixed.size(); ++k) mixed.a[k] = float(k % 9) / 8.0f;
    scenes.push_back({"alphas_in_eighths", mixed, 97, 83});
    Scene fine = random_scene(52, 2500, 97, 30, 60, 0.0f, 1.0f, 0.5f, 0.5f);
    fine.a[7] = fine.a[1500] = 0x1p-23f;
    scenes.push_back({"alpha_past_the_bound", fine, 97, 83});
    scenes.push_back({"equal_alphas_of_no_unit", random_scene(53, 2500, 97, 30, 60, 0.0f, 1.0f, 0.3f, 0.3f), 97, 83});
    scenes.push_back({"alphas_of_no_unit", random_scene(54, 2500, 97, 30, 60, 0.0f, 1.0f, 0.25f, 0.75f), 97, 83});
    // Small circles, many on the image's edges, whose boxes the alpha stage takes in lanes (at most
    // 16 columns) or by the walk of their rows (wider), in halves.
    scenes.push_back(
        {"small_circles_in_halves", random_scene(55, 40000, 97, 0.3f, 10, 0.0f, 1.0f, 0.5f, 0.5f), 97, 83});
    for (const AdversarialScene& a : scenes)
        for (const int threads : {1, 3}) {
            CpuBackend backend(threads, 0, FrameChannels::rgba);
            CHECK(renders_channels_like_ref(backend, FrameChannels::rgba, false, a.scene, a.width, a.height, a.name));
            // The coverings counted by the alpha stage or by the shading's sums: ref's.
            Image image(a.width, a.height), expected(a.width, a.height);
            const RenderStats stats = backend.render(a.scene, image);
            CHECK(stats.counted_blends);
            CHECK(stats.blends == render_reference(a.scene, expected));
            const bool counted = std::any_of(stats.stages.begin(), stats.stages.end(),
                                             [](const StageTime& stage) { return stage.name == "alpha"; });
            CHECK(counted == (a.name == "alphas_in_eighths" || a.name == "equal_alphas_of_no_unit" ||
                              a.name == "small_circles_in_halves"));
        }
}
