// Tests of renderer/scene_io: text and binary round trips (bit for bit, with awkward floats), every
// class of malformed input (message names file, line and problem), and the conformance scenes
// re-formatted byte for byte.
#include <catch2/catch.hpp>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>
#include <string>

#include "renderer/backends.h"
#include "renderer/errors.h"
#include "renderer/scene_io.h"
#include "test_support.h"

namespace fs = std::filesystem;
using tilescan::Circle;
using tilescan::InputError;
using tilescan::Scene;

using tilescan::testing::file_text;
using tilescan::testing::write_text;

namespace {

float from_bits(std::uint32_t bits) {
    float value;
    std::memcpy(&value, &bits, sizeof value);
    return value;
}

// Any finite float, drawn by bit pattern so that denormals, tiny and huge magnitudes all occur.
float random_finite(std::mt19937& rng) {
    for (;;) {
        const float value = from_bits(static_cast<std::uint32_t>(rng()));
        if (std::isfinite(value)) return value;
    }
}

// Positions and radii beyond the rules' bound scaled by 2^-70 (exactly, keeping every mantissa bit):
// FLT_MAX becomes 2.9e17, inside kMaxCircleExtent.
float within_extent(float value) {
    return std::fabs(value) <= tilescan::kMaxCircleExtent ? value : std::ldexp(value, -70);
}

// A valid scene whose numbers are as awkward as the rules allow.
Scene awkward_scene(std::size_t n) {
    const float specials[] = {
        0.0f,
        -0.0f,
        from_bits(1) /* smallest denormal */,
        from_bits(0x007fffff) /* largest denormal */,
        FLT_MIN,
        1e-30f,
        -1e-30f,
        FLT_MAX,
        -FLT_MAX,
        0.1f,
        1.0f / 3.0f,
        16777217.0f,
        1e30f,
    };
    std::mt19937 rng(7);
    Scene scene;
    for (std::size_t i = 0; i < n; ++i) {
        const bool special = i < std::size(specials);
        const float s = special ? specials[i] : 0.0f;
        const float alpha = special ? std::fabs(s) : std::uniform_real_distribution<float>(0, 1)(rng);
        Circle c{};
        c.x = within_extent(special ? s : random_finite(rng));
        c.y = within_extent(special ? -s : random_finite(rng));
        c.z = random_finite(rng);
        c.radius = within_extent(std::fabs(special ? s : random_finite(rng)));
        c.r = random_finite(rng);
        c.g = random_finite(rng);
        c.b = special ? s : random_finite(rng);
        c.a = alpha <= 1.0f ? alpha : 1.0f;
        scene.push_back(c);
    }
    return scene;
}

// The message of the InputError that parsing `text` throws, or "" when it parses.
std::string parse_error(const std::string& text) {
    try {
        tilescan::parse_scene_text(text, "bad.scene");
    } catch (const InputError& error) {
        return error.what();
    }
    return "";
}

std::string read_error(const std::string& path) {
    try {
        tilescan::read_scene_file(path);
    } catch (const InputError& error) {
        return error.what();
    }
    return "";
}

const std::string kHeader = "circlescene 1\ncount 1\n";

}  // namespace

TEST_CASE("text format round-trips every float bit for bit", "[scene_io]") {
    Scene scene = awkward_scene(2000);
    SECTION("default header") {}
    SECTION("snow, gradient, size") {
        scene.shading = tilescan::kShadingSnow;
        scene.background = {tilescan::kBackgroundSnowGradient, 1.0f, 1.0f, 1.0f};
        scene.default_width = 640;
        scene.default_height = 480;
    }
    SECTION("solid background") { scene.background = {tilescan::kBackgroundSolid, 0.1f, -0.0f, 2.5f}; }
    const std::string text = tilescan::format_scene_text(scene);
    CHECK(tilescan::parse_scene_text(text, "memory") == scene);

    const std::string path = tilescan::testing::scratch_dir("scene_text_round_trip") + "/awkward.scene";
    tilescan::write_scene_file(scene, path);
    CHECK(file_text(path) == text);
    CHECK(tilescan::read_scene_file(path) == scene);
}

