// Exclusive scan and stream compaction with tilescan's scan library and primitives: on the CPU
// always, and on a device array when the installation has CUDA and a device is present.
#include <cstdio>
#include <numeric>
#include <vector>

#include "kernels/primitives/compaction_cpu.h"
#include "kernels/primitives/compaction_ops.h"
#include "kernels/scan/scan_cpu.h"
#if defined(EXAMPLE_WITH_CUDA)
#include "kernels/cuda_device.h"
#include "kernels/device_buffer.h"
#include "kernels/primitives/compaction.h"
#include "kernels/scan/scan.h"
#endif

namespace {

// Scans and compacts on the device; returns false when the results differ from the CPU's.
bool on_device(const std::vector<int>& values, const std::vector<int>& scanned, const std::vector<int>& kept) {
#if defined(EXAMPLE_WITH_CUDA)
    if (!tilescan::cuda_device_available()) {
        std::printf("device: none (%s)\n", tilescan::cuda_device_description().c_str());
        return true;
    }
    const std::size_t n = values.size();
    tilescan::DeviceBuffer<int> d_values(n), d_scanned(n), d_kept(n);
    tilescan::DeviceBuffer<std::uint64_t> d_count(1);
    const std::size_t temp_bytes = std::max(tilescan::scan_temp_bytes<int>(n), tilescan::select_temp_bytes<int>(n));
    tilescan::DeviceBuffer<unsigned char> temp(temp_bytes);
    TS_CUDA_CHECK(cudaMemcpy(d_values.data(), values.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    tilescan::exclusive_scan(d_values.data(), d_scanned.data(), n, tilescan::Sum<int>{}, temp.data(), temp_bytes);
    tilescan::select_if(d_values.data(), d_kept.data(), n, tilescan::NonZero<int>{}, d_count.data(), temp.data(),
                        temp_bytes);
    std::vector<int> scanned_on_device(n), kept_on_device(n);
    std::uint64_t count = 0;
    TS_CUDA_CHECK(cudaMemcpy(scanned_on_device.data(), d_scanned.data(), n * sizeof(int), cudaMemcpyDeviceToHost));
    TS_CUDA_CHECK(cudaMemcpy(kept_on_device.data(), d_kept.data(), n * sizeof(int), cudaMemcpyDeviceToHost));
    TS_CUDA_CHECK(cudaMemcpy(&count, d_count.data(), sizeof count, cudaMemcpyDeviceToHost));
    kept_on_device.resize(count);
    std::printf("device: scan and compaction %s the CPU's\n",
                scanned_on_device == scanned && kept_on_device == kept ? "equal" : "DIFFER FROM");
    return scanned_on_device == scanned && kept_on_device == kept;
#else
    (void)values, (void)scanned, (void)kept;
    std::printf("device: this installation has no CUDA\n");
    return true;
#endif
}

}  // namespace

int main() {
    std::vector<int> values(1000);
    for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<int>(i % 7 == 0 ? 0 : i % 5);
    std::vector<int> scanned(values.size()), kept(values.size());
    const int total = tilescan::cpu_exclusive_scan(values.data(), scanned.data(), values.size(), tilescan::Sum<int>{});
    kept.resize(tilescan::cpu_select_if(values.data(), values.size(), tilescan::NonZero<int>{}, kept.data()));
    std::printf("cpu: total %d, last prefix %d, %zu of %zu values kept\n", total, scanned.back(), kept.size(),
                values.size());
    return on_device(values, scanned, kept) ? 0 : 1;
}
