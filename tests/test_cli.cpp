// The `tilescan` command end to end: rendering, frame sequences, scenegen round trips, diff exit
// codes, and every class of bad input giving one line naming what and where, exit code 2, and no
// output file left behind.
#include <catch2/catch.hpp>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>

#include "renderer/image_io.h"
#include "renderer/scene_io.h"
#include "scenes/builtin_scenes.h"
#include "test_support.h"

using namespace tilescan;
using namespace tilescan::testing;

namespace {

const char* const kHeader = "circlescene 1\ncount 2\n";
const char* const kGoodLine = "0.5 0.5 0 0.25 1 0 0 0.5\n";

// Checks the bad-input contract: exit 2, a single "tilescan: error:" line mentioning `expected`.
void check_rejected(const std::string& arguments, const std::string& expected) {
    INFO("tilescan " << arguments);
    const CommandResult result = run_cli(arguments);
    INFO(result.output);
    CHECK(result.exit_code == 2);
    CHECK(result.output.rfind("tilescan: error: ", 0) == 0);
    CHECK(result.output.find('\n') == result.output.size() - 1);
    CHECK(result.output.find(expected) != std::string::npos);
}

}  // namespace

TEST_CASE("render writes a PNG of a built-in scene and of a scene file", "[cli]") {
    const std::string dir = scratch_dir("cli_render");
    CHECK(run_cli("render rgb --size 64 -q -o " + dir + "/rgb.png").exit_code == 0);
    const Image image = read_image(dir + "/rgb.png");
    CHECK((image.width == 64 && image.height == 64));
    write_text(dir + "/one.scene", "circlescene 1\nsize 40 30\ncount 1\n0.5 0.5 0 0.25 1 0 0 0.5\n");
    CHECK(run_cli("render " + dir + "/one.scene -q -o " + dir + "/one.png").exit_code == 0);
    const Image sized = read_image(dir + "/one.png");
    CHECK((sized.width == 40 && sized.height == 30));  // the file's `size` line
}

TEST_CASE("scenegen writes a scene that renders to the same bits as the built-in", "[cli]") {
    const std::string dir = scratch_dir("cli_scenegen");
    for (const std::string name : {"rgby", "hypnosis", "fireworks"}) {
        REQUIRE(run_cli("scenegen " + name + " -q -o " + dir + "/" + name + ".scene").exit_code == 0);
        REQUIRE(run_cli("scenegen " + name + " -q -o " + dir + "/" + name + ".tsb").exit_code == 0);
        REQUIRE(run_cli("render " + name + " --size 96x64 -q -o " + dir + "/builtin.f32").exit_code == 0);
        REQUIRE(run_cli("render " + dir + "/" + name + ".scene --size 96x64 -q -o " + dir + "/text.f32").exit_code ==
                0);
        REQUIRE(run_cli("render " + dir + "/" + name + ".tsb --size 96x64 -q -o " + dir + "/binary.f32").exit_code ==
                0);
        CHECK(run_cli("diff --size 96x64 " + dir + "/builtin.f32 " + dir + "/text.f32").exit_code == 0);
        CHECK(run_cli("diff --size 96x64 " + dir + "/builtin.f32 " + dir + "/binary.f32").exit_code == 0);
    }
}

TEST_CASE("--frames writes a numbered sequence of an animated scene", "[cli]") {
    const std::string dir = scratch_dir("cli_frames");
    const CommandResult result = run_cli("render bouncingballs --frames 3 --size 32 --json -o " + dir + "/ball.png");
    CHECK(result.exit_code == 0);
    CHECK(result.output.find("\"frame\":2") != std::string::npos);
    for (const char* frame : {"0000", "0001", "0002"}) CHECK(file_exists(dir + "/ball_" + frame + ".png"));
    CHECK_FALSE(file_exists(dir + "/ball_0003.png"));
    // The balls move: frames differ.
    CHECK(run_cli("diff " + dir + "/ball_0000.png " + dir + "/ball_0002.png").exit_code == 1);
}

