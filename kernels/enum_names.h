/// @file
/// One table of an enum's values and their names, read both ways: tables and messages print a
/// value's name, and command lines find the value a name stands for. Each enum keeps its table
/// beside it, so adding a value means adding one row, and a parser's "known:" list cannot drift
/// from the printer. Plain C++, for every layer.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

namespace tilescan {

/// A value and its name, one row of an enum's table.
template <typename Enum, std::size_t N>
using EnumNameTable = std::array<std::pair<Enum, const char*>, N>;

/// The value's name; a value missing from the table is a programming error (std::logic_error).
template <typename Enum, std::size_t N>
const char* enum_name(const EnumNameTable<Enum, N>& table, Enum value) {
    for (const auto& row : table)
        if (row.first == value) return row.second;
    throw std::logic_error("an enum value without a name in its table");
}

/// The value named `name`, if the table has it.
template <typename Enum, std::size_t N>
std::optional<Enum> find_enum(const EnumNameTable<Enum, N>& table, const std::string& name) {
    for (const auto& row : table)
        if (name == row.second) return row.first;
    return std::nullopt;
}

/// The table's names, comma-separated, in table order (for "known: ..." messages).
template <typename Enum, std::size_t N>
std::string enum_names_list(const EnumNameTable<Enum, N>& table) {
    std::string text;
    for (const auto& row : table) text += (text.empty() ? "" : ", ") + std::string(row.second);
    return text;
}

}  // namespace tilescan
