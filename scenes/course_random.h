/// @file
/// The random number generator of the CS149 asst3 scenes, reproduced inside the project.
///
/// The course builds its scenes with glibc's `rand()`: the `random()` TYPE_3 additive-feedback
/// generator (31 words of state, lags 31 and 3, outputs in 0..2^31-1). Calling the platform's
/// `rand()` would tie our scenes to one C library, so this class carries that algorithm and its own
/// state; with the same seed it yields the same sequence as glibc's `srand(seed); rand(); ...`.
/// The built-in scene generators (builtin_scenes.cpp) are its only users.
#pragma once

#include <array>
#include <cstdint>

namespace tilescan {

/// glibc's TYPE_3 `random()` with its own state (see the file comment).
class CourseRandom {
public:
    /// Like glibc's `srand(seed)`: seed 0 behaves as seed 1.
    explicit CourseRandom(std::uint32_t seed);

    /// The next `rand()` value, in [0, 2^31 - 1].
    std::uint32_t next();

    /// The course's `randomFloat()`: `static_cast<float>(rand()) / RAND_MAX`, where RAND_MAX
    /// (2^31 - 1) becomes the float 2^31. The result lies in [0, 1].
    float uniform();

private:
    static constexpr int kDegree = 31;     // words of state (glibc's TYPE_3)
    static constexpr int kSeparation = 3;  // distance between the two taps

    std::array<std::uint32_t, kDegree> state_;
    int front_ = kSeparation;  // glibc's fptr
    int rear_ = 0;             // glibc's rptr
};

}  // namespace tilescan
