// Exact early termination (renderer/shared/early_termination.h, docs/renderer.md): the rule on
// chains of blends (the bracket holds every value a chain can take, met ends are the serial
// result, a bracket narrowed on purpose is caught), and the cpu backend that uses it equal to
// `ref` bit for bit, RGB frames and RGBA frames, on the built-in scenes and on scenes made to
// break the rule.
#include <catch2/catch.hpp>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "render_cases.h"
#include "renderer/cpu_backend.h"
#include "renderer/image_diff.h"
#include "renderer/shared/early_termination.h"

using namespace tilescan;
using namespace tilescan::testing;

namespace {

// One channel's chain: the circles' paint p = fl(alpha * c) and alpha, in draw order.
struct ChainCircle {
    float colour, alpha;
};

float blend_one(float value, const ChainCircle& circle) {
    const PremultipliedColour paint = premultiply(circle.colour, circle.colour, circle.colour, circle.alpha);
    return blend_channel(paint.r, 1.0f - paint.alpha, value);
}

float serial_result(float background, const std::vector<ChainCircle>& chain) {
    float value = background;
    for (const ChainCircle& circle : chain) value = blend_one(value, circle);
    return value;
}

// The rule's verdict on the tail chain[start, end): both ends blended forward; met when they are
// the same float, and then `value` is that float.
struct TailVerdict {
    bool met;
    float value;
};

TailVerdict tail_verdict(const std::vector<ChainCircle>& chain, std::size_t start, float lo, float hi) {
    for (std::size_t n = start; n < chain.size(); ++n) {
        const PremultipliedColour paint =
            premultiply(chain[n].colour, chain[n].colour, chain[n].colour, chain[n].alpha);
        blend_ends(paint.r, 1.0f - paint.alpha, lo, hi);
    }
    return {ends_meet(lo, hi), lo};
}

// The checker: over every tail of the chain whose ends meet from [lo, hi], how many give a value
// other than the serial result's bits.
int wrong_met_tails(float background, const std::vector<ChainCircle>& chain, float lo, float hi) {
    const float expected = serial_result(background, chain);
    int wrong = 0;
    for (std::size_t start = 1; start < chain.size(); ++start) {
        const TailVerdict verdict = tail_verdict(chain, start, lo, hi);
        wrong += verdict.met && !ends_meet(verdict.value, expected);
    }
    return wrong;
}

BlendRange range_of(float background, const std::vector<ChainCircle>& chain) {
    BlendRange range = empty_blend_range();
    include_colour(range, background, background, background);
    for (const ChainCircle& c : chain) include_flat_circle(range, c.colour, c.colour, c.colour, c.alpha);
    return range;
}

std::vector<ChainCircle> random_chain(std::mt19937& random, std::size_t length, float colour_lo, float colour_hi,
                                      float alpha_lo, float alpha_hi) {
    std::uniform_real_distribution<float> colour(colour_lo, colour_hi), alpha(alpha_lo, alpha_hi);
    std::vector<ChainCircle> chain(length);
    for (ChainCircle& c : chain) c = {colour(random), alpha(random)};
    return chain;
}

}  // namespace

