// A one-line progress bar on stderr, drawn only when stderr is a terminal (so logs and pipes
// stay clean) and not silenced by --quiet.
#pragma once

#include <unistd.h>

#include <cstdio>
#include <string>

namespace tilescan {

class ProgressBar {
public:
    ProgressBar(long total, bool quiet) : total_(total), enabled_(!quiet && total > 1 && isatty(STDERR_FILENO)) {}
    ~ProgressBar() {
        if (enabled_) std::fputc('\n', stderr);
    }
    void update(long done) {
        if (!enabled_) return;
        const int width = 40;
        const int filled = static_cast<int>(width * done / total_);
        std::fprintf(stderr, "\r[%s%s] %ld/%ld", std::string(filled, '#').c_str(),
                     std::string(width - filled, ' ').c_str(), done, total_);
        std::fflush(stderr);
    }

private:
    long total_;
    bool enabled_;
};

}  // namespace tilescan
