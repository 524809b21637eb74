// Element counts known only on the device. A primitive given a device count (d_count) works on
// the first min(n, *d_count) elements: n sizes its launches and its temporary storage, and the
// count, read by its kernels when they run, may be written by an earlier kernel on the stream, so
// that a pipeline need not wait for the host to learn how many elements a stage produced (the
// renderer's pairs, whose capacity n exceeds them).
#pragma once

#include <cstddef>
#include <cstdint>

namespace tilescan {

// The elements a kernel works on: n, or fewer where a device count says so (d_count may be null).
__device__ __forceinline__ std::size_t live_elements(std::size_t n, const std::uint64_t* d_count) {
    return d_count != nullptr && *d_count < n ? std::size_t(*d_count) : n;
}

}  // namespace tilescan