TEST_CASE("binary format round-trips bit for bit and agrees with text", "[scene_io]") {
    const std::string dir = tilescan::testing::scratch_dir("scene_binary_round_trip");
    Scene scene = awkward_scene(5000);
    scene.shading = tilescan::kShadingSnow;
    scene.background = {tilescan::kBackgroundSolid, 0.25f, 1e-30f, 3.0f};
    scene.default_width = 1;
    scene.default_height = 65536;

    tilescan::write_scene_file(scene, dir + "/awkward.tsb");
    CHECK(file_text(dir + "/awkward.tsb").size() == 48 + 32 * scene.size());
    const Scene from_binary = tilescan::read_scene_file(dir + "/awkward.tsb");
    CHECK(from_binary == scene);

    tilescan::write_scene_file(from_binary, dir + "/awkward.scene");
    const Scene from_text = tilescan::read_scene_file(dir + "/awkward.scene");
    CHECK(from_text == scene);
    tilescan::write_scene_file(from_text, dir + "/again.TSB");  // the extension in any case
    CHECK(file_text(dir + "/again.TSB") == file_text(dir + "/awkward.tsb"));
}

TEST_CASE("scene files are recognised by content, not by name", "[scene_io]") {
    const std::string dir = tilescan::testing::scratch_dir("scene_detection");
    const Scene scene = awkward_scene(20);
    tilescan::write_scene_file(scene, dir + "/binary.tsb");
    fs::copy_file(dir + "/binary.tsb", dir + "/binary.scene");
    CHECK(tilescan::read_scene_file(dir + "/binary.scene") == scene);
    write_text(dir + "/text.tsb", tilescan::format_scene_text(scene));
    CHECK(tilescan::read_scene_file(dir + "/text.tsb") == scene);
}

TEST_CASE("empty scenes and a million circles round-trip", "[scene_io]") {
    const std::string dir = tilescan::testing::scratch_dir("scene_sizes");
    const Scene empty;
    CHECK(tilescan::format_scene_text(empty) == "circlescene 1\nshading flat\nbackground white\ncount 0\n");
    tilescan::write_scene_file(empty, dir + "/empty.tsb");
    CHECK(tilescan::read_scene_file(dir + "/empty.tsb") == empty);

    Scene big;
    big.resize(1000000);
    for (std::size_t i = 0; i < big.size(); ++i) big.set_circle(i, {i * 1e-6f, 0.5f, 1.0f, 0.01f, 1, 0, 0, 0.5f});
    tilescan::write_scene_file(big, dir + "/big.tsb");
    CHECK(tilescan::read_scene_file(dir + "/big.tsb") == big);
}

TEST_CASE("comments, blank lines, tabs and CRLF are accepted", "[scene_io]") {
    const std::string text =
        "# a scene\n"
        "\n"
        "circlescene 1   # version\n"
        "  # indented comment\n"
        "background 0.5 0.25 1\r\n"
        "size 32\t16\n"
        "shading snow\n"
        "count 2 # two circles\n"
        "\n"
        "0.4 0.5 0.75 0.3 1 0 0 0.5#no space before the comment\n"
        "\t0.5 0.5 0.5 0.3 0 1 0 1\r\n"
        "# trailing comment, no final newline";
    const Scene scene = tilescan::parse_scene_text(text, "ok.scene");
    REQUIRE(scene.size() == 2);
    CHECK(scene.shading == tilescan::kShadingSnow);
    CHECK(scene.background.kind == tilescan::kBackgroundSolid);
    CHECK(scene.background.g == 0.25f);
    CHECK(scene.default_width == 32);
    CHECK(scene.default_height == 16);
    CHECK(scene.x[0] == 0.4f);
    CHECK(scene.a[0] == 0.5f);
    CHECK(scene.g[1] == 1.0f);
    CHECK(scene.a[1] == 1.0f);
}

