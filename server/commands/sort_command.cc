// SORT and SORT_RO (Redis 7.0's sort.c): the elements of a list, set or sorted set, ordered by
// their own value or by keys their BY pattern names, cut by LIMIT, mapped through GET patterns,
// and replied or STOREd as a list.
//
// What Redis's order is, so that warden's is the same byte for byte:
// - Numeric: by score, then by the elements' bytes, so the order is total (equal elements
//   reply the same).
// - ALPHA: by the BY value (a missing one first) or the element. Redis compares with strcoll,
//   which under the C locale it runs with (C.UTF-8 collates as strcmp) stops at the first NUL;
//   with STORE it compares all the bytes. Ties keep the elements' order, as glibc's qsort is a
//   merge sort; std::sort is told the load order as the last key to do the same.
// - BY with a LIMIT that cuts: Redis's pqsort, a partial Bentley-McIlroy quicksort, which is
//   not stable; PartialQuicksort makes exactly its swaps, so ties come out in its order.
//
// The elements are views into the sorted key (integers of an intset, and a packed sorted set's
// spelled-out UUID members, are written into an arena first), and BY values views into the keys
// they name: nothing changes the keyspace until STORE has copied what it needs. The item vector
// and buffers are per thread and kept between calls, so a sort of a warm size allocates nothing.
//
// Two Redis quirks are not copied: 7.0 converts every sorted set it sorts to a skiplist
// (OBJECT ENCODING shows it; warden would have to count that as a write), and it never clears
// errno before strtod, so after one score out of range later sorts of non-integer scores fail
// until some system call happens to change errno.
#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/request_parser.h"
#include "server/acl/acl.h"
#include "server/commands/commands.h"
#include "server/commands/typed_lookup.h"
#include "server/errors.h"
#include "server/notify.h"
#include "storage/hash.h"
#include "storage/list.h"
#include "storage/set.h"
#include "storage/zset.h"