TEST_CASE("tail_bracket: where the proof does not cover a frame, no bracket", "[early_termination]") {
    TailBracket bracket{};
    const auto flat = [](float r, float g, float b, float alpha) {
        BlendRange range = empty_blend_range();
        include_colour(range, 1.0f, 1.0f, 1.0f);  // the white background
        include_flat_circle(range, r, g, b, alpha);
        return range;
    };
    CHECK(tail_bracket(flat(0.2f, 0.5f, 0.9f, 0.5f), 1000, &bracket));
    const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
    CHECK_FALSE(tail_bracket(flat(nan, 0.5f, 0.9f, 0.5f), 1000, &bracket));
    CHECK_FALSE(tail_bracket(flat(0.2f, -inf, 0.9f, 0.5f), 1000, &bracket));
    CHECK_FALSE(tail_bracket(flat(0.2f, 0.5f, 0.9f, nan), 1000, &bracket));
    CHECK_FALSE(tail_bracket(flat(0.2f, 0.5f, 0.9f, 1.0001f), 1000, &bracket));
    CHECK_FALSE(tail_bracket(flat(0.2f, 0.5f, 0.9f, -0.0001f), 1000, &bracket));
    // Colours near the overflow bound: a blend's sum could round to infinity.
    CHECK_FALSE(tail_bracket(flat(0.2f, FLT_MAX, 0.9f, 0.5f), 1, &bracket));
    CHECK_FALSE(tail_bracket(flat(0.2f, -0.9999999f * FLT_MAX, 0.9f, 0.5f), 1, &bracket));
    CHECK_FALSE(tail_bracket(flat(0.2f, 3.3e38f, 0.9f, 0.5f), 1000000, &bracket));
    CHECK(tail_bracket(flat(0.2f, 3.3e38f, 0.9f, 0.5f), 1000, &bracket));
    CHECK(tail_bracket(flat(0.2f, 1.0e38f, 0.9f, 0.5f), 1000, &bracket));
    // Lists so long that m e exceeds 1/2.
    CHECK(tail_bracket(flat(0.2f, 0.5f, 0.9f, 0.5f), 2000000, &bracket));
    CHECK_FALSE(tail_bracket(flat(0.2f, 0.5f, 0.9f, 0.5f), 3000000, &bracket));
    // Snow: a flake's max alpha above a half, or NaN (a depth not finite), is not covered.
    BlendRange snow = empty_blend_range();
    include_snow_flake(snow, snow_max_alpha(0.3f));
    CHECK(tail_bracket(snow, 1000, &bracket));
    CHECK(bracket.lo[0] < 0.8f);
    CHECK(bracket.hi[0] > 1.0f);
    include_snow_flake(snow, snow_max_alpha(nan));
    CHECK_FALSE(tail_bracket(snow, 1000, &bracket));
}

TEST_CASE("tail_bracket: ends strictly outside the range, drift growing with the list", "[early_termination]") {
    BlendRange range = empty_blend_range();
    include_colour(range, 0.0f, -2.0f, 0.25f);
    include_colour(range, 1.0f, 3.0f, 0.25f);
    TailBracket shorter{}, longer{};
    REQUIRE(tail_bracket(range, 100, &shorter));
    REQUIRE(tail_bracket(range, 100000, &longer));
    for (int c = 0; c < 3; ++c) {
        CHECK(shorter.lo[c] < range.lo[c]);
        CHECK(shorter.hi[c] > range.hi[c]);
        CHECK(longer.lo[c] < shorter.lo[c]);
        CHECK(longer.hi[c] > shorter.hi[c]);
    }
    // A zero range end still gets an end strictly beyond it, so the sign of a zero cannot matter.
    CHECK(shorter.lo[0] < 0.0f);
}

TEST_CASE("every value a chain of blends takes lies inside the bracket", "[early_termination]") {
    // Chains built to drift: colours at the range's ends, tiny alphas (1 - alpha rounds up to 1
    // or to its neighbour), and values near the overflow bound's scale as well.
    std::mt19937 random(58);
    for (const float scale : {1.0f, 1e-30f, 1e30f, 1e37f}) {
        for (int trial = 0; trial < 200; ++trial) {
            std::vector<ChainCircle> chain = random_chain(random, 400, -scale, scale, 0.0f, 1.0f);
            for (std::size_t n = 0; n < chain.size(); ++n) {
                if (n % 3 == 0) chain[n].colour = n % 2 ? scale : -scale;
                if (n % 4 == 0) chain[n].alpha = std::ldexp(float(n % 7 + 1), -27 - int(n % 5));
            }
            const float background = scale;
            const BlendRange range = range_of(background, chain);
            TailBracket bracket{};
            REQUIRE(tail_bracket(range, chain.size(), &bracket));
            float value = background;
            for (const ChainCircle& circle : chain) {
                value = blend_one(value, circle);
                REQUIRE(value > bracket.lo[0]);
                REQUIRE(value < bracket.hi[0]);
            }
        }
    }
}