TEST_CASE("render --stats prints a stage table: one header while the stages stay the same", "[cli]") {
    const std::string dir = scratch_dir("cli_stats");
    const CommandResult result =
        run_cli("render bouncingballs --backend cpu --frames 3 --size 48 --stats -q -o " + dir + "/ball.png");
    INFO(result.output);
    CHECK(result.exit_code == 0);
    const auto count = [&](const std::string& text) {
        std::size_t n = 0;
        for (std::size_t at = result.output.find(text); at != std::string::npos; at = result.output.find(text, at + 1))
            ++n;
        return n;
    };
    CHECK(count("cull+count") == 1);  // the header, once: every frame has the same stages
    CHECK(count("\n2 ") == 1);        // the last frame's row
}

TEST_CASE("--resume keeps finished frames and renders the missing ones exactly", "[cli]") {
    const std::string dir = scratch_dir("cli_resume");
    REQUIRE(run_cli("render bouncingballs --frames 4 --size 40 -q -o " + dir + "/full.f32").exit_code == 0);
    // A run stopped after two frames.
    for (const char* frame : {"0000", "0001"})
        std::filesystem::copy_file(dir + "/full_" + std::string(frame) + ".f32",
                                   dir + "/resumed_" + std::string(frame) + ".f32");
    const auto kept_time = std::filesystem::last_write_time(dir + "/resumed_0001.f32");
    const CommandResult resumed =
        run_cli("render bouncingballs --frames 4 --size 40 --resume -o " + dir + "/resumed.f32");
    CHECK(resumed.exit_code == 0);
    CHECK(resumed.output.find("kept 2 frames") != std::string::npos);
    CHECK(std::filesystem::last_write_time(dir + "/resumed_0001.f32") == kept_time);  // not written again
    // The animation still advanced through the kept frames: the new ones equal an unbroken run.
    for (const char* frame : {"0000", "0001", "0002", "0003"})
        CHECK(file_text(dir + "/resumed_" + std::string(frame) + ".f32") ==
              file_text(dir + "/full_" + std::string(frame) + ".f32"));
}

TEST_CASE("--resume refuses a kept frame that is not a whole image of this size", "[cli][errors]") {
    const std::string dir = scratch_dir("cli_resume_checks");
    REQUIRE(run_cli("render bouncingballs --frames 2 --size 32 -q -o " + dir + "/f.png").exit_code == 0);
    const std::string whole = file_text(dir + "/f_0001.png");
    write_text(dir + "/f_0001.png", whole.substr(0, whole.size() / 2));  // truncated
    check_rejected("render bouncingballs --frames 3 --size 32 --resume -o " + dir + "/f.png",
                   "--resume: cannot keep '" + dir + "/f_0001.png'");
    CHECK_FALSE(file_exists(dir + "/f_0002.png"));  // refused before any rendering
    write_text(dir + "/f_0001.png", whole);
    check_rejected("render bouncingballs --frames 3 --size 64 --resume -o " + dir + "/f.png",
                   "--resume: '" + dir + "/f_0000.png' is 32x32 but this run renders 64x64");
    CHECK_FALSE(file_exists(dir + "/f_0002.png"));
    // A sequence of more than 10,000 frames numbers them with five digits, so the names sort in order.
    write_text(dir + "/g_00000.png", "not an image");
    check_rejected("render bouncingballs --frames 10001 --size 8 --resume -o " + dir + "/g.png",
                   "cannot keep '" + dir + "/g_00000.png'");
}

TEST_CASE("diff: exit 0 within tolerance, 1 outside, heat map on request", "[cli]") {
    const std::string dir = scratch_dir("cli_diff");
    REQUIRE(run_cli("render rgb --size 48 -q -o " + dir + "/a.png").exit_code == 0);
    REQUIRE(run_cli("render rgby --size 48 -q -o " + dir + "/b.png").exit_code == 0);
    CHECK(run_cli("diff " + dir + "/a.png " + dir + "/a.png").exit_code == 0);
    const CommandResult different = run_cli("diff " + dir + "/a.png " + dir + "/b.png -o " + dir + "/heat.png");
    CHECK(different.exit_code == 1);
    CHECK(different.output.find("differing pixels") != std::string::npos);
    CHECK(different.output.find("first difference") != std::string::npos);
    CHECK(file_exists(dir + "/heat.png"));
    CHECK(run_cli("diff " + dir + "/a.png " + dir + "/b.png --tolerance 2").exit_code == 0);
    REQUIRE(run_cli("render rgb --size 40 -q -o " + dir + "/small.png").exit_code == 0);
    check_rejected("diff " + dir + "/a.png " + dir + "/small.png", "is 48x48 but");
}

