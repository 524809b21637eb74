// Tests of renderer/image_io and renderer/atomic_file: round trips in every format, the 8-bit rule,
// row order (checked against the course's own files), malformed input, and whole-or-nothing writes.
#include <zlib.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>

#include "renderer/atomic_file.h"
#include "renderer/errors.h"
#include "renderer/image_io.h"
#include "test_support.h"

namespace fs = std::filesystem;
using tilescan::Image;
using tilescan::InputError;

using tilescan::testing::file_text;
using tilescan::testing::write_text;

namespace {

std::string gunzipped_file(const std::string& path) {
    const gzFile gz = gzopen(path.c_str(), "rb");
    REQUIRE(gz);
    std::string bytes;
    char chunk[1 << 16];
    int got;
    while ((got = gzread(gz, chunk, sizeof chunk)) > 0) bytes.append(chunk, static_cast<std::size_t>(got));
    gzclose(gz);
    return bytes;
}

void write_gzip(const std::string& path, const std::string& bytes) {
    const gzFile gz = gzopen(path.c_str(), "wb");
    REQUIRE(gz);
    REQUIRE(gzwrite(gz, bytes.data(), static_cast<unsigned>(bytes.size())) == static_cast<int>(bytes.size()));
    REQUIRE(gzclose(gz) == Z_OK);
}

// Every pixel different, and row 0 (bottom) unlike the top, so a flipped read cannot pass.
Image gradient_image(int width, int height) {
    Image image(width, height);
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x)
            image.at(x, y) = {(x + 1) / static_cast<float>(width), (y + 1) / static_cast<float>(height),
                              static_cast<float>((x * 7 + y * 13) % 256) / 255.0f, 1.0f + 0.5f * x};
    return image;
}

bool same_bits(const Image& a, const Image& b) {
    return a.width == b.width && a.height == b.height &&
           std::memcmp(a.data(), b.data(), a.pixels.size() * sizeof(tilescan::Rgba)) == 0;
}

// What the 8-bit formats give back: each colour on the byte grid, alpha 1.
Image quantised(const Image& image) {
    Image out = image;
    for (auto& p : out.pixels) {
        p = {tilescan::to_8bit(p.r) / 255.0f, tilescan::to_8bit(p.g) / 255.0f, tilescan::to_8bit(p.b) / 255.0f, 1.0f};
    }
    return out;
}

std::string read_error(const std::string& path) {
    try {
        tilescan::read_image(path);
    } catch (const InputError& error) {
        return error.what();
    }
    return "";
}

// A file of `content` that read_image must refuse with an error containing `message`.
struct BadFile {
    const char* name;
    std::string content;
    const char* message;
};

// Writes each file into `dir` and checks read_image's error for it.
template <std::size_t N>
void check_read_errors(const std::string& dir, const BadFile (&files)[N]) {
    for (const BadFile& file : files) {
        INFO(file.name);
        write_text(dir + "/" + file.name, file.content);
        CHECK_THAT(read_error(dir + "/" + file.name), Catch::Contains(file.message));
    }
}

float read_le_float(const std::string& bytes, std::size_t offset) {
    float value;
    std::memcpy(&value, bytes.data() + offset, sizeof value);
    return value;
}

}  // namespace

TEST_CASE("to_8bit clamps and rounds to nearest", "[image_io]") {
    CHECK(tilescan::to_8bit(0.0f) == 0);
    CHECK(tilescan::to_8bit(1.0f) == 255);
    CHECK(tilescan::to_8bit(-0.5f) == 0);
    CHECK(tilescan::to_8bit(1.2f) == 255);
    CHECK(tilescan::to_8bit(std::numeric_limits<float>::infinity()) == 255);
    CHECK(tilescan::to_8bit(std::numeric_limits<float>::quiet_NaN()) == 0);
    CHECK(tilescan::to_8bit(0.5f) == 128);      // 127.5 rounds up
    CHECK(tilescan::to_8bit(0.3f / 255) == 0);  // below half a step
    CHECK(tilescan::to_8bit(0.7f / 255) == 1);  // above half a step (truncation would give 0)
    CHECK(tilescan::to_8bit(254.6f / 255) == 255);
    for (int byte = 0; byte < 256; ++byte) CHECK(tilescan::to_8bit(byte / 255.0f) == byte);
}