TEST_CASE("met ends are the serial result; a narrowed bracket is caught", "[early_termination]") {
    std::mt19937 random(7);
    int met_tails = 0;
    for (int trial = 0; trial < 300; ++trial) {
        const float alpha_lo = trial % 3 == 0 ? 0.02f : 0.2f;
        const std::vector<ChainCircle> chain = random_chain(random, 120, -0.5f, 1.5f, alpha_lo, 0.8f);
        const float background = 1.0f;
        TailBracket bracket{};
        REQUIRE(tail_bracket(range_of(background, chain), chain.size(), &bracket));
        CHECK(wrong_met_tails(background, chain, bracket.lo[0], bracket.hi[0]) == 0);
        met_tails += tail_verdict(chain, chain.size() - 60, bracket.lo[0], bracket.hi[0]).met;
    }
    CHECK(met_tails > 100);  // the rule does close brackets

    // The rule broken on purpose: a "bracket" that misses the values the chain holds (both ends at
    // the top of the colours, while the background pulls the values lower) meets early at the
    // wrong float, and the checker reports it.
    int caught = 0;
    for (int trial = 0; trial < 50; ++trial) {
        const std::vector<ChainCircle> chain = random_chain(random, 80, 0.0f, 1.0f, 0.3f, 0.6f);
        caught += wrong_met_tails(-4.0f, chain, 1.0f, 1.0f) > 0;
    }
    CHECK(caught > 0);
}

TEST_CASE("alpha 0 never closes a bracket, alpha 1 closes it at once", "[early_termination]") {
    const std::vector<ChainCircle> clear(50, ChainCircle{0.3f, 0.0f});
    TailBracket bracket{};
    REQUIRE(tail_bracket(range_of(1.0f, clear), clear.size(), &bracket));
    CHECK_FALSE(tail_verdict(clear, 0, bracket.lo[0], bracket.hi[0]).met);
    std::vector<ChainCircle> opaque = clear;
    opaque.back() = {0.7f, 1.0f};
    const TailVerdict last = tail_verdict(opaque, opaque.size() - 1, bracket.lo[0], bracket.hi[0]);
    CHECK(last.met);
    CHECK(last.value == serial_result(1.0f, opaque));
}

