/// @file
/// CPU half of the histogram: the bin rule shared with the GPU (EvenBins, TS_HD so one definition
/// serves both), a serial reference and a multi-threaded version. Counts are 64-bit integers, so
/// results are exact for any n and identical on every backend.
///
/// EvenBins: `bins` equal-width bins over [lower, upper); samples outside are not counted.
/// @verbatim
///   integers (at most 32 bits): bin = (x - lower) * bins / (upper - lower), exact in 64-bit; the
///          division by the fixed range is a multiply-high and two shifts (DivideByConstant), the
///          quotient of the plain division for every numerator
///   float: bin = int((x - lower) * scale), scale = bins / (upper - lower) computed once in
///          float, clamped to bins - 1 (a subtraction and a product: no contraction, so host and
///          device agree bit for bit)
/// @endverbatim
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include "kernels/scan/scan_cpu.h"

namespace tilescan {

/// Exact unsigned 64-bit division by a divisor fixed in advance, without a divide instruction
/// (the GPU has none: a 64-bit `/` is a long software routine). Granlund and Montgomery's round-up method ("Division by
/// invariant integers using multiplication", 1994, figure 4.1), for divisors d < 2^63:
/// with l = ceil(log2 d), m = floor(2^64 (2^l - d) / d) + 1, t = mulhi(m, n),
/// n / d = (t + ((n - t) >> min(l, 1))) >> max(l - 1, 0) for every n < 2^64.
/// E.g. d = 3: l = 2, m = 0x5555555555555556; n = 10: t = 3, (3 + (7 >> 1)) >> 1 = 3.
struct DivideByConstant {
    std::uint64_t multiplier = 0;  ///< m: floor(2^64 (2^l - d) / d) + 1
    int shift1 = 0;                ///< min(l, 1)
    int shift2 = 0;                ///< max(l - 1, 0)

    DivideByConstant() = default;
    /// @throws std::invalid_argument unless 1 <= divisor < 2^63.
    explicit DivideByConstant(std::uint64_t divisor) {
        if (divisor == 0 || divisor >> 63) throw std::invalid_argument("DivideByConstant: divisor out of range");
        int l = 0;
        while ((std::uint64_t(1) << l) < divisor) ++l;
        const unsigned __int128 excess = (unsigned __int128)((std::uint64_t(1) << l) - divisor) << 64;
        multiplier = std::uint64_t(excess / divisor) + 1;
        shift1 = l < 1 ? l : 1;
        shift2 = l > 1 ? l - 1 : 0;
    }
    /// n / divisor, for any n.
    TS_HD std::uint64_t operator()(std::uint64_t n) const {
        const std::uint64_t t = multiply_high(multiplier, n);
        return (t + ((n - t) >> shift1)) >> shift2;
    }
    /// The high 64 bits of a * b.
    TS_HD static std::uint64_t multiply_high(std::uint64_t a, std::uint64_t b) {
#if defined(__CUDA_ARCH__)
        return __umul64hi(a, b);
#else
        return std::uint64_t(((unsigned __int128)a * b) >> 64);
#endif
    }
};

/// `bins` equal-width bins over [lower, upper): the bin rule of the CPU and GPU histograms.
template <typename T>
struct EvenBins {
    static_assert(sizeof(T) <= 4, "EvenBins: 32-bit sample types (exact 64-bit bin arithmetic)");
    ///@{ The range [lower, upper).
    T lower{}, upper{};
    ///@}
    int bins = 0;                      ///< number of bins
    float scale = 0.0f;                ///< bins / (upper - lower) in float; floating point only
    DivideByConstant divide_by_range;  ///< by upper - lower; integers only

    EvenBins() = default;  ///< No bins (histogram_even rejects it).
    /// `bins_` bins over [lower_, upper_).
    /// @throws std::invalid_argument unless bins_ > 0 and lower_ < upper_.
    EvenBins(int bins_, T lower_, T upper_) : lower(lower_), upper(upper_), bins(bins_) {
        if (bins_ <= 0 || !(lower_ < upper_)) throw std::invalid_argument("EvenBins: need bins > 0 and lower < upper");
        if constexpr (std::is_floating_point<T>::value)
            scale = float(bins_) / float(upper_ - lower_);
        else
            divide_by_range = DivideByConstant(std::uint64_t(std::int64_t(upper_) - std::int64_t(lower_)));
    }

    /// The bin of x, or -1 when x is outside [lower, upper) (NaN included).
    TS_HD int operator()(T x) const {
        if (!(x >= lower) || !(x < upper)) return -1;
        if constexpr (std::is_floating_point<T>::value) {
            const int b = int((x - lower) * scale);
            return b < bins ? b : bins - 1;
        } else {
            const std::uint64_t offset = std::uint64_t(std::int64_t(x) - std::int64_t(lower));
            return int(divide_by_range(offset * std::uint64_t(bins)));
        }
    }
};

/// counts[b] = number of samples in bin b (counts has bin_rule.bins entries; overwritten).
template <typename T, typename BinRule>
void serial_histogram(const T* samples, std::size_t n, BinRule bin_rule, std::uint64_t* counts) {
    for (int b = 0; b < bin_rule.bins; ++b) counts[b] = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const int b = bin_rule(samples[i]);
        if (b >= 0) ++counts[b];
    }
}

/// serial_histogram on `threads` threads (0 = all cores): per-chunk counts, summed per bin. The
/// same counts.
template <typename T, typename BinRule>
void cpu_histogram(const T* samples, std::size_t n, BinRule bin_rule, std::uint64_t* counts, unsigned threads = 0) {
    if (threads == 0) threads = cpu_scan_default_threads();
    const CpuScanChunks chunks = cpu_scan_chunks(n);
    if (chunks.count <= 1) return serial_histogram(samples, n, bin_rule, counts);
    const std::size_t bins = std::size_t(bin_rule.bins);
    std::vector<std::uint64_t> local(chunks.count * bins, 0);
    cpu_parallel_ranges(chunks.count, threads, [&](std::size_t c0, std::size_t c1) {
        for (std::size_t c = c0; c < c1; ++c) {
            std::uint64_t* mine = local.data() + c * bins;
            const std::size_t first = c * chunks.size, last = first + chunks.size < n ? first + chunks.size : n;
            for (std::size_t i = first; i < last; ++i) {
                const int b = bin_rule(samples[i]);
                if (b >= 0) ++mine[b];
            }
        }
    });
    for (std::size_t b = 0; b < bins; ++b) {
        std::uint64_t sum = 0;
        for (std::size_t c = 0; c < chunks.count; ++c) sum += local[c * bins + b];
        counts[b] = sum;
    }
}

}  // namespace tilescan
