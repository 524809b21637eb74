// Scene files (see scene_io.h): the text parser and formatter of scene-format.md, and the binary
// reader and writer of docs/scene-binary-format.md.
#include "renderer/scene_io.h"

#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <stdexcept>
#include <string_view>
#include <vector>

#include "renderer/atomic_file.h"
#include "renderer/c_numbers.h"
#include "renderer/errors.h"
#include "renderer/image.h"

namespace tilescan {

namespace {

// The binary fields are fread straight into the vectors, so the host must share the file's byte order.
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "binary scenes are little-endian; so must the host be");

// The shortest circle line, "0 0 0 0 0 0 0 0\n", bounds how many circles a text of n bytes can hold.
constexpr std::size_t kMinCircleLineBytes = 16;
constexpr const char* kFieldNames[8] = {"x", "y", "z", "radius", "r", "g", "b", "a"};
// The eight fields in file order: one loop serves reading, writing and checking them.
constexpr std::vector<float> Scene::*kFields[8] = {&Scene::x, &Scene::y, &Scene::z, &Scene::radius,
                                                   &Scene::r, &Scene::g, &Scene::b, &Scene::a};

// The layout of docs/scene-binary-format.md. The magic's NUL and 0xFF bytes never start a text scene.
constexpr char kBinaryMagic[8] = {'T', 'S', 'C', 'E', 'N', 'E', '\0', '\xff'};
constexpr std::uint32_t kBinaryVersion = 1;
constexpr std::size_t kHeaderBytes = 48;
constexpr std::size_t kBytesPerCircle = 8 * sizeof(float);
constexpr std::size_t kVersionOffset = 8, kShadingOffset = 12, kBackgroundKindOffset = 16, kBackgroundRgbOffset = 20,
                      kWidthOffset = 32, kHeightOffset = 36, kCountOffset = 40;

bool ends_with_ignoring_case(const std::string& text, const std::string& suffix) {
    if (text.size() < suffix.size()) return false;
    for (std::size_t i = 0; i < suffix.size(); ++i) {
        const unsigned char c = static_cast<unsigned char>(text[text.size() - suffix.size() + i]);
        if (std::tolower(c) != suffix[i]) return false;
    }
    return true;
}

// A Scene whose eight arrays differ in length is a bug in the program, not bad input.
void require_equal_field_sizes(const Scene& scene) {
    for (const auto field : kFields)
        if ((scene.*field).size() != scene.size()) throw std::logic_error("scene fields differ in length");
}

bool valid_default_size(int width, int height) {
    const auto in_range = [](int side) { return side >= 1 && side <= kMaxImageSide; };
    return (width == 0 && height == 0) || (in_range(width) && in_range(height));
}

// What is wrong with the header fields of a scene, or "" when nothing is. The binary reader and both
// writers use it, so nothing is written that the readers would reject.
std::string header_problem(const Scene& scene) {
    if (scene.shading != kShadingFlat && scene.shading != kShadingSnow)
        return "unknown shading code " + std::to_string(scene.shading);
    const BackgroundParams& background = scene.background;
    if (background.kind != kBackgroundWhite && background.kind != kBackgroundSnowGradient &&
        background.kind != kBackgroundSolid)
        return "unknown background code " + std::to_string(background.kind);
    if (background.kind == kBackgroundSolid &&
        !(std::isfinite(background.r) && std::isfinite(background.g) && std::isfinite(background.b)))
        return "the background colour must be finite";
    if (!valid_default_size(scene.default_width, scene.default_height))
        return "default size " + std::to_string(scene.default_width) + "x" + std::to_string(scene.default_height) +
               " is not allowed (0x0 for none, else 1 to " + std::to_string(kMaxImageSide) + ")";
    return "";
}

// ---------------------------------------------------------------------------------------------
// Text

// The longest line the text reader keeps, comment excluded: a circle line of eight %.9g numbers needs
// under 140 bytes. The cap is what bounds memory on a stream that never ends a line (/dev/zero).
constexpr std::size_t kMaxLineBytes = 4096;
constexpr std::size_t kReadChunkBytes = std::size_t(1) << 16;
constexpr std::string_view kUtf8Bom = "\xef\xbb\xbf";

// Hands out the whitespace-separated words of each line that holds any once comments are cut off,
// reading the text as a stream (a string in memory, or a file a chunk at a time): memory stays
// bounded by one chunk and one line whatever the input's length. Words are views into the current
// line, which stays NUL-terminated behind them, so strtof can read them in place. A UTF-8 byte order
// mark and CRLF line endings are accepted; a lone CR inside a line is reported (stray_cr).
class LineReader {
public:
    explicit LineReader(std::string_view text) : pending_(text) { skip_bom(); }
    // `start`: bytes already read from `file` (the reader peeks at them to tell text from binary).
    LineReader(std::FILE* file, std::string_view start, const std::string& path)
        : file_(file), path_(&path), chunk_(start) {
        pending_ = chunk_;
        skip_bom();
    }

