// The scan benchmark: our algorithms, cub::DeviceScan and cudaMemcpy of the same bytes, side by
// side in one run, following the method of docs/development.md ("Benchmarks"): CUDA events
// around each call, warm-up first, the median of 20 runs (fewer for slow calls), inputs generated on the device
// (random, never zeros), and every timed output compared with CUB's (itself checked against the
// serial host reference up to 2^20 elements). Second, the seed chapter's experiment: the four
// scan designs across sizes, with the operator applications each does, counted by a sum operator
// that tallies its own calls.
//
//   tilescan_scan_bench [--out DIR] [--quick] [--commit HASH]
// prints both tables (markdown) and writes DIR/scan_bench.csv, DIR/scan_work.csv and
// DIR/scan_bench.md (the tables with a header: date, commit, device, CUDA version).
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cub/device/device_scan.cuh>
#include <fstream>
#include <functional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench/bench_support.cuh"
#include "kernels/cuda_check.h"
#include "kernels/device_buffer.h"
#include "kernels/scan/scan.cuh"
#include "kernels/scan/scan_cpu.h"
#include "kernels/scan/scan_example_ops.h"

using namespace tilescan;

namespace {

// ---- inputs and checks on the device --------------------------------------------------------

// Small integers (sum: -8..8; max: 0..2^24) so sums stay exact in float for any grouping and the
// comparison with CUB can be bit for bit; Affine maps a = +-1, b = -4..4, exact likewise.
template <typename T>
struct Generate {
    bool wide;
    __device__ T operator()(std::uint64_t i) const {
        const std::uint64_t h = bench::mix(i);
        return wide ? T(std::int64_t(h % (1u << 24))) : T(std::int64_t(h % 17) - 8);
    }
};
template <>
struct Generate<Affine> {
    bool wide;
    __device__ Affine operator()(std::uint64_t i) const {
        const std::uint64_t h = bench::mix(i);
        return {(h & 1) ? 1.0f : -1.0f, float(int((h >> 1) % 9) - 4)};
    }
};

template <typename T>
__global__ void fill_kernel(T* data, std::size_t n, Generate<T> generate) {
    for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
         i += std::size_t(gridDim.x) * blockDim.x)
        data[i] = generate(i);
}

// ---- timing -------------------------------------------------------------------------------

// The timing rule of this driver: median of 20 (10 with --quick), see bench::median_ms.
double median_ms(const std::function<void()>& run, bool quick) { return bench::median_ms(run, quick ? 10 : 20); }

std::string format_time(double ms) {
    char buf[32];
    if (ms < 1.0)
        std::snprintf(buf, sizeof buf, "%.1f us", ms * 1e3);
    else
        std::snprintf(buf, sizeof buf, "%.3f ms", ms);
    return buf;
}

struct Row {
    std::string type, op, n_label, method;
    std::size_t n;
    double ms, gbps, vs_memcpy, vs_cub;
    std::string check;
};

struct Report {
    std::vector<Row> rows;
    std::ostringstream table;
};

// ---- the main comparison ------------------------------------------------------------------