TEST_CASE("every format round-trips; floats bit for bit", "[image_io]") {
    const std::string dir = tilescan::testing::scratch_dir("image_round_trip");
    Image image = gradient_image(37, 23);
    image.at(3, 4) = {-0.0f, 1e-42f, 3.5f, -2.0f};  // out-of-range, denormal and -0 survive the float formats

    SECTION("f32 keeps everything, alpha too") {
        tilescan::write_image(image, dir + "/a.f32");
        CHECK(same_bits(tilescan::read_raw_rgba_f32(dir + "/a.f32", 37, 23), image));
        CHECK(file_text(dir + "/a.f32").size() == 37 * 23 * 16);
    }
    SECTION("pfm keeps RGB, alpha becomes 1") {
        tilescan::write_image(image, dir + "/a.pfm");
        Image expected = image;
        for (auto& p : expected.pixels) p.a = 1.0f;
        CHECK(same_bits(tilescan::read_image(dir + "/a.pfm"), expected));
    }
    SECTION("png and ppm give the 8-bit values back") {
        for (const char* name : {"/a.png", "/a.ppm", "/A.PNG"}) {
            tilescan::write_image(image, dir + name);
            CHECK(same_bits(tilescan::read_image(dir + name), quantised(image)));
        }
    }
    SECTION("a gzip-compressed image reads like the plain one") {
        tilescan::write_image(image, dir + "/a.ppm");
        write_gzip(dir + "/a.ppm.gz", file_text(dir + "/a.ppm"));
        CHECK(same_bits(tilescan::read_image(dir + "/a.ppm.gz"), tilescan::read_image(dir + "/a.ppm")));
    }
}

// A PNG's deflate stream is compressed in chunks side by side (image_io.cpp): an image of several
// chunks, of bytes that do not repeat, reads back, and its zlib stream passes zlib's own checks
// (the Adler-32 of every byte included).
TEST_CASE("a PNG of many deflate chunks is one valid zlib stream", "[image_io]") {
    const std::string dir = tilescan::testing::scratch_dir("image_png_chunks");
    Image image(701, 409);
    std::uint32_t state = 12345;
    for (auto& p : image.pixels) {
        const auto next = [&] { return ((state = state * 1664525u + 1013904223u) >> 8) / 16777216.0f; };
        p = {next(), next(), next(), 1.0f};
    }
    tilescan::write_image(image, dir + "/noise.png");
    CHECK(same_bits(tilescan::read_image(dir + "/noise.png"), quantised(image)));
    const std::string png = file_text(dir + "/noise.png");
    std::string stream;
    for (std::size_t at = 8; at + 12 <= png.size();) {
        std::size_t length = 0;
        for (int k = 0; k < 4; ++k) length = length << 8 | static_cast<unsigned char>(png[at + k]);
        if (png.compare(at + 4, 4, "IDAT") == 0) stream += png.substr(at + 8, length);
        at += 12 + length;
    }
    std::string rows(std::size_t(409) * (1 + 3 * 701), '\0');
    uLongf size = static_cast<uLongf>(rows.size());
    REQUIRE(stream.size() > std::size_t(2) << 18);  // more than two chunks of 256 KiB went in
    CHECK(uncompress(reinterpret_cast<Bytef*>(&rows[0]), &size, reinterpret_cast<const Bytef*>(stream.data()),
                     static_cast<uLong>(stream.size())) == Z_OK);
    CHECK(size == rows.size());
}

