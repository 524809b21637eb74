// The band planner (renderer/tile_bands.h): bands are consecutive, cover every row in order, each
// fits the budget, they are as few as greedy cutting gives, counts beyond 2^32 do not overflow, and
// a row that alone exceeds the budget is an error naming the row and the limit.
#include <catch2/catch.hpp>
#include <random>

#include "renderer/errors.h"
#include "renderer/tile_bands.h"

using namespace tilescan;

namespace {

// Every row in exactly one band, in order; each band within the budget and its pair count right.
void check_plan(const std::vector<std::uint64_t>& rows, std::uint64_t bytes_per_pair, std::uint64_t budget,
                const std::vector<TileBand>& bands) {
    int next_row = 0;
    for (const TileBand& band : bands) {
        CHECK(band.first_row == next_row);
        CHECK(band.end_row > band.first_row);
        std::uint64_t pairs = 0;
        for (int row = band.first_row; row < band.end_row; ++row) pairs += rows[row];
        CHECK(band.pairs == pairs);
        CHECK(band.pairs <= budget / bytes_per_pair);
        next_row = band.end_row;
    }
    CHECK(next_row == static_cast<int>(rows.size()));
    // Greedy: each band but the last would overflow with the next band's first row added.
    for (std::size_t b = 0; b + 1 < bands.size(); ++b)
        CHECK(bands[b].pairs + rows[bands[b].end_row] > budget / bytes_per_pair);
}

}  // namespace

TEST_CASE("band planner: the worked example of tile_bands.h", "[tile_bands]") {
    const std::vector<std::uint64_t> rows = {4, 5, 0, 9, 1, 1};
    const std::vector<TileBand> bands = plan_tile_bands(rows, 12, 120);
    REQUIRE(bands.size() == 3);
    CHECK((bands[0].first_row == 0 && bands[0].end_row == 3 && bands[0].pairs == 9));
    CHECK((bands[1].first_row == 3 && bands[1].end_row == 5 && bands[1].pairs == 10));
    CHECK((bands[2].first_row == 5 && bands[2].end_row == 6 && bands[2].pairs == 1));
}

TEST_CASE("band planner: a frame within the budget is one band of the whole grid", "[tile_bands]") {
    const std::vector<std::uint64_t> rows = {7, 0, 3, 1000};
    const std::vector<TileBand> bands = plan_tile_bands(rows, 12, 12 * 1010);
    REQUIRE(bands.size() == 1);
    CHECK((bands[0].first_row == 0 && bands[0].end_row == 4 && bands[0].pairs == 1010));
    CHECK(plan_tile_bands({}, 12, 100).empty());
    // Empty rows cost nothing: they join the band before them, even under a budget of one pair.
    const std::vector<TileBand> empty_rows = plan_tile_bands({0, 0, 1, 0, 0, 1, 0}, 12, 12);
    REQUIRE(empty_rows.size() == 2);
    CHECK((empty_rows[0].end_row == 5 && empty_rows[1].first_row == 5 && empty_rows[1].end_row == 7));
}

TEST_CASE("band planner: a row exactly at the budget fits, one pair more is an error naming the limit",
          "[tile_bands]") {
    CHECK(plan_tile_bands({3, 10, 2}, 12, 120).size() == 3);
    try {
        plan_tile_bands({3, 11, 2}, 12, 120);
        FAIL("a row over the budget was planned");
    } catch (const InputError& error) {
        const std::string message = error.what();
        INFO(message);
        CHECK(message.find("tile row 1 alone has 11 (tile, circle) pairs") != std::string::npos);
        CHECK(message.find("132 B") != std::string::npos);
        CHECK(message.find("budget of 120 B") != std::string::npos);
        CHECK(message.find("--max-bin-memory") != std::string::npos);
        CHECK(message.find('\n') == std::string::npos);
    }
}

TEST_CASE("band planner: random rows, tiny and large budgets, counts beyond 2^32", "[tile_bands]") {
    std::mt19937_64 random(11);
    for (int trial = 0; trial < 200; ++trial) {
        const std::size_t n = random() % 1100;
        const bool huge = trial % 4 == 3;  // per-row counts near 2^33, totals far beyond 2^32
        std::vector<std::uint64_t> rows(n);
        std::uint64_t largest = 0;
        for (auto& row : rows) {
            row = random() % 5 == 0 ? 0 : (huge ? (std::uint64_t(1) << 33) + random() % 1000 : random() % 5000);
            largest = std::max(largest, row);
        }
        const std::uint64_t bytes_per_pair = 1 + random() % 16;
        const std::uint64_t budget = largest * bytes_per_pair + random() % (3 * largest * bytes_per_pair + 1);
        INFO("trial " << trial << ", rows " << n << ", budget " << budget);
        check_plan(rows, bytes_per_pair, budget, plan_tile_bands(rows, bytes_per_pair, budget));
    }
}

TEST_CASE("band planner: the default budget and byte counts in messages", "[tile_bands]") {
    CHECK(default_bin_budget(std::uint64_t(24) << 30) == std::uint64_t(12) << 30);
    CHECK(readable_bytes(512) == "512 B");
    CHECK(readable_bytes(1536) == "1.5 KiB");
    CHECK(readable_bytes(std::uint64_t(64) << 20) == "64.0 MiB");
    CHECK(readable_bytes(std::uint64_t(5) << 29) == "2.50 GiB");
}
