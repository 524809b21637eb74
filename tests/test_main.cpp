// The tests' main: Catch2's session, plus the visible skip of GPU tests when no device exists.
//
// In the GPU test binary (TILESCAN_GPU_TESTS), a machine without a CUDA device runs nothing,
// prints "no CUDA device: N gpu tests skipped" and exits with 77, which ctest reports as Skipped.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#include <cstdio>

#if defined(TILESCAN_GPU_TESTS)
#include "kernels/cuda_device.h"
#endif

int main(int argc, char* argv[]) {
    Catch::Session session;
    const int parse_status = session.applyCommandLine(argc, argv);
    if (parse_status != 0) return parse_status;
#if defined(TILESCAN_GPU_TESTS)
    if (!tilescan::cuda_device_available()) {
        const Catch::Config& config = session.config();  // the cases this run's filter selects
        const auto cases = Catch::filterTests(Catch::getAllTestCasesSorted(config), config.testSpec(), config);
        std::printf("no CUDA device: %zu gpu tests skipped\n", cases.size());
        return 77;
    }
#endif
    return session.run();
}
