/// @file
/// CUDA error handling for every CUDA call and kernel launch in tilescan.
///
/// TS_CUDA_CHECK(expr) evaluates a CUDA runtime call once and, on failure, throws CudaError with
/// the call site, the expression and cudaGetErrorString of *that* result. TS_CUDA_CHECK_LAUNCH()
/// follows a kernel launch (it reads the launch error, not a later one). TS_CUDA_CHECK_NOTHROW is
/// for destructors, which must not throw: it reports on stderr instead.
#pragma once

#include <cuda_runtime.h>

#include <cstdio>
#include <stdexcept>
#include <string>

namespace tilescan {

/// A failed CUDA runtime call or launch. what() reads "file:line: expression: error string".
class CudaError : public std::runtime_error {
public:
    /// The failure `code` of `expression`, evaluated at file:line.
    CudaError(cudaError_t code, const char* expression, const char* file, int line)
        : std::runtime_error(std::string(file) + ":" + std::to_string(line) + ": " + expression + ": " +
                             cudaGetErrorString(code)),
          code_(code) {}
    cudaError_t code() const { return code_; }  ///< the CUDA error of that call
    /// True for cudaErrorMemoryAllocation, which a caller may handle by using less memory.
    bool out_of_memory() const { return code_ == cudaErrorMemoryAllocation; }

private:
    cudaError_t code_;
};

}  // namespace tilescan

/// Evaluates the CUDA runtime call `expr` once; throws CudaError naming it on failure.
#define TS_CUDA_CHECK(expr)                                                                                          \
    do {                                                                                                             \
        const cudaError_t ts_cuda_result_ = (expr);                                                                  \
        if (ts_cuda_result_ != cudaSuccess) throw ::tilescan::CudaError(ts_cuda_result_, #expr, __FILE__, __LINE__); \
    } while (0)

/// After a kernel launch: throws CudaError when the launch failed.
#define TS_CUDA_CHECK_LAUNCH() TS_CUDA_CHECK(cudaGetLastError())

/// TS_CUDA_CHECK for destructors: reports a failure on stderr instead of throwing.
#define TS_CUDA_CHECK_NOTHROW(expr)                                                                                  \
    do {                                                                                                             \
        const cudaError_t ts_cuda_result_ = (expr);                                                                  \
        if (ts_cuda_result_ != cudaSuccess)                                                                          \
            std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #expr, cudaGetErrorString(ts_cuda_result_)); \
    } while (0)

namespace tilescan {

/// `attribute` of the current device (cudaDeviceGetAttribute); throws CudaError on failure.
inline int current_device_attribute(cudaDeviceAttr attribute) {
    int device = 0, value = 0;
    TS_CUDA_CHECK(cudaGetDevice(&device));
    TS_CUDA_CHECK(cudaDeviceGetAttribute(&value, attribute, device));
    return value;
}

}  // namespace tilescan