TEST_CASE("bad scene files: one line naming file and line, exit 2, no output", "[cli][errors]") {
    const std::string dir = scratch_dir("cli_bad_files");
    const std::string out = dir + "/out.png";
    const struct {
        const char* file;
        std::string text;
        const char* expected;
    } cases[] = {
        {"number.scene", std::string(kHeader) + kGoodLine + "0.5 0.5 0 abc 1 0 0 0.5\n", "number.scene:4"},
        {"nan.scene", std::string(kHeader) + kGoodLine + "0.5 nan 0 0.25 1 0 0 0.5\n", "nan.scene:4"},
        {"inf.scene", std::string(kHeader) + "0.5 0.5 0 0.25 inf 0 0 0.5\n" + kGoodLine, "inf.scene:3"},
        {"radius.scene", std::string(kHeader) + kGoodLine + "0.5 0.5 0 -0.25 1 0 0 0.5\n", "radius.scene:4"},
        {"alpha.scene", std::string(kHeader) + kGoodLine + "0.5 0.5 0 0.25 1 0 0 1.5\n", "alpha.scene:4"},
        {"fields.scene", std::string(kHeader) + kGoodLine + "0.5 0.5 0 0.25 1 0 0\n", "fields.scene:4"},
        {"few.scene", std::string(kHeader) + kGoodLine, "few.scene"},
        {"many.scene", std::string(kHeader) + kGoodLine + kGoodLine + kGoodLine, "many.scene:5"},
        {"keyword.scene", "circlescene 1\nshine flat\ncount 0\n", "keyword.scene:2"},
        {"magic.scene", "hello\n", "magic.scene:1"},
        {"count.scene", "circlescene 1\ncount 99999999999999\n" + std::string(kGoodLine), "count.scene"},
    };
    for (const auto& c : cases) {
        write_text(dir + "/" + c.file, c.text);
        check_rejected("render " + dir + "/" + c.file + " -o " + out, c.expected);
        CHECK_FALSE(file_exists(out));
    }
    check_rejected("render " + dir + "/missing.scene -o " + out, "missing.scene");
    CHECK_FALSE(file_exists(out));
}

TEST_CASE("bad arguments: one line, exit 2, no output", "[cli][errors]") {
    const std::string dir = scratch_dir("cli_bad_arguments");
    const std::string out = " -o " + dir + "/out.png";
    check_rejected("render rgb --bogus" + out, "unknown option '--bogus'");
    check_rejected("render nosuchscene" + out, "nosuchscene");
    check_rejected("render rgb --size 0" + out, "--size");
    check_rejected("render rgb --size -5" + out, "--size");
    check_rejected("render rgb --size 100000x100000" + out, "too large");
    check_rejected("render rgb --size 20000x20000" + out, "too large");
    check_rejected("render rgb --size abc" + out, "--size");
    check_rejected("render rgb --frames 0" + out, "--frames");
    check_rejected("render rgb --seed x" + out, "--seed");
    check_rejected("render rgb --backend warp" + out, "warp");
    check_rejected("render rgb --binning foo" + out, "unknown binning 'foo' (known: scan, sort, naive)");
    check_rejected("render rgb --backend cpu --binning sort" + out, "--binning sort applies to the cuda backend only");
    check_rejected("render rgb --size", "needs a value");
    CHECK_FALSE(file_exists(dir + "/out.png"));
    check_rejected("render rgb -o " + dir + "/no/such/folder/out.png", "does not exist");
    check_rejected("render rgb -o ''", "--output: the file name is empty");
    check_rejected("render rgb -o --size 32", "option '-o' needs a value (FILE), but the option '--size' follows it");
    write_text(dir + "/plain", "a file");
    check_rejected("render rgb -o " + dir + "/plain/out.png", "'" + dir + "/plain' is a file, not a folder");
    check_rejected("render rgb -o " + dir + "/out.tiff", "tiff");
    CHECK_FALSE(file_exists(dir + "/out.tiff"));
    check_rejected("frobnicate", "unknown command");
    check_rejected("scenegen nosuchscene -o " + dir + "/x.scene", "nosuchscene");
    CHECK_FALSE(file_exists(dir + "/x.scene"));
}

