// The CPU half of tilescan_primitives is header-only templates (compaction_cpu.h,
// histogram_cpu.h, radix_sort_cpu.h, sparse_cpu.h); this file instantiates the common cases once
// so that mistakes surface in the library build, not first in a caller.
#include "kernels/primitives/compaction_cpu.h"
#include "kernels/primitives/compaction_ops.h"
#include "kernels/primitives/histogram_cpu.h"
#include "kernels/primitives/radix_sort_cpu.h"
#include "kernels/primitives/sparse_cpu.h"

namespace tilescan {

template std::size_t cpu_select_if<std::uint32_t, LessThan<std::uint32_t>>(const std::uint32_t*, std::size_t,
                                                                           LessThan<std::uint32_t>, std::uint32_t*,
                                                                           unsigned);
template std::size_t cpu_partition_if<std::uint32_t, LessThan<std::uint32_t>>(const std::uint32_t*, std::size_t,
                                                                              LessThan<std::uint32_t>, std::uint32_t*,
                                                                              unsigned);
template std::size_t cpu_find_repeats<std::int32_t, std::uint32_t>(const std::int32_t*, std::size_t, std::uint32_t*,
                                                                   unsigned);
template void cpu_histogram<float, EvenBins<float>>(const float*, std::size_t, EvenBins<float>, std::uint64_t*,
                                                    unsigned);
template void cpu_radix_sort_pairs<std::uint64_t, std::uint32_t>(std::uint64_t*, std::uint32_t*, std::size_t, int, int,
                                                                 int, unsigned);
template void serial_coo_to_csr<float>(const std::int32_t*, const std::int32_t*, const float*, std::size_t,
                                       std::int32_t, std::int32_t*, std::int32_t*, float*);

}  // namespace tilescan
