/// @file
/// Progress of one frame, for a caller that shows it (`tilescan render` on a terminal): a backend
/// that reports it calls a ProgressCallback with the fraction of the frame done. ProgressSteps
/// turns the backend's units of work into those calls, few and cheap, from any of its threads.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>

namespace tilescan {

/// Called with the fraction of the frame done, in [0, 1]: never two calls at once, the fractions
/// never decreasing, the last one 1. Called from the backend's threads, so it should only store
/// the value (the caller draws it from its own thread).
using ProgressCallback = std::function<void(double fraction)>;

/// Work done out of `total` units (any unit whose share of the total tracks the time spent), told
/// to `callback` in whole percent: at most 100 calls a frame, whatever the number of advances.
/// advance() is thread-safe; without a callback it does nothing.
class ProgressSteps {
public:
    /// `callback` (which must outlive this object; empty: no reports) hears of `total` units.
    ProgressSteps(const ProgressCallback& callback, std::uint64_t total) : callback_(callback), total_(total) {}
    /// Adds `units` of work done: a percent step crossed calls the callback.
    void advance(std::uint64_t units) {
        if (!callback_) return;
        const std::uint64_t done = done_.fetch_add(units, std::memory_order_relaxed) + units;
        report(done >= total_ ? 100 : static_cast<int>(done * 100 / total_));
    }
    /// The frame is done: reports 1 unless already reported.
    void finish() {
        if (callback_) report(100);
    }

private:
    void report(int percent) {
        if (percent <= reported_.load(std::memory_order_relaxed)) return;
        const std::lock_guard<std::mutex> hold(lock_);
        if (percent <= reported_.load(std::memory_order_relaxed)) return;
        reported_.store(percent, std::memory_order_relaxed);
        callback_(percent / 100.0);
    }

    const ProgressCallback& callback_;
    std::uint64_t total_;
    std::atomic<std::uint64_t> done_{0};
    std::atomic<int> reported_{0};  // whole percent; no call for 0
    std::mutex lock_;
};

}  // namespace tilescan
