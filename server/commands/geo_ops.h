// What the geo command files share (geo_commands.cc, geo_search_commands.cc): reading
// coordinates and units as Redis's geo.c does, and writing distances and coordinates as it
// prints them. The arithmetic is storage/geohash.h.
#pragma once

#include <cstddef>
#include <string_view>

#include "server/command_context.h"
#include "storage/geohash.h"

namespace warden::server {

// A longitude and a latitude at arguments `at` and `at + 1` (Redis's extractLongLatOrReply):
// each a float, together inside Redis's limits. False after replying the error.
[[nodiscard]] bool LonLatArgs(CommandContext& ctx, std::size_t at, storage::GeoCoord& out);
// A unit (m, km, ft, mi): metres per unit. False after replying the error.
[[nodiscard]] bool UnitArg(CommandContext& ctx, std::string_view arg, double& meters);
// A distance with four decimals, a bulk string in RESP2 and RESP3 alike.
void ReplyGeoDistance(CommandContext& ctx, double distance);
// A coordinate as Redis's addReplyHumanLongDouble: %.17Lf without trailing zeros, as a bulk
// string in RESP2 and a double in RESP3.
void ReplyCoordinate(CommandContext& ctx, double value);

}  // namespace warden::server