TEST_CASE("a UTF-8 byte order mark is skipped; CR-only line endings are named", "[scene_io]") {
    const std::string circle = "0.5 0.5 0.5 0.1 1 0 0 0.5";
    CHECK(tilescan::parse_scene_text("\xef\xbb\xbf"
                                     "circlescene 1\r\ncount 1\r\n" +
                                         circle + "\r\n",
                                     "bom")
              .size() == 1);
    CHECK(parse_error("circlescene 1\rcount 1\r" + circle + "\r") ==
          "bad.scene:1: carriage return inside the line: CR-only line endings are not supported (use LF or CRLF)");
}

TEST_CASE("text is read as a stream: a bad first line is refused before the rest is read", "[scene_io]") {
    // Endless sources (/dev/zero, a pipe of yes) are run under a memory limit by the hostile-input suite
    // (tests/hostile_inputs.py); here the line cap: a first line that starts well but goes on, a later one.
    const std::string dir = tilescan::testing::scratch_dir("scene_stream");
    CHECK_THAT(parse_error(std::string(10000, '\0')), Catch::StartsWith("bad.scene:1: not a scene file"));
    CHECK(parse_error("circlescene 1 " + std::string(5000, '1') + "\ncount 0\n") ==
          "bad.scene:1: line longer than 4096 bytes (comments aside): not a scene line");
    CHECK(parse_error("circlescene 1\ncount 1\n0.5 0.5" + std::string(5000, ' ') + "0 0.1 1 0 0 0.5\n") ==
          "bad.scene:3: line longer than 4096 bytes (comments aside): not a scene line");
    // Comments are skipped as they stream by, whatever their length.
    CHECK(parse_error("circlescene 1 #" + std::string(100000, 'c') + "\ncount 0\n") == "");
    // A count of a pipe's circles is bounded only by what arrives: four billion promised, two given.
    const std::string path = dir + "/promise.scene";
    write_text(path, "circlescene 1\ncount 4294967295\n0 0 0 1 1 1 1 1\n0 0 0 1 1 1 1 1\n");
    CHECK_THAT(read_error(path), Catch::Contains("cannot fit"));  // a regular file: its size bounds the count
}

