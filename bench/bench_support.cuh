// Helpers shared by the benchmark drivers (scan_bench.cu, primitives_bench.cu): random inputs,
// the output check, the timing method, and the table's formatting.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <cub/version.cuh>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "kernels/cuda_check.h"
#include "kernels/device_buffer.h"

namespace tilescan::bench {

// A 64-bit mixing hash (splitmix64's finalizer): input i -> well spread bits, the same on host and device.
__host__ __device__ inline std::uint64_t mix(std::uint64_t i) {
    std::uint64_t z = i + 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

// Counts elements a[i] whose bytes differ from b[i] (b_reversed: from b[n - 1 - i]): a
// bit-for-bit check (a float NaN equals itself here).
template <typename T>
__global__ void count_mismatches_kernel(const T* a, const T* b, std::size_t n, bool b_reversed,
                                        unsigned long long* mismatches) {
    unsigned long long local = 0;
    for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
         i += std::size_t(gridDim.x) * blockDim.x) {
        const auto* bytes_a = reinterpret_cast<const unsigned char*>(a + i);
        const auto* bytes_b = reinterpret_cast<const unsigned char*>(b + (b_reversed ? n - 1 - i : i));
        bool same = true;
        for (std::size_t k = 0; k < sizeof(T); ++k) same &= bytes_a[k] == bytes_b[k];
        local += same ? 0 : 1;
    }
    if (local) atomicAdd(mismatches, local);
}

template <typename T>
std::uint64_t count_mismatches(const T* d_a, const T* d_b, std::size_t n, bool b_reversed = false) {
    DeviceBuffer<unsigned long long> count(1);
    TS_CUDA_CHECK(cudaMemset(count.data(), 0, sizeof(unsigned long long)));
    if (n) {
        count_mismatches_kernel<<<2048, 256>>>(d_a, d_b, n, b_reversed, count.data());
        TS_CUDA_CHECK_LAUNCH();
    }
    unsigned long long mismatches = 0;
    TS_CUDA_CHECK(cudaMemcpy(&mismatches, count.data(), sizeof mismatches, cudaMemcpyDeviceToHost));
    return mismatches;
}

// The timing method (docs/development.md, "Benchmarks"): CUDA events around each call, 3
// warm-up calls, median of `runs`, or of 5 when the first timed call is slow.
inline double median_ms(const std::function<void()>& run, int runs) {
    cudaEvent_t start, stop;
    TS_CUDA_CHECK(cudaEventCreate(&start));
    TS_CUDA_CHECK(cudaEventCreate(&stop));
    for (int i = 0; i < 3; ++i) run();
    TS_CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<float> times;
    for (int i = 0; i < runs; ++i) {
        TS_CUDA_CHECK(cudaEventRecord(start));
        run();
        TS_CUDA_CHECK(cudaEventRecord(stop));
        TS_CUDA_CHECK(cudaEventSynchronize(stop));
        float ms = 0;
        TS_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
        times.push_back(ms);
        if (i == 0 && ms > 10.0f) runs = std::min(runs, 5);
    }
    TS_CUDA_CHECK(cudaEventDestroy(start));
    TS_CUDA_CHECK(cudaEventDestroy(stop));
    std::sort(times.begin(), times.end());
    return times[times.size() / 2];
}

inline std::string fixed(double v, int digits) {
    char text[64];
    std::snprintf(text, sizeof text, "%.*f", digits, v);
    return text;
}

// "2^24", "10^9", else the number.
inline std::string size_name(std::size_t n) {
    for (int p = 0; p < 40; ++p)
        if (n == (std::size_t(1) << p)) return "2^" + std::to_string(p);
    if (n == 1000000000) return "10^9";
    return std::to_string(n);
}

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

// The command line both drivers share: --out DIR (or --out=DIR), --quick, --commit HASH (default:
// git_commit()), --sizes LOG2[,LOG2...] (only those powers of two, for tuning and profiling runs:
// `--sizes 28` puts a profiler's first launches at 2^28), and, where a driver has one, --only
// VALUE. Anything else prints `usage` and makes `ok` false (the driver exits 2).
struct Arguments {
    std::string out_dir, commit, only;
    std::vector<std::size_t> sizes;  // empty: the driver's own
    bool quick = false;
    bool ok = true;
};

// "20,28" -> {2^20, 2^28}; false on anything but comma-separated exponents 0..40.
inline bool parse_log2_sizes(const std::string& list, std::vector<std::size_t>& sizes) {
    std::istringstream items(list);
    std::string item;
    while (std::getline(items, item, ',')) {
        if (item.empty() || item.size() > 2 || item.find_first_not_of("0123456789") != std::string::npos) return false;
        const int log2_n = std::stoi(item);
        if (log2_n > 40) return false;
        sizes.push_back(std::size_t(1) << log2_n);
    }
    return !sizes.empty();
}

inline Arguments parse_arguments(int argc, char** argv, const char* usage, bool has_only) {
    Arguments args;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--out" && i + 1 < argc)
            args.out_dir = argv[++i];
        else if (arg.rfind("--out=", 0) == 0)
            args.out_dir = arg.substr(6);
        else if (arg == "--commit" && i + 1 < argc)
            args.commit = argv[++i];
        else if (arg == "--quick")
            args.quick = true;
        else if (has_only && arg == "--only" && i + 1 < argc)
            args.only = argv[++i];
        else if (arg == "--sizes" && i + 1 < argc) {
            if (!parse_log2_sizes(argv[++i], args.sizes)) {
                std::fprintf(stderr, "--sizes %s: expected exponents 0..40 separated by commas, e.g. 20,28\n", argv[i]);
                args.ok = false;
                return args;
            }
        } else {
            std::fprintf(stderr, "unknown argument %s\nusage: %s\n", arg.c_str(), usage);
            args.ok = false;
            return args;
        }
    }
    if (args.commit.empty()) args.commit = git_commit();
    return args;
}

// The lines every results table starts with: when, which commit, which device and CUDA.
inline std::string environment_lines(const std::string& commit) {
    cudaDeviceProp prop{};
    TS_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
    int runtime = 0, driver = 0;
    TS_CUDA_CHECK(cudaRuntimeGetVersion(&runtime));
    TS_CUDA_CHECK(cudaDriverGetVersion(&driver));
    char date[32];
    const std::time_t now = std::time(nullptr);
    std::strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", std::gmtime(&now));
    std::ostringstream lines;
    lines << "- date: " << date << "\n- commit: " << commit << "\n- device: " << prop.name << " ("
          << prop.multiProcessorCount << " SMs, " << (prop.l2CacheSize >> 20) << " MB L2, "
          << (prop.totalGlobalMem >> 30) << " GiB)\n- CUDA runtime " << runtime / 1000 << "." << (runtime % 1000) / 10
          << ", driver " << driver / 1000 << "." << (driver % 1000) / 10 << ", CUB " << CUB_VERSION / 100000 << "."
          << (CUB_VERSION / 100) % 1000 << "." << CUB_VERSION % 100 << "\n";
    return lines.str();
}

}  // namespace tilescan::bench
