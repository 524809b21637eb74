// Host memory figures (see host_memory.h).
#include "renderer/host_memory.h"

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

}  // namespace tilescan
