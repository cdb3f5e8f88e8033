#include "storage/zset.h"

#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "storage/hash.h"
#include "storage/packed.h"
#include "storage/uuid_pack.h"

namespace warden::storage {
namespace {

constexpr double kMaxPackedInt = 9007199254740992.0;  // 2^53

SortedSet* Large(const Entry& zset) { return static_cast<SortedSet*>(zset.large()); }

// Where a packed member's element lies, and its score.
struct PackedHit {
  std::size_t start = 0;
  std::size_t end = 0;
  double score = 0;
  bool found = false;
  std::size_t count = 0;  // elements in the set
  // The member packed as a UUID, for writing it back (nullptr: it is not one).
  unsigned char uuid_bytes[16];
  bool is_uuid = false;
  const unsigned char* uuid() const { return is_uuid ? uuid_bytes : nullptr; }
};

PackedHit PackedFind(std::string_view bytes, std::string_view member) {
  PackedHit hit;
  hit.is_uuid = PackUuid(member, hit.uuid_bytes);
  for (PackedZsetReader r(bytes); !r.done(); ++hit.count) {
    r.Next();
    if (!hit.found && r.MemberIs(member, hit.uuid())) {
      hit.start = r.start();
      hit.end = r.offset();
      hit.score = r.score();
      hit.found = true;
    }
  }
  return hit;
}

// AppendPackedZsetItem for a member whose PackUuid is already known (`uuid`, or nullptr).
void AppendPackedItem(std::string& out, std::string_view member, const unsigned char* uuid,
                      double score) {
  if (uuid != nullptr) {
    AppendVarint(out, 1);
    out.append(reinterpret_cast<const char*>(uuid), 16);
  } else {
    AppendVarint(out, std::uint64_t{member.size()} << 1);
    out.append(member);
  }
  // Redis's listpack keeps an integral score as an integer: -0 comes back as 0.
  if (std::trunc(score) == score && std::fabs(score) <= kMaxPackedInt) {
    const auto i = static_cast<std::int64_t>(score);
    const std::uint64_t zigzag =
        (static_cast<std::uint64_t>(i) << 1) ^ static_cast<std::uint64_t>(i >> 63);
    AppendVarint(out, zigzag << 1);
  } else {
    AppendVarint(out, 1);
    out.append(reinterpret_cast<const char*>(&score), sizeof(score));
  }
}

// The packed bytes with the element [skip_start, skip_end) left out and (member, score) put
// in its place in the order (when `member` is not null), into `out`.
void PackedRebuild(std::string_view bytes, std::size_t skip_start, std::size_t skip_end,
                   const std::string_view* member, const unsigned char* uuid, double score,
                   std::string& out) {
  out.clear();
  bool placed = member == nullptr;
  for (PackedZsetReader r(bytes); !r.done();) {
    r.Next();
    if (r.start() == skip_start && r.offset() == skip_end) continue;
    // The member is spelled (a packed UUID unpacked) only when the scores tie.
    if (!placed && (score < r.score() || (score == r.score() && *member < r.member()))) {
      AppendPackedItem(out, *member, uuid, score);
      placed = true;
    }
    out.append(bytes.substr(r.start(), r.offset() - r.start()));
  }
  if (!placed) AppendPackedItem(out, *member, uuid, score);
}

Entry* StoreLarge(Keyspace& keyspace, Entry* zset, std::string_view key, SortedSet* set) {
  LargeValue* lv = set;
  if (zset == nullptr) {
    return keyspace.Store(key, LargePointerBytes(lv), kNoDeadline, nullptr, Encoding::kZsetSorted);
  }
  return keyspace.SetValue(zset, LargePointerBytes(lv), Encoding::kZsetSorted);
}

Entry* ConvertToSorted(Keyspace& keyspace, Entry* zset) {
  auto* set = new SortedSet(keyspace);
  for (PackedZsetReader r(zset->value()); !r.done();) {
    r.Next();
    set->Insert(r.member(), r.score());
  }
  return StoreLarge(keyspace, zset, {}, set);
}

struct ScoreBound {
  double score;
};

bool ScoreBelow(const ZsetSlot& slot, const void* arg) {
  return slot.score < static_cast<const ScoreBound*>(arg)->score;
}
bool ScoreAtMost(const ZsetSlot& slot, const void* arg) {
  return slot.score <= static_cast<const ScoreBound*>(arg)->score;
}
bool MemberBelow(const ZsetSlot& slot, const void* arg) {
  return slot.member() < *static_cast<const std::string_view*>(arg);
}
bool MemberAtMost(const ZsetSlot& slot, const void* arg) {
  return slot.member() <= *static_cast<const std::string_view*>(arg);
}

}  // namespace

void PackedZsetReader::Next() {
  start_ = static_cast<std::size_t>(p_ - base_);
  const std::uint64_t h = ReadVarint(p_);
  if (h == 1) {
    uuid_ = p_;
    spelled_ = false;
    p_ += 16;
  } else {
    uuid_ = nullptr;
    member_ = std::string_view(p_, h >> 1);
    p_ += h >> 1;
  }
  const std::uint64_t v = ReadVarint(p_);
  if (v == 1) {
    std::memcpy(&score_, p_, sizeof(score_));
    p_ += sizeof(score_);
  } else {
    const std::uint64_t u = v >> 1;
    score_ =
        static_cast<double>(static_cast<std::int64_t>(u >> 1) ^ -static_cast<std::int64_t>(u & 1));
  }
}

void PackedZsetReader::Spell() const {
  UnpackUuid(uuid_, spelling_);
  member_ = std::string_view(spelling_, sizeof(spelling_));
  spelled_ = true;
}

void AppendPackedZsetItem(std::string& out, std::string_view member, double score) {
  unsigned char uuid[16];
  AppendPackedItem(out, member, PackUuid(member, uuid) ? uuid : nullptr, score);
}

SortedSet::SortedSet(Keyspace& owner) : members_(NewValueTable(owner)) {}

SortedSet::~SortedSet() = default;

double SortedSet::ScoreOf(const Entry& member) {
  double score;
  std::memcpy(&score, member.value().data(), sizeof(score));
  return score;
}

void SortedSet::Insert(std::string_view member, double score) {
  const Entry* e = members_->Store(
      member, std::string_view(reinterpret_cast<const char*>(&score), 8), kNoDeadline, nullptr);
  tree_.Insert({score, e});
}

void SortedSet::Update(const Entry* member, double score) {
  tree_.Erase({ScoreOf(*member), member});
  // The value keeps its 8 bytes, so the entry stays where the tree points.
  std::memcpy(Keyspace::ValueBytes(const_cast<Entry*>(member)), &score, sizeof(score));
  tree_.Insert({score, member});
}

void SortedSet::Erase(const Entry* member) {
  tree_.Erase({ScoreOf(*member), member});
  members_->Erase(const_cast<Entry*>(member));
}

bool SortedSet::ClearSome(std::size_t max_elements) {
  if (!tree_.ClearSome(max_elements)) return false;
  return members_->ClearSome(max_elements);
}

std::size_t SortedSet::memory_bytes() const {
  std::size_t bytes =
      sizeof(*this) + sizeof(Keyspace) + members_->bucket_bytes() + tree_.memory_bytes();
  members_->ForEach([&](const Entry& e) { bytes += Keyspace::BlockBytes(e); });
  return bytes;
}

bool SortedSet::Verify() const {
  if (!tree_.Verify() || !members_->Verify() || members_->size() != tree_.size()) return false;
  bool ok = true;
  members_->ForEach([&](const Entry& e) {
    const std::size_t rank = tree_.Rank({ScoreOf(e), &e});
    if (rank >= tree_.size() || tree_.Select(rank).slot().entry != &e) ok = false;
  });
  return ok;
}

std::size_t ZsetSize(const Entry& zset) {
  if (zset.encoding() == Encoding::kZsetSorted) return Large(zset)->size();
  std::size_t n = 0;
  for (PackedZsetReader r(zset.value()); !r.done(); ++n) r.Next();
  return n;
}

std::optional<double> ZsetScore(const Entry& zset, std::string_view member) {
  if (zset.encoding() == Encoding::kZsetSorted) {
    const Entry* e = Large(zset)->Find(member);
    if (e == nullptr) return std::nullopt;
    return SortedSet::ScoreOf(*e);
  }
  const PackedHit hit = PackedFind(zset.value(), member);
  if (!hit.found) return std::nullopt;
  return hit.score;
}

std::optional<std::size_t> ZsetRank(const Entry& zset, std::string_view member) {
  if (zset.encoding() == Encoding::kZsetSorted) {
    const Entry* e = Large(zset)->Find(member);
    if (e == nullptr) return std::nullopt;
    return Large(zset)->Rank(e);
  }
  std::size_t rank = 0;
  unsigned char uuid[16];
  const unsigned char* packed = PackUuid(member, uuid) ? uuid : nullptr;
  for (PackedZsetReader r(zset.value()); !r.done(); ++rank) {
    r.Next();
    if (r.MemberIs(member, packed)) return rank;
  }
  return std::nullopt;
}

ZaddResult ZsetAdd(Keyspace& keyspace, Entry*& zset, std::string_view key, std::string_view member,
                   double score, const ZaddFlags& flags, const EncodingLimits& limits) {
  ZaddResult result;
  if (std::isnan(score)) {
    result.nan = true;
    return result;
  }
  if (zset == nullptr) {
    if (limits.zset_max_listpack_entries == 0 || member.size() > limits.zset_max_listpack_value) {
      auto* set = new SortedSet(keyspace);
      set->Insert(member, score);
      zset = StoreLarge(keyspace, nullptr, key, set);
    } else {
      std::string& out = keyspace.scratch();
      out.clear();
      AppendPackedZsetItem(out, member, score);
      zset = keyspace.Store(key, out, kNoDeadline, nullptr, Encoding::kZsetPacked);
    }
    result.added = true;
    result.score = score;
    return result;
  }
  // Redis's zsetAdd: NX stops on an existing member; INCR adds to its score (NaN refused);
  // GT/LT stop a change in the wrong direction; an equal score changes nothing.
  auto change = [&](double current, auto&& apply) {
    if (flags.nx) {
      result.skipped = true;
      return;
    }
    if (flags.incr) {
      score += current;
      if (std::isnan(score)) {
        result.nan = true;
        return;
      }
    }
    if ((flags.lt && score >= current) || (flags.gt && score <= current)) {
      result.skipped = true;
      return;
    }
    result.score = score;
    if (score != current) {
      apply();
      result.updated = true;
    }
  };
  if (zset->encoding() == Encoding::kZsetPacked) {
    const std::string_view bytes = zset->value();
    const PackedHit hit = PackedFind(bytes, member);
    if (hit.found) {
      change(hit.score, [&] {
        PackedRebuild(bytes, hit.start, hit.end, &member, hit.uuid(), score, keyspace.scratch());
        zset = keyspace.SetValue(zset, keyspace.scratch(), Encoding::kZsetPacked);
      });
      return result;
    }
    if (flags.xx) {
      result.skipped = true;
      return result;
    }
    if (hit.count + 1 <= limits.zset_max_listpack_entries &&
        member.size() <= limits.zset_max_listpack_value &&
        bytes.size() + member.size() + 32 <= kMaxPackedBytes) {
      PackedRebuild(bytes, 0, 0, &member, hit.uuid(), score, keyspace.scratch());
      zset = keyspace.SetValue(zset, keyspace.scratch(), Encoding::kZsetPacked);
      result.added = true;
      result.score = score;
      return result;
    }
    zset = ConvertToSorted(keyspace, zset);
  }
  SortedSet* set = Large(*zset);
  if (const Entry* e = set->Find(member); e != nullptr) {
    change(SortedSet::ScoreOf(*e), [&] {
      set->Update(e, score);
      keyspace.NoteModified(zset->key());
    });
    return result;
  }
  if (flags.xx) {
    result.skipped = true;
    return result;
  }
  set->Insert(member, score);
  keyspace.NoteModified(zset->key());
  result.added = true;
  result.score = score;
  return result;
}

bool ZsetRemove(Keyspace& keyspace, Entry*& zset, std::string_view member) {
  if (zset->encoding() == Encoding::kZsetSorted) {
    SortedSet* set = Large(*zset);
    const Entry* e = set->Find(member);
    if (e == nullptr) return false;
    set->Erase(e);
    if (set->size() == 0) {
      keyspace.Erase(zset);
      zset = nullptr;
    } else {
      keyspace.NoteModified(zset->key());
    }
    return true;
  }
  const PackedHit hit = PackedFind(zset->value(), member);
  if (!hit.found) return false;
  if (hit.count == 1) {
    keyspace.Erase(zset);
    zset = nullptr;
    return true;
  }
  PackedRebuild(zset->value(), hit.start, hit.end, nullptr, nullptr, 0, keyspace.scratch());
  zset = keyspace.SetValue(zset, keyspace.scratch(), Encoding::kZsetPacked);
  return true;
}

std::size_t ZsetRemoveRange(Keyspace& keyspace, Entry*& zset, std::size_t start, std::size_t end) {
  const std::size_t size = ZsetSize(*zset);
  end = std::min(end, size);
  if (start >= end) return 0;
  if (zset->encoding() == Encoding::kZsetSorted) {
    SortedSet* set = Large(*zset);
    std::vector<const Entry*> doomed;
    doomed.reserve(end - start);
    for (OrderTree::Cursor c = set->tree().Select(start); doomed.size() < end - start; c.Next()) {
      doomed.push_back(c.slot().entry);
    }
    for (const Entry* e : doomed) set->Erase(e);
    keyspace.NoteModified(zset->key());
  } else if (end - start < size) {
    std::string& out = keyspace.scratch();
    out.clear();
    const std::string_view bytes = zset->value();
    std::size_t rank = 0;
    for (PackedZsetReader r(bytes); !r.done(); ++rank) {
      r.Next();
      if (rank < start || rank >= end) out.append(bytes.substr(r.start(), r.offset() - r.start()));
    }
    zset = keyspace.SetValue(zset, out, Encoding::kZsetPacked);
  }
  if (end - start == size) {
    keyspace.Erase(zset);
    zset = nullptr;
  }
  return end - start;
}

ZsetItem ZsetPop(Keyspace& keyspace, Entry*& zset, bool max) {
  ZsetItem item;
  const std::size_t size = ZsetSize(*zset);
  ZsetVisit(*zset, max ? size - 1 : 0, max, [&](std::string_view m, double s) {
    item.member.assign(m);
    item.score = s;
    return false;
  });
  ZsetRemoveRange(keyspace, zset, max ? size - 1 : 0, max ? size : 1);
  return item;
}

std::size_t ZsetCountBelowScore(const Entry& zset, double score, bool inclusive) {
  if (zset.encoding() == Encoding::kZsetSorted) {
    const ScoreBound bound{score};
    return Large(zset)->tree().CountBefore(inclusive ? ScoreAtMost : ScoreBelow, &bound);
  }
  std::size_t n = 0;
  for (PackedZsetReader r(zset.value()); !r.done(); ++n) {
    r.Next();
    if (inclusive ? r.score() > score : r.score() >= score) break;
  }
  return n;
}

std::size_t ZsetCountBelowLex(const Entry& zset, const LexBound& bound, bool is_min) {
  if (bound.kind == LexBound::kMinusInf) return 0;
  if (bound.kind == LexBound::kPlusInf) return ZsetSize(zset);
  // Below a min "[x" or a max "(x": members < x. Below a min "(x" or up to a max "[x": <= x.
  const bool strict = is_min == (bound.kind == LexBound::kInclusive);
  if (zset.encoding() == Encoding::kZsetSorted) {
    return Large(zset)->tree().CountBefore(strict ? MemberBelow : MemberAtMost, &bound.member);
  }
  std::size_t n = 0;
  for (PackedZsetReader r(zset.value()); !r.done(); ++n) {
    r.Next();
    if (strict ? r.member() >= bound.member : r.member() > bound.member) break;
  }
  return n;
}

std::vector<ZsetItem> ZsetItems(const Entry& zset) {
  std::vector<ZsetItem> items;
  ZsetVisit(zset, 0, false, [&](std::string_view m, double s) {
    items.push_back({std::string(m), s});
    return true;
  });
  return items;
}

void ZsetStore(Keyspace& keyspace, std::string_view key, std::span<const ZsetItem> items,
               bool packed) {
  if (packed) {
    std::string& out = keyspace.scratch();
    out.clear();
    for (const ZsetItem& item : items) AppendPackedZsetItem(out, item.member, item.score);
    keyspace.Store(key, out, kNoDeadline, nullptr, Encoding::kZsetPacked);
    return;
  }
  auto* set = new SortedSet(keyspace);
  for (const ZsetItem& item : items) set->Insert(item.member, item.score);
  StoreLarge(keyspace, nullptr, key, set);
}

bool ZsetFitsPacked(std::span<const ZsetItem> items, const EncodingLimits& limits) {
  if (items.size() > limits.zset_max_listpack_entries) return false;
  std::size_t total = 0;
  for (const ZsetItem& item : items) {
    if (item.member.size() > limits.zset_max_listpack_value) return false;
    total += item.member.size() + 16;
  }
  return total <= kMaxPackedBytes;
}

std::string ZsetCopyValue(const Entry& zset, Keyspace& to) {
  if (zset.encoding() == Encoding::kZsetPacked) return std::string(zset.value());
  auto* set = new SortedSet(to);
  ZsetVisit(zset, 0, false, [&](std::string_view m, double s) {
    set->Insert(m, s);
    return true;
  });
  LargeValue* lv = set;
  return std::string(LargePointerBytes(lv));
}

}  // namespace warden::storage
