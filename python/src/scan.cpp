// The scan library from Python (tilescan.scan): inclusive and exclusive scans by a chosen algorithm,
// compaction, find_repeats, radix sort and histogram on numpy arrays, so a learner can call the
// algorithm docs/scan.md describes and compare it with numpy. "serial" and "cpu" run the CPU half
// (scan_cpu.h and the primitives' *_cpu.h); the GPU algorithms run the scan on a CUDA device,
// copying the array there and back, where this build has CUDA and a device is present.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "bindings.h"
#include "convert.h"
#include "kernels/cuda_device.h"
#include "kernels/primitives/compaction_cpu.h"
#include "kernels/primitives/histogram_cpu.h"
#include "kernels/primitives/radix_sort_cpu.h"
#include "kernels/scan/scan_algorithm.h"
#include "kernels/scan/scan_cpu.h"
#include "kernels/scan/scan_ops.h"
#include "renderer/errors.h"
#include "typed_arrays.h"

#if TILESCAN_SCAN_HAVE_CUDA
#include "kernels/device_buffer.h"
#include "kernels/scan/scan.h"
#endif

namespace tilescan::python {

namespace {

// How a call runs: the serial reference, the multi-threaded CPU version, or a GPU algorithm.
struct Method {
    bool gpu = false;
    bool serial = false;
    ScanAlgorithm algorithm = ScanAlgorithm::decoupled_lookback;
    unsigned threads = 0;
};

std::string algorithm_names(bool with_gpu) {
    std::string names = "serial, cpu";
    if (with_gpu)
        for (ScanAlgorithm algorithm : kScanAlgorithms) names += std::string(", ") + scan_algorithm_name(algorithm);
    return names;
}

Method parse_method(const std::string& name, unsigned threads, bool gpu_allowed) {
    Method method;
    method.threads = threads;
    if (name == "serial") {
        method.serial = true;
        return method;
    }
    if (name == "cpu") return method;
    for (ScanAlgorithm algorithm : kScanAlgorithms) {
        if (name != scan_algorithm_name(algorithm)) continue;
        if (!gpu_allowed) throw InputError("algorithm: '" + name + "' is a GPU scan; this function runs serial or cpu");
#if TILESCAN_SCAN_HAVE_CUDA
        if (!cuda_device_available())
            throw InputError("algorithm: '" + name +
                             "' runs on a CUDA device and none is present (CPU algorithms: serial, cpu)");
#else
        throw InputError("algorithm: '" + name +
                         "' runs on a CUDA device and this build has no CUDA (CPU algorithms: serial, cpu)");
#endif
        method.gpu = true;
        method.algorithm = algorithm;
        return method;
    }
    throw InputError("algorithm: unknown '" + printable(name) + "' (" + algorithm_names(gpu_allowed) + ")");
}

// A 1-D C-contiguous array argument (sequences converted by numpy's own rules).
py::array vector_argument(const py::object& object, const std::string& where) {
    py::array array;
    if (py::isinstance<py::array>(object) || is_dlpack_capsule(object) || py::hasattr(object, "__dlpack__") ||
        py::hasattr(object, "__cuda_array_interface__")) {
        array = as_array<float>(object, where);  // arrays as they are; the float is for sequences only
    } else {
        try {
            array = py::module_::import("numpy").attr("asarray")(object);
        } catch (const py::error_already_set& error) {
            throw InputError(where + ": cannot be read as an array (" + std::string(py::str(error.value())) + ")");
        }
    }
    if (array.ndim() != 1) throw InputError(where + ": expected a 1-D array, got shape " + shape_text(array));
    require_c_contiguous(array, where);
    return array;
}

std::string dtype_name(const py::array& array) { return py::str(array.dtype()); }

#if TILESCAN_SCAN_HAVE_CUDA
template <typename In, typename Out, typename Op>
void gpu_scan(const In* in, Out* out, std::size_t n, bool exclusive, ScanAlgorithm algorithm) {
    if (n == 0) return;
    DeviceBuffer<In> d_in(n);
    DeviceBuffer<Out> d_out(n);
    const std::size_t bytes = scan_temp_bytes<In, Out>(n, algorithm);
    DeviceBuffer<unsigned char> temp(bytes);
    TS_CUDA_CHECK(cudaMemcpy(d_in.data(), in, n * sizeof(In), cudaMemcpyHostToDevice));
    if (exclusive)
        exclusive_scan(d_in.data(), d_out.data(), n, Op{}, temp.data(), bytes, nullptr, algorithm);
    else
        inclusive_scan(d_in.data(), d_out.data(), n, Op{}, temp.data(), bytes, nullptr, algorithm);
    TS_CUDA_CHECK(cudaMemcpy(out, d_out.data(), n * sizeof(Out), cudaMemcpyDeviceToHost));
}
#endif

template <typename In, typename Out, typename Op>
py::array scan_as(const py::array& in, const py::dtype& out_dtype, bool exclusive, const Method& method) {
    const std::size_t n = static_cast<std::size_t>(in.shape(0));
    py::array out(out_dtype, std::vector<py::ssize_t>{static_cast<py::ssize_t>(n)});
    const In* src = static_cast<const In*>(in.data());
    Out* dst = static_cast<Out*>(out.mutable_data());
    py::gil_scoped_release release;
    if (method.gpu) {
#if TILESCAN_SCAN_HAVE_CUDA
        gpu_scan<In, Out, Op>(src, dst, n, exclusive, method.algorithm);
#endif
    } else if (method.serial) {
        exclusive ? serial_exclusive_scan(src, dst, n, Op{}) : serial_inclusive_scan(src, dst, n, Op{});
    } else {
        exclusive ? cpu_exclusive_scan(src, dst, n, Op{}, method.threads)
                  : cpu_inclusive_scan(src, dst, n, Op{}, method.threads);
    }
    return out;
}

// Signed sums and products wrap as numpy's do: computed on the same bits as unsigned integers,
// whose wrapping C++ defines (a signed overflow would be undefined).
template <typename T, bool = std::is_integral<T>::value>
struct Wrap {
    using type = T;
};
template <typename T>
struct Wrap<T, true> {
    using type = std::make_unsigned_t<T>;
};

template <typename T>
py::array scan_same_type(const py::array& in, const std::string& op, bool exclusive, const Method& method) {
    using W = typename Wrap<T>::type;
    const py::dtype dtype = py::dtype::of<T>();
    if (op == "sum") return scan_as<W, W, Sum<W>>(in, dtype, exclusive, method);
    if (op == "product") return scan_as<W, W, Product<W>>(in, dtype, exclusive, method);
    if (op == "min") return scan_as<T, T, Min<T>>(in, dtype, exclusive, method);
    if (op == "max") return scan_as<T, T, Max<T>>(in, dtype, exclusive, method);
    throw InputError("op: unknown '" + printable(op) + "' (sum, product, min, max)");
}

py::array scan(const py::object& a, const std::string& op, const std::string& algorithm, const py::object& dtype,
               unsigned threads, bool exclusive) {
    const py::array in = vector_argument(a, "a");
    const Method method = parse_method(algorithm, threads, true);
    const py::dtype out = dtype.is_none() ? in.dtype() : py::dtype::from_args(dtype);
    const std::string from = dtype_name(in), to = py::str(py::object(out));
    if (from == to) {
        if (from == "int32") return scan_same_type<std::int32_t>(in, op, exclusive, method);
        if (from == "uint32") return scan_same_type<std::uint32_t>(in, op, exclusive, method);
        if (from == "int64") return scan_same_type<std::int64_t>(in, op, exclusive, method);
        if (from == "uint64") return scan_same_type<std::uint64_t>(in, op, exclusive, method);
        if (from == "float32") return scan_same_type<float>(in, op, exclusive, method);
        if (from == "float64") return scan_same_type<double>(in, op, exclusive, method);
        throw InputError("a: dtype " + from + " (int32, uint32, int64, uint64, float32, float64; uint8 with dtype=)");
    }
    // The widening sums the library instantiates for the GPU (scan_instantiate_widening.cu).
    if (op == "sum") {
        if (from == "uint32" && to == "uint64")
            return scan_as<std::uint32_t, std::uint64_t, Sum<std::uint64_t>>(in, out, exclusive, method);
        if (from == "int32" && to == "int64")
            return scan_as<std::int32_t, std::int64_t, Sum<std::int64_t>>(in, out, exclusive, method);
        if (from == "uint8" && to == "uint32")
            return scan_as<std::uint8_t, std::uint32_t, Sum<std::uint32_t>>(in, out, exclusive, method);
        if (from == "uint8" && to == "uint64")
            return scan_as<std::uint8_t, std::uint64_t, Sum<std::uint64_t>>(in, out, exclusive, method);
    }
    throw InputError(
        "dtype: " + op + " from " + from + " to " + to +
        " is not offered (the same dtype, or sums uint32 -> uint64, int32 -> int64, uint8 -> uint32 | uint64)");
}

// Calls body(T{}) with T the array's element type among the library's key types.
template <typename Body>
auto with_key_type(const py::array& array, const std::string& where, Body body) {
    const std::string name = dtype_name(array);
    if (name == "int32") return body(std::int32_t{});
    if (name == "uint32") return body(std::uint32_t{});
    if (name == "int64") return body(std::int64_t{});
    if (name == "uint64") return body(std::uint64_t{});
    if (name == "float32") return body(float{});
    if (name == "float64") return body(double{});
    throw InputError(where + ": dtype " + name + " (int32, uint32, int64, uint64, float32, float64)");
}

py::array compact(const py::object& a, const py::object& mask, const std::string& algorithm, unsigned threads) {
    const py::array in = vector_argument(a, "a");
    const py::array flags = vector_argument(mask, "mask");
    const std::string flag_type = dtype_name(flags);
    if (flag_type != "bool" && flag_type != "uint8") throw InputError("mask: dtype " + flag_type + " (bool or uint8)");
    if (flags.shape(0) != in.shape(0))
        throw InputError("mask: " + std::to_string(flags.shape(0)) + " flags for " + std::to_string(in.shape(0)) +
                         " elements");
    const Method method = parse_method(algorithm, threads, false);
    return with_key_type(in, "a", [&](auto type) {
        using T = decltype(type);
        const std::size_t n = static_cast<std::size_t>(in.shape(0));
        std::vector<T> kept(n);
        const T* src = static_cast<const T*>(in.data());
        const std::uint8_t* keep = static_cast<const std::uint8_t*>(flags.data());
        std::size_t count;
        {
            py::gil_scoped_release release;
            count = method.serial ? serial_select_flagged(src, keep, n, kept.data())
                                  : cpu_select_flagged(src, keep, n, kept.data(), method.threads);
        }
        return py::array(py::dtype::of<T>(), std::vector<py::ssize_t>{static_cast<py::ssize_t>(count)}, kept.data());
    });
}

py::array find_repeats(const py::object& a, const std::string& algorithm, unsigned threads) {
    const py::array in = vector_argument(a, "a");
    const Method method = parse_method(algorithm, threads, false);
    return with_key_type(in, "a", [&](auto type) {
        using T = decltype(type);
        const std::size_t n = static_cast<std::size_t>(in.shape(0));
        std::vector<std::int64_t> indices(n);
        const T* src = static_cast<const T*>(in.data());
        std::size_t count;
        {
            py::gil_scoped_release release;
            count = method.serial ? serial_find_repeats(src, n, indices.data())
                                  : cpu_find_repeats(src, n, indices.data(), method.threads);
        }
        return py::array(py::dtype::of<std::int64_t>(), std::vector<py::ssize_t>{static_cast<py::ssize_t>(count)},
                         indices.data());
    });
}

// Values travel with their keys as raw bits of their width.
template <typename K, typename V>
void sort_pairs(K* keys, V* values, std::size_t n, int begin_bit, int end_bit, int digit_bits, const Method& method) {
    py::gil_scoped_release release;
    if (method.serial)
        serial_radix_sort_pairs(keys, values, n, begin_bit, end_bit, digit_bits);
    else
        cpu_radix_sort_pairs(keys, values, n, begin_bit, end_bit, digit_bits, method.threads);
}

py::object radix_sort(const py::object& keys_object, const py::object& values_object, int begin_bit,
                      const py::object& end_bit_object, int digit_bits, const std::string& algorithm,
                      unsigned threads) {
    const py::array keys_in = vector_argument(keys_object, "keys");
    const Method method = parse_method(algorithm, threads, false);
    if (digit_bits != 4 && digit_bits != 8) throw InputError("digit_bits: " + std::to_string(digit_bits) + " (4 or 8)");
    const int key_bits = static_cast<int>(keys_in.dtype().itemsize()) * 8;
    const int end_bit = end_bit_object.is_none() ? key_bits : end_bit_object.cast<int>();
    if (begin_bit < 0 || end_bit > key_bits || begin_bit > end_bit)
        throw InputError("bits: [" + std::to_string(begin_bit) + ", " + std::to_string(end_bit) +
                         ") is not within the " + std::to_string(key_bits) + "-bit key");
    py::array keys = py::array(keys_in.dtype(), std::vector<py::ssize_t>{keys_in.shape(0)},
                               keys_in.data());  // a copy, sorted in place
    const std::size_t n = static_cast<std::size_t>(keys.shape(0));
    const bool has_values = !values_object.is_none();
    py::array values;  // (a default py::array is an empty array, not a null one)
    if (has_values) {
        const py::array values_in = vector_argument(values_object, "values");
        if (values_in.shape(0) != keys_in.shape(0))
            throw InputError("values: " + std::to_string(values_in.shape(0)) + " values for " + std::to_string(n) +
                             " keys");
        if (values_in.dtype().itemsize() != 4 && values_in.dtype().itemsize() != 8)
            throw InputError("values: dtype " + dtype_name(values_in) + " (elements of 4 or 8 bytes)");
        values = py::array(values_in.dtype(), std::vector<py::ssize_t>{values_in.shape(0)}, values_in.data());
    }
    with_key_type(keys, "keys", [&](auto type) {
        using K = decltype(type);
        K* k = static_cast<K*>(keys.mutable_data());
        if (!has_values) {
            py::gil_scoped_release release;
            if (method.serial)
                serial_radix_sort_keys(k, n, begin_bit, end_bit, digit_bits);
            else
                cpu_radix_sort_keys(k, n, begin_bit, end_bit, digit_bits, method.threads);
        } else if (values.dtype().itemsize() == 4) {
            sort_pairs(k, static_cast<std::uint32_t*>(values.mutable_data()), n, begin_bit, end_bit, digit_bits,
                       method);
        } else {
            sort_pairs(k, static_cast<std::uint64_t*>(values.mutable_data()), n, begin_bit, end_bit, digit_bits,
                       method);
        }
        return 0;
    });
    if (!has_values) return std::move(keys);
    return py::make_tuple(keys, values);
}

template <typename T>
py::array histogram_as(const py::array& samples, int bins, double lower, double upper, const Method& method) {
    if (!(lower < upper) || bins <= 0) throw InputError("range: need bins > 0 and lower < upper");
    if constexpr (std::is_integral<T>::value) {
        const auto representable = [](double v) {
            return v >= double(std::numeric_limits<T>::min()) && v <= double(std::numeric_limits<T>::max()) &&
                   v == double(T(v));
        };
        if (!representable(lower) || !representable(upper))
            throw InputError("range: the bounds must be " + dtype_name(samples) + " values");
    } else {
        if (!std::isfinite(lower) || !std::isfinite(upper)) throw InputError("range: the bounds must be finite");
    }
    const EvenBins<T> rule(bins, T(lower), T(upper));
    py::array_t<std::uint64_t> counts(bins);
    const T* src = static_cast<const T*>(samples.data());
    std::uint64_t* out = counts.mutable_data();
    const std::size_t n = static_cast<std::size_t>(samples.shape(0));
    py::gil_scoped_release release;
    if (method.serial)
        serial_histogram(src, n, rule, out);
    else
        cpu_histogram(src, n, rule, out, method.threads);
    return std::move(counts);
}

py::array histogram(const py::object& samples_object, int bins, const py::object& range, const std::string& algorithm,
                    unsigned threads) {
    const py::array samples = vector_argument(samples_object, "samples");
    const Method method = parse_method(algorithm, threads, false);
    if (!py::isinstance<py::sequence>(range) || py::len(range) != 2) throw InputError("range: expected (lower, upper)");
    const double lower = py::float_(range[py::int_(0)]), upper = py::float_(range[py::int_(1)]);
    const std::string name = dtype_name(samples);
    if (name == "int32") return histogram_as<std::int32_t>(samples, bins, lower, upper, method);
    if (name == "uint32") return histogram_as<std::uint32_t>(samples, bins, lower, upper, method);
    if (name == "float32") return histogram_as<float>(samples, bins, lower, upper, method);
    throw InputError("samples: dtype " + name + " (int32, uint32, float32)");
}

}  // namespace

void bind_scan(py::module_& parent) {
    py::module_ module = parent.def_submodule("scan", "The scan library and the primitives built on it.");
    module.def(
        "algorithms",
        []() {
            std::vector<std::string> names = {"serial", "cpu"};
            for (ScanAlgorithm algorithm : kScanAlgorithms) names.push_back(scan_algorithm_name(algorithm));
            return names;
        },
        "The scan algorithms by name: serial and cpu on the host, then the GPU ones (docs/scan.md).");
    static const std::string scan_doc = R"doc( scan of a 1-D array into a new array.

op: "sum", "product", "min" or "max"; integer sums and products wrap as numpy's do.
algorithm: "serial" (the reference, left to right), "cpu" (chunked over threads), or a GPU scan:
  "hillis_steele", "blelloch", "warp_shuffle", "reduce_then_scan", "decoupled_lookback" (the array
  is copied to the device and back; needs a CUDA build and device).
dtype: the result's dtype: the input's (default), or uint32 -> uint64, int32 -> int64,
  uint8 -> uint32 | uint64 for sums.
Integers are exact on every algorithm; float results depend on the algorithm's grouping.
)doc";
    static const std::string inclusive_doc = "Inclusive" + scan_doc, exclusive_doc = "Exclusive" + scan_doc;
    for (const bool exclusive : {false, true}) {
        module.def(
            exclusive ? "exclusive_scan" : "inclusive_scan",
            [exclusive](const py::object& a, const std::string& op, const std::string& algorithm,
                        const py::object& dtype,
                        unsigned threads) { return scan(a, op, algorithm, dtype, threads, exclusive); },
            py::arg("a"), py::kw_only(), py::arg("op") = "sum", py::arg("algorithm") = "cpu",
            py::arg("dtype") = py::none(), py::arg("threads") = 0,
            exclusive ? exclusive_doc.c_str() : inclusive_doc.c_str());
    }
    module.def("compact", &compact, py::arg("a"), py::arg("mask"), py::kw_only(), py::arg("algorithm") = "cpu",
               py::arg("threads") = 0,
               "The elements of `a` whose mask entry (bool or uint8) is set, in order: a[mask] by stream "
               "compaction (a scan of the flags gives each kept element its place).");
    module.def("find_repeats", &find_repeats, py::arg("a"), py::kw_only(), py::arg("algorithm") = "cpu",
               py::arg("threads") = 0, "Every i with a[i] == a[i + 1], increasing, as int64.");
    module.def("radix_sort", &radix_sort, py::arg("keys"), py::arg("values") = py::none(), py::kw_only(),
               py::arg("begin_bit") = 0, py::arg("end_bit") = py::none(), py::arg("digit_bits") = 8,
               py::arg("algorithm") = "cpu", py::arg("threads") = 0,
               "Stable LSD radix sort of a copy of `keys` (and of `values` along with them, returned as a pair) by "
               "the order-preserving bits [begin_bit, end_bit) (floats: IEEE total order, -0.0 before +0.0).");
    module.def("histogram", &histogram, py::arg("samples"), py::arg("bins"), py::arg("range"), py::kw_only(),
               py::arg("algorithm") = "cpu", py::arg("threads") = 0,
               "Counts (uint64) of samples (int32, uint32, float32) in `bins` equal bins over [lower, upper); "
               "samples outside are not counted (numpy.histogram also counts upper in the last bin).");
}

}  // namespace tilescan::python