TEST_CASE("each format writes its own row order", "[image_io]") {
    const std::string dir = tilescan::testing::scratch_dir("image_row_order");
    Image image(1, 2);
    image.at(0, 0) = {0.25f, 0.0f, 0.0f, 1.0f};  // bottom
    image.at(0, 1) = {0.75f, 0.0f, 0.0f, 1.0f};  // top

    tilescan::write_image(image, dir + "/a.pfm");
    const std::string pfm = file_text(dir + "/a.pfm");
    REQUIRE(pfm.rfind("PF\n1 2\n-1.0\n", 0) == 0);
    CHECK(read_le_float(pfm, 12) == 0.25f);  // PFM: bottom row first
    CHECK(read_le_float(pfm, 24) == 0.75f);

    tilescan::write_image(image, dir + "/a.f32");
    CHECK(read_le_float(file_text(dir + "/a.f32"), 0) == 0.75f);  // conformance layout: top row first

    tilescan::write_image(image, dir + "/a.ppm");
    const std::string ppm = file_text(dir + "/a.ppm");
    REQUIRE(ppm.rfind("P6\n1 2\n255\n", 0) == 0);
    CHECK(static_cast<unsigned char>(ppm[11]) == 191);  // top row first: 0.75 * 255 = 191.25
    CHECK(static_cast<unsigned char>(ppm[14]) == 64);   // 0.25 * 255 = 63.75
}

TEST_CASE("PFM in both byte orders and grey, P3 with comments", "[image_io]") {
    const std::string dir = tilescan::testing::scratch_dir("image_variants");
    // A big-endian grey PFM, 1x2: bottom row 0.5, top row 2.
    write_text(dir + "/grey.pfm", std::string("Pf\n1 2\n1.0\n") + std::string("\x3f\x00\x00\x00\x40\x00\x00\x00", 8));
    const Image grey = tilescan::read_image(dir + "/grey.pfm");
    REQUIRE(grey.width == 1);
    REQUIRE(grey.height == 2);
    CHECK(grey.at(0, 0).r == 0.5f);
    CHECK(grey.at(0, 0).b == 0.5f);
    CHECK(grey.at(0, 1).g == 2.0f);
    CHECK(grey.at(0, 1).a == 1.0f);

    write_text(dir + "/text.ppm", "P3\n# a comment\n2 1 # size\n255\n255 0 0   0 0 51\n");
    const Image text = tilescan::read_image(dir + "/text.ppm");
    REQUIRE(text.width == 2);
    CHECK(text.at(0, 0).r == 1.0f);
    CHECK(text.at(1, 0).b == 51 / 255.0f);
}

TEST_CASE("the course's 256 images: PPM bytes are the truncated float image, row order included", "[image_io]") {
    const std::string dir = tilescan::testing::require_conformance("conformance image reading");
    if (dir.empty()) return;
    for (const char* scene : {"rgb", "rand10k", "snowsingle"}) {
        INFO(scene);
        const Image floats = tilescan::read_raw_rgba_f32(dir + "/" + scene + "_256.f32", 256, 256);
        CHECK(same_bits(tilescan::read_image(dir + "/" + scene + "_256.f32"), floats));  // square: size inferred
        const Image bytes = tilescan::read_image(dir + "/" + scene + "_256.ppm");
        REQUIRE(bytes.width == 256);
        REQUIRE(bytes.height == 256);
        std::size_t mismatches = 0;
        for (std::size_t i = 0; i < floats.pixels.size(); ++i) {
            const float f[3] = {floats.pixels[i].r, floats.pixels[i].g, floats.pixels[i].b};
            const float b[3] = {bytes.pixels[i].r, bytes.pixels[i].g, bytes.pixels[i].b};
            for (int c = 0; c < 3; ++c) {
                const int course = static_cast<int>(255.0f * std::fmin(std::fmax(f[c], 0.0f), 1.0f));
                mismatches += static_cast<int>(std::lround(b[c] * 255.0f)) != course;
            }
        }
        CHECK(mismatches == 0);
    }
}

