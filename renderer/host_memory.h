// What the host's memory looks like from this process, read from /proc on Linux: the memory
// available to new allocations (the cpu backend's default bin budget derives from it) and this
// process's resident set (the soak test checks it stays flat).
#pragma once

#include <cstdint>

namespace tilescan {

// MemAvailable of /proc/meminfo, else the free physical pages; 0 when neither can be read.
std::uint64_t available_host_memory_bytes();

// VmRSS of /proc/self/status; 0 when it cannot be read.
std::uint64_t resident_set_bytes();

}  // namespace tilescan