TEST_CASE("--max-bin-memory: banded renders are exact, bad budgets are one line and exit 2", "[cli][bands]") {
    const std::string dir = scratch_dir("cli_max_bin_memory");
    REQUIRE(run_cli("render rand10k --size 160x96 --backend cpu -q -o " + dir + "/whole.f32").exit_code == 0);
    for (const char* budget : {"70000", "64K", "64KiB", "64kb", "1G"}) {
        INFO("--max-bin-memory " << budget);
        const CommandResult banded =
            run_cli("render rand10k --size 160x96 --backend cpu --json --max-bin-memory=" + std::string(budget) +
                    " -o " + dir + "/banded.f32");
        REQUIRE(banded.exit_code == 0);
        const bool split = std::string(budget) != "1G";
        CHECK((banded.output.find("\"bands\":1,") == std::string::npos) == split);
        CHECK(run_cli("diff --size 160x96 " + dir + "/whole.f32 " + dir + "/banded.f32").exit_code == 0);
    }
    const std::string out = " -o " + dir + "/out.png";
    for (const char* bad : {"0", "-5", "12Q", "1.5G", "64MBB", "M", "", "2000000000000T", "99999999999999999999"})
        check_rejected("render rgb --size 32 --max-bin-memory=" + std::string(bad) + out, "--max-bin-memory");
    check_rejected("render rand10k --size 160x96 --backend cpu --max-bin-memory 1K" + out,
                   "more than the bin-memory budget of 1.0 KiB (--max-bin-memory");
    CHECK_FALSE(file_exists(dir + "/out.png"));
    check_rejected("view rgb --max-bin-memory 7X", "--max-bin-memory");
    check_rejected("bench --max-bin-memory 7X", "--max-bin-memory");
    for (const char* bad : {"3", "8", "0", "x"})
        check_rejected("bench --shade-pixels " + std::string(bad), "--shade-pixels");
    for (const char* bad : {"recomputed", "READ", ""})
        check_rejected("bench --shade-boxes " + std::string(bad), "--shade-boxes");
    for (const char* bad : {"automatic", "sort", "PAIRS"})
        check_rejected("bench --scan-path " + std::string(bad),
                       "--scan-path: unknown scan binning path '" + std::string(bad) + "'");
}

TEST_CASE("bench times scene files beside built-ins; scenegen --circles writes sizes between them", "[cli]") {
    const std::string dir = scratch_dir("cli_bench_files");
    REQUIRE(run_cli("scenegen rgby -q -o " + dir + "/mine.scene").exit_code == 0);
    const CommandResult result = run_cli("bench --quick --repeats 1 --scenes " + dir + "/mine.scene,rgb --out " + dir);
    INFO(result.output);
    CHECK(result.exit_code == 0);
    std::ifstream table(dir + "/render_bench.md");
    const std::string text((std::istreambuf_iterator<char>(table)), std::istreambuf_iterator<char>());
    CHECK(text.find("| mine | 1024 | 4 |") != std::string::npos);  // the file's stem, its four circles
    CHECK(text.find("| rgb | 1024 | 3 |") != std::string::npos);
    // scenegen --circles: the first N circles of a built-in, for sizes between the built-ins.
    REQUIRE(run_cli("scenegen rand10k --circles 3000 -q -o " + dir + "/r3000.tsb").exit_code == 0);
    const Scene prefix = read_scene_file(dir + "/r3000.tsb");
    Scene expected = make_builtin_scene("rand10k", 0).scene;
    expected.resize(3000);
    CHECK(prefix == expected);
    check_rejected("scenegen rgb --circles 4 -o " + dir + "/four.scene", "--circles 4: rgb has only 3 circles");
    CHECK_FALSE(file_exists(dir + "/four.scene"));
    write_text(dir + "/bad.scene", std::string(kHeader) + kGoodLine);  // count 2, one circle line
    check_rejected("bench --quick --scenes rgb," + dir + "/bad.scene", "bad.scene");
    check_rejected("bench --quick --scenes nosuch", "'nosuch' is neither a scene file nor a built-in scene");
}