TEST_CASE("the course's gzip-compressed 1024 image", "[image_io]") {
    const std::string dir = tilescan::testing::require_conformance("conformance .f32.gz reading");
    if (dir.empty()) return;
    const Image image = tilescan::read_raw_rgba_f32(dir + "/rgb_1024.f32.gz", 1024, 1024);
    CHECK(same_bits(tilescan::read_image(dir + "/rgb_1024.f32.gz"), image));
    // rgb: three circles of radius .3 at y = .5 over white; the corners stay background.
    const tilescan::Rgba corner = image.at(0, 1023);
    CHECK((corner.r == 1.0f && corner.g == 1.0f && corner.b == 1.0f && corner.a == 1.0f));
    const tilescan::Rgba centre = image.at(512, 512);  // under all three circles: alpha 1 + 3 * 0.5
    CHECK(centre.a == 2.5f);
    // Written back as .f32, the image is the course's file byte for byte.
    const std::string copy = tilescan::testing::scratch_dir("image_conformance_gz") + "/rgb_1024.f32";
    tilescan::write_image(image, copy);
    CHECK(file_text(copy) == gunzipped_file(dir + "/rgb_1024.f32.gz"));
}

TEST_CASE("malformed image files name the file and the problem", "[image_io]") {
    const std::string dir = tilescan::testing::scratch_dir("image_errors");
    tilescan::write_image(gradient_image(8, 8), dir + "/good.png");
    const std::string png = file_text(dir + "/good.png");
    tilescan::write_image(gradient_image(8, 8), dir + "/good.f32");
    const std::string f32 = file_text(dir + "/good.f32");

    const BadFile cases[] = {
        {"cut.png", png.substr(0, png.size() / 2), "cut.png: not a readable PNG"},
        {"garbage.png", "not a png at all", "garbage.png: not a readable PNG"},
        {"magic.ppm", "P5\n1 1\n255\n\x01", "magic.ppm: not a PPM file (expected P6 or P3, found 'P5')"},
        {"header.ppm", "P6\n1 ", "header.ppm: truncated header"},
        {"width.ppm", "P6\n-1 1\n255\n", "width.ppm: bad width '-1'"},
        {"maxval.ppm", "P6\n1 1\n65535\n\x01\x02", "maxval.ppm: bad maxval '65535' (expected 1 to 255)"},
        {"short.ppm", "P6\n2 1\n255\n\x01\x02\x03", "short.ppm: truncated: 3 bytes of pixel data, expected 6"},
        {"long.ppm", "P6\n1 1\n255\n\x01\x02\x03\x04", "long.ppm: 1 stray bytes after the pixel data"},
        {"sample.ppm", "P3\n1 1\n255\n1 2 300\n", "sample.ppm: bad sample '300'"},
        {"few.ppm", "P3\n1 1\n255\n1 2\n", "few.ppm: truncated header"},
        {"magic.pfm", "PX\n1 1\n-1\n", "magic.pfm: not a PFM file"},
        {"scale.pfm", "PF\n1 1\n0\n", "scale.pfm: bad scale '0'"},
        {"short.pfm", "PF\n1 1\n-1\n\x01\x02\x03\x04", "short.pfm: truncated: 4 bytes of pixel data, expected 12"},
        {"nodata.pfm", "PF\n1 1\n-1", "nodata.pfm: truncated: no pixel data"},
        {"odd.f32", f32 + "x", "odd.f32: 1025 bytes is not a square RGBA float32 image: give its width and height"},
        {"empty.f32", "", "empty.f32: 0 bytes is not a square"},
        {"image.bmp", "BM", "cannot read"},
    };
    check_read_errors(dir, cases);
    CHECK_THAT(read_error(dir + "/image.bmp"),
               Catch::Contains("unknown extension '.bmp' (supported: .png, .ppm, .pfm, .f32, each optionally .gz)"));
    CHECK_THAT(read_error(dir + "/missing.png"),
               Catch::Contains("cannot read '" + dir + "/missing.png': No such file or directory"));

    const Image non_square = gradient_image(4, 2);
    tilescan::write_image(non_square, dir + "/wide.f32");
    CHECK_THAT(read_error(dir + "/wide.f32"), Catch::Contains("give its width and height"));
    CHECK_THROWS_WITH(tilescan::read_raw_rgba_f32(dir + "/wide.f32", 4, 4),
                      Catch::Contains("wide.f32: 128 bytes, but a 4x4 RGBA float32 image has 256"));
}

