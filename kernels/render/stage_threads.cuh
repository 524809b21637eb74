// The block size of the stages whose kernels take one element a thread (cull and count, emit, the
// bin stage's own kernels), and the grid that covers n elements with it. Included only by this
// folder's .cu files (internal linkage, like the kernels that use it).
#pragma once

#include <cstddef>

namespace tilescan {
namespace {

constexpr int kThreads = 256;

unsigned blocks_for(std::size_t n) { return static_cast<unsigned>((n + kThreads - 1) / kThreads); }

}  // namespace
}  // namespace tilescan
