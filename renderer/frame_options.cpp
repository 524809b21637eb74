// The name tables of frame_options.h's enums.
#include "renderer/frame_options.h"

#include "kernels/enum_names.h"
#include "renderer/errors.h"

namespace tilescan {

namespace {

constexpr EnumNameTable<Binning, 3> kBinningNames = {{
    {Binning::scan, "scan"},
    {Binning::sort, "sort"},
    {Binning::naive, "naive"},
}};

constexpr EnumNameTable<TileListStrategy, 5> kTileListStrategyNames = {{
    {TileListStrategy::pairs, "pairs"},
    {TileListStrategy::packed_pairs, "packed"},
    {TileListStrategy::direct, "direct"},
    {TileListStrategy::tile_compaction, "compaction"},
    {TileListStrategy::region_compaction, "regions"},
}};

// The value named `name`, else InputError "unknown WHAT 'NAME' (known: ...)".
template <typename Enum, std::size_t N>
Enum parse_enum(const EnumNameTable<Enum, N>& table, const std::string& name, const char* what) {
    if (const std::optional<Enum> value = find_enum(table, name)) return *value;
    throw InputError("unknown " + std::string(what) + " '" + name + "' (known: " + enum_names_list(table) + ")");
}

}  // namespace

Binning parse_binning(const std::string& name) { return parse_enum(kBinningNames, name, "binning"); }

const char* binning_name(Binning binning) { return enum_name(kBinningNames, binning); }

TileListStrategy parse_tile_list_strategy(const std::string& name) {
    return parse_enum(kTileListStrategyNames, name, "scan binning path");
}

const char* tile_list_strategy_name(TileListStrategy strategy) { return enum_name(kTileListStrategyNames, strategy); }

}  // namespace tilescan