TEST_CASE("a binary scene of more than 2^32-1 circles is refused before allocating", "[cli][errors]") {
    const std::string dir = scratch_dir("cli_circle_limit");
    std::string header(48, '\0');
    const unsigned char magic[8] = {0x54, 0x53, 0x43, 0x45, 0x4E, 0x45, 0x00, 0xFF};
    header.replace(0, 8, reinterpret_cast<const char*>(magic), 8);
    header[8] = 1;   // version
    header[44] = 1;  // count = 2^32, little-endian
    const std::string path = dir + "/huge.tsb";
    write_text(path, header);
    // A sparse file of the size that count needs (137 GB that take no disk), so only the limit is wrong.
    std::filesystem::resize_file(path, 48 + 32 * (std::uintmax_t(1) << 32));
    check_rejected("render " + path + " -o " + dir + "/huge.png", "more than the 4294967295 a scene may hold");
    CHECK_FALSE(file_exists(dir + "/huge.png"));
    std::filesystem::remove(path);
}

TEST_CASE("every subcommand has --help", "[cli]") {
    for (const char* command : {"render", "scenegen", "diff"}) {
        const CommandResult result = run_cli(std::string(command) + " --help");
        CHECK(result.exit_code == 0);
        CHECK(result.output.find("Usage: tilescan") != std::string::npos);
    }
    CHECK(run_cli("--help").exit_code == 0);
}

TEST_CASE("paths that cannot be used are bad input: exit 2, one line naming the path", "[cli][errors]") {
    const std::string dir = scratch_dir("cli_bad_paths");
    std::filesystem::create_symlink("loop", dir + "/loop");
    check_rejected("render " + dir + "/loop -o " + dir + "/out.png", "cannot read '" + dir + "/loop': Too many levels");
    check_rejected("bench --quick --scenes " + dir + "/loop", "'" + dir + "/loop'");
    check_rejected("view " + dir + "/loop", "cannot read '" + dir + "/loop': Too many levels");
    check_rejected("render rgb -o " + dir + "/loop/out.png", "'" + dir + "/loop': Too many levels");
    const std::string long_name = dir + "/" + std::string(300, 'a') + ".scene";
    check_rejected("render " + long_name + " -o " + dir + "/out.png", "File name too long");
    check_rejected("render rgb -o " + dir + "/" + std::string(300, 'a') + ".png", "File name too long");
    check_rejected("render " + dir + " -o " + dir + "/out.png", "Is a directory");
    CHECK(std::distance(std::filesystem::directory_iterator(dir), std::filesystem::directory_iterator()) == 1);
}

TEST_CASE("a built-in scene's name always means the built-in; ./NAME means the file", "[cli]") {
    const std::string dir = scratch_dir("cli_scene_names");
    std::filesystem::create_directory(dir + "/rand10k");
    write_text(dir + "/rgb", "circlescene 1\ncount 0\n");  // a file named like a built-in
    // The names are resolved in the working folder, so the commands run there.
    const std::filesystem::path previous = std::filesystem::current_path();
    std::filesystem::current_path(dir);
    const int in_folder = run_cli("render rand10k --size 16 -q -o rand10k/out.png").exit_code;
    const int builtin = run_cli("render rgb --size 16 -q -o builtin.png").exit_code;
    const int file = run_cli("render ./rgb --size 16 -q -o file.png").exit_code;
    std::filesystem::current_path(previous);
    CHECK(in_folder == 0);
    CHECK(builtin == 0);
    CHECK(file == 0);
    CHECK(run_cli("diff " + dir + "/builtin.png " + dir + "/file.png").exit_code == 1);  // rgb has circles
    CHECK(run_cli("render --help").output.find("always the built-in") != std::string::npos);
}