    bool next() {
        while (read_line()) {
            ++number_;
            split();
            if (!words_.empty() || too_long_ || stray_cr_) return true;
        }
        return false;
    }

    std::size_t number() const { return number_; }
    const std::vector<std::string_view>& words() const { return words_; }
    bool too_long() const { return too_long_; }  // cut at kMaxLineBytes; the rest is unread
    bool stray_cr() const { return stray_cr_; }  // a CR before the line's end: CR-only line endings?

private:
    static bool is_space(char c) { return c == ' ' || c == '\t' || c == '\v' || c == '\f'; }

    void skip_bom() {
        if (pending_.substr(0, kUtf8Bom.size()) == kUtf8Bom) pending_.remove_prefix(kUtf8Bom.size());
    }

    bool refill() {
        if (!file_) return false;
        chunk_.resize(kReadChunkBytes);
        const std::size_t got = std::fread(&chunk_[0], 1, chunk_.size(), file_);
        if (got < chunk_.size() && std::ferror(file_))
            throw InputError("cannot read '" + *path_ + "': " + std::strerror(errno ? errno : EIO));
        chunk_.resize(got);
        pending_ = chunk_;
        return got > 0;
    }

    // The next line without its comment and line ending into line_; false at the end of the text.
    bool read_line() {
        line_.clear();
        too_long_ = false;
        bool in_comment = false, any = false;
        for (;;) {
            if (pending_.empty() && !refill()) break;
            any = true;
            const std::size_t newline = pending_.find('\n');
            std::string_view piece = pending_.substr(0, newline);
            pending_.remove_prefix(newline == std::string_view::npos ? pending_.size() : newline + 1);
            if (!in_comment) {
                const std::size_t hash = piece.find('#');
                in_comment = hash != std::string_view::npos;
                piece = piece.substr(0, hash);
                if (line_.size() + piece.size() > kMaxLineBytes) {
                    line_.append(piece.substr(0, kMaxLineBytes - line_.size()));
                    too_long_ = true;
                    return true;
                }
                line_.append(piece);
            }
            if (newline != std::string_view::npos) break;
        }
        if (!line_.empty() && line_.back() == '\r') line_.pop_back();
        return any;
    }

    void split() {
        words_.clear();
        stray_cr_ = line_.find('\r') != std::string::npos;
        const std::string_view line = line_;
        std::size_t i = 0;
        while (i < line.size()) {
            while (i < line.size() && is_space(line[i])) ++i;
            const std::size_t start = i;
            while (i < line.size() && !is_space(line[i])) ++i;
            if (i > start) words_.push_back(line.substr(start, i - start));
        }
    }

    std::FILE* file_ = nullptr;
    const std::string* path_ = nullptr;
    std::string chunk_;
    std::string_view pending_;
    std::string line_;
    bool too_long_ = false, stray_cr_ = false;
    std::size_t number_ = 0;
    std::vector<std::string_view> words_;
};

// A word quoted for an error message, shortened and with unprintable bytes escaped so the message
// stays one readable line.
std::string quoted(std::string_view word) {
    constexpr std::size_t kMaxShown = 40;
    if (word.size() > kMaxShown) return "'" + printable(word.substr(0, kMaxShown)) + "...'";
    return "'" + printable(word) + "'";
}

// The whole word as the nearest binary32 (values too small for a normal float round to a denormal
// or zero, which is the nearest value). False when any of the word is not part of the number.
bool parse_float(std::string_view word, float* value, bool* overflow) {
    char* end = nullptr;
    errno = 0;
    *value = strtof_c(word.data(), &end);
    *overflow = errno == ERANGE && std::isinf(*value);
    return end == word.data() + word.size();
}

// Digits only (no sign, no spaces, unlike strtoull); values past 2^64 - 1 saturate there.
bool parse_whole_number(std::string_view word, std::uint64_t* value) {
    if (word.empty()) return false;
    *value = 0;
    for (const char c : word) {
        if (c < '0' || c > '9') return false;
        const std::uint64_t digit = static_cast<std::uint64_t>(c - '0');
        *value = *value > (UINT64_MAX - digit) / 10 ? UINT64_MAX : *value * 10 + digit;
    }
    return true;
}

class TextSceneParser {
public:
    // `known_bytes`: the text's length when known before reading (a string, a regular file), else 0.
    TextSceneParser(LineReader& lines, std::uint64_t known_bytes, const std::string& source)
        : lines_(lines), known_bytes_(known_bytes), source_(source) {}

