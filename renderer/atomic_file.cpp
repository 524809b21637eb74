// Whole-or-nothing output files (see atomic_file.h).
#include "renderer/atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>

#include "renderer/errors.h"

namespace tilescan {

namespace {

// A temporary name no other writer uses: hidden, in the destination's folder (rename is atomic only
// within one file system), unique per process and per call.
std::string temporary_path_for(const std::string& path) {
    static std::atomic<unsigned> counter{0};
    const std::filesystem::path destination(path);
    const std::string name =
        "." + destination.filename().string() + ".tmp." + std::to_string(getpid()) + "." + std::to_string(counter++);
    return (destination.parent_path() / name).string();
}

// An I/O failure on the temporary file. Its own type, so that write_file_atomically tells it apart
// from exceptions of the body (which pass through untouched) and names the destination in the message.
class WriteFailure : public std::runtime_error {
public:
    explicit WriteFailure(int error) : std::runtime_error(std::strerror(error)) {}
};

[[noreturn]] void throw_errno() { throw WriteFailure(errno ? errno : EIO); }

// O_EXCL so a stale or hostile file of the same name is never reused; 0666 so the result gets the
// same permissions (through the umask) as a file created by fopen.
std::FILE* create_exclusively(const std::string& path) {
    const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0) throw_errno();
    std::FILE* file = fdopen(fd, "wb");
    if (!file) {
        const int saved = errno;
        close(fd);
        throw WriteFailure(saved);
    }
    return file;
}

// Flushes the stdio buffer and the kernel's cache: only then is a full disk certain to be noticed,
// and only then may the rename publish the file.
void flush_to_disk(std::FILE* file) {
    if (std::ferror(file)) throw_errno();
    if (std::fflush(file) != 0) throw_errno();
    if (fsync(fileno(file)) != 0) throw_errno();
}

}  // namespace

void write_bytes(std::FILE* file, const void* data, std::size_t size) {
    if (size != 0 && std::fwrite(data, 1, size, file) != size) throw_errno();
}

void write_file_atomically(const std::string& path, const std::function<void(std::FILE*)>& write_body) {
    const std::string temporary = temporary_path_for(path);
    std::FILE* file = nullptr;
    bool created = false;  // never remove a file of that name that another writer made
    const auto discard = [&] {
        if (file) std::fclose(file);
        if (created) std::remove(temporary.c_str());
    };
    try {
        file = create_exclusively(temporary);
        created = true;
        write_body(file);
        flush_to_disk(file);
        std::FILE* closing = file;
        file = nullptr;  // fclose releases the stream even when it fails
        if (std::fclose(closing) != 0) throw_errno();
        if (std::rename(temporary.c_str(), path.c_str()) != 0) throw_errno();
    } catch (const WriteFailure& failure) {
        discard();
        throw InputError("cannot write '" + path + "': " + failure.what());
    } catch (...) {
        discard();
        throw;
    }
}

}  // namespace tilescan