namespace warden::server {
namespace {

using storage::Encoding;
using storage::Entry;
using storage::ValueType;

struct SortOptions {
  bool desc = false;
  bool alpha = false;
  // A BY pattern without '*' was given (sticky: a later BY with '*' does not undo it).
  bool dontsort = false;
  std::int64_t limit_start = 0;
  std::int64_t limit_count = -1;
  std::optional<std::string_view> by;
  std::optional<std::string_view> store;
};

// A C string's view of `s`: Redis reads patterns and (without STORE) ALPHA keys with str*
// functions, which end at the first NUL.
std::string_view UpToNul(std::string_view s) {
  const void* nul = std::memchr(s.data(), '\0', s.size());
  return nul == nullptr
             ? s
             : s.substr(0, static_cast<std::size_t>(static_cast<const char*>(nul) - s.data()));
}

// Reads SORT's options from argument 2 on, in Redis's order, into `out` and `gets` (the
// argument indices of the GET patterns). Returns the error to reply, or nullopt. BY with a real
// pattern and GET need `full_key_access` (Redis's ACLUserCheckCmdWithUnrestrictedKeyAccess).
std::optional<std::string_view> ParseSortOptions(std::span<const std::string_view> args,
                                                 bool readonly, bool full_key_access,
                                                 SortOptions& out,
                                                 std::vector<std::uint32_t>& gets) {
  for (std::size_t j = 2; j < args.size(); ++j) {
    const std::size_t left = args.size() - j - 1;
    const std::string_view a = args[j];
    if (ArgIs(a, "asc")) {
      out.desc = false;
    } else if (ArgIs(a, "desc")) {
      out.desc = true;
    } else if (ArgIs(a, "alpha")) {
      out.alpha = true;
    } else if (ArgIs(a, "limit") && left >= 2) {
      if (!protocol::ParseStrictInt64(args[j + 1], out.limit_start) ||
          !protocol::ParseStrictInt64(args[j + 2], out.limit_count)) {
        return errors::kNotInteger;
      }
      j += 2;
    } else if (!readonly && ArgIs(a, "store") && left >= 1) {
      out.store = args[++j];
    } else if (ArgIs(a, "by") && left >= 1) {
      out.by = args[++j];
      if (UpToNul(*out.by).find('*') == std::string_view::npos) {
        out.dontsort = true;
      } else if (!full_key_access) {
        return errors::kSortByDenied;
      }
    } else if (ArgIs(a, "get") && left >= 1) {
      if (!full_key_access) return errors::kSortGetDenied;
      gets.push_back(static_cast<std::uint32_t>(++j));
    } else {
      return errors::kSyntax;
    }
  }
  return std::nullopt;
}

// Redis's lookupKeyByPattern: the element itself for "#"; nothing for a pattern without '*';
// otherwise the value of the string key the pattern names with its first '*' replaced by
// `element`, or with "->field" the hash key's field. A key of another type, a missing key or
// field gives nothing; a missing key publishes `keymiss` (a read lookup). The view lives until
// the keyspace changes. `key` is the buffer the key is built in.
std::optional<std::string_view> LookupByPattern(CommandContext& ctx, std::string_view pattern,
                                                std::string_view element, std::string& key) {
  if (!pattern.empty() && pattern[0] == '#' && (pattern.size() == 1 || pattern[1] == '\0')) {
    return element;
  }
  const std::string_view cpattern = UpToNul(pattern);
  const std::size_t star = cpattern.find('*');
  if (star == std::string_view::npos) return std::nullopt;
  // The field runs to the pattern's real end, past any NUL; "->" at the end names no field.
  const std::size_t arrow = cpattern.find("->", star + 1);
  const bool has_field = arrow != std::string_view::npos && arrow + 2 < cpattern.size();
  const std::string_view suffix =
      has_field ? pattern.substr(star + 1, arrow - star - 1) : pattern.substr(star + 1);
  key.assign(pattern.substr(0, star));
  key.append(element);
  key.append(suffix);
  const Entry* entry = ctx.keyspace().Find(key, ctx.now_ms);
  if (entry == nullptr) {
    NotifyKeyMiss(ctx, key);
    return std::nullopt;
  }
  if (has_field) {
    if (entry->type() != ValueType::kHash) return std::nullopt;
    return storage::HashGet(*entry, pattern.substr(arrow + 2));
  }
  if (!entry->is_string()) return std::nullopt;
  return entry->value();
}

// Redis's score of an element or BY value: strtod over the bytes up to the first NUL, which
// must all be read, with no overflow, underflow (ERANGE) or NaN. Plain integers and ordinary
// decimals take the fast ways, which give strtod's correctly rounded value; anything else
// (signs, spaces, hex, inf, tiny or huge values) goes to strtod itself through `buf`.
bool SortScore(std::string_view text, double& out, std::string& buf) {
  // Neither fast way reads past a NUL: a NUL is not a digit, and from_chars stops at it.
  const char* p = text.data();
  const std::size_t n = text.size();
  const std::size_t digits_at = n > 0 && p[0] == '-' ? 1 : 0;
  if (n > digits_at && n - digits_at <= 15) {
    std::uint64_t v = 0;
    std::size_t i = digits_at;
    for (; i < n; ++i) {
      const unsigned d = static_cast<unsigned char>(p[i]) - static_cast<unsigned>('0');
      if (d > 9) break;
      v = v * 10 + d;
    }
    if (i == n) {
      out = digits_at != 0 ? -static_cast<double>(v) : static_cast<double>(v);
      return true;
    }
  }
  double v = 0;
  const auto [end, ec] = std::from_chars(p, p + n, v);
  if (ec == std::errc() && end == p + n && std::isfinite(v) && std::fabs(v) >= 0x1p-1021) {
    out = v;
    return true;
  }
  buf.assign(UpToNul(text));
  char* stop = nullptr;
  errno = 0;
  out = std::strtod(buf.c_str(), &stop);
  return *stop == '\0' && errno != ERANGE && !std::isnan(out);
}

struct SortItem {
  const char* elem;
  const char* key;  // ALPHA: the bytes compared; null when the BY lookup found nothing
  std::uint32_t elem_len;
  std::uint32_t key_len;
  double score;
  std::uint32_t index;  // load order
};

// Redis's sortCompare, DESC included: <0, 0 or >0.
struct SortCompare {
  bool alpha;
  bool desc;