    Scene parse() {
        parse_magic();
        const std::uint64_t count = parse_header();
        parse_circles(count);
        return std::move(scene_);
    }

private:
    [[noreturn]] void fail(const std::string& what) const {
        throw InputError(source_ + ":" + std::to_string(lines_.number()) + ": " + what);
    }
    [[noreturn]] void fail_without_line(const std::string& what) const { throw InputError(source_ + ": " + what); }

    const std::vector<std::string_view>& words() const { return lines_.words(); }

    // The next line that holds words; a line the reader could not take whole is refused here, so no
    // bad line is ever read to its end.
    bool next_line() {
        if (!lines_.next()) return false;
        check_line();
        return true;
    }

    void check_line() const {
        if (lines_.too_long())
            fail("line longer than " + std::to_string(kMaxLineBytes) + " bytes (comments aside): not a scene line");
        if (lines_.stray_cr())
            fail("carriage return inside the line: CR-only line endings are not supported (use LF or CRLF)");
    }

    void parse_magic() {
        if (!lines_.next()) fail_without_line("empty scene file (no 'circlescene 1' line)");
        // The first word decides before the rest of the line is looked at, so that any stream that
        // is not a scene (binary, /dev/zero, a pipe of text) is refused on its first line.
        if (!words().empty() && words()[0] != "circlescene")
            fail("not a scene file: expected 'circlescene 1' first, found " + quoted(words()[0]));
        check_line();
        if (words().size() != 2) fail("expected 'circlescene 1' (the magic word and a version number)");
        if (words()[1] != "1") fail("unsupported version " + quoted(words()[1]) + " (this reader knows version 1)");
    }

    // Header lines up to and including `count`; returns the count.
    std::uint64_t parse_header() {
        while (next_line()) {
            const std::string_view keyword = words()[0];
            if (keyword == "count") return parse_count();
            if (keyword == "shading") {
                parse_shading();
            } else if (keyword == "background") {
                parse_background();
            } else if (keyword == "size") {
                parse_size();
            } else {
                float value;
                bool overflow;
                if (parse_float(keyword, &value, &overflow))
                    fail("circle line before the 'count' line (the header must end with 'count N')");
                fail("unknown keyword " + quoted(keyword) + " (expected shading, background, size or count)");
            }
        }
        fail_without_line("missing 'count' line (the header must end with 'count N')");
    }

    // Each header keyword may appear once: a second one is more likely a mistake than an override.
    void mark_seen(std::size_t* first_line) {
        if (*first_line != 0)
            fail("duplicate '" + std::string(words()[0]) + "' line (first on line " + std::to_string(*first_line) +
                 ")");
        *first_line = lines_.number();
    }

    void parse_shading() {
        mark_seen(&shading_line_);
        const auto& w = words();
        if (w.size() == 2 && w[1] == "flat") {
            scene_.shading = kShadingFlat;
        } else if (w.size() == 2 && w[1] == "snow") {
            scene_.shading = kShadingSnow;
        } else {
            fail("shading must be 'flat' or 'snow'");
        }
    }

    void parse_background() {
        mark_seen(&background_line_);
        const auto& w = words();
        if (w.size() == 2 && w[1] == "white") {
            scene_.background = {kBackgroundWhite, 1.0f, 1.0f, 1.0f};
        } else if (w.size() == 2 && w[1] == "snow-gradient") {
            scene_.background = {kBackgroundSnowGradient, 1.0f, 1.0f, 1.0f};
        } else if (w.size() == 4) {
            const float rgb[3] = {parse_number(w[1], "background R"), parse_number(w[2], "background G"),
                                  parse_number(w[3], "background B")};
            for (const float channel : rgb)
                if (!std::isfinite(channel)) fail("the background colour must be finite");
            scene_.background = {kBackgroundSolid, rgb[0], rgb[1], rgb[2]};
        } else {
            fail("background must be 'white', 'snow-gradient' or three numbers R G B");
        }
    }