template <typename T, typename Op>
void bench_case(const char* type_name, const char* op_name, Op op, bool wide, std::size_t n, bool quick,
                Report& report) {
    DeviceBuffer<T> in(n), out(n), ref(n);
    fill_kernel<<<4096, 256>>>(in.data(), n, Generate<T>{wide});
    TS_CUDA_CHECK_LAUNCH();
    const double bytes = 2.0 * double(n) * sizeof(T);

    // CUB, the reference and the peer.
    std::size_t cub_bytes = 0;
    auto cub_scan = [&](void* temp) {
        if constexpr (std::is_same<Op, Sum<T>>::value)
            TS_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(temp, cub_bytes, in.data(), ref.data(), int(n)));
        else
            TS_CUDA_CHECK(
                cub::DeviceScan::ExclusiveScan(temp, cub_bytes, in.data(), ref.data(), op, op.identity(), int(n)));
    };
    cub_scan(nullptr);
    DeviceBuffer<unsigned char> cub_temp(std::max<std::size_t>(cub_bytes, 1));
    cub_scan(cub_temp.data());
    TS_CUDA_CHECK(cudaDeviceSynchronize());
    std::string cub_check = "ref";
    if (n <= (std::size_t(1) << 20)) {  // CUB itself against the serial host reference
        std::vector<T> h_in(n), h_ref(n), h_cub(n);
        TS_CUDA_CHECK(cudaMemcpy(h_in.data(), in.data(), n * sizeof(T), cudaMemcpyDeviceToHost));
        TS_CUDA_CHECK(cudaMemcpy(h_cub.data(), ref.data(), n * sizeof(T), cudaMemcpyDeviceToHost));
        serial_exclusive_scan(h_in.data(), h_ref.data(), n, op);
        cub_check = std::memcmp(h_ref.data(), h_cub.data(), n * sizeof(T)) == 0 ? "= host" : "HOST MISMATCH";
    }
    const double cub_ms = median_ms([&] { cub_scan(cub_temp.data()); }, quick);
    const double memcpy_ms = median_ms(
        [&] { TS_CUDA_CHECK(cudaMemcpyAsync(out.data(), in.data(), n * sizeof(T), cudaMemcpyDeviceToDevice)); }, quick);

    auto add = [&](const std::string& method, double ms, const std::string& check) {
        Row row{type_name,          op_name,        bench::size_name(n), method, n, ms,
                bytes / (ms * 1e6), memcpy_ms / ms, cub_ms / ms,         check};
        report.rows.push_back(row);
        report.table << "| " << row.type << " | " << row.op << " | " << row.n_label << " | " << row.method << " | "
                     << format_time(ms) << " | " << bench::fixed(row.gbps, 0) << " | " << bench::fixed(row.vs_memcpy, 2)
                     << " | " << bench::fixed(row.vs_cub, 2) << " | " << check << " |\n";
        std::fflush(stdout);
    };
    add("cudaMemcpy", memcpy_ms, "-");
    add("cub::DeviceScan", cub_ms, cub_check);

    for (ScanAlgorithm algorithm : kScanAlgorithms) {
        const std::size_t temp_bytes = scan_temp_bytes<T>(n, algorithm);
        DeviceBuffer<unsigned char> temp(std::max<std::size_t>(temp_bytes, 1));
        auto run = [&] { exclusive_scan(in.data(), out.data(), n, op, temp.data(), temp_bytes, nullptr, algorithm); };
        TS_CUDA_CHECK(cudaMemset(out.data(), 0xCD, n * sizeof(T)));
        run();
        std::size_t bad = bench::count_mismatches(out.data(), ref.data(), n);
        const double ms = median_ms(run, quick);
        bad += bench::count_mismatches(out.data(), ref.data(), n);  // the last timed output too
        add(scan_algorithm_name(algorithm), ms, bad == 0 ? "= CUB" : std::to_string(bad) + " WRONG");
    }

    // The single pass with a workspace instead of temporary storage: one launch a call, no clearing.
    ScanWorkspace workspace;
    workspace.reserve<T>(n);
    auto run = [&] { exclusive_scan(in.data(), out.data(), n, op, workspace); };
    TS_CUDA_CHECK(cudaMemset(out.data(), 0xCD, n * sizeof(T)));
    run();
    std::size_t bad = bench::count_mismatches(out.data(), ref.data(), n);
    const double ms = median_ms(run, quick);
    bad += bench::count_mismatches(out.data(), ref.data(), n);
    add(std::string(scan_algorithm_name(ScanAlgorithm::decoupled_lookback)) + " (workspace)", ms,
        bad == 0 ? "= CUB" : std::to_string(bad) + " WRONG");
}

// ---- the seed chapter's experiment: work per algorithm ------------------------------------

// Sum of int32 that counts its own applications (spread over 4096 counters to limit contention).
struct CountingSum {
    unsigned long long* counters;  // [4096]
    __host__ __device__ int operator()(const int& a, const int& b) const {
#if defined(__CUDA_ARCH__)
        atomicAdd(counters + ((blockIdx.x * 131 + threadIdx.x) & 4095), 1ull);
#endif
        return a + b;
    }
    __host__ __device__ static int identity() { return 0; }
};

