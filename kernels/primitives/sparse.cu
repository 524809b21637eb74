// GPU COO <-> CSR (sparse.h): counts + the scan library's scan for the offsets, the radix sort
// (bit range of the row indices only) for a stable reorder, a max-scan for the inverse.
#include <stdexcept>
#include <string>

#include "kernels/cuda_check.h"
#include "kernels/primitives/radix_sort.h"
#include "kernels/primitives/sparse.h"
#include "kernels/scan/scan.h"

namespace tilescan::prim_detail {
namespace {

constexpr unsigned kAll = 0xffffffffu;

std::size_t align256(std::size_t b) { return (b + 255) / 256 * 256; }

int row_bits(std::int32_t n_rows) {
    int bits = 0;
    while (bits < 31 && (std::int64_t(1) << bits) < std::int64_t(n_rows)) ++bits;
    return bits;  // rows 0 .. n_rows-1 fit `bits` bits
}

unsigned grid_for(std::size_t n) {
    const std::size_t blocks = (n + 255) / 256;
    return unsigned(blocks < 65535 ? (blocks == 0 ? 1 : blocks) : 65535);
}

__global__ void row_count_kernel(const std::int32_t* rows, std::size_t nnz, std::int32_t* counts) {
    const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
    const std::size_t start = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    // Whole warps iterate together (the vote needs every lane).
    for (std::size_t i0 = start - threadIdx.x % 32; i0 < nnz; i0 += stride) {
        const std::size_t i = i0 + threadIdx.x % 32;
        const std::int32_t r = i < nnz ? rows[i] : -1;
        const std::int32_t first = __shfl_sync(kAll, r, 0);
        if (__all_sync(kAll, r == first)) {
            if (threadIdx.x % 32 == 0 && first >= 0) atomicAdd(&counts[first], 32);
        } else if (r >= 0) {
            atomicAdd(&counts[r], 1);
        }
    }
}

__global__ void iota_kernel(std::uint32_t* out, std::size_t n) {
    for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
         i += std::size_t(gridDim.x) * blockDim.x)
        out[i] = std::uint32_t(i);
}

template <typename Value>
__global__ void gather_kernel(const std::uint32_t* perm, const std::int32_t* cols, const Value* vals, std::size_t n,
                              std::int32_t* cols_out, Value* vals_out) {
    for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
         i += std::size_t(gridDim.x) * blockDim.x) {
        const std::uint32_t k = perm[i];
        cols_out[i] = cols[k];
        vals_out[i] = vals[k];
    }
}

__global__ void mark_rows_kernel(const std::int32_t* offsets, std::int32_t n_rows, std::int32_t* rows) {
    for (std::int64_t r = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; r < n_rows;
         r += std::int64_t(gridDim.x) * blockDim.x)
        if (offsets[r] < offsets[r + 1]) rows[offsets[r]] = std::int32_t(r);
}

struct CooTemp {
    std::size_t counts, scan, iota, keys, perm, sort, total;
};

CooTemp coo_temp_layout(std::size_t nnz, std::int32_t n_rows) {
    CooTemp t{};
    t.counts = align256(std::size_t(n_rows) * 4);
    t.scan = scan_temp_bytes<std::int32_t, std::int32_t>(std::size_t(n_rows));
    t.iota = align256(nnz * 4);
    t.keys = align256(nnz * 4);
    t.perm = align256(nnz * 4);
    t.sort = radix_sort_pairs_temp_bytes<std::int32_t, std::uint32_t>(nnz);
    t.total = t.counts + t.scan + t.iota + t.keys + t.perm + t.sort;
    return t;
}

}  // namespace
}  // namespace tilescan::prim_detail