namespace {

// Random circles over a width x height frame: radii from `radius_lo` to `radius_hi` pixels.
Scene random_scene(std::uint32_t seed, std::size_t circles, int width, float radius_lo, float radius_hi,
                   float colour_lo, float colour_hi, float alpha_lo, float alpha_hi) {
    std::mt19937 random(seed);
    std::uniform_real_distribution<float> unit(0.0f, 1.0f), colour(colour_lo, colour_hi), alpha(alpha_lo, alpha_hi),
        radius(radius_lo / width, radius_hi / width);
    Scene scene;
    for (std::size_t k = 0; k < circles; ++k)
        scene.push_back({unit(random), unit(random), unit(random), radius(random), colour(random), colour(random),
                         colour(random), alpha(random)});
    return scene;
}

// The scenes made to break the rule, each at an odd size.
std::vector<AdversarialScene> rule_breaking_scenes() {
    std::vector<AdversarialScene> scenes;
    const auto add = [&](const std::string& name, Scene scene, int w, int h) {
        scenes.push_back({name, std::move(scene), w, h});
    };
    add("typical", random_scene(1, 3000, 97, 8, 40, 0.0f, 1.0f, 0.5f, 0.5f), 97, 83);
    add("alpha_0", random_scene(2, 2000, 97, 8, 40, 0.0f, 1.0f, 0.0f, 0.0f), 97, 83);
    add("alpha_1", random_scene(3, 2000, 97, 8, 40, 0.0f, 1.0f, 1.0f, 1.0f), 97, 83);
    add(
        "alpha_0_or_1",
        [] {
            Scene s = random_scene(4, 3000, 97, 8, 40, 0.0f, 1.0f, 0.0f, 1.0f);
            for (std::size_t k = 0; k < s.size(); ++k) s.a[k] = float(k % 2);
            return s;
        }(),
        97, 83);
    add("tiny_alphas", random_scene(5, 4000, 97, 20, 60, 0.0f, 1.0f, 0.001f, 0.03f), 97, 83);
    add("colours_outside_0_1", random_scene(6, 3000, 97, 8, 40, -3.0f, 5.0f, 0.1f, 0.9f), 97, 83);
    add("colours_large", random_scene(7, 3000, 97, 8, 40, -1e37f, 1e37f, 0.2f, 0.8f), 97, 83);
    add("colours_below_overflow", random_scene(8, 3000, 97, 8, 40, -3.2e38f, 3.2e38f, 0.2f, 0.8f), 97, 83);
    add(
        "colours_at_overflow",
        [] {  // the rule does not cover it: the full walk
            Scene s = random_scene(8, 3000, 97, 8, 40, -3.2e38f, 3.2e38f, 0.2f, 0.8f);
            s.g[100] = FLT_MAX;
            return s;
        }(),
        97, 83);
    add("colours_tiny", random_scene(9, 3000, 97, 8, 40, 0.0f, 1e-30f, 0.3f, 0.7f), 97, 83);
    add(
        "solid_background_dark",
        [] {
            Scene s = random_scene(10, 3000, 97, 8, 40, 0.0f, 0.01f, 0.5f, 0.5f);
            s.background = {kBackgroundSolid, 0.0f, 0.001f, 0.0f};
            return s;
        }(),
        97, 83);
    // Every pixel covered once or not at all: the tails are the whole list.
    add(
        "covered_once",
        [] {
            Scene s;
            for (int k = 0; k < 40; ++k)
                s.push_back({(k % 8 + 0.5f) / 8, (k / 8 + 0.5f) / 5, 0, 0.04f, 0.1f * (k % 10), 0.5f, 0.2f, 0.7f});
            return s;
        }(),
        101, 67);
    // Lists of 1000 circles covering every pixel: one whose tails all close at an opaque circle a
    // fifth of the list back (the faint circles after it shrink the brackets fast enough to pass
    // the checkpoint, too slowly to close before it), and one whose faint tails fall behind at the
    // checkpoint and take the full walk.
    for (const auto& [name, faint_alpha] : {std::pair{"closes_at_opaque", 0.11f}, {"falls_behind", 0.01f}}) {
        Scene s = random_scene(11, 1000, 64, 100, 100, 0.0f, 1.0f, 0.5f, 0.5f);
        s.a[800] = 1.0f;
        for (std::size_t k = 801; k < s.size(); ++k) s.a[k] = faint_alpha;
        add(name, s, 64, 48);
    }
    // 200 circles over the whole frame, then 200 over all of it but pixel (0, 0) (centred on the
    // far corner): every pixel of tile (0, 0) closes well within a quarter of its list but that
    // one, which keeps the tile on its tail and walks back alone, into circles that close it, or
    // into faint ones that never do (then the full walk).
    for (const auto& [name, first_alpha] :
         {std::pair{"late_pixel_closes", 0.5f}, {"late_pixel_never_closes", 0.001f}}) {
        Scene s = random_scene(13, 400, 40, 100, 100, 0.0f, 1.0f, 0.5f, 0.5f);
        for (std::size_t k = 0; k < s.size(); ++k) {
            s.x[k] = k < 200 ? 0.5f : 1.0f;
            s.y[k] = k < 200 ? 0.5f : 1.0f;
            s.radius[k] = k < 200 ? 1.0f : 1.38f;
            if (k < 200) s.a[k] = first_alpha;
        }
        add(name, s, 19, 40);
    }
    Scene snow = random_scene(12, 3000, 97, 4, 30, 1.0f, 1.0f, 1.0f, 1.0f);
    snow.shading = kShadingSnow;
    snow.background = {kBackgroundSnowGradient, 1.f, 1.f, 1.f};
    add("snow", snow, 97, 83);
    return scenes;
}

// The cpu backend's frame equal to ref's in RGB and, for RGBA frames, in alpha; RGB frames leave
// alpha NaN.
bool renders_channels_like_ref(CpuBackend& backend, FrameChannels channels, const Scene& scene, int width, int height,
                               const std::string& name) {
    Image expected(width, height), actual(width, height);
    render_reference(scene, expected);
    backend.render(scene, actual);
    if (channels == FrameChannels::rgba) return images_match(expected, actual, 0.0f, "cpu_rgba_" + name);
    bool alpha_skipped = true;
    for (const Rgba& p : actual.pixels) alpha_skipped = alpha_skipped && std::isnan(p.a);
    for (std::size_t k = 0; k < actual.pixels.size(); ++k) actual.pixels[k].a = expected.pixels[k].a;
    const bool rgb_equal = images_match(expected, actual, 0.0f, "cpu_rgb_" + name);
    UNSCOPED_INFO(name << ": alpha left NaN " << alpha_skipped);
    return rgb_equal && alpha_skipped;
}

}  // namespace

