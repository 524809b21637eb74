// Checks on output paths (see output_path.h).
#include "apps/output_path.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "renderer/errors.h"

namespace tilescan {

void check_folder(const std::string& folder, const std::string& what) {
    if (folder.empty()) return;
    struct stat info;
    const std::string quoted = "'" + printable(folder) + "'";
    if (stat(folder.c_str(), &info) != 0) {
        if (errno == ENOENT) throw InputError(what + ": folder " + quoted + " does not exist");
        if (errno == ENOTDIR) throw InputError(what + ": part of " + quoted + " is a file, not a folder");
        throw InputError(what + ": folder " + quoted + ": " + std::strerror(errno));
    }
    if (!S_ISDIR(info.st_mode)) throw InputError(what + ": " + quoted + " is a file, not a folder");
}

void check_output_folder(const std::string& output, const std::string& what) {
    if (output.empty()) throw InputError(what + ": the file name is empty");
    check_folder(std::filesystem::path(output).parent_path().string(), what + " '" + printable(output) + "'");
}

void refuse_terminal_for_image(const std::string& what) {
    if (isatty(STDOUT_FILENO))
        throw InputError(what + ": standard output is a terminal; redirect it to a file or a pipe");
}

void refuse_output_over_input(const std::string& output, const std::string& input, const std::string& what) {
    struct stat out, in;
    if (stat(output.c_str(), &out) != 0 || stat(input.c_str(), &in) != 0) return;
    if (out.st_dev == in.st_dev && out.st_ino == in.st_ino)
        throw InputError(what + " '" + printable(output) + "' is the input '" + printable(input) +
                         "': refusing to overwrite it");
}

}  // namespace tilescan