// Found by fuzzing (fuzz_image_ppm): the PPM reader allocated its samples from the header's size
// before checking that the file holds them, so "P3 1048576 1048576 255" (28 bytes) asked for 12 TiB
// (std::bad_alloc, or an ASan allocation-size-too-big abort) and "P6 10000 10000" for 1.2 GB. Sizes
// are now checked against the pixel limit and the file's remaining bytes before any allocation.
TEST_CASE("image headers cannot make the readers allocate what the file does not hold", "[image_io]") {
    const std::string dir = tilescan::testing::scratch_dir("image_header_sizes");
    const BadFile cases[] = {
        {"huge_p3.ppm", "P3\n1048576 1048576\n255\n1 2 3\n",
         "huge_p3.ppm: 1048576x1048576 is more pixels than tilescan reads (16384x16384 at most)"},
        {"big_p3.ppm", "P3\n4000 4000\n255\n1 2 3\n",
         "big_p3.ppm: truncated: 7 bytes cannot hold the 48000000 samples of a 4000x4000 image"},
        {"big_p6.ppm", "P6\n10000 10000\n255\n" + std::string(12, 'x'),
         "big_p6.ppm: truncated: 12 bytes of pixel data, expected 300000000"},
        {"huge.pfm", "PF\n20000 20000\n-1\n" + std::string(12, 'x'),
         "huge.pfm: 20000x20000 is more pixels than tilescan reads"},
        {"long_word.ppm", "P6\n" + std::string(100, '1') + " 1\n255\nabc", "long_word.ppm: bad header: '1111"},
        // Found by fuzzing: header words were quoted raw.
        {"escape.ppm", "\x1b[2J 1 1 255 abc", "escape.ppm: not a PPM file (expected P6 or P3, found '\\x1b[2J')"},
        {"escape.pfm", "PF 1 1 \x01 abcdefghijkl", "escape.pfm: bad scale '\\x01'"},
    };
    check_read_errors(dir, cases);
}

namespace {

std::string png_chunk(const std::string& type, const std::string& data) {
    std::string chunk;
    for (const int shift : {24, 16, 8, 0}) chunk += static_cast<char>((data.size() >> shift) & 0xff);
    chunk += type + data;
    const unsigned long crc = crc32(crc32(0, reinterpret_cast<const Bytef*>(type.data()), 4),
                                    reinterpret_cast<const Bytef*>(data.data()), static_cast<uInt>(data.size()));
    for (const int shift : {24, 16, 8, 0}) chunk += static_cast<char>((crc >> shift) & 0xff);
    return chunk;
}

// `png` with `chunk` inserted before its first IDAT chunk.
std::string with_chunk_before_idat(const std::string& png, const std::string& chunk) {
    const std::size_t idat = png.find("IDAT");
    REQUIRE(idat != std::string::npos);
    return png.substr(0, idat - 4) + chunk + png.substr(idat - 4);
}

}  // namespace

