// What the host's memory looks like from this process, read from /proc on Linux: the memory
// available to new allocations (the cpu backend's default bin budget derives from it) and this
// process's resident set (the soak test checks it stays flat); and a hint for the pages the kernel
// backs an array with.
#pragma once

#include <cstddef>
#include <cstdint>

namespace tilescan {

// MemAvailable of /proc/meminfo, else the free physical pages; 0 when neither can be read.
std::uint64_t available_host_memory_bytes();

// VmRSS of /proc/self/status; 0 when it cannot be read.
std::uint64_t resident_set_bytes();

// Asks the kernel to back the whole 2 MiB pages inside [data, data + bytes) with transparent huge
// pages where the system leaves that to the program (madvise mode); only a hint, and nothing on a
// system without them. Pages already touched keep their 4 KiB, so call it before the first write.
// For arrays read or written at random: one TLB entry then covers 512 times the memory.
void advise_huge_pages(const void* data, std::size_t bytes);

}  // namespace tilescan
