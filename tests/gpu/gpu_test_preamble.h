// The preamble the scan and primitives GPU tests share: copies between host vectors and device
// memory, what the tests read and write of a ScanWorkspace behind its API, one workspace for every
// single-pass call of the tests, and the names they use unqualified.
#pragma once

#include "device_copies.h"
#include "kernels/cuda_check.h"
#include "kernels/device_buffer.h"
#include "kernels/scan/scan.h"
#include "workspace_access.h"

namespace tilescan::testing {

// One workspace for every single-pass call of the tests, grown as sizes need, so most calls find
// the slots of earlier calls of other types, sizes, operators and primitives, which must read as
// empty.
inline ScanWorkspace& shared_workspace() {
    static ScanWorkspace workspace;
    return workspace;
}

}  // namespace tilescan::testing

using namespace tilescan;
using tilescan::testing::call_counter;
using tilescan::testing::download;
using tilescan::testing::fill_with_stale_prefixes;
using tilescan::testing::set_call_number;
using tilescan::testing::shared_workspace;
using tilescan::testing::upload;
using tilescan::testing::workspace_status;
