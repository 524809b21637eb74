// The non-template parts of the CPU scan (scan_cpu.h): how n is cut into chunks and the small
// fork-join helper that runs the chunk phases on std::threads.
#include "kernels/scan/scan_cpu.h"

#include <algorithm>
#include <thread>

namespace tilescan {

CpuScanChunks cpu_scan_chunks(std::size_t n) {
    constexpr std::size_t kMinChunk = std::size_t(1) << 16;  // below this, threads cost more than they save
    constexpr std::size_t kMaxChunks = 1024;
    const std::size_t size = std::max(kMinChunk, (n + kMaxChunks - 1) / kMaxChunks);
    return {size, n == 0 ? 0 : (n + size - 1) / size};
}

unsigned cpu_scan_default_threads() {
    // Read once: hardware_concurrency reads /sys on every call, some microseconds, which a small
    // frame that asks several times would feel.
    static const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
    return threads;
}

unsigned cpu_threads_for(std::uint64_t work, std::uint64_t per_thread, unsigned threads) {
    if (threads == 0) threads = cpu_scan_default_threads();
    return unsigned(std::max<std::uint64_t>(1, std::min<std::uint64_t>(threads, work / per_thread)));
}

void cpu_parallel_ranges(std::size_t tasks, unsigned threads,
                         const std::function<void(std::size_t, std::size_t)>& body) {
    const std::size_t workers = std::min<std::size_t>(std::max(1u, threads), tasks);
    if (workers <= 1) {
        if (tasks > 0) body(0, tasks);
        return;
    }
    std::vector<std::thread> pool;
    pool.reserve(workers - 1);
    // Worker w takes tasks [w * tasks / workers, (w + 1) * tasks / workers).
    for (std::size_t w = 1; w < workers; ++w) pool.emplace_back(body, w * tasks / workers, (w + 1) * tasks / workers);
    body(0, tasks / workers);
    for (auto& t : pool) t.join();
}

}  // namespace tilescan
