/// @file
/// The scan library's CPU half: a serial reference for every scan and a multi-threaded CPU scan
/// (std::thread) under the same calling convention. No CUDA here: this header and scan_cpu.cpp
/// build without nvcc, and the renderer's `cpu` backend and ordered binning call them.
///
/// Convention (shared with the GPU API in scan.h): `in` holds n values of type In, `out` receives
/// n values of type Out (In is converted to Out before combining, so uint32 counts can be scanned
/// into uint64 offsets), out == in is allowed (in-place) when the types match, and the functions
/// return the reduction of all n values (the total; Op::identity() for n == 0).
///
/// Order of operations (it decides floating-point results): the serial scan combines strictly left
/// to right from identity. The multi-threaded scan cuts the input into chunks whose size depends on
/// n only (never on the thread count): each chunk is reduced left to right from identity, the chunk
/// sums are combined left to right into chunk prefixes, and each chunk is rescanned left to right
/// starting from its prefix. Results are therefore identical for any number of threads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "kernels/scan/scan_ops.h"

namespace tilescan {

/// The reference inclusive scan: out[i] = in[0] op ... op in[i], left to right from the
/// identity. Returns the total. out == in is allowed when the types match.
template <typename In, typename Out, typename Op>
Out serial_inclusive_scan(const In* in, Out* out, std::size_t n, Op op) {
    Out acc = op.identity();
    for (std::size_t i = 0; i < n; ++i) {
        acc = op(acc, static_cast<Out>(in[i]));
        out[i] = acc;
    }
    return acc;
}

/// The reference exclusive scan: out[0] = identity, out[i] = in[0] op ... op in[i - 1].
/// Returns the total. out == in is allowed when the types match.
template <typename In, typename Out, typename Op>
Out serial_exclusive_scan(const In* in, Out* out, std::size_t n, Op op) {
    Out acc = op.identity();
    for (std::size_t i = 0; i < n; ++i) {
        const Out x = static_cast<Out>(in[i]);  // read before the write: in-place safe
        out[i] = acc;
        acc = op(acc, x);
    }
    return acc;
}

/// in[0] op ... op in[n - 1], left to right from the identity (identity for n == 0).
template <typename In, typename Out, typename Op>
Out serial_reduce(const In* in, std::size_t n, Op op) {
    Out acc = op.identity();
    for (std::size_t i = 0; i < n; ++i) acc = op(acc, static_cast<Out>(in[i]));
    return acc;
}

/// How the multi-threaded scan cuts n elements: chunks of at least 64 Ki elements, at most 1024
/// chunks, so the per-call bookkeeping is one small vector of chunk sums.
struct CpuScanChunks {
    std::size_t size;   ///< elements per chunk (the last may be shorter)
    std::size_t count;  ///< number of chunks
};
/// The chunks for n elements; a function of n only, so results never depend on the thread count.
CpuScanChunks cpu_scan_chunks(std::size_t n);

/// std::thread::hardware_concurrency(), at least 1.
unsigned cpu_scan_default_threads();

/// Threads for `work` units of a loop: one per `per_thread` units, at least one, at most `threads`
/// (0: cpu_scan_default_threads()); starting a thread costs tens of microseconds, so small loops
/// stay on the caller's thread.
unsigned cpu_threads_for(std::uint64_t work, std::uint64_t per_thread, unsigned threads);

/// Runs body(first, last) over contiguous ranges of [0, tasks) on up to `threads` threads (the
/// caller's thread takes the first range) and returns when all are done.
void cpu_parallel_ranges(std::size_t tasks, unsigned threads,
                         const std::function<void(std::size_t, std::size_t)>& body);

namespace detail {

template <typename In, typename Out, typename Op>
Out cpu_scan(const In* in, Out* out, std::size_t n, Op op, unsigned threads, bool exclusive) {
    if (threads == 0) threads = cpu_scan_default_threads();
    const CpuScanChunks chunks = cpu_scan_chunks(n);
    if (chunks.count <= 1) {
        return exclusive ? serial_exclusive_scan(in, out, n, op) : serial_inclusive_scan(in, out, n, op);
    }
    std::vector<Out> prefix(chunks.count);
    auto chunk_range = [&](std::size_t c, std::size_t& first, std::size_t& count) {
        first = c * chunks.size;
        count = first + chunks.size <= n ? chunks.size : n - first;
    };
    // Phase 1: each chunk's reduction.
    cpu_parallel_ranges(chunks.count, threads, [&](std::size_t c0, std::size_t c1) {
        for (std::size_t c = c0; c < c1; ++c) {
            std::size_t first, count;
            chunk_range(c, first, count);
            prefix[c] = serial_reduce<In, Out>(in + first, count, op);
        }
    });
    // Phase 2: exclusive scan of the chunk sums, left to right.
    Out acc = op.identity();
    for (std::size_t c = 0; c < chunks.count; ++c) {
        const Out sum = prefix[c];
        prefix[c] = acc;
        acc = op(acc, sum);
    }
    // Phase 3: rescan each chunk from its prefix.
    cpu_parallel_ranges(chunks.count, threads, [&](std::size_t c0, std::size_t c1) {
        for (std::size_t c = c0; c < c1; ++c) {
            std::size_t first, count;
            chunk_range(c, first, count);
            Out run = prefix[c];
            for (std::size_t i = first; i < first + count; ++i) {
                const Out x = static_cast<Out>(in[i]);
                if (exclusive) {
                    out[i] = run;
                    run = op(run, x);
                } else {
                    run = op(run, x);
                    out[i] = run;
                }
            }
        }
    });
    return acc;
}

}  // namespace detail

/// serial_inclusive_scan on up to `threads` threads (0 = cpu_scan_default_threads()): chunks
/// reduced in parallel, chunk sums scanned serially, chunks rescanned in parallel. Returns the
/// total. Float results are identical for any thread count (they may differ from the serial
/// scan's, which groups differently). out == in is allowed when the types match.
template <typename In, typename Out, typename Op>
Out cpu_inclusive_scan(const In* in, Out* out, std::size_t n, Op op, unsigned threads = 0) {
    return detail::cpu_scan(in, out, n, op, threads, false);
}

/// The exclusive counterpart of cpu_inclusive_scan (same chunks, same order of operations).
template <typename In, typename Out, typename Op>
Out cpu_exclusive_scan(const In* in, Out* out, std::size_t n, Op op, unsigned threads = 0) {
    return detail::cpu_scan(in, out, n, op, threads, true);
}

}  // namespace tilescan
