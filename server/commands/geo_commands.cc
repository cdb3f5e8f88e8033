// The geo commands that add or read single members: GEOADD, GEOPOS, GEODIST and GEOHASH, after
// Redis's geo.c. A geo set is a sorted set (storage/zset.h) whose scores are the members' 52-bit
// geohashes (storage/geohash.h), so nothing is stored per member beyond the sorted set itself.
// The searches are in geo_search_commands.cc.
#include <charconv>
#include <cstdio>
#include <optional>

#include "server/command_table.h"
#include "server/commands/commands.h"
#include "server/commands/geo_ops.h"
#include "server/commands/typed_lookup.h"
#include "server/commands/zset_ops.h"
#include "server/errors.h"
#include "server/persistence/propagation.h"
#include "storage/scratch_vector.h"
#include "storage/zset.h"

namespace warden::server {
namespace {

using storage::Entry;
using storage::ValueType;

// Up to 20 digits of a score, as ZADD's argument.
constexpr std::size_t kScoreTextSize = 24;

// A coordinate as Redis reads it (string2d, as ParseScore). A short plain decimal, the usual
// form, goes through std::from_chars, which rounds exactly as strtod does and cannot overflow
// or underflow at that length; anything else through ParseScore.
bool ParseCoordinate(std::string_view text, double& out) {
  std::size_t i = !text.empty() && text[0] == '-' ? 1 : 0;
  const std::size_t int_start = i;
  while (i < text.size() && text[i] >= '0' && text[i] <= '9') ++i;
  bool plain = i > int_start && text.size() <= 24;
  if (plain && i < text.size()) {
    const std::size_t frac_start = ++i;
    plain = text[frac_start - 1] == '.';
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') ++i;
    plain = plain && i > frac_start && i == text.size();
  }
  if (!plain) return ParseScore(text, out);
  std::from_chars(text.data(), text.data() + text.size(), out);
  return true;
}

}  // namespace

bool LonLatArgs(CommandContext& ctx, std::size_t at, storage::GeoCoord& out) {
  if (!ParseCoordinate(ctx.arg(at), out.longitude) ||
      !ParseCoordinate(ctx.arg(at + 1), out.latitude)) {
    ctx.reply.Error(errors::kNotFloat);
    return false;
  }
  if (storage::GeoCoordValid(out.longitude, out.latitude)) return true;
  // "%f" of a double needs at most 317 bytes.
  char text[720];
  const int len = std::snprintf(text, sizeof(text), "%f,%f", out.longitude, out.latitude);
  ctx.reply.Error(
      {errors::kGeoBadPairPrefix, std::string_view(text, static_cast<std::size_t>(len))});
  return false;
}

bool UnitArg(CommandContext& ctx, std::string_view arg, double& meters) {
  meters = storage::GeoUnitMeters(arg);
  if (meters > 0) return true;
  ctx.reply.Error(errors::kGeoBadUnit);
  return false;
}

void ReplyGeoDistance(CommandContext& ctx, double distance) {
  char buf[32];
  ctx.reply.Bulk(storage::FormatGeoDistance(distance, buf));
}

void ReplyCoordinate(CommandContext& ctx, double value) {
  char buf[5200];
  const std::string_view text = FormatLongDouble(value, buf);
  if (ctx.reply.protocol() == 2) {
    ctx.reply.Bulk(text);
    return;
  }
  ctx.reply.Raw(",");
  ctx.reply.Raw(text);
  ctx.reply.Raw("\r\n");
}

// Redis's GEOADD reads its options (NX, XX, CH), turns every longitude and latitude into a
// score, and runs ZADD on the rewritten arguments: ZADD does the rest (replies, notifications,
// encodings), and the rewritten command is what the append-only file and replicas get.
void GeoaddCommand(CommandContext& ctx) {
  bool nx = false;
  bool xx = false;
  std::size_t at = 2;
  for (; at < ctx.argc(); ++at) {
    const std::string_view opt = ctx.arg(at);
    if (ArgIs(opt, "nx")) {
      nx = true;
    } else if (ArgIs(opt, "xx")) {
      xx = true;
    } else if (!ArgIs(opt, "ch")) {
      break;
    }
  }
  if ((ctx.argc() - at) % 3 != 0 || (nx && xx)) {
    ctx.reply.Error(errors::kSyntax);
    return;
  }
  const std::size_t elements = (ctx.argc() - at) / 3;
  storage::ScratchVector<char> texts;
  texts->resize(elements * kScoreTextSize);
  storage::ScratchVector<std::string_view> argv;
  argv->push_back("zadd");
  for (std::size_t i = 1; i < at; ++i) argv->push_back(ctx.arg(i));
  for (std::size_t e = 0; e < elements; ++e) {
    storage::GeoCoord xy;
    if (!LonLatArgs(ctx, at + e * 3, xy)) return;
    char* text = texts->data() + e * kScoreTextSize;
    const char* end =
        std::to_chars(text, text + kScoreTextSize, storage::GeoScoreOf(xy.longitude, xy.latitude))
            .ptr;
    argv->push_back({text, static_cast<std::size_t>(end - text)});
    argv->push_back(ctx.arg(at + e * 3 + 2));
  }
  if (ctx.server.propagation.active()) ctx.server.propagation.Replace(*argv);
  CommandContext zadd{ctx.server, ctx.session, ctx.reply, *argv, ctx.spec, ctx.now_ms};
  ZaddCommand(zadd);
}

void GeoposCommand(CommandContext& ctx) {
  Entry* zset = nullptr;
  if (!LookupTypedRead(ctx, ctx.arg(1), ValueType::kZset, zset)) return;
  ctx.reply.ArrayHeader(ctx.argc() - 2);
  for (std::size_t i = 2; i < ctx.argc(); ++i) {
    const std::optional<double> score =
        zset == nullptr ? std::nullopt : storage::ZsetScore(*zset, ctx.arg(i));
    if (!score) {
      ctx.reply.NullArray();
      continue;
    }
    const storage::GeoCoord xy = storage::GeoDecodeScore(*score);
    ctx.reply.ArrayHeader(2);
    ReplyCoordinate(ctx, xy.longitude);
    ReplyCoordinate(ctx, xy.latitude);
  }
}

void GeodistCommand(CommandContext& ctx) {
  double to_meters = 1;
  if (ctx.argc() == 5) {
    if (!UnitArg(ctx, ctx.arg(4), to_meters)) return;
  } else if (ctx.argc() > 5) {
    ctx.reply.Error(errors::kSyntax);
    return;
  }
  Entry* zset = nullptr;
  if (!LookupTypedRead(ctx, ctx.arg(1), ValueType::kZset, zset)) return;
  if (zset == nullptr) {
    ctx.reply.Null();
    return;
  }
  const std::optional<double> score1 = storage::ZsetScore(*zset, ctx.arg(2));
  const std::optional<double> score2 =
      score1 ? storage::ZsetScore(*zset, ctx.arg(3)) : std::nullopt;
  if (!score2) {
    ctx.reply.Null();
    return;
  }
  const storage::GeoCoord a = storage::GeoDecodeScore(*score1);
  const storage::GeoCoord b = storage::GeoDecodeScore(*score2);
  ReplyGeoDistance(
      ctx, storage::GeoDistance(a.longitude, a.latitude, b.longitude, b.latitude) / to_meters);
}

void GeohashCommand(CommandContext& ctx) {
  Entry* zset = nullptr;
  if (!LookupTypedRead(ctx, ctx.arg(1), ValueType::kZset, zset)) return;
  ctx.reply.ArrayHeader(ctx.argc() - 2);
  for (std::size_t i = 2; i < ctx.argc(); ++i) {
    const std::optional<double> score =
        zset == nullptr ? std::nullopt : storage::ZsetScore(*zset, ctx.arg(i));
    if (!score) {
      ctx.reply.Null();
      continue;
    }
    char text[11];
    storage::GeohashText(storage::GeoDecodeScore(*score), text);
    ctx.reply.Bulk({text, sizeof(text)});
  }
}

}  // namespace warden::server
