// libFuzzer target for the image readers (renderer/image_io.h): read_image on the fuzzer's bytes,
// saved with the extension TILESCAN_FUZZ_SUFFIX. Built once per format tilescan reads:
// `fuzz_image_png`, `fuzz_image_ppm`, `fuzz_image_pfm`, `fuzz_image_f32` (which also drives
// read_raw_rgba_f32, the conformance reader). `fuzz_image_gz` (TILESCAN_FUZZ_GZIP) takes the
// first byte as a selector: its low two bits pick the inner format, and bit 2 whether the rest is
// gzip-compressed here (reaching the decoders through zlib) or saved as is (a corrupt or truncated
// gzip stream).
//
// An accepted image must have a positive size that matches its pixel count, and must round-trip
// through write_image in its own format (bit for bit for float formats, byte for byte after the
// 8-bit rule for PNG and PPM).
#include <zlib.h>

#include <algorithm>
#include <cstring>

#include "fuzz/fuzz_support.h"
#include "renderer/image_io.h"

#ifndef TILESCAN_FUZZ_SUFFIX
#define TILESCAN_FUZZ_SUFFIX ".png"
#endif

namespace {

using namespace tilescan;

bool eight_bit_format(const std::string& suffix) { return suffix == ".png" || suffix == ".ppm"; }

void check_accepted(const Image& image, const std::string& suffix) {
    FUZZ_REQUIRE(image.width >= 1 && image.height >= 1);
    FUZZ_REQUIRE(image.pixels.size() == static_cast<std::size_t>(image.width) * image.height);
    if (image.pixels.size() > (1u << 16)) return;  // large accepted images: the size checks suffice

    const std::string copy_path = tilescan_fuzz::temp_dir() + "/round_trip" + suffix;
    write_image(image, copy_path);
    const Image copy = read_image(copy_path);
    FUZZ_REQUIRE(copy.width == image.width && copy.height == image.height);
    for (std::size_t i = 0; i < image.pixels.size(); ++i) {
        const Rgba& a = image.pixels[i];
        const Rgba& b = copy.pixels[i];
        if (eight_bit_format(suffix)) {
            FUZZ_REQUIRE(to_8bit(a.r) == to_8bit(b.r) && to_8bit(a.g) == to_8bit(b.g) && to_8bit(a.b) == to_8bit(b.b));
        } else {
            const std::size_t bytes = suffix == ".f32" ? sizeof(Rgba) : 3 * sizeof(float);  // PFM drops alpha
            FUZZ_REQUIRE(std::memcmp(&a, &b, bytes) == 0);
        }
    }
}

void read_and_check(const std::string& path, const std::string& suffix) {
    tilescan_fuzz::expect_input_error_or_success([&] {
        const Image image = read_image(path);
        try {
            check_accepted(image, suffix);
        } catch (const std::exception& error) {
            std::fprintf(stderr, "accepted image failed a later step: %s\n", error.what());
            std::abort();
        }
    });
}

// The conformance reader takes its size from the caller: try the two shapes the byte count allows.
void read_raw(const std::string& path, std::size_t size) {
    const int pixels = static_cast<int>(std::min<std::size_t>(size / sizeof(Rgba), 1 << 20));
    for (const int width : {1, pixels}) {
        tilescan_fuzz::expect_input_error_or_success([&] {
            const Image image = read_raw_rgba_f32(path, width, pixels / (width ? width : 1));
            FUZZ_REQUIRE(image.pixels.size() == static_cast<std::size_t>(image.width) * image.height);
        });
    }
}

#ifdef TILESCAN_FUZZ_GZIP
void write_gzip(const std::string& path, const std::uint8_t* data, std::size_t size) {
    const gzFile gz = gzopen(path.c_str(), "wb1");
    FUZZ_REQUIRE(gz != nullptr);
    FUZZ_REQUIRE(size == 0 || gzwrite(gz, data, static_cast<unsigned>(size)) == static_cast<int>(size));
    FUZZ_REQUIRE(gzclose(gz) == Z_OK);
}
#endif

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
#ifdef TILESCAN_FUZZ_GZIP
    if (size == 0) return 0;
    static const char* const kInner[4] = {".png", ".ppm", ".pfm", ".f32"};
    const std::string suffix = kInner[data[0] & 3];
    const bool compress_here = (data[0] & 4) != 0;
    const std::string path = tilescan_fuzz::temp_dir() + "/input" + suffix + ".gz";
    if (compress_here) {
        write_gzip(path, data + 1, size - 1);
    } else {
        tilescan_fuzz::write_input(data + 1, size - 1, suffix + ".gz");
    }
    read_and_check(path, suffix);
    if (suffix == ".f32") read_raw(path, size - 1);
#else
    const std::string suffix = TILESCAN_FUZZ_SUFFIX;
    const std::string path = tilescan_fuzz::write_input(data, size, suffix);
    read_and_check(path, suffix);
    if (suffix == ".f32") read_raw(path, size);
#endif
    return 0;
}