TEST_CASE("malformed text scenes name the file, the line and the problem", "[scene_io]") {
    struct Case {
        const char* text;
        const char* message;
    };
    const Case cases[] = {
        {"", "bad.scene: empty scene file"},
        {"# only a comment\n\n", "bad.scene: empty scene file"},
        {"hello 1\n", "bad.scene:1: not a scene file: expected 'circlescene 1' first, found 'hello'"},
        {"\n# c\ncirclescene\n", "bad.scene:3: expected 'circlescene 1'"},
        {"circlescene 2\ncount 0\n", "bad.scene:1: unsupported version '2' (this reader knows version 1)"},
        {"circlescene 1\nshading glossy\ncount 0\n", "bad.scene:2: shading must be 'flat' or 'snow'"},
        {"circlescene 1\nshading\ncount 0\n", "bad.scene:2: shading must be 'flat' or 'snow'"},
        {"circlescene 1\nbackground black\ncount 0\n", "bad.scene:2: background must be 'white', 'snow-gradient'"},
        {"circlescene 1\nbackground 1 0\ncount 0\n", "bad.scene:2: background must be"},
        {"circlescene 1\nbackground 1 0 nan\ncount 0\n", "bad.scene:2: the background colour must be finite"},
        {"circlescene 1\nbackground 1 0 x\ncount 0\n", "bad.scene:2: 'x' is not a number"},
        {"circlescene 1\nsize 0 10\ncount 0\n", "bad.scene:2: size needs a width and a height"},
        {"circlescene 1\nsize 65537 10\ncount 0\n", "bad.scene:2: size needs a width and a height"},
        {"circlescene 1\nsize -5 5\ncount 0\n", "bad.scene:2: size needs a width and a height"},
        {"circlescene 1\nsize 5\ncount 0\n", "bad.scene:2: size needs a width and a height"},
        {"circlescene 1\nshading flat\nshading snow\ncount 0\n",
         "bad.scene:3: duplicate 'shading' line (first on line 2)"},
        {"circlescene 1\ncolour red\ncount 0\n",
         "bad.scene:2: unknown keyword 'colour' (expected shading, background, size or count)"},
        {"circlescene 1\nshading flat\n", "bad.scene: missing 'count' line"},
        {"circlescene 1\n0 0 0 0 0 0 0 0\n", "bad.scene:2: circle line before the 'count' line"},
        {"circlescene 1\ncount -1\n", "bad.scene:2: count needs one whole number"},
        {"circlescene 1\ncount 3 4\n", "bad.scene:2: count needs one whole number"},
        {"circlescene 1\ncount 1000\n0 0 0 0 0 0 0 0\n",
         "bad.scene:2: count 1000 cannot fit: a file of 41 bytes holds at most 3 circle lines"},
        {"circlescene 1\ncount 99999999999999999999999999\n",
         "bad.scene:2: count 99999999999999999999999999 cannot fit"},
        {"circlescene 1\n# c\n\ncount 1\n0.1 0.2 0.3 0.4 0.5 0.6 0.7\n",
         "bad.scene:5: expected 8 numbers (x y z radius r g b a), found 7"},
        {"circlescene 1\ncount 1\n0 0 0 0 0 0 0 0 0\n",
         "bad.scene:3: expected 8 numbers (x y z radius r g b a), found 9"},
        {"circlescene 1\ncount 1\n0 0 abc 0 0 0 0 0\n", "bad.scene:3: 'abc' is not a number"},
        {"circlescene 1\ncount 1\n0 0 0.5x 0 0 0 0 0\n", "bad.scene:3: '0.5x' is not a number"},
        {"circlescene 1\ncount 1\n0 0 1,5 0 0 0 0 0\n", "bad.scene:3: '1,5' is not a number"},
        {"circlescene 1\ncount 1\n0 nan 0 0 0 0 0 0\n", "bad.scene:3: NaN is not allowed (field y)"},
        {"circlescene 1\ncount 1\ninf 0 0 0 0 0 0 0\n", "bad.scene:3: infinity is not allowed (field x)"},
        {"circlescene 1\ncount 1\n0 0 1e39 0 0 0 0 0\n", "bad.scene:3: '1e39' is too large for a float (field z)"},
        {"circlescene 1\ncount 1\n0 0 0 -0.5 0 0 0 0\n", "bad.scene:3: radius is negative (-0.5)"},
        {"circlescene 1\ncount 1\n0 0 0 1 0 0 0 1.5\n", "bad.scene:3: alpha 1.5 is outside [0, 1]"},
        {"circlescene 1\ncount 1\n0 0 0 1 0 0 0 -0.25\n", "bad.scene:3: alpha -0.25 is outside [0, 1]"},
        // Found by fuzzing: the file's bytes were quoted raw, so a message could hold a terminal escape.
        {"circlescene 1\ncount 1\n0 0 \x1b[2J 0 0 0 0 0\n", "bad.scene:3: '\\x1b[2J' is not a number"},
        {"circlescene\x7f 1\n", "found 'circlescene\\x7f'"},
    };
    for (const Case& c : cases) {
        INFO("input: " << c.text);
        CHECK_THAT(parse_error(c.text), Catch::Contains(c.message));
    }
}

