/// @file
/// CPU half of stream compaction, partition and find_repeats: a serial reference for each and a
/// multi-threaded version (std::thread, through cpu_parallel_ranges) for the renderer's `cpu`
/// backend. Same meaning as the GPU API in compaction.h / find_repeats.h, and the same results
/// bit for bit (all of these are exact).
///
/// @verbatim
///   select_if     out = the elements x of in with pred(x), in input order; returns their count
///   select_flagged out = the in[i] with flags[i] != 0, in input order
///   partition_if  out = the kept elements in order, then the rejected ones in order (both
///                 stable); returns the kept count
///   find_repeats  out = every i with a[i] == a[i + 1], increasing (3 4 4 5 6 7 7 -> 1 5)
/// @endverbatim
///
/// The multi-threaded versions cut n into the scan library's chunks (cpu_scan_chunks): count per
/// chunk in parallel, exclusive-scan the chunk counts, write per chunk in parallel. `threads == 0`
/// means cpu_scan_default_threads().
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "kernels/scan/scan_cpu.h"

namespace tilescan {

/// The reference select_if: out[0, count) = the in[i] with pred(in[i]), in order; returns count.
/// out holds up to n elements and does not overlap in.
template <typename T, typename Pred>
std::size_t serial_select_if(const T* in, std::size_t n, Pred pred, T* out) {
    std::size_t count = 0;
    for (std::size_t i = 0; i < n; ++i)
        if (pred(in[i])) out[count++] = in[i];
    return count;
}

/// The reference select_flagged: keeps in[i] where flags[i] != 0; returns the kept count.
template <typename T, typename Flag>
std::size_t serial_select_flagged(const T* in, const Flag* flags, std::size_t n, T* out) {
    std::size_t count = 0;
    for (std::size_t i = 0; i < n; ++i)
        if (flags[i] != Flag(0)) out[count++] = in[i];
    return count;
}

namespace detail {

// The elements of in[first, last) that pred keeps.
template <typename T, typename Pred>
std::size_t count_kept(const T* in, std::size_t first, std::size_t last, Pred pred) {
    std::size_t kept = 0;
    for (std::size_t i = first; i < last; ++i) kept += pred(in[i]) ? 1 : 0;
    return kept;
}

// in[first, last) split in order: kept elements to out[kept_at, ...), rejected ones to
// out[rejected_at, ...).
template <typename T, typename Pred>
void partition_range(const T* in, std::size_t first, std::size_t last, Pred pred, T* out, std::size_t kept_at,
                     std::size_t rejected_at) {
    for (std::size_t i = first; i < last; ++i) {
        if (pred(in[i]))
            out[kept_at++] = in[i];
        else
            out[rejected_at++] = in[i];
    }
}

}  // namespace detail

/// The reference partition_if: kept elements in order, then rejected ones in order, into out[n];
/// returns the kept count.
template <typename T, typename Pred>
std::size_t serial_partition_if(const T* in, std::size_t n, Pred pred, T* out) {
    const std::size_t kept = detail::count_kept(in, 0, n, pred);
    detail::partition_range(in, 0, n, pred, out, 0, kept);
    return kept;
}

/// The reference find_repeats: out[0, count) = every i with a[i] == a[i + 1], increasing; returns
/// count (at most n - 1).
template <typename T, typename Index>
std::size_t serial_find_repeats(const T* a, std::size_t n, Index* out) {
    std::size_t count = 0;
    for (std::size_t i = 0; i + 1 < n; ++i)
        if (a[i] == a[i + 1]) out[count++] = Index(i);
    return count;
}

namespace detail {

// keep(i) says whether index i is kept; emit(i, position) writes it. Chunked count / scan / write.
template <typename Keep, typename Emit>
std::size_t cpu_compact_indices(std::size_t n, unsigned threads, Keep keep, Emit emit) {
    if (threads == 0) threads = cpu_scan_default_threads();
    const CpuScanChunks chunks = cpu_scan_chunks(n);
    std::vector<std::size_t> offsets(chunks.count + 1, 0);
    cpu_parallel_ranges(chunks.count, threads, [&](std::size_t c0, std::size_t c1) {
        for (std::size_t c = c0; c < c1; ++c) {
            const std::size_t first = c * chunks.size, last = first + chunks.size < n ? first + chunks.size : n;
            std::size_t count = 0;
            for (std::size_t i = first; i < last; ++i) count += keep(i) ? 1 : 0;
            offsets[c] = count;
        }
    });
    const std::size_t total = serial_exclusive_scan(offsets.data(), offsets.data(), chunks.count, Sum<std::size_t>{});
    cpu_parallel_ranges(chunks.count, threads, [&](std::size_t c0, std::size_t c1) {
        for (std::size_t c = c0; c < c1; ++c) {
            const std::size_t first = c * chunks.size, last = first + chunks.size < n ? first + chunks.size : n;
            std::size_t position = offsets[c];
            for (std::size_t i = first; i < last; ++i)
                if (keep(i)) emit(i, position++);
        }
    });
    return total;
}

}  // namespace detail

/// serial_select_if on `threads` threads; the same output.
template <typename T, typename Pred>
std::size_t cpu_select_if(const T* in, std::size_t n, Pred pred, T* out, unsigned threads = 0) {
    return detail::cpu_compact_indices(
        n, threads, [&](std::size_t i) { return bool(pred(in[i])); },
        [&](std::size_t i, std::size_t p) { out[p] = in[i]; });
}

/// serial_select_flagged on `threads` threads; the same output.
template <typename T, typename Flag>
std::size_t cpu_select_flagged(const T* in, const Flag* flags, std::size_t n, T* out, unsigned threads = 0) {
    return detail::cpu_compact_indices(
        n, threads, [&](std::size_t i) { return flags[i] != Flag(0); },
        [&](std::size_t i, std::size_t p) { out[p] = in[i]; });
}

/// serial_partition_if on `threads` threads; the same output.
///
/// Kept elements are written at their select position; rejected element i goes to
/// kept_total + (i - kept before i), so one counting pass serves both halves.
template <typename T, typename Pred>
std::size_t cpu_partition_if(const T* in, std::size_t n, Pred pred, T* out, unsigned threads = 0) {
    if (threads == 0) threads = cpu_scan_default_threads();
    const CpuScanChunks chunks = cpu_scan_chunks(n);
    std::vector<std::size_t> offsets(chunks.count, 0);
    cpu_parallel_ranges(chunks.count, threads, [&](std::size_t c0, std::size_t c1) {
        for (std::size_t c = c0; c < c1; ++c) {
            const std::size_t first = c * chunks.size, last = first + chunks.size < n ? first + chunks.size : n;
            offsets[c] = detail::count_kept(in, first, last, pred);
        }
    });
    const std::size_t kept = serial_exclusive_scan(offsets.data(), offsets.data(), chunks.count, Sum<std::size_t>{});
    cpu_parallel_ranges(chunks.count, threads, [&](std::size_t c0, std::size_t c1) {
        for (std::size_t c = c0; c < c1; ++c) {
            const std::size_t first = c * chunks.size, last = first + chunks.size < n ? first + chunks.size : n;
            detail::partition_range(in, first, last, pred, out, offsets[c], kept + (first - offsets[c]));
        }
    });
    return kept;
}

/// serial_find_repeats on `threads` threads; the same output.
template <typename T, typename Index>
std::size_t cpu_find_repeats(const T* a, std::size_t n, Index* out, unsigned threads = 0) {
    return detail::cpu_compact_indices(
        n == 0 ? 0 : n - 1, threads, [&](std::size_t i) { return a[i] == a[i + 1]; },
        [&](std::size_t i, std::size_t p) { out[p] = Index(i); });
}

}  // namespace tilescan
