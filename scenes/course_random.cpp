// glibc's TYPE_3 `random()` (see course_random.h), written after glibc's srandom_r and random_r.
#include "scenes/course_random.h"

namespace tilescan {

namespace {

// One step of the Park-Miller generator that seeds the state: 16807 * word mod (2^31 - 1),
// in glibc's own form (Schrage's method on signed 32-bit words, 127773 = m / 16807 and
// 2836 = m % 16807), so that seeds above 2^31, negative as glibc's int32 words, match too.
std::int32_t park_miller_step(std::int32_t word) {
    const std::int32_t hi = word / 127773;
    const std::int32_t lo = word % 127773;
    std::int32_t next = 16807 * lo - 2836 * hi;
    if (next < 0) next += 2147483647;
    return next;
}

}  // namespace

CourseRandom::CourseRandom(std::uint32_t seed) {
    std::int32_t word = static_cast<std::int32_t>(seed == 0 ? 1u : seed);
    state_[0] = static_cast<std::uint32_t>(word);
    for (int i = 1; i < kDegree; ++i) {
        word = park_miller_step(word);
        state_[i] = static_cast<std::uint32_t>(word);
    }
    // glibc discards the first 10 * 31 outputs so the seed's linear pattern is stirred away.
    for (int i = 0; i < 10 * kDegree; ++i) next();
}

std::uint32_t CourseRandom::next() {
    // Each word becomes the sum of itself and the word 3 places behind it (mod 2^32); the output
    // drops the lowest bit, which has the shortest period.
    state_[front_] += state_[rear_];
    const std::uint32_t result = state_[front_] >> 1;
    front_ = front_ + 1 == kDegree ? 0 : front_ + 1;
    rear_ = rear_ + 1 == kDegree ? 0 : rear_ + 1;
    return result;
}

float CourseRandom::uniform() {
    // RAND_MAX converted to float rounds to 2^31; keep the course's division, not a multiply.
    const float rand_max = static_cast<float>(2147483647);
    return static_cast<float>(next()) / rand_max;
}

}  // namespace tilescan