    void parse_size() {
        mark_seen(&size_line_);
        const auto& w = words();
        std::uint64_t width = 0, height = 0;
        if (w.size() != 3 || !parse_whole_number(w[1], &width) || !parse_whole_number(w[2], &height) || width < 1 ||
            width > kMaxImageSide || height < 1 || height > kMaxImageSide)
            fail("size needs a width and a height, whole numbers from 1 to " + std::to_string(kMaxImageSide));
        scene_.default_width = static_cast<int>(width);
        scene_.default_height = static_cast<int>(height);
    }

    std::uint64_t parse_count() {
        const auto& w = words();
        std::uint64_t count = 0;
        if (w.size() != 2 || !parse_whole_number(w[1], &count)) fail("count needs one whole number");
        count_line_ = lines_.number();
        // Checked before anything is reserved: the count comes from the file and may be absurd.
        const std::uint64_t capacity = known_bytes_ / kMinCircleLineBytes + 1;
        if (known_bytes_ != 0 && count > capacity)
            fail("count " + std::string(w[1]) + " cannot fit: a file of " + std::to_string(known_bytes_) +
                 " bytes holds at most " + std::to_string(capacity) + " circle lines");
        if (count > kMaxCircles)
            fail("count " + std::string(w[1]) + " is more than the " + std::to_string(kMaxCircles) +
                 " circles a scene may hold");
        return count;
    }

    float parse_number(std::string_view word, const char* field) const {
        float value;
        bool overflow;
        if (!parse_float(word, &value, &overflow)) fail(quoted(word) + " is not a number");
        if (overflow) fail(quoted(word) + " is too large for a float (field " + field + ")");
        return value;
    }

    void parse_circles(std::uint64_t count) {
        while (next_line()) {
            if (scene_.size() == count) fail("more circle lines than count " + std::to_string(count));
            make_room(count);
            scene_.push_back(parse_circle());
        }
        if (scene_.size() != count)
            fail("the file ends after " + plural(scene_.size(), "circle line") + " but count is " +
                 std::to_string(count) + " (line " + std::to_string(count_line_) + ")");
    }

    // Grows the arrays as circle lines arrive, never past the count: memory follows what the file
    // holds, so a stream that promises many circles and stops (or a pipe, whose length is unknown)
    // costs only what it delivered.
    void make_room(std::uint64_t count) {
        if (scene_.size() < scene_.x.capacity()) return;
        const std::uint64_t wanted = std::max<std::uint64_t>(2 * std::uint64_t(scene_.size()), 4096);
        try {
            scene_.reserve(static_cast<std::size_t>(std::min(count, wanted)));
        } catch (const std::bad_alloc&) {
            fail("out of memory after " + plural(scene_.size(), "circle") + " of the " + std::to_string(count) +
                 " the count declares");
        }
    }

    Circle parse_circle() const {
        const auto& w = words();
        if (w.size() != 8) fail("expected 8 numbers (x y z radius r g b a), found " + std::to_string(w.size()));
        float v[8];
        for (int i = 0; i < 8; ++i) v[i] = parse_number(w[i], kFieldNames[i]);
        const Circle circle{v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]};
        const std::string problem = circle_problem(circle);
        if (!problem.empty()) fail(problem);
        return circle;
    }

    LineReader& lines_;
    const std::uint64_t known_bytes_;
    const std::string& source_;
    Scene scene_;
    std::size_t count_line_ = 0;
    std::size_t shading_line_ = 0, background_line_ = 0, size_line_ = 0;  // 0 = not seen yet
};

// The longest %.9g of a float is 15 characters ("-1.17549435e-38").
constexpr std::size_t kMaxFloatText = 16;

// Writes `values` as %.9g separated by single spaces, then `end`. to_chars(general, 9) is defined to
// print exactly what printf's %.9g prints, and is several times faster, which counts for millions of circles.
template <std::size_t N>
void append_floats(std::string& text, const float (&values)[N], char end) {
    char line[N * (kMaxFloatText + 1)];
    char* out = line;
    for (std::size_t i = 0; i < N; ++i) {
        out = std::to_chars(out, out + kMaxFloatText, values[i], std::chars_format::general, 9).ptr;
        *out++ = i + 1 < N ? ' ' : end;
    }
    text.append(line, out);
}

