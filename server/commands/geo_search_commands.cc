// The geo searches, after Redis's georadiusGeneric: GEOSEARCH, GEOSEARCHSTORE, GEORADIUS,
// GEORADIUSBYMEMBER and their _RO forms. A search scans the score ranges of up to nine geohash
// cells (storage/geohash.h), keeps the members inside the circle or box, orders them by
// distance as Redis does (ties too), and replies or stores them as a sorted set.
//
// The points found and their members' bytes go in scratch vectors, so a search allocates
// nothing once those have grown.
#include <algorithm>
#include <string>
#include <vector>

#include "server/command_table.h"
#include "server/commands/commands.h"
#include "server/commands/geo_ops.h"
#include "server/commands/typed_lookup.h"
#include "server/commands/zset_ops.h"
#include "server/errors.h"
#include "server/notify.h"
#include "storage/order_tree.h"
#include "storage/scratch_vector.h"
#include "storage/zset.h"

namespace warden::server {
namespace {

using storage::Entry;
using storage::GeoPoint;
using storage::GeoShape;
using storage::ValueType;

// Redis's RADIUS_* and GEOSEARCH* flags: where the centre comes from and what may be stored.
enum SearchFlags : unsigned {
  kByCoords = 1 << 0,        // GEORADIUS[_RO] key lon lat radius unit
  kByMember = 1 << 1,        // GEORADIUSBYMEMBER[_RO] key member radius unit
  kNoStore = 1 << 2,         // the _RO forms
  kGeosearch = 1 << 3,       // GEOSEARCH's FROM... / BY... arguments
  kGeosearchStore = 1 << 4,  // GEOSEARCHSTORE dest src ...: STOREDIST is a bare flag
};

enum class Order { kNone, kAsc, kDesc };

struct SearchOptions {
  GeoShape shape;
  bool with_dist = false;
  bool with_hash = false;
  bool with_coord = false;
  bool any = false;
  Order order = Order::kNone;
  std::int64_t count = 0;  // 0: all
  bool store = false;
  std::string_view store_key;
  bool store_dist = false;
};

// Options compare as C strings in Redis (strcasecmp): an argument ends at a NUL.
bool OptIs(std::string_view arg, std::string_view lower_name) {
  return ArgIs(errors::CString(arg), lower_name);
}

// A float argument, or `error` replied (Redis's getDoubleFromObjectOrReply with a message).
[[nodiscard]] bool GeoNumberArg(CommandContext& ctx, std::string_view arg, std::string_view error,
                                double& out) {
  if (ParseScore(arg, out)) return true;
  ctx.reply.Error(error);
  return false;
}

// `radius unit` (Redis's extractDistanceOrReply).
[[nodiscard]] bool RadiusArgs(CommandContext& ctx, std::size_t at, GeoShape& shape) {
  double radius = 0;
  if (!GeoNumberArg(ctx, ctx.arg(at), errors::kGeoRadiusNotNumber, radius)) return false;
  if (radius < 0) {
    ctx.reply.Error(errors::kGeoRadiusNegative);
    return false;
  }
  shape.radius = radius;
  if (!UnitArg(ctx, ctx.arg(at + 1), shape.conversion)) return false;
  shape.kind = GeoShape::Kind::kRadius;
  return true;
}

// `width height unit` (Redis's extractBoxOrReply).
[[nodiscard]] bool BoxArgs(CommandContext& ctx, std::size_t at, GeoShape& shape) {
  double width = 0;
  double height = 0;
  if (!GeoNumberArg(ctx, ctx.arg(at), errors::kGeoWidthNotNumber, width) ||
      !GeoNumberArg(ctx, ctx.arg(at + 1), errors::kGeoHeightNotNumber, height)) {
    return false;
  }
  if (height < 0 || width < 0) {
    ctx.reply.Error(errors::kGeoBoxNegative);
    return false;
  }
  shape.width = width;
  shape.height = height;
  if (!UnitArg(ctx, ctx.arg(at + 2), shape.conversion)) return false;
  shape.kind = GeoShape::Kind::kBox;
  return true;
}

// The centre of a search around a member; false after replying that it is missing.
[[nodiscard]] bool MemberCentre(CommandContext& ctx, const Entry& zset, std::string_view member,
                                GeoShape& shape) {
  const std::optional<double> score = storage::ZsetScore(zset, member);
  if (!score) {
    ctx.reply.Error(errors::kGeoNoMember);
    return false;
  }
  shape.centre = storage::GeoDecodeScore(*score);
  return true;
}

// Reads the arguments from `base` on, in Redis's order: each option is checked (and a member
// looked up) as it is read, the conflicts afterwards. `zset` may be null (a missing source).
[[nodiscard]] bool ParseSearchOptions(CommandContext& ctx, std::size_t base, unsigned flags,
                                      const Entry* zset, SearchOptions& o) {
  bool from_member = false;
  bool from_lonlat = false;
  bool by_radius = false;
  bool by_box = false;
  const bool geosearch = (flags & kGeosearch) != 0;
  const bool may_store = (flags & (kNoStore | kGeosearch)) == 0;
  const std::size_t remaining = ctx.argc() > base ? ctx.argc() - base : 0;
  for (std::size_t i = 0; i < remaining; ++i) {
    const std::string_view arg = ctx.arg(base + i);
    const auto has = [&](std::size_t n) { return i + n < remaining; };
    if (OptIs(arg, "withdist")) {
      o.with_dist = true;
    } else if (OptIs(arg, "withhash")) {
      o.with_hash = true;
    } else if (OptIs(arg, "withcoord")) {
      o.with_coord = true;
    } else if (OptIs(arg, "any")) {
      o.any = true;
    } else if (OptIs(arg, "asc")) {
      o.order = Order::kAsc;
    } else if (OptIs(arg, "desc")) {
      o.order = Order::kDesc;
    } else if (OptIs(arg, "count") && has(1)) {
      if (!IntegerArg(ctx, ctx.arg(base + i + 1), o.count)) return false;
      if (o.count <= 0) {
        ctx.reply.Error(errors::kGeoCountNotPositive);
        return false;
      }
      ++i;
    } else if ((OptIs(arg, "store") || OptIs(arg, "storedist")) && has(1) && may_store) {
      o.store = true;
      o.store_key = ctx.arg(base + i + 1);
      o.store_dist = OptIs(arg, "storedist");
      ++i;
    } else if (OptIs(arg, "storedist") && (flags & kGeosearchStore) != 0) {
      o.store_dist = true;
    } else if (OptIs(arg, "frommember") && has(1) && geosearch && !from_lonlat) {
      // Without a source the search is empty anyway: the member is not looked up.
      if (zset != nullptr && !MemberCentre(ctx, *zset, ctx.arg(base + i + 1), o.shape)) {
        return false;
      }
      from_member = true;
      ++i;
    } else if (OptIs(arg, "fromlonlat") && has(2) && geosearch && !from_member) {
      if (!LonLatArgs(ctx, base + i + 1, o.shape.centre)) return false;
      from_lonlat = true;
      i += 2;
    } else if (OptIs(arg, "byradius") && has(2) && geosearch && !by_box) {
      if (!RadiusArgs(ctx, base + i + 1, o.shape)) return false;
      by_radius = true;
      i += 2;
    } else if (OptIs(arg, "bybox") && has(3) && geosearch && !by_radius) {
      if (!BoxArgs(ctx, base + i + 1, o.shape)) return false;
      by_box = true;
      i += 3;
    } else {
      ctx.reply.Error(errors::kSyntax);
      return false;
    }
  }
  if (o.store && (o.with_dist || o.with_hash || o.with_coord)) {
    ctx.reply.Error((flags & kGeosearchStore) != 0 ? errors::kGeoSearchStoreOptions
                                                   : errors::kGeoRadiusStoreOptions);
    return false;
  }
  if (geosearch && !from_member && !from_lonlat) {
    ctx.reply.Error({errors::kGeoFromPrefix, errors::CString(ctx.arg(0))});
    return false;
  }
  if (geosearch && !by_radius && !by_box) {
    ctx.reply.Error({errors::kGeoByPrefix, errors::CString(ctx.arg(0))});
    return false;
  }
  if (o.any && o.count == 0) {
    ctx.reply.Error(errors::kGeoAnyWithoutCount);
    return false;
  }
  return true;
}

// Calls fn(score, member) for the members from rank `first` on while fn returns true; `member`
// is a callable giving the member's bytes. In a large set the score sits in the tree and the
// member in its own entry, read only for the points a search keeps.
template <typename Fn>
void VisitFrom(const Entry& zset, std::size_t first, Fn&& fn) {
  if (zset.encoding() == storage::Encoding::kZsetPacked) {
    storage::ZsetVisit(zset, first, false, [&](std::string_view member, double score) {
      return fn(score, [member] { return member; });
    });
    return;
  }
  const storage::OrderTree& tree = static_cast<const storage::SortedSet*>(zset.large())->tree();
  if (first >= tree.size()) return;
  for (storage::OrderTree::Cursor c = tree.Select(first); !c.done(); c.Next()) {
    const storage::ZsetSlot& slot = c.slot();
    if (!fn(slot.score, [&slot] { return slot.member(); })) return;
  }
}

// Appends the members of `zset` inside the shape, cell after cell, each cell's in score order
// (Redis's membersOfAllNeighbors). With `limit` (ANY) it stops once that many are found.
void CollectPoints(const Entry& zset, const GeoShape& shape, std::size_t limit,
                   std::vector<GeoPoint>& points, std::vector<char>& names) {
  const storage::GeoSearchCells cells = storage::GeoCellsForShape(shape);
  const storage::GeoShapeMatcher matcher(shape);
  for (int c = 0; c < cells.count; ++c) {
    if (limit != 0 && points.size() >= limit) return;
    // The cell's scores: [min, max).
    storage::GeoHash next = cells.cells[c];
    const auto min = static_cast<double>(storage::GeohashAlign52(next));
    ++next.bits;
    const auto max = static_cast<double>(storage::GeohashAlign52(next));
    const std::size_t first = storage::ZsetCountBelowScore(zset, min, false);
    VisitFrom(zset, first, [&](double score, auto&& member_of) {
      if (!(score < max)) return false;
      GeoPoint p;
      p.coord = storage::GeoDecodeScore(score);
      if (matcher.Contains(p.coord, p.distance)) {
        const std::string_view member = member_of();
        p.score = score;
        p.member_offset = names.size();
        p.member_size = member.size();
        names.insert(names.end(), member.begin(), member.end());
        points.push_back(p);
      }
      return limit == 0 || points.size() < limit;
    });
  }
}

// Replaces `key` with the points found, scored by geohash or (STOREDIST) by distance.
void StorePoints(CommandContext& ctx, unsigned flags, std::string_view key,
                 std::span<const GeoPoint> points, const std::vector<char>& names,
                 bool store_dist) {
  std::vector<storage::ZsetItem> items;
  items.reserve(points.size());
  for (const GeoPoint& p : points) {
    items.push_back({std::string(names.data() + p.member_offset, p.member_size),
                     store_dist ? p.distance : p.score});
  }
  std::sort(items.begin(), items.end(), [](const storage::ZsetItem& a, const storage::ZsetItem& b) {
    return a.score != b.score ? a.score < b.score : a.member < b.member;
  });
  storage::Keyspace& keyspace = ctx.keyspace();
  const bool existed = keyspace.Erase(key, ctx.now_ms);
  if (!items.empty()) {
    storage::ZsetStore(keyspace, key, items, storage::ZsetFitsPacked(items, ctx.limits()));
    if (!existed) NotifyNew(ctx, key);
    Notify(ctx, notify::kZset, (flags & kGeosearch) != 0 ? "geosearchstore" : "georadiusstore",
           key);
  } else if (existed) {
    Notify(ctx, notify::kGeneric, "del", key);
  }
  ctx.reply.Integer(static_cast<std::int64_t>(items.size()));
}

void ReplyPoints(CommandContext& ctx, const SearchOptions& o, std::span<const GeoPoint> points,
                 const std::vector<char>& names) {
  const std::size_t extras = o.with_dist + o.with_hash + o.with_coord;
  ctx.reply.ArrayHeader(points.size());
  for (const GeoPoint& p : points) {
    if (extras != 0) ctx.reply.ArrayHeader(extras + 1);
    ctx.reply.Bulk({names.data() + p.member_offset, p.member_size});
    if (o.with_dist) ReplyGeoDistance(ctx, p.distance / o.shape.conversion);
    if (o.with_hash) ctx.reply.Integer(storage::GeoScoreAsInteger(p.score));
    if (o.with_coord) {
      ctx.reply.ArrayHeader(2);
      ReplyCoordinate(ctx, p.coord.longitude);
      ReplyCoordinate(ctx, p.coord.latitude);
    }
  }
}

// Redis's georadiusGeneric: the source key is at `src_at`.
void GeoSearch(CommandContext& ctx, std::size_t src_at, unsigned flags) {
  Entry* zset = nullptr;
  if (!LookupTypedRead(ctx, ctx.arg(src_at), ValueType::kZset, zset)) return;
  SearchOptions o;
  std::size_t base = 0;
  if ((flags & kByCoords) != 0) {
    base = 6;
    if (!LonLatArgs(ctx, 2, o.shape.centre) || !RadiusArgs(ctx, 4, o.shape)) return;
  } else if ((flags & kByMember) != 0) {
    base = 5;
    // Without a source Redis reads neither the member nor the radius.
    if (zset != nullptr &&
        (!MemberCentre(ctx, *zset, ctx.arg(2), o.shape) || !RadiusArgs(ctx, 3, o.shape))) {
      return;
    }
  } else {
    base = 2;
    if ((flags & kGeosearchStore) != 0) {
      base = 3;
      o.store = true;
      o.store_key = ctx.arg(1);
    }
  }
  if (!ParseSearchOptions(ctx, base, flags, zset, o)) return;

  if (zset == nullptr) {
    if (!o.store) {
      ctx.reply.ArrayHeader(0);
      return;
    }
    if (ctx.keyspace().Erase(o.store_key, ctx.now_ms)) {
      Notify(ctx, notify::kGeneric, "del", o.store_key);
    }
    ctx.reply.Integer(0);
    return;
  }
  // COUNT without an order means the nearest ones (not with ANY, which takes the first found).
  if (o.count != 0 && o.order == Order::kNone && !o.any) o.order = Order::kAsc;

  storage::ScratchVector<GeoPoint> points;
  storage::ScratchVector<char> names;
  CollectPoints(*zset, o.shape, o.any ? static_cast<std::size_t>(o.count) : 0, *points, *names);
  if (points->empty() && !o.store) {
    ctx.reply.ArrayHeader(0);
    return;
  }
  const std::size_t found = points->size();
  const std::size_t returned = o.count == 0 || found < static_cast<std::uint64_t>(o.count)
                                   ? found
                                   : static_cast<std::size_t>(o.count);
  if (o.order != Order::kNone) {
    storage::ScratchVector<GeoPoint> scratch;
    storage::GeoSortPoints(*points, o.order == Order::kDesc, returned, *scratch);
  }
  const std::span<const GeoPoint> result(points->data(), returned);
  if (!o.store) {
    ReplyPoints(ctx, o, result, *names);
    return;
  }
  // Distances are stored in the search's unit.
  if (o.store_dist) {
    for (std::size_t i = 0; i < returned; ++i) (*points)[i].distance /= o.shape.conversion;
  }
  StorePoints(ctx, flags, o.store_key, result, *names, o.store_dist);
}

}  // namespace

void GeosearchCommand(CommandContext& ctx) { GeoSearch(ctx, 1, kGeosearch); }
void GeosearchstoreCommand(CommandContext& ctx) { GeoSearch(ctx, 2, kGeosearch | kGeosearchStore); }
void GeoradiusCommand(CommandContext& ctx) { GeoSearch(ctx, 1, kByCoords); }
void GeoradiusRoCommand(CommandContext& ctx) { GeoSearch(ctx, 1, kByCoords | kNoStore); }
void GeoradiusbymemberCommand(CommandContext& ctx) { GeoSearch(ctx, 1, kByMember); }
void GeoradiusbymemberRoCommand(CommandContext& ctx) { GeoSearch(ctx, 1, kByMember | kNoStore); }

}  // namespace warden::server
