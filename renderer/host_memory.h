// What the host's memory looks like from this process, read from /proc on Linux: the memory
// available to new allocations (the cpu backend's default bin budget derives from it) and this
// process's resident set (the soak test checks it stays flat); a hint for the pages the kernel
// backs an array with; and arrays whose growth writes nothing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

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

// std::allocator, but a resize default-initializes new elements (a trivial type's are left
// unwritten) instead of value-initializing them (zeroing them on the calling thread).
template <typename T>
struct DefaultInitAllocator : std::allocator<T> {
    template <typename U>
    struct rebind {
        using other = DefaultInitAllocator<U>;
    };
    DefaultInitAllocator() = default;
    template <typename U>
    DefaultInitAllocator(const DefaultInitAllocator<U>&) noexcept {}
    template <typename U>
    void construct(U* p) noexcept(std::is_nothrow_default_constructible<U>::value) {
        ::new (static_cast<void*>(p)) U;
    }
    template <typename U, typename... Args>
    void construct(U* p, Args&&... args) {
        ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
    }
};

// An array whose every element is written before it is read: growing it writes nothing, so the
// threads that fill it are the first to touch its new pages, not one zeroing them all beforehand.
template <typename T>
using WrittenFirstVector = std::vector<T, DefaultInitAllocator<T>>;

}  // namespace tilescan