// Found by fuzzing (fuzz_image_png, fuzz_image_gz). stb_image trusts a PNG's sizes: a chunk whose
// length field says 1.9 GB made it grow its buffer to that before reading the chunk (libFuzzer:
// out-of-memory, malloc(1929434176), from 77 bytes); a header announcing 16000x16000 made it size its
// inflate buffer from that; an empty IDAT chunk (legal) made it memcpy zero bytes to a null pointer
// (UBSan: null pointer passed as argument 1); and an unknown chunk's type reached the message raw.
TEST_CASE("PNG chunk and header sizes are checked before stb_image allocates", "[image_io]") {
    const std::string dir = tilescan::testing::scratch_dir("image_png_sizes");
    const Image image = gradient_image(8, 8);
    tilescan::write_image(image, dir + "/good.png");
    const std::string png = file_text(dir + "/good.png");
    const std::size_t idat = png.find("IDAT");

    // An empty IDAT chunk before the real one: still the same image.
    write_text(dir + "/empty_idat.png", with_chunk_before_idat(png, png_chunk("IDAT", "")));
    CHECK(same_bits(tilescan::read_image(dir + "/empty_idat.png"), quantised(image)));

    std::string long_chunk = png;
    long_chunk.replace(idat - 4, 4, std::string("\x73\x00\xd4\x40", 4));
    write_text(dir + "/long_chunk.png", long_chunk);
    CHECK_THAT(
        read_error(dir + "/long_chunk.png"),
        Catch::Contains("long_chunk.png: not a readable PNG (chunk 'IDAT' of 1929434176 bytes runs past the end"));
    // Found by the 5-minute run: the same with the file ending 3 bytes into the chunk's data, so
    // that not even its CRC is there (44 bytes; malloc(1073741845) before the first check saw it).
    write_text(dir + "/cut_chunk.png", long_chunk.substr(0, idat + 7));
    CHECK_THAT(
        read_error(dir + "/cut_chunk.png"),
        Catch::Contains("cut_chunk.png: not a readable PNG (chunk 'IDAT' of 1929434176 bytes runs past the end"));
    write_text(dir + "/cut_length.png", long_chunk.substr(0, idat + 2));  // half a chunk header: stb_image's
    CHECK_THAT(read_error(dir + "/cut_length.png"), Catch::Contains("cut_length.png: not a readable PNG"));

    std::string big = png;
    big.replace(16, 8, std::string("\x00\x00\x3e\x80\x00\x00\x3e\x80", 8));  // 16000 x 16000
    write_text(dir + "/big.png", big);
    CHECK_THAT(read_error(dir + "/big.png"),
               Catch::Contains("big.png: not a readable PNG (its header announces 16000x16000 pixels, more than its"));
    big.replace(16, 8, std::string("\x00\x01\x00\x00\x00\x01\x00\x00", 8));  // 65536 x 65536
    write_text(dir + "/huge.png", big);
    CHECK_THAT(read_error(dir + "/huge.png"),
               Catch::Contains("huge.png: 65536x65536 is more pixels than tilescan reads"));

    write_text(dir + "/unknown.png", with_chunk_before_idat(png, png_chunk("\x1b"
                                                                           "ABC",
                                                                           "x")));
    CHECK_THAT(read_error(dir + "/unknown.png"),
               Catch::Contains("unknown.png: not a readable PNG (\\x1bABC PNG chunk not known)"));
}

TEST_CASE("truncated and corrupt gzip files are errors, not short images", "[image_io]") {
    const std::string dir = tilescan::testing::scratch_dir("image_gzip_errors");
    tilescan::write_image(gradient_image(16, 16), dir + "/a.f32");
    write_gzip(dir + "/a.f32.gz", file_text(dir + "/a.f32"));
    const std::string gz = file_text(dir + "/a.f32.gz");
    write_text(dir + "/cut.f32.gz", gz.substr(0, gz.size() / 2));
    CHECK_THROWS_WITH(tilescan::read_raw_rgba_f32(dir + "/cut.f32.gz", 16, 16),
                      Catch::Contains("cannot read '" + dir + "/cut.f32.gz': truncated"));
    std::string corrupt = gz;
    corrupt[gz.size() / 2] ^= 0x5a;
    corrupt[gz.size() / 2 + 1] ^= 0xa5;
    write_text(dir + "/corrupt.f32.gz", corrupt);
    CHECK_THROWS_AS(tilescan::read_raw_rgba_f32(dir + "/corrupt.f32.gz", 16, 16), InputError);
}