void append_background(std::string& text, const BackgroundParams& background) {
    text += "background ";
    if (background.kind == kBackgroundWhite) {
        text += "white\n";
    } else if (background.kind == kBackgroundSnowGradient) {
        text += "snow-gradient\n";
    } else {
        append_floats(text, {background.r, background.g, background.b}, '\n');
    }
}

// ---------------------------------------------------------------------------------------------
// Binary

template <typename T>
void put(unsigned char* header, std::size_t offset, T value) {
    std::memcpy(header + offset, &value, sizeof value);
}

template <typename T>
T get(const unsigned char* header, std::size_t offset) {
    T value;
    std::memcpy(&value, header + offset, sizeof value);
    return value;
}

// Field by field rather than one struct, so no compiler padding can reach the file.
void encode_header(const Scene& scene, unsigned char* header) {
    std::memcpy(header, kBinaryMagic, sizeof kBinaryMagic);
    put<std::uint32_t>(header, kVersionOffset, kBinaryVersion);
    put<std::uint32_t>(header, kShadingOffset, static_cast<std::uint32_t>(scene.shading));
    put<std::uint32_t>(header, kBackgroundKindOffset, static_cast<std::uint32_t>(scene.background.kind));
    put<float>(header, kBackgroundRgbOffset, scene.background.r);
    put<float>(header, kBackgroundRgbOffset + 4, scene.background.g);
    put<float>(header, kBackgroundRgbOffset + 8, scene.background.b);
    put<std::int32_t>(header, kWidthOffset, scene.default_width);
    put<std::int32_t>(header, kHeightOffset, scene.default_height);
    put<std::uint64_t>(header, kCountOffset, scene.size());
}

// Codes beyond int's range become -1, which header_problem reports as unknown.
int code_from(std::uint32_t code) { return code > INT32_MAX ? -1 : static_cast<int>(code); }

struct FileCloser {
    void operator()(std::FILE* file) const { std::fclose(file); }
};
using FilePointer = std::unique_ptr<std::FILE, FileCloser>;

[[noreturn]] void fail_to_read(const std::string& path, int error) {
    throw InputError("cannot read '" + path + "': " + std::strerror(error ? error : EIO));
}

std::size_t read_up_to(std::FILE* file, void* buffer, std::size_t size, const std::string& path) {
    const std::size_t got = std::fread(buffer, 1, size, file);
    if (got < size && std::ferror(file)) fail_to_read(path, errno);
    return got;
}

// `header` holds the first kHeaderBytes of the file, whose magic has been recognised.
Scene read_binary_scene(std::FILE* file, const unsigned char* header, const std::string& path) {
    const auto fail = [&](const std::string& what) { throw InputError(path + ": " + what); };
    struct stat info;
    if (fstat(fileno(file), &info) != 0) fail_to_read(path, errno);
    if (!S_ISREG(info.st_mode)) fail("a binary scene must be a regular file (its size is checked against its count)");
    const std::uint64_t file_size = static_cast<std::uint64_t>(info.st_size);
    if (file_size < kHeaderBytes) fail("truncated binary scene: the header alone needs 48 bytes");

    const std::uint32_t version = get<std::uint32_t>(header, kVersionOffset);
    if (version != kBinaryVersion)
        fail("unsupported binary scene version " + std::to_string(version) + " (this reader knows version 1)");
    Scene scene;
    scene.shading = static_cast<ShadingKind>(code_from(get<std::uint32_t>(header, kShadingOffset)));
    scene.background.kind = static_cast<BackgroundKind>(code_from(get<std::uint32_t>(header, kBackgroundKindOffset)));
    scene.background.r = get<float>(header, kBackgroundRgbOffset);
    scene.background.g = get<float>(header, kBackgroundRgbOffset + 4);
    scene.background.b = get<float>(header, kBackgroundRgbOffset + 8);
    scene.default_width = get<std::int32_t>(header, kWidthOffset);
    scene.default_height = get<std::int32_t>(header, kHeightOffset);
    const std::string problem = header_problem(scene);
    if (!problem.empty()) fail(problem);
    // The colour is stored whatever the kind, but only a solid background has one: give the others
    // the text reader's (1, 1, 1), so the scene is the same whichever form it was read from.
    if (scene.background.kind != kBackgroundSolid) scene.background.r = scene.background.g = scene.background.b = 1.0f;

    // The size must match the count exactly, and is checked before the count sizes any allocation.
    const std::uint64_t count = get<std::uint64_t>(header, kCountOffset);
    const std::uint64_t payload = file_size - kHeaderBytes;
    if (count > payload / kBytesPerCircle)
        fail("truncated binary scene: the header says " + std::to_string(count) + " circles but the file (" +
             std::to_string(file_size) + " bytes) has room for " + std::to_string(payload / kBytesPerCircle));
    if (payload != count * kBytesPerCircle)
        fail(std::to_string(payload - count * kBytesPerCircle) + " stray bytes after the last of " +
             std::to_string(count) + " circles");
    if (count > kMaxCircles)
        fail("the header says " + std::to_string(count) + " circles, more than the " + std::to_string(kMaxCircles) +
             " a scene may hold");

    try {
        scene.resize(count);
    } catch (const std::bad_alloc&) {
        fail("out of memory for its " + plural(count, "circle"));
    }
    for (const auto field : kFields) {
        if (read_up_to(file, (scene.*field).data(), count * sizeof(float), path) != count * sizeof(float))
            fail("the file ended early (was it changed while being read?)");
    }
    validate_scene(scene, path);
    return scene;
}

