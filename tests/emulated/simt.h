// Emulated CUDA threads for CPU tests of device code (cuda/cuda_runtime.h beside this file): one
// block at a time, each of its threads a fiber on the calling thread, switched only at a barrier
// or a warp collective, so the code runs exactly as written, thread by thread, with the
// collectives' semantics: a block barrier (__syncthreads and its _and/_or forms) waits for all of
// the block's threads, a warp collective (__ballot_sync, __all_sync, __any_sync, warp_reduce) for
// all 32 lanes of the warp, each with a full mask. A barrier that some threads never reach (one in
// divergent code, or after some threads returned) is reported as an error instead of hanging.
#pragma once

#include <functional>
#include <stdexcept>
#include <string>

namespace tilescan::simt {

// Thrown by run_block where the block's threads cannot all go on: they wait at barriers that the
// others never reach, or at different collectives of one group.
struct Divergence : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// Runs `thread` as the `threads` threads (a multiple of 32) of block `block` of a grid of `blocks`,
// each seeing its own threadIdx.x, until all have returned.
void run_block(unsigned block, unsigned blocks, unsigned threads, const std::function<void()>& thread);

}  // namespace tilescan::simt
