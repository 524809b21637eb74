// Progress on stderr, drawn only when stderr is a terminal (so logs and pipes stay clean) and not
// silenced by --quiet: a bar for a frame sequence, and a running clock with the fraction done for
// one long render.
#pragma once

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "renderer/progress.h"

namespace tilescan {

// A one-line bar; its destructor ends the line, so whatever is printed next starts on its own.
class ProgressBar {
public:
    ProgressBar(long total, bool quiet) : total_(total), enabled_(!quiet && total > 1 && isatty(STDERR_FILENO)) {}
    ~ProgressBar() {
        if (enabled_ && drawn_) std::fputc('\n', stderr);
    }
    ProgressBar(const ProgressBar&) = delete;
    ProgressBar& operator=(const ProgressBar&) = delete;

    void update(long done) {
        if (!enabled_) return;
        const int width = 40;
        const int filled = static_cast<int>(width * done / total_);
        std::fprintf(stderr, "\r[%s%s] %ld/%ld", std::string(filled, '#').c_str(),
                     std::string(width - filled, ' ').c_str(), done, total_);
        std::fflush(stderr);
        drawn_ = true;
    }

private:
    long total_;
    bool enabled_;
    bool drawn_ = false;
};

// While it lives, and once a second has passed, shows "`what` ... N s" on stderr, updated each
// second, and erases it at the end: a render of minutes (16384x16384 on ref) is never silent. With
// the fraction done that progress() hears of: "`what` ... NN %, N s".
class ElapsedClock {
public:
    ElapsedClock(std::string what, bool quiet) : what_(std::move(what)) {
        if (quiet || !isatty(STDERR_FILENO)) return;
        thread_ = std::thread([this] { run(); });
    }
    // What a backend reports its progress to (Backend::set_progress): it only stores the percent,
    // which this clock's thread draws; empty where nothing is drawn. It may outlive the clock.
    ProgressCallback progress() const {
        if (!thread_.joinable()) return {};
        return [percent = percent_](double fraction) { percent->store(static_cast<int>(std::lround(fraction * 100))); };
    }
    ~ElapsedClock() {
        if (!thread_.joinable()) return;
        {
            const std::lock_guard<std::mutex> lock(mutex_);
            done_ = true;
        }
        wake_.notify_one();
        thread_.join();
        if (shown_) std::fputs("\r\033[K", stderr);  // back to the line's start, erase to its end
    }
    ElapsedClock(const ElapsedClock&) = delete;
    ElapsedClock& operator=(const ElapsedClock&) = delete;

private:
    void run() {
        std::unique_lock<std::mutex> lock(mutex_);
        for (long seconds = 1;; ++seconds) {
            if (wake_.wait_for(lock, std::chrono::seconds(1), [this] { return done_; })) return;
            const int percent = percent_->load();
            if (percent >= 0)
                std::fprintf(stderr, "\r%s ... %d %%, %ld s", what_.c_str(), percent, seconds);
            else
                std::fprintf(stderr, "\r%s ... %ld s", what_.c_str(), seconds);
            std::fflush(stderr);
            shown_ = true;
        }
    }

    std::string what_;
    std::shared_ptr<std::atomic<int>> percent_ = std::make_shared<std::atomic<int>>(-1);  // -1: none heard
    std::mutex mutex_;
    std::condition_variable wake_;
    bool done_ = false;
    bool shown_ = false;  // written by the thread, read after join
    std::thread thread_;
};

}  // namespace tilescan