TEST_CASE("cpu with early termination renders every built-in scene like ref, RGB and RGBA", "[early_termination]") {
    for (const FrameChannels channels : {FrameChannels::rgb, FrameChannels::rgba}) {
        CpuBackend backend(3, 0, channels);
        for (const std::string& name : builtin_scene_names()) {
            const Scene scene = builtin_frame(name);
            for (const auto& [w, h] : {std::pair{1, 1}, {333, 197}, {256, 256}, {129, 250}})
                CHECK(renders_channels_like_ref(backend, channels, scene, w, h,
                                                name + "_" + std::to_string(w) + "x" + std::to_string(h)));
        }
    }
}

TEST_CASE("cpu with early termination renders the large scenes like ref at 1024x1024", "[early_termination][slow]") {
    CpuBackend backend(0, 0, FrameChannels::rgb);
    for (const std::string name : {"rand100k", "biglittle", "rand1M", "snowsingle", "rand10k"})
        CHECK(renders_channels_like_ref(backend, FrameChannels::rgb, builtin_frame(name), 1024, 1024, name + "_1024"));
}

TEST_CASE("cpu with early termination renders scenes made to break the rule like ref", "[early_termination]") {
    for (const FrameChannels channels : {FrameChannels::rgb, FrameChannels::rgba}) {
        CpuBackend backend(2, 0, channels);
        for (const AdversarialScene& a : rule_breaking_scenes())
            CHECK(renders_channels_like_ref(backend, channels, a.scene, a.width, a.height, a.name));
        for (const AdversarialScene& a : adversarial_scenes())
            CHECK(renders_channels_like_ref(backend, channels, a.scene, a.width, a.height, a.name));
    }
}

TEST_CASE("cpu with early termination in bands of tile rows renders like ref", "[early_termination]") {
    // A budget of a few tile rows' pairs: every frame is binned and shaded in many bands.
    for (const FrameChannels channels : {FrameChannels::rgb, FrameChannels::rgba}) {
        for (const AdversarialScene& a : rule_breaking_scenes()) {
            Image probe(a.width, a.height);
            const std::uint64_t pairs = CpuBackend(2).render(a.scene, probe).pairs;
            CpuBackend backend(2, pairs * kCpuBytesPerPair / 2, channels);
            CHECK(backend.render(a.scene, probe).bands > 1);
            CHECK(renders_channels_like_ref(backend, channels, a.scene, a.width, a.height, a.name + "_banded"));
        }
    }
}