  static int Bytes(const char* a, std::size_t alen, const char* b, std::size_t blen) {
    const int c = std::memcmp(a, b, std::min(alen, blen));
    if (c != 0) return c;
    return alen < blen ? -1 : (alen > blen ? 1 : 0);
  }
  int operator()(const SortItem& a, const SortItem& b) const {
    int c;
    if (!alpha) {
      c = a.score > b.score   ? 1
          : a.score < b.score ? -1
                              : Bytes(a.elem, a.elem_len, b.elem, b.elem_len);
    } else if (a.key == nullptr || b.key == nullptr) {
      c = a.key == b.key ? 0 : (a.key == nullptr ? -1 : 1);
    } else {
      c = Bytes(a.key, a.key_len, b.key, b.key_len);
    }
    return desc ? -c : c;
  }
};

// Redis's pqsort (pqsort.c): Bentley and McIlroy's quicksort that only goes into the parts
// holding a position of [lo, hi]. Its swaps are made exactly, since its order of ties shows.
class PartialQuicksort {
 public:
  PartialQuicksort(SortItem* v, SortCompare cmp, std::int64_t lo, std::int64_t hi)
      : v_(v), cmp_(cmp), lo_(lo), hi_(hi) {}

  void Run(std::size_t a, std::size_t n) {
    for (;;) {
      if (n < 7) {
        for (std::size_t m = a + 1; m < a + n; ++m) {
          for (std::size_t l = m; l > a && Cmp(l - 1, l) > 0; --l) Swap(l, l - 1);
        }
        return;
      }
      std::size_t pm = a + n / 2;
      if (n > 7) {
        std::size_t pl = a;
        std::size_t pn = a + n - 1;
        if (n > 40) {
          const std::size_t d = n / 8;
          pl = Med3(pl, pl + d, pl + 2 * d);
          pm = Med3(pm - d, pm, pm + d);
          pn = Med3(pn - 2 * d, pn - d, pn);
        }
        pm = Med3(pl, pm, pn);
      }
      Swap(a, pm);
      std::size_t pa = a + 1;
      std::size_t pb = pa;
      std::size_t pc = a + n - 1;
      std::size_t pd = pc;
      for (;;) {
        int r;
        while (pb <= pc && (r = Cmp(pb, a)) <= 0) {
          if (r == 0) Swap(pa++, pb);
          ++pb;
        }
        while (pb <= pc && (r = Cmp(pc, a)) >= 0) {
          if (r == 0) Swap(pc, pd--);
          --pc;
        }
        if (pb > pc) break;
        Swap(pb++, pc--);
      }
      const std::size_t pn = a + n;
      std::size_t r = std::min(pa - a, pb - pa);
      VecSwap(a, pb - r, r);
      r = std::min(pd - pc, pn - pd - 1);
      VecSwap(pb, pn - r, r);
      // The two parts are disjoint, so the order they are sorted in changes nothing: the
      // smaller is recursed into and the larger looped on, which bounds the depth (pqsort
      // always recurses into the left one, as deep as a bad input makes it).
      const std::size_t left = pb - pa;   // at a
      const std::size_t right = pd - pc;  // at pn - right
      const bool sort_left = left > 1 && Overlaps(a, left);
      const bool sort_right = right > 1 && Overlaps(pn - right, right);
      if (sort_left && sort_right) {
        if (left < right) {
          Run(a, left);
          a = pn - right;
          n = right;
        } else {
          Run(pn - right, right);
          n = left;
        }
      } else if (sort_left) {
        n = left;
      } else if (sort_right) {
        a = pn - right;
        n = right;
      } else {
        return;
      }
    }
  }

