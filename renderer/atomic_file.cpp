// Whole-or-nothing output files (see atomic_file.h).
#include "renderer/atomic_file.h"

#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <system_error>

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

// The temporaries being written, for the signal handler, which may neither allocate nor lock: a
// fixed table of paths, each published by its `ready` flag after the path is in place.
struct PendingTemporary {
    std::atomic<bool> claimed{false};
    std::atomic<bool> ready{false};
    char path[PATH_MAX];
};
constexpr int kPendingSlots = 16;
PendingTemporary pending_temporaries[kPendingSlots];

// Holds a temporary's path in the table while it may exist on disk. A write beyond the table's
// slots (that many at once) still works; only its cleanup on a signal is lost.
class PendingRegistration {
public:
    explicit PendingRegistration(const std::string& path) {
        if (path.size() >= PATH_MAX) return;  // open() refuses such a path anyway
        for (PendingTemporary& slot : pending_temporaries) {
            bool expected = false;
            if (!slot.claimed.compare_exchange_strong(expected, true)) continue;
            std::memcpy(slot.path, path.c_str(), path.size() + 1);
            slot.ready.store(true);
            slot_ = &slot;
            return;
        }
    }
    ~PendingRegistration() {
        if (!slot_) return;
        slot_->ready.store(false);
        slot_->claimed.store(false);
    }
    PendingRegistration(const PendingRegistration&) = delete;
    PendingRegistration& operator=(const PendingRegistration&) = delete;

private:
    PendingTemporary* slot_ = nullptr;
};

extern "C" void remove_temporaries_and_reraise(int signal_number) {
    for (PendingTemporary& slot : pending_temporaries)
        if (slot.ready.load()) unlink(slot.path);
    struct sigaction default_action {};
    default_action.sa_handler = SIG_DFL;
    sigaction(signal_number, &default_action, nullptr);
    raise(signal_number);  // delivered when the handler returns: the process ends as the signal asked
}

// Where a write to `path` lands: through a chain of symbolic links to the file they name, so that
// `-o link.png` writes where the link points (as cp and shells do) instead of replacing the link.
std::string resolve_links(const std::string& path) {
    std::filesystem::path current(path);
    for (int hops = 0; hops < 40; ++hops) {  // the kernel's own limit on links in a path
        struct stat info;
        if (lstat(current.c_str(), &info) != 0 || !S_ISLNK(info.st_mode)) return current.string();
        std::error_code error;
        const std::filesystem::path target = std::filesystem::read_symlink(current, error);
        if (error) throw WriteFailure(error.value());
        current = target.is_absolute() ? target : current.parent_path() / target;
    }
    throw WriteFailure(ELOOP);
}

// O_EXCL so a stale or hostile file of the same name is never reused; 0666 so the result gets the
// same permissions (through the umask) as a file created by fopen. A file being replaced keeps its
// permissions instead: writing an image must not widen (or narrow) who may read it.
std::FILE* create_exclusively(const std::string& path, const std::string& replacing) {
    const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0) throw_errno();
    struct stat existing;
    if (stat(replacing.c_str(), &existing) == 0 && S_ISREG(existing.st_mode)) fchmod(fd, existing.st_mode & 07777);
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
    std::string temporary;
    std::FILE* file = nullptr;
    bool created = false;                             // never remove a file of that name that another writer made
    std::optional<PendingRegistration> registration;  // outlives discard(): a signal during it still cleans up
    const auto discard = [&] {
        if (file) std::fclose(file);
        if (created) std::remove(temporary.c_str());
    };
    try {
        const std::string destination = resolve_links(path);
        temporary = temporary_path_for(destination);
        registration.emplace(temporary);
        file = create_exclusively(temporary, destination);
        created = true;
        write_body(file);
        flush_to_disk(file);
        std::FILE* closing = file;
        file = nullptr;  // fclose releases the stream even when it fails
        if (std::fclose(closing) != 0) throw_errno();
        if (std::rename(temporary.c_str(), destination.c_str()) != 0) throw_errno();
    } catch (const WriteFailure& failure) {
        discard();
        throw InputError("cannot write '" + path + "': " + failure.what());
    } catch (...) {
        discard();
        throw;
    }
}

void remove_temporaries_on_signals() {
    for (const int signal_number : {SIGINT, SIGTERM, SIGHUP}) {
        struct sigaction previous {};
        sigaction(signal_number, nullptr, &previous);
        if (previous.sa_handler == SIG_IGN) continue;  // ignored on purpose (nohup): leave it so
        struct sigaction action {};
        action.sa_handler = remove_temporaries_and_reraise;
        sigemptyset(&action.sa_mask);
        sigaction(signal_number, &action, nullptr);
    }
}

}  // namespace tilescan