TEST_CASE("a count that disagrees with the circle lines is an error both ways", "[scene_io]") {
    const std::string circle = "0.5 0.5 0.5 0.1 1 0 0 0.5\n";
    CHECK(parse_error("circlescene 1\ncount 3\n" + circle + circle) ==
          "bad.scene:4: the file ends after 2 circle lines but count is 3 (line 2)");
    CHECK(parse_error("circlescene 1\ncount 2\n" + circle) ==
          "bad.scene:3: the file ends after 1 circle line but count is 2 (line 2)");
    CHECK(parse_error("circlescene 1\ncount 0\n") == "");
    CHECK(parse_error("circlescene 1\n# c\ncount 3\n" + circle + circle + "\n# c\n" + circle + circle + circle) ==
          "bad.scene:9: more circle lines than count 3");
    CHECK(parse_error("circlescene 1\ncount 0\n" + circle) == "bad.scene:3: more circle lines than count 0");
}

TEST_CASE("unreadable and malformed binary scene files", "[scene_io]") {
    const std::string dir = tilescan::testing::scratch_dir("scene_binary_errors");
    CHECK_THAT(read_error(dir + "/missing.tsb"),
               Catch::Contains("cannot read '" + dir + "/missing.tsb': No such file or directory"));
    CHECK_THAT(read_error(dir), Catch::Contains("cannot read '" + dir + "': Is a directory"));

    const std::string good = dir + "/good.tsb";
    tilescan::write_scene_file(awkward_scene(10), good);
    const std::string bytes = file_text(good);
    const auto with = [&](const std::string& name, std::string content) {
        write_text(dir + "/" + name, content);
        return read_error(dir + "/" + name);
    };
    const auto patched = [&](std::size_t offset, const void* value, std::size_t size) {
        std::string copy = bytes;
        copy.replace(offset, size, static_cast<const char*>(value), size);
        return copy;
    };
    const std::uint32_t two = 2, seven = 7;
    const std::int32_t minus_one = -1;
    const std::uint64_t huge = std::uint64_t(1) << 60;
    const float nan = std::numeric_limits<float>::quiet_NaN(), negative = -1.0f;

    CHECK_THAT(with("short.tsb", bytes.substr(0, bytes.size() - 4)),
               Catch::Contains("short.tsb: truncated binary scene: the header says 10 circles"));
    CHECK_THAT(with("header_only.tsb", bytes.substr(0, 20)), Catch::Contains("header_only.tsb: truncated"));
    CHECK_THAT(with("long.tsb", bytes + "xyz"),
               Catch::Contains("long.tsb: 3 stray bytes after the last of 10 circles"));
    CHECK_THAT(with("huge_count.tsb", patched(40, &huge, 8)),
               Catch::Contains("huge_count.tsb: truncated binary scene: the header says 1152921504606846976 circles"));
    CHECK_THAT(with("version.tsb", patched(8, &two, 4)),
               Catch::Contains("version.tsb: unsupported binary scene version 2"));
    CHECK_THAT(with("shading.tsb", patched(12, &seven, 4)), Catch::Contains("shading.tsb: unknown shading code 7"));
    CHECK_THAT(with("background.tsb", patched(16, &seven, 4)),
               Catch::Contains("background.tsb: unknown background code 7"));
    CHECK_THAT(with("size.tsb", patched(32, &minus_one, 4)), Catch::Contains("size.tsb: default size -1x0"));
    // Circle 3's radius (field 3 of 8) and circle 0's y.
    CHECK_THAT(with("radius.tsb", patched(48 + 3 * 40 + 3 * 4, &negative, 4)),
               Catch::Contains("radius.tsb: circle 3: radius is negative (-1)"));
    CHECK_THAT(with("nan.tsb", patched(48 + 40, &nan, 4)),
               Catch::Contains("nan.tsb: circle 0: NaN is not allowed (field y)"));
}