double applications_per_element(ScanAlgorithm algorithm, std::size_t n) {
    DeviceBuffer<int> in(n), out(n);
    fill_kernel<<<1024, 256>>>(in.data(), n, Generate<int>{false});
    TS_CUDA_CHECK_LAUNCH();
    DeviceBuffer<unsigned long long> counters(4096);
    TS_CUDA_CHECK(cudaMemset(counters.data(), 0, 4096 * sizeof(unsigned long long)));
    const std::size_t temp_bytes = scan_temp_bytes<int>(n, algorithm);
    DeviceBuffer<unsigned char> temp(std::max<std::size_t>(temp_bytes, 1));
    exclusive_scan(in.data(), out.data(), n, CountingSum{counters.data()}, temp.data(), temp_bytes, nullptr, algorithm);
    std::vector<unsigned long long> h(4096);
    TS_CUDA_CHECK(cudaMemcpy(h.data(), counters.data(), 4096 * 8, cudaMemcpyDeviceToHost));
    unsigned long long total = 0;
    for (auto c : h) total += c;
    return double(total) / double(n);
}

// Bytes each algorithm moves through device memory per int32 element (ignoring the tile sums and
// status words, which are below 0.01 byte per element): the three-phase driver reads the input
// twice and writes once; the single pass reads once and writes once.
double bytes_per_element(ScanAlgorithm algorithm) {
    return algorithm == ScanAlgorithm::decoupled_lookback ? 8.0 : 12.0;
}

void work_experiment(const std::vector<std::size_t>& sizes, bool quick, std::ostringstream& table,
                     std::ostringstream& csv) {
    const ScanAlgorithm algorithms[] = {ScanAlgorithm::hillis_steele, ScanAlgorithm::blelloch,
                                        ScanAlgorithm::warp_shuffle, ScanAlgorithm::reduce_then_scan,
                                        ScanAlgorithm::decoupled_lookback};
    const std::size_t count_n = std::size_t(1) << 20;
    table << "| algorithm | operator applications per element (n = 2^20, counted) | bytes moved per element |";
    for (std::size_t n : sizes) table << " " << bench::size_name(n) << " |";
    table << "\n|---|---|---|";
    for (std::size_t i = 0; i < sizes.size(); ++i) table << "---|";
    table << "\n";
    csv << "algorithm,ops_per_element,bytes_per_element,n,ms\n";
    std::vector<std::vector<double>> times(5);
    for (std::size_t n : sizes) {
        DeviceBuffer<int> in(n), out(n);
        fill_kernel<<<4096, 256>>>(in.data(), n, Generate<int>{false});
        TS_CUDA_CHECK_LAUNCH();
        for (int a = 0; a < 5; ++a) {
            const std::size_t temp_bytes = scan_temp_bytes<int>(n, algorithms[a]);
            DeviceBuffer<unsigned char> temp(std::max<std::size_t>(temp_bytes, 1));
            times[a].push_back(median_ms(
                [&] {
                    exclusive_scan(in.data(), out.data(), n, Sum<int>{}, temp.data(), temp_bytes, nullptr,
                                   algorithms[a]);
                },
                quick));
        }
    }
    for (int a = 0; a < 5; ++a) {
        const double ops = applications_per_element(algorithms[a], count_n);
        table << "| " << scan_algorithm_name(algorithms[a]) << " | " << bench::fixed(ops, 2) << " | "
              << bench::fixed(bytes_per_element(algorithms[a]), 0) << " |";
        for (std::size_t i = 0; i < sizes.size(); ++i) {
            table << " " << format_time(times[a][i]) << " |";
            csv << scan_algorithm_name(algorithms[a]) << "," << ops << "," << bytes_per_element(algorithms[a]) << ","
                << sizes[i] << "," << times[a][i] << "\n";
        }
        table << "\n";
    }
}

}  // namespace

