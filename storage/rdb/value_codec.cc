#include "storage/rdb/value_codec.h"

#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "storage/hash.h"
#include "storage/list.h"
#include "storage/rdb/intset.h"
#include "storage/rdb/listpack.h"
#include "storage/rdb/stream_codec.h"
#include "storage/rdb/ziplist.h"
#include "storage/rdb/zipmap.h"
#include "storage/set.h"
#include "storage/stream.h"
#include "storage/zset.h"

namespace warden::storage::rdb {
namespace {

// quicklist.c: a list node's size classes for negative fills, the safety limit for positive
// ones, the per-entry estimate, and the element size that gets a plain node of its own.
constexpr std::size_t kOptimizationLevel[] = {4096, 8192, 16384, 32768, 65536};
constexpr std::size_t kSizeSafetyLimit = 8192;
constexpr std::size_t kSizeEstimateOverhead = 8;
constexpr std::size_t kPackedThreshold = std::size_t{1} << 30;

// _quicklistNodeAllowInsert for a node of `node_bytes` listpack bytes and `count` elements.
bool NodeAllowsInsert(std::size_t node_bytes, std::size_t count, std::int64_t fill,
                      std::size_t element) {
  const std::size_t new_size = node_bytes + element + kSizeEstimateOverhead;
  if (fill < 0) {
    const auto level = static_cast<std::size_t>(-fill - 1);
    if (level < std::size(kOptimizationLevel) && new_size <= kOptimizationLevel[level]) return true;
  }
  if (new_size > kSizeSafetyLimit) return false;
  return fill >= 0 && count < static_cast<std::size_t>(fill);
}

// A list as the quicklist RPUSH would have built from its elements: the node boundaries
// Redis's would have for a list pushed at the tail, so such a list's DUMP is Redis's.
void WriteList(RdbWriter& w, const Entry& e) {
  struct Node {
    std::string bytes;
    bool plain = false;
  };
  std::vector<Node> nodes;
  ListpackWriter lp;
  bool open = false;
  // Redis's default list-max-listpack-size; the node bounds are its, not the loader's.
  constexpr std::int64_t kFill = -2;
  auto close = [&] {
    if (open) nodes.push_back({lp.Finish(), false});
    lp = ListpackWriter();
    open = false;
  };
  ListForEachFrom(e, 0, [&](std::string_view item) {
    if (item.size() >= kPackedThreshold) {
      close();
      nodes.push_back({std::string(item), true});
      return true;
    }
    if (open && !NodeAllowsInsert(lp.bytes(), lp.count(), kFill, item.size())) close();
    lp.AppendString(item);
    open = true;
    return true;
  });
  close();
  w.Length(nodes.size());
  for (const Node& node : nodes) {
    w.Length(node.plain ? kQuicklistPlain : kQuicklistPacked);
    w.String(node.bytes);
  }
}

void WriteIntset(RdbWriter& w, const Entry& e) {
  std::vector<std::int64_t> values;
  values.reserve(SetSize(e));
  SetForEach(e, [&](std::string_view member) {
    std::int64_t v = 0;
    ParseCanonicalInt64(member, v);
    values.push_back(v);
  });
  w.String(IntsetEncode(values));
}

void WriteZsetListpack(RdbWriter& w, const Entry& e) {
  ListpackWriter lp;
  ZsetVisit(e, 0, false, [&](std::string_view member, double score) {
    lp.AppendString(member);
    // zzlInsertAt: an integral score within double2ll's range as an integer.
    constexpr double kHalf = static_cast<double>(INT64_MAX / 2);
    if (score >= -kHalf && score <= kHalf &&
        static_cast<double>(static_cast<std::int64_t>(score)) == score) {
      lp.AppendInteger(static_cast<std::int64_t>(score));
    } else {
      char buf[40];
      lp.AppendString(std::string_view(buf, D2String(score, buf)));
    }
    return true;
  });
  w.String(lp.Finish());
}

}  // namespace

RdbType TypeFor(const Entry& e) {
  switch (e.encoding()) {
    case Encoding::kString:
    case Encoding::kStringRaw:
    case Encoding::kStringNoInt:
    case Encoding::kStringUnshared:
      return kTypeString;
    case Encoding::kHashPacked:
      return kTypeHashListpack;
    case Encoding::kHashTable:
      return kTypeHash;
    case Encoding::kSetInts:
      return kTypeSetIntset;
    case Encoding::kSetPacked:
    case Encoding::kSetTable:
      return kTypeSet;
    case Encoding::kZsetPacked:
      return kTypeZsetListpack;
    case Encoding::kZsetSorted:
      return kTypeZset2;
    case Encoding::kListPacked:
    case Encoding::kListChunked:
      return kTypeListQuicklist2;
    case Encoding::kStream:
      return kTypeStreamListpacks2;
  }
  return kTypeString;
}

void WriteValue(RdbWriter& w, const Entry& e) {
  const RdbType type = TypeFor(e);
  w.Byte(type);
  WriteValueBody(w, e, type);
}

void WriteValueBody(RdbWriter& w, const Entry& e, RdbType type) {
  switch (type) {
    case kTypeString:
      w.String(e.value());
      break;
    case kTypeListQuicklist2:
      WriteList(w, e);
      break;
    case kTypeSetIntset:
      WriteIntset(w, e);
      break;
    case kTypeSet:
      w.Length(SetSize(e));
      SetForEach(e, [&](std::string_view member) { w.String(member); });
      break;
    case kTypeZsetListpack:
      WriteZsetListpack(w, e);
      break;
    case kTypeZset2:
      // From the highest score down, as rdbSaveObject walks the skiplist from its tail.
      w.Length(ZsetSize(e));
      ZsetVisit(e, ZsetSize(e) - 1, true, [&](std::string_view member, double score) {
        w.String(member);
        w.BinaryDouble(score);
        return true;
      });
      break;
    case kTypeHashListpack: {
      ListpackWriter lp;
      HashForEach(e, [&](std::string_view field, std::string_view value) {
        lp.AppendString(field);
        lp.AppendString(value);
      });
      w.String(lp.Finish());
      break;
    }
    case kTypeHash:
      w.Length(HashLength(e));
      HashForEach(e, [&](std::string_view field, std::string_view value) {
        w.String(field);
        w.String(value);
      });
      break;
    case kTypeStreamListpacks2:
      WriteStream(w, *StreamOf(e));
      break;
    default:
      break;
  }
}

bool KnownType(std::uint8_t type) {
  switch (type) {
    case kTypeString:
    case kTypeList:
    case kTypeSet:
    case kTypeZset:
    case kTypeHash:
    case kTypeZset2:
    case kTypeHashZipmap:
    case kTypeListZiplist:
    case kTypeSetIntset:
    case kTypeZsetZiplist:
    case kTypeHashZiplist:
    case kTypeListQuicklist:
    case kTypeStreamListpacks:
    case kTypeHashListpack:
    case kTypeZsetListpack:
    case kTypeListQuicklist2:
    case kTypeStreamListpacks2:
      return true;
    default:
      return false;
  }
}

namespace {

// Builds one collection through the commands' own functions. A failed build erases what it
// made, so a bad payload leaves the keyspace as it was.
class Builder {
 public:
  Builder(Keyspace& keyspace, std::string_view key, const EncodingLimits& limits)
      : keyspace_(keyspace), key_(key), limits_(limits) {}
  ~Builder() {
    if (!done_ && entry_ != nullptr) keyspace_.Erase(entry_);
  }