 private:
  int Cmp(std::size_t i, std::size_t j) const { return cmp_(v_[i], v_[j]); }
  void Swap(std::size_t i, std::size_t j) { std::swap(v_[i], v_[j]); }
  void VecSwap(std::size_t i, std::size_t j, std::size_t n) {
    for (std::size_t k = 0; k < n; ++k) Swap(i + k, j + k);
  }
  std::size_t Med3(std::size_t a, std::size_t b, std::size_t c) const {
    return Cmp(a, b) < 0 ? (Cmp(b, c) < 0 ? b : (Cmp(a, c) < 0 ? c : a))
                         : (Cmp(b, c) > 0 ? b : (Cmp(a, c) < 0 ? a : c));
  }
  // Whether [a, a + n) is not wholly before or wholly after the wanted range (pqsort's test
  // on byte addresses, in elements).
  bool Overlaps(std::size_t a, std::size_t n) const {
    const auto l = static_cast<std::int64_t>(a);
    const auto r = static_cast<std::int64_t>(a + n);
    return !((lo_ < l && hi_ < l) || (lo_ >= r && hi_ >= r));
  }

  SortItem* v_;
  SortCompare cmp_;
  std::int64_t lo_;
  std::int64_t hi_;
};

// What one SORT works in, kept per thread so that a warm sort allocates nothing.
struct SortScratch {
  std::vector<SortItem> items;
  std::vector<std::uint32_t> gets;
  std::string arena;  // elements that are not bytes of the key (intset integers, UUIDs)
  std::string key;    // a pattern's key
  std::string number;
  std::string stored;  // STORE's result, packed