int main(int argc, char** argv) {
    // --only TYPE-OP, e.g. int32-sum: that case alone, no work table (tuning runs)
    const bench::Arguments args = bench::parse_arguments(
        argc, argv, "tilescan_scan_bench [--out DIR] [--quick] [--commit HASH] [--only TYPE-OP] [--sizes LOG2,...]",
        true);
    if (!args.ok) return 2;
    const std::string& out_dir = args.out_dir;
    const std::string& commit = args.commit;
    const std::string& only = args.only;
    const bool quick = args.quick;
    try {
        std::ostringstream header;
        header << "# Scan benchmark: tilescan vs cub::DeviceScan vs cudaMemcpy\n\n"
               << bench::environment_lines(commit)
               << "- method: exclusive scans; CUDA events around each call, 3 warm-ups, median of 20 (5 when a "
                  "call exceeds 10 ms)"
               << (quick ? " [--quick: median of 10, fewer sizes]" : "")
               << "; inputs generated on the device; every timed output compared bit for bit with CUB's, CUB's "
                  "with the host reference up to 2^20\n- GB/s = (bytes read + bytes written) / time; vs memcpy = "
                  "memcpy time / our time; vs CUB = CUB time / our time (> 1: we are faster)\n\n";
        std::printf("%s", header.str().c_str());

        // The issue's sizes, and 2^22, 2^23 and 2^26, where the look-back first takes over from the
        // resident scan and where it starts to take load turns.
        std::vector<std::size_t> sizes = {std::size_t(1) << 10,   std::size_t(1) << 16, std::size_t(1) << 20,
                                          std::size_t(1) << 22,   std::size_t(1) << 23, std::size_t(1) << 24,
                                          std::size_t(1) << 26,   std::size_t(1) << 28, std::size_t(1) << 30,
                                          std::size_t(1000000000)};
        if (quick) sizes = {std::size_t(1) << 10, std::size_t(1) << 20, std::size_t(1) << 24, std::size_t(1) << 28};
        if (!args.sizes.empty()) sizes = args.sizes;

        Report report;
        report.table << "## Exclusive scans\n\n| type | op | N | method | time | GB/s | vs memcpy | vs CUB | check |\n"
                     << "|---|---|---|---|---|---|---|---|---|\n";
        auto wanted = [&](const char* name) { return only.empty() || only == name; };
        for (std::size_t n : sizes) {
            if (wanted("int32-sum"))
                bench_case<std::int32_t>("int32", "sum", Sum<std::int32_t>{}, false, n, quick, report);
            if (wanted("int32-max"))
                bench_case<std::int32_t>("int32", "max", Max<std::int32_t>{}, true, n, quick, report);
            if (wanted("float-sum")) bench_case<float>("float", "sum", Sum<float>{}, false, n, quick, report);
            if (wanted("float-max")) bench_case<float>("float", "max", Max<float>{}, true, n, quick, report);
            if (wanted("int64-sum"))
                bench_case<std::int64_t>("int64", "sum", Sum<std::int64_t>{}, false, n, quick, report);
            if (wanted("int64-max"))
                bench_case<std::int64_t>("int64", "max", Max<std::int64_t>{}, true, n, quick, report);
            if (wanted("affine-compose"))
                bench_case<Affine>("affine", "compose", AffineCompose{}, false, n, quick, report);
            std::fprintf(stderr, "done N = %s\n", bench::size_name(n).c_str());
        }

        std::ostringstream work_table, work_csv;
        if (only.empty()) {
            work_table << "\n## The seed chapter's experiment: int32 exclusive sum, time per call\n\n";
            work_experiment(
                quick ? std::vector<std::size_t>{std::size_t(1) << 10, std::size_t(1) << 20, std::size_t(1) << 24}
                      : std::vector<std::size_t>{std::size_t(1) << 10, std::size_t(1) << 16, std::size_t(1) << 20,
                                                 std::size_t(1) << 24, std::size_t(1) << 28, std::size_t(1) << 30},
                quick, work_table, work_csv);
        }

        const std::string all = header.str() + report.table.str() + work_table.str();
        std::printf("%s%s", report.table.str().c_str(), work_table.str().c_str());
        if (!out_dir.empty()) {
            std::ofstream(out_dir + "/scan_bench.md") << all;
            std::ofstream csv(out_dir + "/scan_bench.csv");
            csv << "type,op,n,method,ms,gbps,vs_memcpy,vs_cub,check\n";
            for (const Row& r : report.rows)
                csv << r.type << "," << r.op << "," << r.n << "," << r.method << "," << r.ms << "," << r.gbps << ","
                    << r.vs_memcpy << "," << r.vs_cub << "," << r.check << "\n";
            std::ofstream(out_dir + "/scan_work.csv") << work_csv.str();
        }
        bool all_checked = true;
        for (const Row& r : report.rows)
            if (r.check.find("WRONG") != std::string::npos || r.check.find("MISMATCH") != std::string::npos)
                all_checked = false;
        if (!all_checked) {
            std::fprintf(stderr, "some outputs were wrong (see the check column)\n");
            return 1;
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "tilescan_scan_bench: %s\n", e.what());
        return 1;
    }
    return 0;
}
