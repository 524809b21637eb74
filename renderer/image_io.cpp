// Image files (see image_io.h). The stb implementations are compiled here and nowhere else, and
// kept static to this file so they cannot clash with another copy of stb linked into a program.
#include "renderer/image_io.h"

#include <sys/stat.h>
#include <zlib.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <memory>
#include <new>
#include <stdexcept>
#include <vector>

#include "kernels/scan/scan_cpu.h"
#include "renderer/atomic_file.h"
#include "renderer/c_numbers.h"
#include "renderer/errors.h"

#define STB_IMAGE_STATIC
#define STB_IMAGE_IMPLEMENTATION
#define STBI_ONLY_PNG
#define STBI_NO_STDIO
#include <stb_image.h>

// PNG's deflate stream by zlib (zlib_compress, below) rather than stb's own compressor.
namespace tilescan {
namespace {
unsigned char* zlib_compress(unsigned char* data, int length, int* out_length, int quality);
}  // namespace
}  // namespace tilescan
#define STBIW_ZLIB_COMPRESS tilescan::zlib_compress
#define STB_IMAGE_WRITE_STATIC
#define STB_IMAGE_WRITE_IMPLEMENTATION
#define STBI_WRITE_NO_STDIO
#include <stb_image_write.h>

namespace tilescan {

namespace {

// Float data is copied between files and memory as it lies, so the host must be little-endian too.
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "image files are little-endian; so must the host be");

using Bytes = std::vector<unsigned char>;

enum class ImageFormat { kPng, kPpm, kPfm, kF32, kUnknown };

std::string lower_case(std::string text) {
    std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
    return text;
}

bool ends_with(const std::string& text, const std::string& suffix) {
    return text.size() >= suffix.size() && text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool is_gzip_path(const std::string& path) { return ends_with(lower_case(path), ".gz"); }

// The format named by the extension, looking through a final `.gz` when `through_gzip` is set.
ImageFormat format_of(const std::string& path, bool through_gzip) {
    std::string name = lower_case(path);
    if (through_gzip && ends_with(name, ".gz")) name.resize(name.size() - 3);
    if (ends_with(name, ".png")) return ImageFormat::kPng;
    if (ends_with(name, ".ppm")) return ImageFormat::kPpm;
    if (ends_with(name, ".pfm")) return ImageFormat::kPfm;
    if (ends_with(name, ".f32")) return ImageFormat::kF32;
    return ImageFormat::kUnknown;
}

std::string extension_for_message(const std::string& path) {
    const std::string extension = std::filesystem::path(path).extension().string();
    return extension.empty() ? "no extension" : "unknown extension '" + extension + "'";
}

std::size_t pixel_count(int width, int height) {
    return static_cast<std::size_t>(width) * static_cast<std::size_t>(height);
}

// ---------------------------------------------------------------------------------------------
// Reading bytes

[[noreturn]] void fail_to_read(const std::string& path, const std::string& reason) {
    throw InputError("cannot read '" + path + "': " + reason);
}

[[noreturn]] void fail_corrupt(const std::string& path, const std::string& problem) {
    throw InputError(path + ": " + problem);
}

// The most pixels an image file may hold: the README's largest image, 16384 x 16384 (4 GiB as float
// RGBA). Checked against the header's size before any pixel memory is allocated.
constexpr std::uint64_t kMaxPixels = std::uint64_t(1) << 28;
// No image file tilescan reads is larger than this (a P3 text PPM of kMaxPixels pixels needs at most
// 12 bytes a pixel, raw float RGBA 16), so a file (or a gzip stream
// inflating) beyond it is refused as it is read: a device or an endless pipe cannot exhaust memory.
constexpr std::uint64_t kMaxDecompressedBytes = kMaxPixels * 16 + (1 << 16);

[[noreturn]] void fail_too_large(const std::string& path) {
    fail_to_read(path,
                 "more than " + std::to_string(kMaxDecompressedBytes) + " bytes, larger than any image tilescan reads");
}

// Called with the first bytes of a file (a chunk, or all of a shorter file) before the rest is read,
// so a file that is not of its format (a device, an endless pipe) is refused at once.
using StartCheck = std::function<void(const Bytes&)>;

Bytes read_plain_file(const std::string& path, const StartCheck& check_start) {
    const std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"), &std::fclose);
    if (!file) fail_to_read(path, std::strerror(errno));
    Bytes bytes;
    struct stat info;
    if (fstat(fileno(file.get()), &info) == 0 && S_ISREG(info.st_mode)) {
        if (static_cast<std::uint64_t>(info.st_size) > kMaxDecompressedBytes) fail_too_large(path);
        bytes.reserve(static_cast<std::size_t>(info.st_size));
    }
    unsigned char chunk[1 << 16];
    std::size_t got;
    while ((got = std::fread(chunk, 1, sizeof chunk, file.get())) > 0) {
        if (bytes.size() + got > kMaxDecompressedBytes) fail_too_large(path);
        const bool first = bytes.empty();
        bytes.insert(bytes.end(), chunk, chunk + got);
        if (first) check_start(bytes);
    }
    if (std::ferror(file.get())) fail_to_read(path, std::strerror(errno));
    return bytes;
}

std::string gzip_error(gzFile gz) {
    int code = Z_OK;
    const char* message = gzerror(gz, &code);
    return code == Z_ERRNO ? std::strerror(errno) : message;
}

// zlib reports a gzip stream cut short only as Z_BUF_ERROR from gzerror/gzclose, never from gzread,
// so both are checked: a truncated .gz must not pass for a short image.
Bytes read_gzip_file(const std::string& path, const StartCheck& check_start) {
    const gzFile gz = gzopen(path.c_str(), "rb");
    if (!gz) fail_to_read(path, errno ? std::strerror(errno) : "out of memory");
    Bytes bytes;
    unsigned char chunk[1 << 16];
    int got;
    while ((got = gzread(gz, chunk, sizeof chunk)) > 0) {
        if (bytes.size() + static_cast<std::size_t>(got) > kMaxDecompressedBytes) {
            gzclose_r(gz);
            fail_too_large(path);
        }
        const bool first = bytes.empty();
        bytes.insert(bytes.end(), chunk, chunk + got);
        if (first) {
            try {
                check_start(bytes);
            } catch (...) {
                gzclose_r(gz);
                throw;
            }
        }
    }
    int code = Z_OK;
    gzerror(gz, &code);
    if (got < 0 || code != Z_OK) {
        const std::string reason = code == Z_BUF_ERROR ? "truncated gzip data" : gzip_error(gz);
        gzclose_r(gz);
        fail_to_read(path, reason);
    }
    if (gzclose_r(gz) != Z_OK) fail_to_read(path, "truncated or corrupt gzip data");
    return bytes;
}

Bytes read_file_bytes(
    const std::string& path, const StartCheck& check_start = [](const Bytes&) {}) {
    try {
        return is_gzip_path(path) ? read_gzip_file(path, check_start) : read_plain_file(path, check_start);
    } catch (const std::bad_alloc&) {
        fail_to_read(path, "out of host memory");
    }
}

// ---------------------------------------------------------------------------------------------
// Decoding

// The whitespace-separated header words of a PPM or PFM file ('#' comments allowed between them),
// and where the pixel data starts: one whitespace byte after the last word.
class HeaderWords {
public:
    HeaderWords(const Bytes& bytes, const std::string& path) : bytes_(bytes), path_(path) {}

    std::string next() {
        skip_space_and_comments();
        std::string word;
        while (position_ < bytes_.size() && !std::isspace(bytes_[position_])) {
            if (word.size() == kMaxWord) fail_corrupt(path_, "bad header: '" + printable(word) + "...' is too long");
            word += static_cast<char>(bytes_[position_++]);
        }
        if (word.empty()) fail_corrupt(path_, "truncated header");
        return word;
    }

    // Bytes from the current position to the end of the file.
    std::size_t remaining() const { return bytes_.size() - position_; }

    bool at_end() {
        skip_space_and_comments();
        return position_ == bytes_.size();
    }

    std::size_t data_offset() const {
        if (position_ >= bytes_.size()) fail_corrupt(path_, "truncated: no pixel data");
        return position_ + 1;
    }

    // A size, maxval or sample: digits only, from `lowest` to `limit`.
    int next_integer(const char* what, int lowest, int limit) {
        const std::string word = next();
        char* end = nullptr;
        const long value = std::strtol(word.c_str(), &end, 10);
        if (*end != '\0' || !std::isdigit(static_cast<unsigned char>(word[0])) || value < lowest || value > limit)
            fail_corrupt(path_, "bad " + std::string(what) + " '" + printable(word) + "' (expected " +
                                    std::to_string(lowest) + " to " + std::to_string(limit) + ")");
        return static_cast<int>(value);
    }

private:
    static constexpr std::size_t kMaxWord = 64;  // longer words are garbage: refused before they cost memory

    void skip_space_and_comments() {
        while (position_ < bytes_.size()) {
            if (bytes_[position_] == '#') {
                while (position_ < bytes_.size() && bytes_[position_] != '\n') ++position_;
            } else if (std::isspace(bytes_[position_])) {
                ++position_;
            } else {
                return;
            }
        }
    }

    const Bytes& bytes_;
    const std::string& path_;
    std::size_t position_ = 0;
};

// Sides larger than this are not images we make; the byte count is checked against the size anyway.
constexpr int kMaxSide = 1 << 20;

// The pixel data must fill the rest of the file exactly: a short file is truncated, a long one has
// the wrong size in its header (or is not what it claims to be).
void require_data_size(const Bytes& bytes, std::size_t offset, std::size_t expected, const std::string& path) {
    const std::size_t available = bytes.size() - offset;
    if (available < expected)
        fail_corrupt(path, "truncated: " + std::to_string(available) + " bytes of pixel data, expected " +
                               std::to_string(expected));
    if (available > expected)
        fail_corrupt(path, std::to_string(available - expected) + " stray bytes after the pixel data");
}

void require_pixel_count(std::uint64_t width, std::uint64_t height, const std::string& path) {
    if (width * height > kMaxPixels)
        fail_corrupt(path, std::to_string(width) + "x" + std::to_string(height) +
                               " is more pixels than tilescan reads (16384x16384 at most)");
}

// stb_image trusts a PNG's sizes before it has seen the data behind them: it grows its buffer to a
// chunk's declared length before reading the chunk, and sizes its inflate buffer from the header's
// width and height, so a corrupt file of a few dozen bytes could make it allocate gigabytes. Checked
// here first, up to IEND (where stb_image stops): every chunk must lie inside the file, and the
// pixel data the header announces (bits per pixel from the colour type and depth, a filter byte a
// row) must fit in the IDAT bytes there are, deflate shrinking data at most 1032 to 1.
// Returns the bytes to decode: `bytes`, or `copy` holding them without empty IDAT chunks (legal,
// but stb_image then copies zero bytes to a null buffer, which is undefined behaviour).
const Bytes& screen_png(const Bytes& bytes, Bytes& copy, const std::string& path) {
    static const unsigned char kSignature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    if (bytes.size() < 33 || std::memcmp(bytes.data(), kSignature, 8) != 0 || std::memcmp(&bytes[12], "IHDR", 4) != 0)
        return bytes;  // stb_image reports what is wrong
    const auto big_endian_u32 = [&](std::size_t offset) {
        return std::uint64_t(bytes[offset]) << 24 | std::uint64_t(bytes[offset + 1]) << 16 |
               std::uint64_t(bytes[offset + 2]) << 8 | std::uint64_t(bytes[offset + 3]);
    };
    const std::uint64_t width = big_endian_u32(16), height = big_endian_u32(20);
    require_pixel_count(width, height, path);

    std::uint64_t idat_bytes = 0;
    bool empty_idat = false;
    std::size_t offset = 8;
    while (offset + 8 <= bytes.size()) {  // a chunk's length and type are there: all of it must be
        const std::uint64_t length = big_endian_u32(offset);
        const std::string type(reinterpret_cast<const char*>(&bytes[offset + 4]), 4);
        if (bytes.size() - offset < 12 || length > bytes.size() - offset - 12)
            fail_corrupt(path, "not a readable PNG (chunk '" + printable(type) + "' of " + std::to_string(length) +
                                   " bytes runs past the end of the file: truncated or corrupt)");
        if (type == "IDAT") {
            idat_bytes += length;
            empty_idat |= length == 0;
        }
        offset += 12 + static_cast<std::size_t>(length);
        if (type == "IEND") break;
    }
    const unsigned depth = bytes[24], colour_type = bytes[25];
    const unsigned channels = colour_type == 2 ? 3 : colour_type == 4 ? 2 : colour_type == 6 ? 4 : 1;
    const std::uint64_t data_bytes = height * ((width * channels * depth + 7) / 8 + 1);
    if (data_bytes > 1032 * idat_bytes + 64)
        fail_corrupt(path, "not a readable PNG (its header announces " + std::to_string(width) + "x" +
                               std::to_string(height) + " pixels, more than its " + std::to_string(idat_bytes) +
                               " bytes of image data can hold: truncated or corrupt)");
    if (!empty_idat) return bytes;

    copy.assign(bytes.begin(), bytes.begin() + 8);
    for (offset = 8; offset + 8 <= bytes.size();) {
        const std::size_t chunk_bytes = 12 + static_cast<std::size_t>(big_endian_u32(offset));
        const bool is_empty_idat = chunk_bytes == 12 && std::memcmp(&bytes[offset + 4], "IDAT", 4) == 0;
        if (!is_empty_idat) copy.insert(copy.end(), bytes.begin() + offset, bytes.begin() + offset + chunk_bytes);
        const bool is_end = std::memcmp(&bytes[offset + 4], "IEND", 4) == 0;
        offset += chunk_bytes;
        if (is_end) break;
    }
    copy.insert(copy.end(), bytes.begin() + offset, bytes.end());  // what follows IEND, or a short tail
    return copy;
}

Image decode_png(const Bytes& file_bytes, const std::string& path) {
    if (file_bytes.size() > static_cast<std::size_t>(INT32_MAX)) fail_corrupt(path, "PNG file too large");
    Bytes copy;
    const Bytes& bytes = screen_png(file_bytes, copy, path);
    int width = 0, height = 0, channels = 0;
    const std::unique_ptr<stbi_uc, void (*)(void*)> rgba(
        stbi_load_from_memory(bytes.data(), static_cast<int>(bytes.size()), &width, &height, &channels, 4),
        &stbi_image_free);
    // stb_image's reason may quote the file's bytes (an unknown chunk's type): escape them.
    if (!rgba) fail_corrupt(path, "not a readable PNG (" + printable(stbi_failure_reason()) + ")");
    const bool has_alpha = channels == 2 || channels == 4;
    Image image(width, height);
    for (int y = 0; y < height; ++y) {
        const stbi_uc* row = rgba.get() + static_cast<std::size_t>(height - 1 - y) * width * 4;
        for (int x = 0; x < width; ++x) {
            const stbi_uc* p = row + 4 * x;
            image.at(x, y) = {p[0] / 255.0f, p[1] / 255.0f, p[2] / 255.0f, has_alpha ? p[3] / 255.0f : 1.0f};
        }
    }
    return image;
}

Image decode_ppm(const Bytes& bytes, const std::string& path) {
    HeaderWords header(bytes, path);
    const std::string magic = header.next();
    if (magic != "P6" && magic != "P3")
        fail_corrupt(path, "not a PPM file (expected P6 or P3, found '" + printable(magic) + "')");
    const int width = header.next_integer("width", 1, kMaxSide);
    const int height = header.next_integer("height", 1, kMaxSide);
    const int maxval = header.next_integer("maxval", 1, 255);
    require_pixel_count(width, height, path);
    const std::size_t samples = pixel_count(width, height) * 3;

    // The file must hold the samples before they are allocated: one byte each in P6, and in P3 at
    // least a digit and a separator each (the last one's separator may be missing).
    if (magic == "P6") require_data_size(bytes, header.data_offset(), samples, path);
    if (magic == "P3" && samples > (header.remaining() + 1) / 2)
        fail_corrupt(path, "truncated: " + std::to_string(header.remaining()) + " bytes cannot hold the " +
                               std::to_string(samples) + " samples of a " + std::to_string(width) + "x" +
                               std::to_string(height) + " image");
    std::vector<float> values(samples);
    if (magic == "P6") {
        const std::size_t offset = header.data_offset();
        for (std::size_t i = 0; i < samples; ++i) values[i] = bytes[offset + i] / static_cast<float>(maxval);
    } else {
        for (std::size_t i = 0; i < samples; ++i)
            values[i] = header.next_integer("sample", 0, maxval) / static_cast<float>(maxval);
        if (!header.at_end()) fail_corrupt(path, "stray data after the pixel data");
    }
    Image image(width, height);
    for (int y = 0; y < height; ++y) {
        const float* row = values.data() + static_cast<std::size_t>(height - 1 - y) * width * 3;
        for (int x = 0; x < width; ++x) image.at(x, y) = {row[3 * x], row[3 * x + 1], row[3 * x + 2], 1.0f};
    }
    return image;
}

float read_float(const unsigned char* p, bool big_endian) {
    std::uint32_t bits;
    std::memcpy(&bits, p, sizeof bits);
    if (big_endian) bits = __builtin_bswap32(bits);
    float value;
    std::memcpy(&value, &bits, sizeof value);
    return value;
}

// PFM: "PF" (RGB) or "Pf" (grey), width, height, then a scale whose sign gives the byte order
// (negative = little-endian; its magnitude is ignored, as most readers do); rows bottom first.
Image decode_pfm(const Bytes& bytes, const std::string& path) {
    HeaderWords header(bytes, path);
    const std::string magic = header.next();
    if (magic != "PF" && magic != "Pf")
        fail_corrupt(path, "not a PFM file (expected PF or Pf, found '" + printable(magic) + "')");
    const int channels = magic == "PF" ? 3 : 1;
    const int width = header.next_integer("width", 1, kMaxSide);
    const int height = header.next_integer("height", 1, kMaxSide);
    require_pixel_count(width, height, path);
    const std::string scale_word = header.next();
    char* end = nullptr;
    const float scale = strtof_c(scale_word.c_str(), &end);
    if (*end != '\0' || !std::isfinite(scale) || scale == 0.0f)
        fail_corrupt(path,
                     "bad scale '" + printable(scale_word) + "' (a non-zero number whose sign gives the byte order)");
    const bool big_endian = scale > 0.0f;
    const std::size_t offset = header.data_offset();
    require_data_size(bytes, offset, pixel_count(width, height) * channels * sizeof(float), path);

    Image image(width, height);
    const unsigned char* p = bytes.data() + offset;
    for (Rgba& pixel : image.pixels) {
        float rgb[3];
        for (int c = 0; c < 3; ++c) rgb[c] = read_float(p + sizeof(float) * (channels == 3 ? c : 0), big_endian);
        pixel = {rgb[0], rgb[1], rgb[2], 1.0f};
        p += sizeof(float) * channels;
    }
    return image;
}

// Raw RGBA float32 rows, top row first, into memory rows (row 0 = bottom).
Image decode_raw_rgba(const Bytes& bytes, int width, int height) {
    Image image(width, height);
    const std::size_t row_bytes = static_cast<std::size_t>(width) * sizeof(Rgba);
    for (int y = 0; y < height; ++y)
        std::memcpy(&image.at(0, y), bytes.data() + static_cast<std::size_t>(height - 1 - y) * row_bytes, row_bytes);
    return image;
}

// A headerless float image holds no size; only a square one can be recovered from its byte count.
Image decode_square_f32(const Bytes& bytes, const std::string& path) {
    const std::size_t pixels = bytes.size() / sizeof(Rgba);
    const std::size_t side = static_cast<std::size_t>(std::llround(std::sqrt(static_cast<double>(pixels))));
    if (pixels == 0 || bytes.size() % sizeof(Rgba) != 0 || side * side != pixels || side > kMaxSide)
        fail_corrupt(path, std::to_string(bytes.size()) +
                               " bytes is not a square RGBA float32 image: give its width and height");
    return decode_raw_rgba(bytes, static_cast<int>(side), static_cast<int>(side));
}

// ---------------------------------------------------------------------------------------------
// Encoding

// 8-bit RGB (to_8bit's rule, quantize_8bit, inlined), top row first: the byte layout of both PNG
// and binary PPM.
Bytes rgb8_top_first(const Image& image) {
    Bytes rgb(pixel_count(image.width, image.height) * 3);
    unsigned char* out = rgb.data();
    for (int y = image.height - 1; y >= 0; --y) {
        for (int x = 0; x < image.width; ++x) {
            const Rgba& p = image.at(x, y);
            *out++ = quantize_8bit(p.r);
            *out++ = quantize_8bit(p.g);
            *out++ = quantize_8bit(p.b);
        }
    }
    return rgb;
}

// zlib's level for PNG files: at 3 it is faster than stb's own compressor and writes smaller files
// (docs/tuning.md, "PNG files").
constexpr int kPngZlibLevel = 3;

// A PNG's deflate stream is cut into chunks of kPngChunkBytes compressed side by side, as pigz does:
// each chunk but the last ends on a sync flush (byte-aligned, no match reaching back across it), so
// their concatenation is one stream, the same bytes whatever the thread count.
constexpr std::size_t kPngChunkBytes = std::size_t(1) << 18;

// A raw deflate stream (no zlib header or checksum) at kPngZlibLevel, ended when it goes.
struct RawDeflater {
    z_stream stream{};
    const bool ready = deflateInit2(&stream, kPngZlibLevel, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) == Z_OK;
    RawDeflater() = default;
    RawDeflater(const RawDeflater&) = delete;
    RawDeflater& operator=(const RawDeflater&) = delete;
    ~RawDeflater() {
        if (ready) deflateEnd(&stream);
    }
};

// `size` bytes deflated into `out` (`capacity` bytes, compressBound's at least), the final block
// where `last`, else ending on a sync flush; returns the bytes written, 0 on any zlib failure (a
// stream of either kind is never empty).
std::size_t deflate_chunk(const unsigned char* in, std::size_t size, bool last, unsigned char* out,
                          std::size_t capacity) {
    RawDeflater deflater;
    if (!deflater.ready) return 0;
    z_stream& s = deflater.stream;
    s.next_in = const_cast<unsigned char*>(in);
    s.avail_in = uInt(size);
    s.next_out = out;
    s.avail_out = uInt(capacity);
    const int result = deflate(&s, last ? Z_FINISH : Z_SYNC_FLUSH);
    const bool done = last ? result == Z_STREAM_END : result == Z_OK && s.avail_in == 0 && s.avail_out > 0;
    return done ? capacity - s.avail_out : 0;
}

// stb_image_write's STBIW_ZLIB_COMPRESS: `length` bytes as one zlib stream (header, the chunks'
// deflate blocks, the Adler-32 of all the bytes), in a buffer of malloc's that stb frees; null on
// failure. stb's quality (its own compressor's) is not zlib's. Each chunk's output buffer is
// allocated by its thread, uninitialized, so that memory is touched only as deflate fills it.
unsigned char* zlib_compress(unsigned char* data, int length, int* out_length, int /*quality*/) try {
    const std::size_t n = std::size_t(length),
                      chunks = std::max<std::size_t>(1, (n + kPngChunkBytes - 1) / kPngChunkBytes);
    const auto chunk_size = [&](std::size_t c) { return std::min(kPngChunkBytes, n - c * kPngChunkBytes); };
    std::vector<std::unique_ptr<unsigned char[]>> deflated(chunks);
    std::vector<std::size_t> deflated_size(chunks, 0);
    std::vector<uLong> checksums(chunks);
    cpu_parallel_ranges(chunks, cpu_threads_for(chunks, 1, 0), [&](std::size_t first, std::size_t last) {
        for (std::size_t c = first; c < last; ++c) {
            const unsigned char* in = data + c * kPngChunkBytes;
            const std::size_t capacity = compressBound(uLong(chunk_size(c))) + 16;
            deflated[c].reset(new (std::nothrow) unsigned char[capacity]);
            if (!deflated[c]) return;
            checksums[c] = adler32(adler32(0, Z_NULL, 0), in, uInt(chunk_size(c)));
            deflated_size[c] = deflate_chunk(in, chunk_size(c), c + 1 == chunks, deflated[c].get(), capacity);
        }
    });
    uLong checksum = checksums[0];
    std::size_t total = 2 + 4;
    for (std::size_t c = 0; c < chunks; ++c) {
        if (deflated_size[c] == 0) return nullptr;
        if (c > 0) checksum = adler32_combine(checksum, checksums[c], z_off_t(chunk_size(c)));
        total += deflated_size[c];
    }
    auto* out = static_cast<unsigned char*>(std::malloc(total));
    if (!out) return nullptr;
    // The zlib header: deflate with a 32 KiB window, "fast" level, its check bits (RFC 1950).
    unsigned header = (0x78u << 8) | (1u << 6);
    header += 31 - header % 31;
    unsigned char* end = out;
    *end++ = static_cast<unsigned char>(header >> 8);
    *end++ = static_cast<unsigned char>(header);
    for (std::size_t c = 0; c < chunks; ++c) end = std::copy_n(deflated[c].get(), deflated_size[c], end);
    for (int shift = 24; shift >= 0; shift -= 8) *end++ = static_cast<unsigned char>(checksum >> shift);
    *out_length = int(total);
    return out;
} catch (const std::bad_alloc&) {
    return nullptr;
}

void append_to_bytes(void* context, void* data, int size) {
    const auto* begin = static_cast<const unsigned char*>(data);
    static_cast<Bytes*>(context)->insert(static_cast<Bytes*>(context)->end(), begin, begin + size);
}

// Each format's bytes onto an open stream: a temporary file of write_file_atomically, or standard output.
void write_png(const Image& image, std::FILE* file) {
    const Bytes rgb = rgb8_top_first(image);
    Bytes png;
    if (!stbi_write_png_to_func(&append_to_bytes, &png, image.width, image.height, 3, rgb.data(), image.width * 3))
        throw std::runtime_error("PNG encoding failed");
    write_bytes(file, png.data(), png.size());
}

void write_ppm(const Image& image, std::FILE* file) {
    const std::string header = "P6\n" + std::to_string(image.width) + " " + std::to_string(image.height) + "\n255\n";
    const Bytes rgb = rgb8_top_first(image);
    write_bytes(file, header.data(), header.size());
    write_bytes(file, rgb.data(), rgb.size());
}

void write_pfm(const Image& image, std::FILE* file) {
    const std::string header = "PF\n" + std::to_string(image.width) + " " + std::to_string(image.height) + "\n-1.0\n";
    std::vector<float> rgb;
    rgb.reserve(image.pixels.size() * 3);
    for (const Rgba& p : image.pixels) rgb.insert(rgb.end(), {p.r, p.g, p.b});  // memory order is PFM order
    write_bytes(file, header.data(), header.size());
    write_bytes(file, rgb.data(), rgb.size() * sizeof(float));
}

void write_f32(const Image& image, std::FILE* file) {
    for (int y = image.height - 1; y >= 0; --y)
        write_bytes(file, &image.at(0, y), static_cast<std::size_t>(image.width) * sizeof(Rgba));
}

void write_format(const Image& image, ImageFormat format, std::FILE* file) {
    switch (format) {
        case ImageFormat::kPng:
            return write_png(image, file);
        case ImageFormat::kPpm:
            return write_ppm(image, file);
        case ImageFormat::kPfm:
            return write_pfm(image, file);
        default:
            return write_f32(image, file);
    }
}

// "-": a PNG on standard output, checked as it goes, since a pipe's reader may be gone or a disk full.
void write_png_to_stdout(const Image& image) {
    try {
        write_png(image, stdout);
        if (std::fflush(stdout) != 0) throw std::runtime_error(std::strerror(errno ? errno : EIO));
    } catch (const std::exception& failure) {
        throw InputError(std::string("cannot write the image to standard output: ") + failure.what());
    }
}

// A file whose first bytes are not its format's signature is decoded from those bytes alone, which
// throws the decoder's own message for it.
void check_signature(ImageFormat format, const Bytes& start, const std::string& path) {
    static const unsigned char kPngSignature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    const auto starts_with = [&](const char* first, const char* second) {
        return start.size() < 2 || (start[0] == first[0] && (start[1] == first[1] || start[1] == second[1]));
    };
    if (format == ImageFormat::kPng && start.size() >= 8 && std::memcmp(start.data(), kPngSignature, 8) != 0)
        decode_png(start, path);
    if (format == ImageFormat::kPpm && !starts_with("P6", "P3")) decode_ppm(start, path);
    if (format == ImageFormat::kPfm && !starts_with("PF", "Pf")) decode_pfm(start, path);
}

}  // namespace

std::uint8_t to_8bit(float v) { return quantize_8bit(v); }

void check_image_extension(const std::string& path) {
    if (path != kStandardOutput && format_of(path, false) == ImageFormat::kUnknown)
        throw InputError("cannot write '" + path + "': " + extension_for_message(path) +
                         " (supported: .png, .ppm, .pfm, .f32; - for PNG on standard output)");
}

bool image_file_keeps_alpha(const std::string& path) { return format_of(path, false) == ImageFormat::kF32; }

void write_image(const Image& image, const std::string& path) {
    check_image_extension(path);
    if (image.width < 1 || image.height < 1 || image.pixels.size() != pixel_count(image.width, image.height))
        throw InputError("cannot write '" + path + "': the image is empty or malformed (" +
                         std::to_string(image.width) + "x" + std::to_string(image.height) + ")");
    if (path == kStandardOutput) return write_png_to_stdout(image);
    const ImageFormat format = format_of(path, false);
    try {
        write_file_atomically(path, [&](std::FILE* file) { write_format(image, format, file); });
    } catch (const InputError&) {
        throw;
    } catch (const std::runtime_error& failure) {  // the PNG encoder's
        throw InputError("cannot write '" + path + "': " + failure.what());
    }
}

Image read_image(const std::string& path) {
    const ImageFormat format = format_of(path, true);
    if (format == ImageFormat::kUnknown)
        fail_to_read(path, extension_for_message(path) + " (supported: .png, .ppm, .pfm, .f32, each optionally .gz)");
    const Bytes bytes = read_file_bytes(path, [&](const Bytes& start) { check_signature(format, start, path); });
    switch (format) {
        case ImageFormat::kPng:
            return decode_png(bytes, path);
        case ImageFormat::kPpm:
            return decode_ppm(bytes, path);
        case ImageFormat::kPfm:
            return decode_pfm(bytes, path);
        default:
            return decode_square_f32(bytes, path);
    }
}

Image read_raw_rgba_f32(const std::string& path, int width, int height) {
    if (width < 1 || height < 1) fail_to_read(path, "the image size must be positive");
    const Bytes bytes = read_file_bytes(path);
    const std::size_t expected = pixel_count(width, height) * sizeof(Rgba);
    if (bytes.size() != expected)
        fail_corrupt(path, std::to_string(bytes.size()) + " bytes, but a " + std::to_string(width) + "x" +
                               std::to_string(height) + " RGBA float32 image has " + std::to_string(expected));
    return decode_raw_rgba(bytes, width, height);
}

}  // namespace tilescan
