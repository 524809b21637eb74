// The cpu backend's search for the pixels a circle covers in a row of at most kTileSize columns, in
// vector lanes and with no branch: the shading finds a tile row's run with it (cpu_shading.cpp),
// the alpha stage a small circle's (cpu_backend.cpp). Each lane makes covers_squared's test of
// circle_math.h, with its roundings, so a run holds exactly the pixels `ref` blends.
#pragma once

#include <cstdint>
#include <cstring>

#include "renderer/shared/circle_math.h"
#include "renderer/shared/tile_geometry.h"

namespace tilescan {

// Four lanes of floats or of 32-bit masks (GCC's and Clang's vector extensions, lowered to whatever
// the target offers): the run search below must stay in vector registers, which the loops over
// arrays it was first written as did not once inlined (the compiler turned them into scalar code).
typedef float FloatLanes __attribute__((vector_size(16)));
typedef std::int32_t MaskLanes __attribute__((vector_size(16)));
constexpr int kLaneGroups = kTileSize / 4;
constexpr int kLaneColumns = 4 * kLaneGroups;  // the columns a CircleColumns holds: a tile row's

// What every row's run of a circle over a tile shares: each column's squared offset from the
// centre (squared_distance's first term, the same for every row) and, among the columns of the
// circle's box [first, last), those left of the centre and the others, as all-ones lanes. The
// uncovered columns of a row are a prefix of the left ones and a suffix of the others (the test is
// monotone in the offset's magnitude), so counting them finds the run's ends with no branch,
// however far they lie from the box's edges.
struct CircleColumns {
    FloatLanes squared_offset[kLaneGroups];
    MaskLanes left[kLaneGroups], right[kLaneGroups];
    int first, last;
};

inline CircleColumns circle_columns(const float* px, int first, int last, float x) {
    CircleColumns columns;
    for (int q = 0; q < kLaneGroups; ++q) {
        const MaskLanes lx = MaskLanes{0, 1, 2, 3} + 4 * q;
        FloatLanes centre;
        std::memcpy(&centre, px + 4 * q, sizeof centre);
        const FloatLanes offset = centre - x;  // squared_offset's rounding, lane by lane
        columns.squared_offset[q] = offset * offset;
        const MaskLanes in_box = (lx >= first) & (lx < last);
        const MaskLanes left = offset < 0.0f;
        columns.left[q] = in_box & left;
        columns.right[q] = in_box & ~left;
    }
    columns.first = first;
    columns.last = last;
    return columns;
}

// The covered run of the row whose centre's squared offset from the circle's is row_offset: the
// sum and the comparison of covers_squared(squared_distance(...)), lane by lane.
inline PixelRun covered_run(const CircleColumns& columns, float row_offset, float squared_radius) {
    MaskLanes uncovered_left = {0, 0, 0, 0}, uncovered_right = {0, 0, 0, 0};
    for (int q = 0; q < kLaneGroups; ++q) {
        const MaskLanes uncovered = ~(columns.squared_offset[q] + row_offset <= squared_radius);
        uncovered_left += uncovered & columns.left[q];
        uncovered_right += uncovered & columns.right[q];
    }
    // The lanes are -1 where counted.
    return {columns.first - (uncovered_left[0] + uncovered_left[1] + uncovered_left[2] + uncovered_left[3]),
            columns.last + (uncovered_right[0] + uncovered_right[1] + uncovered_right[2] + uncovered_right[3])};
}

}  // namespace tilescan