TEST_CASE("-o through a symbolic link writes the file it names and keeps its mode", "[cli]") {
    const std::string dir = scratch_dir("cli_output_link");
    REQUIRE(run_cli("render rgb --size 16 -q -o " + dir + "/target.png").exit_code == 0);
    std::filesystem::permissions(dir + "/target.png",
                                 std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
    std::filesystem::create_symlink("target.png", dir + "/link.png");
    REQUIRE(run_cli("render rgby --size 16 -q -o " + dir + "/link.png").exit_code == 0);
    CHECK(std::filesystem::is_symlink(dir + "/link.png"));
    CHECK(std::filesystem::status(dir + "/target.png").permissions() ==
          (std::filesystem::perms::owner_read | std::filesystem::perms::owner_write));
    REQUIRE(run_cli("render rgby --size 16 -q -o " + dir + "/direct.png").exit_code == 0);
    CHECK(file_text(dir + "/target.png") == file_text(dir + "/direct.png"));
}

TEST_CASE("diff: equal bits are equal (NaN, infinity), the JSON stays JSON, the output is no input", "[cli]") {
    const std::string dir = scratch_dir("cli_diff_special");
    // 2x2 raw RGBA float: a NaN and an infinity in the first pixel.
    const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
    const float special[16] = {nan, inf, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
    const float plain[16] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
    write_text(dir + "/special.f32", std::string(reinterpret_cast<const char*>(special), sizeof special));
    write_text(dir + "/plain.f32", std::string(reinterpret_cast<const char*>(plain), sizeof plain));
    const CommandResult same = run_cli("diff " + dir + "/special.f32 " + dir + "/special.f32");
    CHECK(same.exit_code == 0);
    CHECK(same.output.find("differing pixels    0 of 4") != std::string::npos);
    const CommandResult json = run_cli("diff --json " + dir + "/special.f32 " + dir + "/plain.f32");
    CHECK(json.exit_code == 1);
    CHECK(json.output.find("\"max_abs_difference\":null,") != std::string::npos);
    CHECK(json.output.find("inf") == std::string::npos);
    CHECK(json.output.find("nan") == std::string::npos);
    const std::string before = file_text(dir + "/plain.f32");
    check_rejected("diff " + dir + "/special.f32 " + dir + "/plain.f32 -o " + dir + "/plain.f32",
                   "is the input '" + dir + "/plain.f32'");
    CHECK(file_text(dir + "/plain.f32") == before);
}

TEST_CASE("scenegen writes only scene file names; idle options are refused", "[cli][errors]") {
    const std::string dir = scratch_dir("cli_idle_options");
    for (const char* name : {"x.png", "x", "x.txt"}) {
        check_rejected("scenegen rgb -o " + dir + "/" + name, "a scene file's name ends in .scene (text) or .tsb");
        CHECK_FALSE(file_exists(dir + "/" + name));
    }
    check_rejected("scenegen rgb --frame 2 -o " + dir + "/x.scene", "--frame 2: rgb is a still scene");
    check_rejected("render rgb --backend ref --threads 2 -o " + dir + "/x.png", "--threads applies to the cpu backend");
    write_text(dir + "/one.scene", "circlescene 1\ncount 1\n0.5 0.5 0 0.25 1 0 0 0.5\n");
    check_rejected("render " + dir + "/one.scene --seed 3 -o " + dir + "/x.png", "--seed applies to built-in scenes");
    check_rejected("view " + dir + "/one.scene --seed 3", "--seed applies to built-in scenes");
    check_rejected("view -", "tilescan view reads its scene again on the r key, so not from standard input");
    CHECK(std::distance(std::filesystem::directory_iterator(dir), std::filesystem::directory_iterator()) == 1);
}

TEST_CASE("messages: line numbers, plurals, BOM and CRLF", "[cli]") {
    const std::string dir = scratch_dir("cli_messages");
    write_text(dir + "/short.scene", "circlescene 1\ncount 3\n0.5 0.5 0 0.25 1 0 0 0.5\n");
    check_rejected("render " + dir + "/short.scene -o " + dir + "/x.png",
                   "short.scene:3: the file ends after 1 circle line but count is 3 (line 2)");
    write_text(dir + "/one.scene",
               "\xef\xbb\xbf"
               "circlescene 1\r\ncount 1\r\n0.5 0.5 0 0.25 1 0 0 0.5\r\n");
    const CommandResult one = run_cli("render " + dir + "/one.scene --size 16 -o " + dir + "/one.png");
    CHECK(one.exit_code == 0);
    CHECK(one.output.find(", 1 circle)") != std::string::npos);
}

namespace {

// The whole number after "KEY": in one --json output.
std::uint64_t json_number(const std::string& json, const std::string& key) {
    const std::size_t at = json.find("\"" + key + "\":");
    if (at == std::string::npos) return std::numeric_limits<std::uint64_t>::max();
    return std::stoull(json.substr(at + key.size() + 3));
}

}  // namespace

TEST_CASE("the stats' pair buffers stay within --max-bin-memory; circle and tile arrays apart", "[cli]") {
    const std::string dir = scratch_dir("cli_memory_stats");
    const std::string render =
        "render rand10k --backend cpu --size 160x96 --max-bin-memory 64K -q -o " + dir + "/r.png";
    const CommandResult json = run_cli(render + " --json");
    INFO(json.output);
    REQUIRE(json.exit_code == 0);
    CHECK(json_number(json.output, "bands") > 1);
    CHECK(json_number(json.output, "pair_bytes") > 0);
    CHECK(json_number(json.output, "pair_bytes") <= 65536);
    CHECK(json_number(json.output, "circle_tile_bytes") > 65536);  // 10,000 circles' records, beyond the budget
    CHECK(json.output.find("work_bytes") == std::string::npos);
    const CommandResult table = run_cli(render + " --stats");
    CHECK(table.output.find(" pair MiB circle+tile MiB ") != std::string::npos);
    CHECK(run_cli("render --help").output.find("render --stats shows them as pair MiB") != std::string::npos);
}

TEST_CASE("a long render draws no progress when stderr is not a terminal", "[cli][slow]") {
    // Serial and seconds long, so that on a terminal the fraction done and the clock would show
    // (tests/hostile_inputs.py checks that on a pseudo-terminal).
    const std::string dir = scratch_dir("cli_progress");
    const CommandResult piped = run_cli("render rand100k --backend ref --size 768 -o " + dir + "/r.png");
    INFO(piped.output);
    CHECK(piped.exit_code == 0);
    CHECK(piped.output.rfind("wrote ", 0) == 0);  // the summary alone: no clock, no percent, no '\r'
    CHECK(piped.output.find('\n') == piped.output.size() - 1);
    CHECK(piped.output.find('\r') == std::string::npos);
}

TEST_CASE("--version, a scene on standard input, an image on standard output", "[cli]") {
    const std::string dir = scratch_dir("cli_standard_streams");
    const CommandResult version = run_cli("--version");
    CHECK(version.exit_code == 0);
    CHECK(version.output.rfind("tilescan ", 0) == 0);
    REQUIRE(run_cli("scenegen rgby -q -o " + dir + "/rgby.scene").exit_code == 0);
    REQUIRE(run_cli("render rgby --size 24 -q -o " + dir + "/file.png").exit_code == 0);
    CHECK(run_cli("render - --size 24 -q -o " + dir + "/stdin.png < " + dir + "/rgby.scene").exit_code == 0);
    CHECK(run_cli("render rgby --size 24 -q -o - > " + dir + "/stdout.png").exit_code == 0);
    CHECK(file_text(dir + "/stdin.png") == file_text(dir + "/file.png"));
    CHECK(file_text(dir + "/stdout.png") == file_text(dir + "/file.png"));
}

TEST_CASE("a failed write to standard output is an error", "[cli][errors]") {
    if (!std::filesystem::exists("/dev/full")) return;
    const std::string dir = scratch_dir("cli_full_stdout");
    REQUIRE(run_cli("render rgb --size 16 -q -o " + dir + "/a.png").exit_code == 0);
    // run_cli sends stderr to its pipe after the arguments; the trailing '#' keeps that redirection
    // from following stdout to /dev/full.
    for (const std::string& arguments :
         {"render rgb --size 16 --json -o " + dir + "/b.png", "diff " + dir + "/a.png " + dir + "/a.png"}) {
        const CommandResult result = run_cli(arguments + " 2>&1 >/dev/full #");
        INFO(arguments << ": " << result.output);
        CHECK(result.exit_code == 2);
        CHECK(result.output == "tilescan: error: cannot write to standard output: No space left on device\n");
    }
}
