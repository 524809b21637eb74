// Explicit instantiations of stream compaction, partition and find_repeats (compaction.cuh) for
// plain C++ callers: the element types and predicates listed in compaction.h / find_repeats.h.
#include "kernels/primitives/compaction.cuh"

#define TS_SELECT_PRED(T, Pred)                                                                                        \
    template void tilescan::select_if<T, Pred>(const T*, T*, std::size_t, Pred, std::uint64_t*, void*, std::size_t,    \
                                               cudaStream_t, tilescan::SelectAlgorithm);                               \
    template void tilescan::select_if<T, Pred>(const T*, T*, std::size_t, Pred, std::uint64_t*,                        \
                                               tilescan::ScanWorkspace&, cudaStream_t);                                \
    template void tilescan::partition_if<T, Pred>(const T*, T*, std::size_t, Pred, std::uint64_t*, void*, std::size_t, \
                                                  cudaStream_t)

#define TS_SELECT_TYPE(T)                                                                                            \
    template std::size_t tilescan::select_temp_bytes<T>(std::size_t, tilescan::SelectAlgorithm);                     \
    template std::size_t tilescan::select_workspace_bytes<T>(std::size_t);                                           \
    template std::size_t tilescan::partition_temp_bytes<T>(std::size_t);                                             \
    template void tilescan::select_flagged<T, std::uint8_t>(const T*, const std::uint8_t*, T*, std::size_t,          \
                                                            std::uint64_t*, void*, std::size_t, cudaStream_t,        \
                                                            tilescan::SelectAlgorithm);                              \
    template void tilescan::select_flagged<T, std::uint8_t>(const T*, const std::uint8_t*, T*, std::size_t,          \
                                                            std::uint64_t*, tilescan::ScanWorkspace&, cudaStream_t); \
    TS_SELECT_PRED(T, tilescan::NonZero<T>);                                                                         \
    TS_SELECT_PRED(T, tilescan::LessThan<T>);                                                                        \
    TS_SELECT_PRED(T, tilescan::GreaterEqual<T>)

TS_SELECT_TYPE(std::int32_t);
TS_SELECT_TYPE(std::uint32_t);
TS_SELECT_TYPE(float);
TS_SELECT_TYPE(std::uint64_t);

#define TS_FIND_REPEATS(T)                                                                                             \
    template std::size_t tilescan::find_repeats_temp_bytes<T>(std::size_t);                                            \
    template std::size_t tilescan::find_repeats_workspace_bytes<T>(std::size_t);                                       \
    template void tilescan::find_repeats<T>(const T*, std::size_t, std::uint32_t*, std::uint64_t*,                     \
                                            tilescan::ScanWorkspace&, cudaStream_t);                                   \
    template void tilescan::find_repeats<T>(const T*, std::size_t, std::uint32_t*, std::uint64_t*, void*, std::size_t, \
                                            cudaStream_t)

TS_FIND_REPEATS(std::int32_t);
TS_FIND_REPEATS(std::uint32_t);
TS_FIND_REPEATS(float);
TS_FIND_REPEATS(std::int64_t);
TS_FIND_REPEATS(std::uint64_t);
