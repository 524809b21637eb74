// Host memory figures and page hints (see host_memory.h).
#include "renderer/host_memory.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>

namespace tilescan {

namespace {

// The value of a "Key:   1234 kB" line of a /proc file, in bytes; 0 when absent.
std::uint64_t proc_kilobytes(const char* path, const std::string& key) {
    std::ifstream file(path);
    std::string line;
    while (std::getline(file, line))
        if (line.compare(0, key.size(), key) == 0) return std::strtoull(line.c_str() + key.size(), nullptr, 10) * 1024;
    return 0;
}

}  // namespace

std::uint64_t available_host_memory_bytes() {
    if (const std::uint64_t available = proc_kilobytes("/proc/meminfo", "MemAvailable:")) return available;
    const long pages = sysconf(_SC_AVPHYS_PAGES);
    const long page_size = sysconf(_SC_PAGESIZE);
    return pages > 0 && page_size > 0 ? static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page_size) : 0;
}

std::uint64_t resident_set_bytes() { return proc_kilobytes("/proc/self/status", "VmRSS:"); }

void advise_huge_pages(const void* data, std::size_t bytes) {
#ifdef MADV_HUGEPAGE
    constexpr std::uintptr_t kHugePage = std::uintptr_t(2) << 20;
    const std::uintptr_t begin = (reinterpret_cast<std::uintptr_t>(data) + kHugePage - 1) & ~(kHugePage - 1);
    const std::uintptr_t end = (reinterpret_cast<std::uintptr_t>(data) + bytes) & ~(kHugePage - 1);
    if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);  // a hint: no error matters
#else
    (void)data;
    (void)bytes;
#endif
}

}  // namespace tilescan