namespace tilescan {

std::size_t coo_to_csr_temp_bytes(std::size_t nnz, std::int32_t n_rows) {
    if (n_rows < 0) throw std::invalid_argument("coo_to_csr: negative n_rows");
    return prim_detail::coo_temp_layout(nnz, n_rows).total;
}

template <typename Value>
void coo_to_csr(const std::int32_t* d_rows, const std::int32_t* d_cols, const Value* d_vals, std::size_t nnz,
                std::int32_t n_rows, std::int32_t* d_row_offsets, std::int32_t* d_csr_cols, Value* d_csr_vals,
                void* d_temp, std::size_t temp_bytes, cudaStream_t stream, bool rows_sorted) {
    using namespace prim_detail;
    if (n_rows < 0) throw std::invalid_argument("coo_to_csr: negative n_rows");
    if (nnz >= (std::size_t(1) << 31)) throw std::invalid_argument("coo_to_csr: nnz must be below 2^31");
    if (nnz > 0 && n_rows == 0) throw std::invalid_argument("coo_to_csr: entries but no rows");
    const CooTemp layout = coo_temp_layout(nnz, n_rows);
    if (temp_bytes < layout.total || (layout.total > 0 && d_temp == nullptr))
        throw std::invalid_argument("coo_to_csr: temporary storage of " + std::to_string(temp_bytes) + " bytes, " +
                                    std::to_string(layout.total) + " needed (ask coo_to_csr_temp_bytes)");
    if (d_row_offsets == nullptr || (nnz > 0 && (!d_rows || !d_cols || !d_vals || !d_csr_cols || !d_csr_vals)))
        throw std::invalid_argument("coo_to_csr: null pointer");
    unsigned char* temp = static_cast<unsigned char*>(d_temp);
    auto* counts = reinterpret_cast<std::int32_t*>(temp);
    unsigned char* scan_temp = temp + layout.counts;
    auto* iota = reinterpret_cast<std::uint32_t*>(scan_temp + layout.scan);
    auto* keys = reinterpret_cast<std::int32_t*>(reinterpret_cast<unsigned char*>(iota) + layout.iota);
    auto* perm = reinterpret_cast<std::uint32_t*>(reinterpret_cast<unsigned char*>(keys) + layout.keys);
    unsigned char* sort_temp = reinterpret_cast<unsigned char*>(perm) + layout.perm;

    if (n_rows > 0) TS_CUDA_CHECK(cudaMemsetAsync(counts, 0, std::size_t(n_rows) * 4, stream));
    if (nnz > 0) {
        row_count_kernel<<<grid_for(nnz), 256, 0, stream>>>(d_rows, nnz, counts);
        TS_CUDA_CHECK_LAUNCH();
    }
    exclusive_scan(counts, d_row_offsets, std::size_t(n_rows), Sum<std::int32_t>{}, scan_temp, layout.scan, stream,
                   kDefaultScanAlgorithm, d_row_offsets + n_rows);
    if (nnz == 0) return;
    if (rows_sorted) {
        if (d_csr_cols != d_cols)
            TS_CUDA_CHECK(cudaMemcpyAsync(d_csr_cols, d_cols, nnz * 4, cudaMemcpyDeviceToDevice, stream));
        if (d_csr_vals != d_vals)
            TS_CUDA_CHECK(cudaMemcpyAsync(d_csr_vals, d_vals, nnz * sizeof(Value), cudaMemcpyDeviceToDevice, stream));
        return;
    }
    iota_kernel<<<grid_for(nnz), 256, 0, stream>>>(iota, nnz);
    TS_CUDA_CHECK_LAUNCH();
    radix_sort_pairs(d_rows, keys, iota, perm, nnz, sort_temp, layout.sort, stream, 0, row_bits(n_rows));
    gather_kernel<Value><<<grid_for(nnz), 256, 0, stream>>>(perm, d_cols, d_vals, nnz, d_csr_cols, d_csr_vals);
    TS_CUDA_CHECK_LAUNCH();
}

std::size_t csr_to_coo_temp_bytes(std::size_t nnz) { return scan_temp_bytes<std::int32_t, std::int32_t>(nnz); }

void csr_to_coo(const std::int32_t* d_row_offsets, std::int32_t n_rows, std::size_t nnz, std::int32_t* d_rows,
                void* d_temp, std::size_t temp_bytes, cudaStream_t stream) {
    using namespace prim_detail;
    if (n_rows < 0) throw std::invalid_argument("csr_to_coo: negative n_rows");
    if (nnz >= (std::size_t(1) << 31)) throw std::invalid_argument("csr_to_coo: nnz must be below 2^31");
    const std::size_t needed = csr_to_coo_temp_bytes(nnz);
    if (temp_bytes < needed || (needed > 0 && d_temp == nullptr))
        throw std::invalid_argument("csr_to_coo: temporary storage of " + std::to_string(temp_bytes) + " bytes, " +
                                    std::to_string(needed) + " needed (ask csr_to_coo_temp_bytes)");
    if (nnz == 0) return;
    if (d_row_offsets == nullptr || d_rows == nullptr) throw std::invalid_argument("csr_to_coo: null pointer");
    TS_CUDA_CHECK(cudaMemsetAsync(d_rows, 0, nnz * 4, stream));
    if (n_rows > 0) {
        mark_rows_kernel<<<grid_for(std::size_t(n_rows)), 256, 0, stream>>>(d_row_offsets, n_rows, d_rows);
        TS_CUDA_CHECK_LAUNCH();
    }
    inclusive_scan(d_rows, d_rows, nnz, Max<std::int32_t>{}, d_temp, temp_bytes, stream);
}

template void coo_to_csr<float>(const std::int32_t*, const std::int32_t*, const float*, std::size_t, std::int32_t,
                                std::int32_t*, std::int32_t*, float*, void*, std::size_t, cudaStream_t, bool);
template void coo_to_csr<double>(const std::int32_t*, const std::int32_t*, const double*, std::size_t, std::int32_t,
                                 std::int32_t*, std::int32_t*, double*, void*, std::size_t, cudaStream_t, bool);

}  // namespace tilescan