  bool HashField(std::string_view field, std::string_view value) {
    return HashSet(keyspace_, entry_, key_, field, value, limits_);
  }
  bool SetMember(std::string_view member) {
    return SetAdd(keyspace_, entry_, key_, member, limits_);
  }
  bool ZsetMember(std::string_view member, double score) {
    if (std::isnan(score)) return false;
    return ZsetAdd(keyspace_, entry_, key_, member, score, ZaddFlags{}, limits_).added;
  }
  void ListElement(std::string_view element) {
    ListPush(keyspace_, entry_, key_, element, ListEnd::kTail, limits_);
  }

  LoadStatus Finish(std::int64_t deadline_ms, Entry** stored) {
    done_ = true;
    if (entry_ == nullptr) return LoadStatus::kEmpty;
    if (deadline_ms != kNoDeadline) keyspace_.SetDeadline(entry_, deadline_ms);
    *stored = entry_;
    return LoadStatus::kStored;
  }

 private:
  Keyspace& keyspace_;
  std::string_view key_;
  const EncodingLimits& limits_;
  Entry* entry_ = nullptr;
  bool done_ = false;
};

// A listpack or ziplist of (field, value) pairs: an even count, no field twice.
template <typename ForEach>
bool ReadPairs(ForEach&& for_each, std::string_view blob, Builder& b, bool zset) {
  std::string first;
  bool have_first = false;
  bool ok = true;
  const bool walked = for_each(blob, [&](const PackedItem& item) {
    if (!have_first) {
      first.assign(item.str);
      have_first = true;
      return true;
    }
    have_first = false;
    if (zset) {
      double score = 0;
      if (item.is_int) {
        score = static_cast<double>(item.integer);
      } else {
        std::string text(item.str);
        char* end = nullptr;
        score = std::strtod(text.c_str(), &end);
        // zzlStrtod: whatever strtod makes of it, as Redis loads it.
        if (end == text.c_str()) score = 0;
      }
      ok = ok && b.ZsetMember(first, score);
    } else {
      ok = b.HashField(first, item.str);
    }
    return ok;
  });
  return walked && ok && !have_first;
}

bool ReadListpackList(std::string_view blob, Builder& b) {
  return ListpackForEach(blob, [&](const PackedItem& item) {
    b.ListElement(item.str);
    return true;
  });
}

}  // namespace

LoadStatus ReadValue(RdbReader& r, std::uint8_t type, Keyspace& keyspace, std::string_view key,
                     std::int64_t deadline_ms, const EncodingLimits& limits, Entry** stored) {
  std::string scratch;
  std::string_view s;
  if (type == kTypeString) {
    if (!r.String(s, scratch)) return LoadStatus::kBad;
    *stored = keyspace.Store(key, s, deadline_ms, nullptr);
    return LoadStatus::kStored;
  }
  if (type == kTypeStreamListpacks || type == kTypeStreamListpacks2) {
    Entry* e = StreamCreate(keyspace, key);
    StreamNodeLimits node_limits{limits.stream_node_max_bytes, limits.stream_node_max_entries};
    if (!ReadStream(r, type, *StreamOf(*e), node_limits)) {
      keyspace.Erase(e);
      return LoadStatus::kBad;
    }
    if (deadline_ms != kNoDeadline) keyspace.SetDeadline(e, deadline_ms);
    *stored = e;
    return LoadStatus::kStored;
  }
  Builder b(keyspace, key, limits);
  std::uint64_t count = 0;
  switch (type) {
    case kTypeList:
      if (!r.Count(count)) return LoadStatus::kBad;
      for (std::uint64_t i = 0; i < count; ++i) {
        if (!r.String(s, scratch)) return LoadStatus::kBad;
        b.ListElement(s);
      }
      break;
    case kTypeSet:
      if (!r.Count(count)) return LoadStatus::kBad;
      for (std::uint64_t i = 0; i < count; ++i) {
        if (!r.String(s, scratch) || !b.SetMember(s)) return LoadStatus::kBad;
      }
      break;
    case kTypeZset:
    case kTypeZset2:
      if (!r.Count(count)) return LoadStatus::kBad;
      for (std::uint64_t i = 0; i < count; ++i) {
        if (!r.String(s, scratch)) return LoadStatus::kBad;
        const std::string member(s);
        double score = 0;
        if (!(type == kTypeZset2 ? r.BinaryDouble(score) : r.AsciiDouble(score))) {
          return LoadStatus::kBad;
        }
        if (!b.ZsetMember(member, score)) return LoadStatus::kBad;
      }
      break;
    case kTypeHash:
      if (!r.Count(count)) return LoadStatus::kBad;
      for (std::uint64_t i = 0; i < count; ++i) {
        if (!r.String(s, scratch)) return LoadStatus::kBad;
        const std::string field(s);
        if (!r.String(s, scratch) || !b.HashField(field, s)) return LoadStatus::kBad;
      }
      break;
    case kTypeListQuicklist:
    case kTypeListQuicklist2: {
      if (!r.Count(count)) return LoadStatus::kBad;
      for (std::uint64_t i = 0; i < count; ++i) {
        std::uint64_t container = kQuicklistPacked;
        if (type == kTypeListQuicklist2) {
          if (!r.Length(container)) return LoadStatus::kBad;
          if (container != kQuicklistPacked && container != kQuicklistPlain) {
            return LoadStatus::kBad;
          }
        }
        if (!r.String(s, scratch)) return LoadStatus::kBad;
        if (container == kQuicklistPlain) {
          b.ListElement(s);
          continue;
        }
        // Empty nodes are skipped, as Redis does; an empty list is then an empty key.
        const bool ok = type == kTypeListQuicklist2
                            ? ReadListpackList(s, b)
                            : ZiplistForEach(s, [&](const PackedItem& item) {
                                b.ListElement(item.str);
                                return true;
                              });
        if (!ok) return LoadStatus::kBad;
      }
      break;
    }
    case kTypeListZiplist: {
      if (!r.String(s, scratch)) return LoadStatus::kBad;
      const bool ok = ZiplistForEach(s, [&](const PackedItem& item) {
        b.ListElement(item.str);
        return true;
      });
      if (!ok) return LoadStatus::kBad;
      break;
    }
    case kTypeSetIntset: {
      if (!r.String(s, scratch)) return LoadStatus::kBad;
      bool ok = true;
      const bool walked = IntsetForEach(s, [&](std::int64_t v) {
        char buf[24];
        const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
        ok = b.SetMember(std::string_view(buf, static_cast<std::size_t>(end - buf)));
        return ok;
      });
      if (!walked || !ok) return LoadStatus::kBad;
      break;
    }
    case kTypeHashZipmap: {
      if (!r.String(s, scratch)) return LoadStatus::kBad;
      bool ok = true;
      const bool walked = ZipmapForEach(s, [&](std::string_view field, std::string_view value) {
        ok = b.HashField(field, value);
        return ok;
      });
      if (!walked || !ok) return LoadStatus::kBad;
      break;
    }
    case kTypeHashZiplist:
    case kTypeZsetZiplist:
      if (!r.String(s, scratch)) return LoadStatus::kBad;
      if (!ReadPairs([](std::string_view blob, auto&& fn) { return ZiplistForEach(blob, fn); }, s,
                     b, type == kTypeZsetZiplist)) {
        return LoadStatus::kBad;
      }
      break;
    case kTypeHashListpack:
    case kTypeZsetListpack:
      if (!r.String(s, scratch)) return LoadStatus::kBad;
      if (!ReadPairs([](std::string_view blob, auto&& fn) { return ListpackForEach(blob, fn); }, s,
                     b, type == kTypeZsetListpack)) {
        return LoadStatus::kBad;
      }
      break;
    default:
      return LoadStatus::kBad;
  }
  return b.Finish(deadline_ms, stored);
}

}  // namespace warden::storage::rdb