  // A huge sort leaves no huge buffers behind.
  void Trim() {
    constexpr std::size_t kKeepItems = 1 << 16;
    constexpr std::size_t kKeepBytes = 1 << 20;
    if (items.capacity() > kKeepItems) std::vector<SortItem>().swap(items);
    if (arena.capacity() > kKeepBytes) std::string().swap(arena);
    if (stored.capacity() > kKeepBytes) std::string().swap(stored);
  }
};

SortScratch& Scratch() {
  thread_local SortScratch scratch;
  return scratch;
}

void Add(std::vector<SortItem>& items, std::string_view elem) {
  items.push_back({elem.data(), nullptr, static_cast<std::uint32_t>(elem.size()), 0, 0,
                   static_cast<std::uint32_t>(items.size())});
}

// An element whose view dies with the callback that gave it: copied into the arena, which the
// caller reserved large enough that earlier copies do not move.
void AddCopy(SortScratch& s, std::string_view elem) {
  const std::size_t at = s.arena.size();
  s.arena.append(elem);
  Add(s.items, std::string_view(s.arena.data() + at, elem.size()));
}

// Loads `count` elements of a list or sorted set from position `first` (counted from the tail
// with `desc`): the BY-constant case, which keeps the value's own order and reads only the
// range.
void LoadRange(SortScratch& s, const Entry& value, std::size_t len, std::size_t first,
               std::size_t count, bool desc) {
  if (count == 0) return;
  const std::size_t from = desc ? len - first - count : first;
  std::size_t left = count;
  if (value.type() == ValueType::kList) {
    storage::ListForEachFrom(value, from, [&](std::string_view e) {
      Add(s.items, e);
      return --left > 0;
    });
  } else {
    const std::string_view bytes = value.value();
    if (value.encoding() == Encoding::kZsetPacked) s.arena.reserve(count * 36);
    storage::ZsetVisit(value, from, false, [&](std::string_view m, double) {
      const bool inside = m.data() >= bytes.data() && m.data() < bytes.data() + bytes.size();
      if (value.encoding() == Encoding::kZsetPacked && !inside) {
        AddCopy(s, m);
      } else {
        Add(s.items, m);
      }
      return --left > 0;
    });
  }
  if (desc) std::reverse(s.items.begin(), s.items.end());
}

// Loads every element, in the value's order.
void LoadAll(SortScratch& s, const Entry& value, std::size_t len) {
  switch (value.type()) {
    case ValueType::kList:
    case ValueType::kZset:
      LoadRange(s, value, len, 0, len, false);
      return;
    case ValueType::kSet:
      if (value.encoding() == Encoding::kSetInts) {
        s.arena.reserve(len * 20);
        storage::SetForEach(value, [&](std::string_view m) { AddCopy(s, m); });
      } else {
        storage::SetForEach(value, [&](std::string_view m) { Add(s.items, m); });
      }
      return;
    default:
      return;
  }
}

std::size_t LengthOf(const Entry& value) {
  switch (value.type()) {
    case ValueType::kList:
      return storage::ListLength(value);
    case ValueType::kSet:
      return storage::SetSize(value);
    case ValueType::kZset:
      return storage::ZsetSize(value);
    default:
      return 0;
  }
}

// Fills in what the items are compared by: BY values or the elements, as scores unless ALPHA.
// Returns false when a score is not a number (every lookup is still made, as in Redis).
bool LoadKeys(CommandContext& ctx, SortScratch& s, const SortOptions& opt) {
  const bool binary = opt.store.has_value();
  bool numbers_ok = true;
  for (SortItem& item : s.items) {
    const std::string_view elem(item.elem, item.elem_len);
    std::string_view by = elem;
    if (opt.by.has_value()) {
      const std::optional<std::string_view> found = LookupByPattern(ctx, *opt.by, elem, s.key);
      if (!found.has_value()) continue;  // key stays null, score 0
      by = *found;
    }
    if (opt.alpha) {
      if (!binary) by = UpToNul(by);
      item.key = by.empty() ? "" : by.data();  // found, so never null
      item.key_len = static_cast<std::uint32_t>(by.size());
    } else if (!SortScore(by, item.score, s.number)) {
      numbers_ok = false;
    }
  }
  return numbers_ok;
}

// Replies, or appends to the STOREd result, what `item` gives: the element, or each GET
// pattern's value (null, or in a stored list an empty string, when there is none).
void Emit(CommandContext& ctx, SortScratch& s, const SortItem& item, bool store,
          std::size_t& count) {
  const std::string_view elem(item.elem, item.elem_len);
  if (s.gets.empty()) {
    if (store) {
      storage::AppendPacked(s.stored, elem);
    } else {
      ctx.reply.Bulk(elem);
    }
    ++count;
    return;
  }
  for (const std::uint32_t g : s.gets) {
    const std::optional<std::string_view> v = LookupByPattern(ctx, ctx.arg(g), elem, s.key);
    if (store) {
      storage::AppendPacked(s.stored, v.value_or(std::string_view()));
    } else if (v.has_value()) {
      ctx.reply.Bulk(*v);
    } else {
      ctx.reply.Null();
    }
    ++count;
  }
}

// STORE: the packed result in `s.stored` (`count` elements) becomes the list at `dest`,
// replacing whatever was there and its TTL; an empty result deletes `dest`.
void StoreResult(CommandContext& ctx, SortScratch& s, std::string_view dest, std::size_t count) {
  storage::Keyspace& keyspace = ctx.keyspace();
  if (count == 0) {
    // Redis's dbDelete: a key past its deadline but not yet removed is deleted too (no
    // `expired` event, a `del`).
    if (const Entry* old = keyspace.Peek(dest); old != nullptr) {
      keyspace.Erase(const_cast<Entry*>(old));
      Notify(ctx, notify::kGeneric, "del", dest);
    }
    ctx.reply.Integer(0);
    return;
  }
  Entry* existing = keyspace.Find(dest, ctx.now_ms, storage::Touch::kNo);
  // Redis's dbAdd wakes the clients blocked on a new key; an overwrite only a stream's.
  const bool signal = existing == nullptr || existing->type() == ValueType::kStream;
  const storage::ListNodeBounds bounds =
      storage::NodeBoundsFor(ctx.limits().list_max_listpack_size);
  if (count <= bounds.max_entries && s.stored.size() <= bounds.max_bytes) {
    keyspace.Store(dest, s.stored, storage::kNoDeadline, existing, Encoding::kListPacked);
  } else {
    auto* list = new storage::List(bounds);
    for (storage::PackedReader r(s.stored); !r.done();)
      list->Push(storage::ListEnd::kTail, r.Next());
    storage::LargeValue* const value = list;
    keyspace.Store(dest, storage::LargePointerBytes(value), storage::kNoDeadline, existing,
                   Encoding::kListChunked);
  }
  if (existing == nullptr) NotifyNew(ctx, dest);
  if (signal) ctx.server.blocking.SignalKey(ctx.session.db, dest);
  Notify(ctx, notify::kList, "sortstore", dest);
  ctx.reply.Integer(static_cast<std::int64_t>(count));
}

void SortGeneric(CommandContext& ctx, bool readonly) {
  SortScratch& s = Scratch();
  s.gets.clear();
  s.items.clear();
  s.arena.clear();
  SortOptions opt;
  const bool full_key_access =
      ctx.session.user == nullptr || AclReadsAnyKey(*ctx.session.user, ctx.spec, ctx.args);
  if (const auto error = ParseSortOptions(ctx.args, readonly, full_key_access, opt, s.gets)) {
    ctx.reply.Error(*error);
    return;
  }
  const Entry* value = ctx.keyspace().Find(ctx.arg(1), ctx.now_ms);
  if (value == nullptr) {
    NotifyKeyMiss(ctx, ctx.arg(1));
  } else if (value->type() != ValueType::kList && value->type() != ValueType::kSet &&
             value->type() != ValueType::kZset) {
    ctx.reply.Error(errors::kWrongType);
    return;
  }
  const ValueType type = value == nullptr ? ValueType::kList : value->type();
  // A set has no order of its own, so one that goes to a list or to a script (and from there
  // to replicas) is sorted anyway, as ALPHA.
  if (opt.dontsort && type == ValueType::kSet && (opt.store.has_value() || ctx.session.is_script)) {
    opt.dontsort = false;
    opt.alpha = true;
    opt.by.reset();
  }
  const auto len = static_cast<std::int64_t>(value == nullptr ? 0 : LengthOf(*value));
  // Redis's LIMIT arithmetic, clamps included.
  std::int64_t start = std::min(std::max<std::int64_t>(opt.limit_start, 0), len);
  const std::int64_t limit_count = std::min(std::max<std::int64_t>(opt.limit_count, -1), len);
  std::int64_t end = limit_count < 0 ? len - 1 : start + limit_count - 1;
  if (start >= len) {
    start = len - 1;
    end = len - 2;
  }
  if (end >= len) end = len - 1;

  if (value != nullptr) {
    if (opt.dontsort && type != ValueType::kSet) {
      // Only the range is read, in the value's order (reversed by DESC).
      if (end >= start) {
        LoadRange(s, *value, static_cast<std::size_t>(len), static_cast<std::size_t>(start),
                  static_cast<std::size_t>(end - start + 1), opt.desc);
        end -= start;
        start = 0;
      }
    } else {
      LoadAll(s, *value, static_cast<std::size_t>(len));
    }
  }

  if (!opt.dontsort) {
    if (!LoadKeys(ctx, s, opt)) {
      ctx.reply.Error(errors::kSortNotDouble);
      s.Trim();
      return;
    }
    const SortCompare cmp{opt.alpha, opt.desc};
    const auto n = static_cast<std::int64_t>(s.items.size());
    if (end >= start) {
      if (opt.by.has_value() && (start != 0 || end != n - 1)) {
        PartialQuicksort(s.items.data(), cmp, start, end).Run(0, s.items.size());
      } else {
        std::sort(s.items.begin(), s.items.end(), [cmp](const SortItem& a, const SortItem& b) {
          const int c = cmp(a, b);
          return c < 0 || (c == 0 && a.index < b.index);
        });
      }
    }
  }

  const std::size_t per_item = s.gets.empty() ? 1 : s.gets.size();
  const std::size_t items_out = end >= start ? static_cast<std::size_t>(end - start + 1) : 0;
  std::size_t count = 0;
  if (!opt.store.has_value()) {
    ctx.reply.ArrayHeader(items_out * per_item);
    for (std::int64_t j = start; j <= end; ++j) {
      Emit(ctx, s, s.items[static_cast<std::size_t>(j)], false, count);
    }
  } else {
    s.stored.clear();
    for (std::int64_t j = start; j <= end; ++j) {
      Emit(ctx, s, s.items[static_cast<std::size_t>(j)], true, count);
    }
    StoreResult(ctx, s, *opt.store, count);
  }
  s.Trim();
}

}  // namespace

void SortCommand(CommandContext& ctx) { SortGeneric(ctx, false); }
void SortRoCommand(CommandContext& ctx) { SortGeneric(ctx, true); }

}  // namespace warden::server