void write_binary_scene(const Scene& scene, std::FILE* file) {
    unsigned char header[kHeaderBytes] = {};
    encode_header(scene, header);
    write_bytes(file, header, sizeof header);
    for (const auto field : kFields) write_bytes(file, (scene.*field).data(), scene.size() * sizeof(float));
}

}  // namespace

Scene parse_scene_text(const std::string& text, const std::string& source_name) {
    LineReader lines(text);
    return TextSceneParser(lines, text.size(), source_name).parse();
}

std::string format_scene_text(const Scene& scene) {
    require_equal_field_sizes(scene);
    std::string text = "circlescene 1\nshading ";
    text += scene.shading == kShadingSnow ? "snow\n" : "flat\n";
    append_background(text, scene.background);
    if (scene.default_width > 0)
        text += "size " + std::to_string(scene.default_width) + " " + std::to_string(scene.default_height) + "\n";
    text += "count " + std::to_string(scene.size()) + "\n";

    text.reserve(text.size() + scene.size() * 80);
    for (std::size_t i = 0; i < scene.size(); ++i) {
        append_floats(
            text, {scene.x[i], scene.y[i], scene.z[i], scene.radius[i], scene.r[i], scene.g[i], scene.b[i], scene.a[i]},
            '\n');
    }
    return text;
}

Scene read_scene_file(const std::string& path) {
    const bool from_stdin = path == kStandardStream;
    const std::string name = from_stdin ? "<stdin>" : path;
    FilePointer opened(from_stdin ? nullptr : std::fopen(path.c_str(), "rb"));
    if (!from_stdin && !opened) fail_to_read(name, errno);
    std::FILE* const file = from_stdin ? stdin : opened.get();
    // A text scene may be shorter than the binary header: read what there is, then decide.
    unsigned char start[kHeaderBytes];
    const std::size_t got = read_up_to(file, start, sizeof start, name);
    if (got >= sizeof kBinaryMagic && std::memcmp(start, kBinaryMagic, sizeof kBinaryMagic) == 0)
        return read_binary_scene(file, start, name);

    struct stat info;
    const bool regular = fstat(fileno(file), &info) == 0 && S_ISREG(info.st_mode);
    LineReader lines(file, std::string_view(reinterpret_cast<const char*>(start), got), name);
    return TextSceneParser(lines, regular ? static_cast<std::uint64_t>(info.st_size) : 0, name).parse();
}

void check_scene_extension(const std::string& path) {
    if (!ends_with_ignoring_case(path, ".scene") && !ends_with_ignoring_case(path, ".tsb"))
        throw InputError("cannot write '" + printable(path) +
                         "': a scene file's name ends in .scene (text) or .tsb (binary)");
}

void write_scene_file(const Scene& scene, const std::string& path) {
    require_equal_field_sizes(scene);
    const std::string where = "cannot write '" + path + "'";
    const std::string problem = header_problem(scene);
    if (!problem.empty()) throw InputError(where + ": " + problem);
    validate_scene(scene, where);

    if (ends_with_ignoring_case(path, ".tsb")) {
        write_file_atomically(path, [&](std::FILE* file) { write_binary_scene(scene, file); });
    } else {
        const std::string text = format_scene_text(scene);
        write_file_atomically(path, [&](std::FILE* file) { write_bytes(file, text.data(), text.size()); });
    }
}

}  // namespace tilescan
