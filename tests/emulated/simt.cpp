// The fibers behind simt.h: stacks set up by ucontext, switched by _setjmp/_longjmp (which,
// unlike swapcontext, make no system call to save the signal mask, most of the cost otherwise), a
// round-robin scheduler that resumes a fiber only when the collective it waits at is complete, and
// the collectives' results.
//
// Fortified builds (Ubuntu's compilers define _FORTIFY_SOURCE by default) check that a longjmp
// goes up the stack it is on, which a jump from one fiber's stack to another's never does: the
// check would abort every switch, so it is off here, before any header reads it.
#undef _FORTIFY_SOURCE
#include "simt.h"

#include <setjmp.h>
#include <ucontext.h>

#include <cstdint>
#include <exception>
#include <memory>
#include <vector>

#include "cuda_runtime.h"

#if defined(__SANITIZE_ADDRESS__)
#define TILESCAN_SIMT_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TILESCAN_SIMT_ASAN 1
#endif
#endif
#if defined(TILESCAN_SIMT_ASAN)
#include <sanitizer/common_interface_defs.h>
#endif

namespace tilescan {
dim3 threadIdx, blockIdx, blockDim, gridDim;
}  // namespace tilescan

namespace tilescan::simt {

namespace {

constexpr std::size_t kStackBytes = std::size_t(64) << 10;

enum class Op { none, barrier, barrier_and, barrier_or, ballot, warp_sum, exclusive_sum, shuffle_xor };

// The threads that meet at one kind of collective: the whole block, or one warp.
struct Group {
    unsigned expected = 0, arrived = 0;
    std::uint64_t generation = 0;
    Op op = Op::none;
    std::vector<std::uint64_t> values;   // by member
    std::uint64_t result = 0;            // for every member, once the generation has moved on
    std::vector<std::uint64_t> results;  // by member, for the collectives with one result a member
    std::uint64_t parameter = 0;         // the collective's own argument (a shuffle's lane mask)
};

bool per_member(Op op) { return op == Op::exclusive_sum || op == Op::shuffle_xor; }

// AddressSanitizer keeps the bounds of the stack that runs (and a fake stack for each, for
// use-after-return): every switch tells it the stack it goes to before, and the one it came from
// after. No-ops in other builds.
void leaving(void** fake_stack, const void* to_bottom, std::size_t to_size) {
#if defined(TILESCAN_SIMT_ASAN)
    __sanitizer_start_switch_fiber(fake_stack, to_bottom, to_size);
#else
    (void)fake_stack, (void)to_bottom, (void)to_size;
#endif
}
void arrived(void* fake_stack, const void** from_bottom, std::size_t* from_size) {
#if defined(TILESCAN_SIMT_ASAN)
    __sanitizer_finish_switch_fiber(fake_stack, from_bottom, from_size);
#else
    (void)fake_stack, (void)from_bottom, (void)from_size;
#endif
}

struct Fiber {
    ucontext_t context{};        // its first start
    jmp_buf resume_at;           // where it waits, once started
    void* fake_stack = nullptr;  // AddressSanitizer's, while it waits
    char* stack = nullptr;       // one of stack_pool's
    bool started = false, done = false;
    Group* waiting = nullptr;
    std::uint64_t waiting_generation = 0;
};

struct Block {
    jmp_buf scheduler;
    void* scheduler_fake_stack = nullptr;   // AddressSanitizer's, while a fiber runs
    const void* scheduler_stack = nullptr;  // the scheduler's stack (bottom, size), to switch back to
    std::size_t scheduler_stack_size = 0;
    std::vector<Fiber> fibers;
    Group block;
    std::vector<Group> warps;
    const std::function<void()>* thread = nullptr;
    unsigned current = 0;
    std::exception_ptr failure;  // thrown in a fiber, rethrown by run_block
};

Block* running = nullptr;

void fiber_main() {
    arrived(nullptr, &running->scheduler_stack, &running->scheduler_stack_size);
    try {
        (*running->thread)();
    } catch (...) {
        running->failure = std::current_exception();
    }
    running->fibers[running->current].done = true;
    leaving(nullptr, running->scheduler_stack, running->scheduler_stack_size);  // this stack's frames end
    _longjmp(running->scheduler, 1);
}

// The calling thread's arrival at `group`'s collective `op` with `value`; returns the collective's
// result once every member has arrived.
std::uint64_t arrive(Group& group, unsigned member, Op op, std::uint64_t value, std::uint64_t parameter = 0) {
    if (group.arrived == 0) {
        group.op = op;
        group.parameter = parameter;
    } else if (group.op != op || group.parameter != parameter) {
        throw Divergence("threads of one group at different collectives");
    }
    group.values[member] = value;
    if (++group.arrived == group.expected) {
        std::uint64_t result = 0;
        switch (op) {
            case Op::barrier_and:
                result = 1;
                for (std::uint64_t v : group.values) result = result && v;
                break;
            case Op::barrier_or:
                for (std::uint64_t v : group.values) result = result || v;
                break;
            case Op::ballot:
                for (unsigned lane = 0; lane < group.expected; ++lane)
                    result |= std::uint64_t(group.values[lane] != 0) << lane;
                break;
            case Op::warp_sum:
                for (std::uint64_t v : group.values) result += v;
                break;
            case Op::exclusive_sum:
                for (unsigned m = 0; m < group.expected; ++m) {
                    group.results[m] = result;
                    result += group.values[m];
                }
                break;
            case Op::shuffle_xor:
                for (unsigned m = 0; m < group.expected; ++m) group.results[m] = group.values[m ^ parameter];
                break;
            default:
                break;
        }
        group.result = result;
        group.arrived = 0;
        ++group.generation;
        return per_member(op) ? group.results[member] : result;
    }
    Fiber& self = running->fibers[running->current];
    self.waiting = &group;
    self.waiting_generation = group.generation;
    if (_setjmp(self.resume_at) == 0) {
        leaving(&self.fake_stack, running->scheduler_stack, running->scheduler_stack_size);
        _longjmp(running->scheduler, 1);
    }
    arrived(self.fake_stack, &running->scheduler_stack, &running->scheduler_stack_size);
    return per_member(op) ? group.results[member] : group.result;
}

// The fibers' stacks, kept from block to block: allocating (and touching) them anew for every
// block would cost more than the blocks' work.
std::vector<std::unique_ptr<char[]>> stack_pool;

// A fiber that will run fiber_main on stack `index` of the pool. Apart from run_block, whose
// locals getcontext (which returns twice) would otherwise put at risk.
void prepare_fiber(Fiber& f, std::size_t index) {
    while (stack_pool.size() <= index) stack_pool.emplace_back(new char[kStackBytes]);
    f.stack = stack_pool[index].get();
    getcontext(&f.context);
    f.context.uc_stack.ss_sp = f.stack;
    f.context.uc_stack.ss_size = kStackBytes;
    f.context.uc_link = nullptr;  // fiber_main never returns: it jumps back to the scheduler
    makecontext(&f.context, fiber_main, 0);
}

// Runs fiber f until it waits at a collective or returns. Apart from run_block for the same reason.
[[gnu::noinline]] void resume(Block& b, Fiber& f) {
    if (_setjmp(b.scheduler) != 0) {
        arrived(b.scheduler_fake_stack, nullptr, nullptr);
        return;
    }
    leaving(&b.scheduler_fake_stack, f.stack, kStackBytes);
    if (f.started) _longjmp(f.resume_at, 1);
    f.started = true;
    setcontext(&f.context);
}

Block& block_of_caller() {
    if (running == nullptr) throw std::logic_error("an emulated CUDA intrinsic outside simt::run_block");
    return *running;
}

std::uint64_t block_collective(Op op, std::uint64_t value) {
    Block& b = block_of_caller();
    return arrive(b.block, b.current, op, value);
}

std::uint64_t warp_collective(unsigned mask, Op op, std::uint64_t value, std::uint64_t parameter = 0) {
    if (mask != 0xffffffffu) throw Divergence("a warp collective with a partial mask");
    Block& b = block_of_caller();
    return arrive(b.warps[b.current / 32], b.current % 32, op, value, parameter);
}

}  // namespace

void run_block(unsigned block, unsigned blocks, unsigned threads, const std::function<void()>& thread) {
    if (threads == 0 || threads % 32 != 0) throw std::invalid_argument("simt::run_block: threads must be whole warps");
    Block b;
    b.thread = &thread;
    b.block.expected = threads;
    b.block.values.assign(threads, 0);
    b.block.results.assign(threads, 0);
    b.warps.resize(threads / 32);
    for (Group& warp : b.warps) {
        warp.expected = 32;
        warp.values.assign(32, 0);
        warp.results.assign(32, 0);
    }
    b.fibers.resize(threads);
    for (unsigned t = 0; t < threads; ++t) prepare_fiber(b.fibers[t], t);
    blockIdx.x = block;
    gridDim.x = blocks;
    blockDim.x = threads;
    running = &b;
    unsigned finished = 0;
    while (finished < threads) {
        bool progressed = false;
        for (unsigned t = 0; t < threads; ++t) {
            Fiber& f = b.fibers[t];
            if (f.done || (f.waiting != nullptr && f.waiting->generation == f.waiting_generation)) continue;
            f.waiting = nullptr;
            b.current = t;
            threadIdx.x = t;
            resume(b, f);
            progressed = true;
            if (b.failure) {
                running = nullptr;
                std::rethrow_exception(b.failure);
            }
            if (f.done) ++finished;
        }
        if (!progressed) {
            running = nullptr;
            throw Divergence("block " + std::to_string(block) + ": " + std::to_string(threads - finished) +
                             " threads wait at a barrier the others never reach");
        }
    }
    running = nullptr;
}

std::uint64_t warp_sum(std::uint64_t value) { return warp_collective(0xffffffffu, Op::warp_sum, value); }
std::uint64_t block_exclusive_sum(std::uint64_t value) { return block_collective(Op::exclusive_sum, value); }

}  // namespace tilescan::simt