// Found by fuzzing (fuzz_scene_text, seed "extremes"): finite but huge positions and radii overflowed
// the coverage test's squares to infinity, so a snow flake's t = d / r was infinite and its ramp
// index (int)(4 t) undefined behaviour (UBSan: "inf is outside the range of representable values of
// type 'int'" in circle_math.h), and a far circle with r * r = inf covered every pixel. Such values
// are now refused before any binning, like NaN and infinity.
TEST_CASE("NaN, infinity and positions or radii beyond kMaxCircleExtent are refused", "[scene_io]") {
    const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
    const float beyond = std::nextafter(tilescan::kMaxCircleExtent, inf);
    const Circle good{0.5f, 0.5f, 0.5f, 0.25f, 1, 0, 0, 0.5f};
    CHECK(tilescan::circle_problem(good).empty());
    for (int field = 0; field < 8; ++field) {
        INFO("field " << field);
        for (const float bad : {nan, inf, -inf}) {
            Circle c = good;
            (&c.x)[field] = bad;
            CHECK(!tilescan::circle_problem(c).empty());
            Scene scene;
            scene.push_back(good);
            scene.push_back(c);
            CHECK_THROWS_WITH(tilescan::validate_scene(scene, "where"), Catch::StartsWith("where: circle 1: "));
        }
    }
    struct Case {
        Circle circle;
        const char* message;
    };
    const Case cases[] = {
        {{beyond, 0.5f, 0, 0.25f, 1, 0, 0, 1}, "x 1e+18 is too large (positions and radii are at most 1e+18"},
        {{0.5f, -1e30f, 0, 0.25f, 1, 0, 0, 1}, "y -1e+30 is too large"},
        {{0.5f, 0.5f, 0, FLT_MAX, 1, 0, 0, 1}, "radius 3.40282e+38 is too large"},
    };
    for (const Case& c : cases) {
        CHECK_THAT(tilescan::circle_problem(c.circle), Catch::Contains(c.message));
        Scene scene;
        scene.push_back(c.circle);
        CHECK_THROWS_AS(tilescan::validate_scene(scene, "where"), InputError);
    }
    // The bound itself is allowed, and z and the colours have none.
    const float m = tilescan::kMaxCircleExtent;
    CHECK(tilescan::circle_problem({-m, m, -FLT_MAX, m, FLT_MAX, -FLT_MAX, 1e30f, 1}).empty());

    CHECK_THAT(parse_error(kHeader + "0 0 0 1e19 1 1 1 1\n"),
               Catch::Contains("bad.scene:3: radius 1e+19 is too large"));
    CHECK_THAT(parse_error(kHeader + "-2e18 0 0 1 1 1 1 1\n"), Catch::Contains("bad.scene:3: x -2e+18 is too large"));
    CHECK(parse_error(kHeader + "1e18 -1e18 -3e38 1e18 3e38 -3e38 0 1\n") == "");

    const std::string dir = tilescan::testing::scratch_dir("scene_extent");
    Scene scene;
    scene.push_back(good);
    tilescan::write_scene_file(scene, dir + "/good.tsb");
    std::string bytes = file_text(dir + "/good.tsb");
    const float huge = 1e20f;
    bytes.replace(48 + 4 * 3, 4, reinterpret_cast<const char*>(&huge), 4);  // circle 0's radius
    write_text(dir + "/huge.tsb", bytes);
    CHECK_THAT(read_error(dir + "/huge.tsb"), Catch::Contains("huge.tsb: circle 0: radius 1e+20 is too large"));
    bytes.replace(48 + 4 * 3, 4, reinterpret_cast<const char*>(&inf), 4);
    write_text(dir + "/inf.tsb", bytes);
    CHECK_THAT(read_error(dir + "/inf.tsb"),
               Catch::Contains("inf.tsb: circle 0: infinity is not allowed (field radius)"));
}