TEST_CASE("image writes are whole or nothing", "[image_io]") {
    const std::string dir = tilescan::testing::scratch_dir("image_write_errors");
    const Image image = gradient_image(4, 4);
    for (const char* name : {"/a.png", "/a.ppm", "/a.pfm", "/a.f32"}) {
        CHECK_THROWS_WITH(tilescan::write_image(image, dir + "/missing" + name),
                          Catch::Contains("cannot write '" + dir + "/missing" + name + "': No such file or directory"));
    }
    CHECK_THROWS_WITH(tilescan::write_image(image, dir + "/a.bmp"),
                      Catch::Contains("a.bmp': unknown extension '.bmp' (supported: .png, .ppm, .pfm, .f32;"));
    CHECK_THROWS_AS(tilescan::write_image(Image(), dir + "/empty.png"), InputError);
    CHECK(fs::is_empty(dir));
}

TEST_CASE("write_file_atomically publishes the whole file or nothing", "[image_io]") {
    const std::string dir = tilescan::testing::scratch_dir("atomic_file");
    const std::string path = dir + "/out.txt";
    const auto write_text_body = [](const std::string& text) {
        return [text](std::FILE* file) { tilescan::write_bytes(file, text.data(), text.size()); };
    };

    tilescan::write_file_atomically(path, write_text_body("first"));
    CHECK(file_text(path) == "first");
    tilescan::write_file_atomically(path, write_text_body("second"));
    CHECK(file_text(path) == "second");

    const auto throwing_body = [](std::FILE* file) {
        tilescan::write_bytes(file, "partial", 7);
        throw std::runtime_error("body failed");
    };
    CHECK_THROWS_WITH(tilescan::write_file_atomically(dir + "/new.txt", throwing_body), "body failed");
    CHECK_THROWS_WITH(tilescan::write_file_atomically(path, throwing_body), "body failed");
    // The old file is untouched, and neither new.txt nor any temporary is left.
    CHECK(file_text(path) == "second");
    CHECK(std::distance(fs::directory_iterator(dir), fs::directory_iterator()) == 1);

    CHECK_THROWS_WITH(tilescan::write_file_atomically(dir + "/no/such/dir/x", write_text_body("x")),
                      "cannot write '" + dir + "/no/such/dir/x': No such file or directory");
}

TEST_CASE("write_file_atomically writes through a symbolic link and keeps the file's mode", "[image_io]") {
    const std::string dir = tilescan::testing::scratch_dir("atomic_file_link");
    const auto body = [](const char* text) {
        return [text](std::FILE* file) { tilescan::write_bytes(file, text, std::strlen(text)); };
    };
    tilescan::write_file_atomically(dir + "/target.txt", body("old"));
    fs::permissions(dir + "/target.txt", fs::perms::owner_read | fs::perms::owner_write);
    fs::create_symlink("target.txt", dir + "/link.txt");
    tilescan::write_file_atomically(dir + "/link.txt", body("new"));
    CHECK(fs::is_symlink(dir + "/link.txt"));  // the link is kept, the file it names replaced
    CHECK(file_text(dir + "/target.txt") == "new");
    CHECK(fs::status(dir + "/target.txt").permissions() == (fs::perms::owner_read | fs::perms::owner_write));
    fs::create_symlink("loop.txt", dir + "/loop.txt");
    CHECK_THROWS_WITH(tilescan::write_file_atomically(dir + "/loop.txt", body("x")),
                      "cannot write '" + dir + "/loop.txt': Too many levels of symbolic links");
    CHECK(std::distance(fs::directory_iterator(dir), fs::directory_iterator()) == 3);
}

TEST_CASE("write_bytes reports a full disk at once", "[image_io]") {
    if (!fs::exists("/dev/full")) return;
    std::FILE* full = std::fopen("/dev/full", "wb");
    REQUIRE(full);
    const std::string block(1 << 20, 'x');  // larger than the stdio buffer, so fwrite reaches the device
    CHECK_THROWS_WITH(tilescan::write_bytes(full, block.data(), block.size()), Catch::Contains("No space left"));
    std::fclose(full);
}