namespace tilescan {

void __syncthreads() { simt::block_collective(simt::Op::barrier, 0); }
int __syncthreads_and(int predicate) { return int(simt::block_collective(simt::Op::barrier_and, predicate != 0)); }
int __syncthreads_or(int predicate) { return int(simt::block_collective(simt::Op::barrier_or, predicate != 0)); }
unsigned __ballot_sync(unsigned mask, int predicate) {
    return unsigned(simt::warp_collective(mask, simt::Op::ballot, predicate != 0));
}
int __all_sync(unsigned mask, int predicate) { return __ballot_sync(mask, predicate) == 0xffffffffu; }
int __any_sync(unsigned mask, int predicate) { return __ballot_sync(mask, predicate) != 0; }
void __syncwarp(unsigned mask) { simt::warp_collective(mask, simt::Op::barrier, 0); }
int __shfl_xor_sync(unsigned mask, int value, int lane_mask) {
    if (lane_mask < 0 || lane_mask > 31) throw simt::Divergence("a shuffle's lane mask outside the warp");
    return int(std::int32_t(
        simt::warp_collective(mask, simt::Op::shuffle_xor, std::uint32_t(value), std::uint64_t(lane_mask))));
}
unsigned __shfl_xor_sync(unsigned mask, unsigned value, int lane_mask) {
    return unsigned(__shfl_xor_sync(mask, int(value), lane_mask));
}

}  // namespace tilescan