// The largest values the rules allow reach binning and shading: nothing there may overflow, and the
// tile backend must still match the reference bit for bit.
TEST_CASE("the most extreme valid circles render the same on ref and cpu, with finite pixels", "[scene_io]") {
    const float m = tilescan::kMaxCircleExtent;
    for (const auto shading : {tilescan::kShadingFlat, tilescan::kShadingSnow}) {
        Scene scene;
        scene.shading = shading;
        scene.push_back({m, m, 0, m, 1, 0, 0, 0.5f});          // far away, reaching back over the image
        scene.push_back({-m, 0.5f, -FLT_MAX, m, 0, 1, 0, 1});  // z and colours have no bound
        scene.push_back({0.5f, 0.5f, FLT_MAX, m, 0, 0, 1, 0.5f});
        scene.push_back({0.5f, 0.5f, 0, 1e-45f, 1, 1, 1, 1});  // a denormal radius
        scene.push_back({0.3f, 0.6f, 0.5f, 0.2f, FLT_MAX, -FLT_MAX, 0, 0.75f});
        tilescan::validate_scene(scene, "extreme");
        tilescan::Image expected(37, 21), actual(37, 21);
        tilescan::make_backend("ref")->render(scene, expected);
        tilescan::make_backend("cpu", tilescan::BackendOptions{"scan", 2})->render(scene, actual);
        CHECK(std::memcmp(expected.data(), actual.data(), expected.pixels.size() * sizeof(tilescan::Rgba)) == 0);
        for (const auto& p : expected.pixels) REQUIRE((std::isfinite(p.r) && std::isfinite(p.g) && std::isfinite(p.b)));
    }
}

// Found by fuzzing (fuzz_scene_binary, seed snow.tsb): the binary form stores a background colour
// for every kind and the reader kept it, while the text form has none for white or snow-gradient and
// reads (1, 1, 1); the same scene then compared unequal after a trip through text.
TEST_CASE("a binary scene's unused background colour is read as the text form's (1, 1, 1)", "[scene_io]") {
    const std::string dir = tilescan::testing::scratch_dir("scene_background_colour");
    Scene scene = awkward_scene(3);
    scene.background = {tilescan::kBackgroundSnowGradient, 1.0f, 1.0f, 1.0f};
    tilescan::write_scene_file(scene, dir + "/gradient.tsb");
    std::string bytes = file_text(dir + "/gradient.tsb");
    const float zeros[3] = {0.0f, -0.0f, 7.0f};
    bytes.replace(20, 12, reinterpret_cast<const char*>(zeros), 12);
    write_text(dir + "/stored.tsb", bytes);
    const Scene read = tilescan::read_scene_file(dir + "/stored.tsb");
    CHECK(read == scene);
    CHECK(tilescan::parse_scene_text(tilescan::format_scene_text(read), "text") == read);
}

TEST_CASE("invalid scenes and unwritable paths are refused without leaving a file", "[scene_io]") {
    const std::string dir = tilescan::testing::scratch_dir("scene_write_errors");
    Scene scene = awkward_scene(5);
    scene.radius[2] = -1.0f;
    for (const char* name : {"/bad.scene", "/bad.tsb"}) {
        CHECK_THROWS_WITH(tilescan::write_scene_file(scene, dir + name),
                          Catch::Contains("circle 2: radius is negative"));
    }
    CHECK_THROWS_WITH(tilescan::write_scene_file(awkward_scene(5), dir + "/no/such/folder.scene"),
                      Catch::Contains("cannot write '" + dir + "/no/such/folder.scene'"));
    CHECK(fs::is_empty(dir));
}

TEST_CASE("the conformance scenes re-format to their own text byte for byte", "[scene_io]") {
    const std::string dir = tilescan::testing::require_conformance("scene text conformance");
    if (dir.empty()) return;
    for (const char* name : {"rgb.scene", "rand10k.scene", "snowsingle.scene"}) {
        INFO(name);
        const std::string text = file_text(dir + "/" + name);
        REQUIRE(!text.empty());
        CHECK(tilescan::format_scene_text(tilescan::parse_scene_text(text, name)) == text);
    }
    const Scene rgb = tilescan::read_scene_file(dir + "/rgb.scene");
    REQUIRE(rgb.size() == 3);
    CHECK(rgb.x[0] == 0.4f);
    CHECK(rgb.b[2] == 1.0f);
}
