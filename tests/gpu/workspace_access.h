// What the GPU tests of a ScanWorkspace read and write behind its API: its call counter and its
// status words (layout in kernels/scan/scan_policy.h and scan_lookback.cuh), so a test can stand a
// workspace 2^30 calls into its life, with stale slots, and check that the wrap clears them.
#pragma once

#include <cstddef>
#include <vector>

#include "device_copies.h"
#include "kernels/scan/scan.h"

namespace tilescan::testing {

// Every status word of the workspace (after its counters).
inline std::size_t workspace_status_words(const ScanWorkspace& workspace) {
    return (workspace.bytes() - scan_detail::kLookbackCounterBytes) / sizeof(unsigned long long);
}

inline std::vector<unsigned long long> workspace_status(ScanWorkspace& workspace) {
    return download(reinterpret_cast<const unsigned long long*>(workspace.data() + scan_detail::kLookbackCounterBytes),
                    workspace_status_words(workspace));
}

// Every status word as if a call with tag 0 had published the prefix `value` there and nothing
// had cleared it since.
inline void fill_with_stale_prefixes(ScanWorkspace& workspace, unsigned value) {
    const unsigned long long stale = (static_cast<unsigned long long>(scan_detail::kFlagPrefix) << 32) | value;
    upload(reinterpret_cast<unsigned long long*>(workspace.data() + scan_detail::kLookbackCounterBytes),
           std::vector<unsigned long long>(workspace_status_words(workspace), stale));
}

// Sets the workspace's call counter to call number `call`, tile 0 (what `call` earlier calls leave).
inline void set_call_number(ScanWorkspace& workspace, unsigned long long call) {
    upload(reinterpret_cast<unsigned long long*>(workspace.data()), std::vector<unsigned long long>{call << 32});
}

inline unsigned long long call_counter(ScanWorkspace& workspace) {
    return download(reinterpret_cast<const unsigned long long*>(workspace.data()), 1)[0];
}

}  // namespace tilescan::testing
