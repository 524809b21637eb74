// Helpers shared by the benchmark drivers: the commit a results table was measured at.
#pragma once

#include <cstdio>
#include <string>

namespace tilescan::bench {

// `git rev-parse --short HEAD` of the working directory, or "unknown" outside a checkout.
inline std::string git_commit() {
    FILE* pipe = popen("git rev-parse --short HEAD 2>/dev/null", "r");
    if (!pipe) return "unknown";
    char line[64] = {};
    const bool ok = std::fgets(line, sizeof line, pipe) != nullptr;
    pclose(pipe);
    std::string commit = ok ? line : "";
    while (!commit.empty() && (commit.back() == '\n' || commit.back() == '\r')) commit.pop_back();
    return commit.empty() ? "unknown" : commit;
}

}  // namespace tilescan::bench
