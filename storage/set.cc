#include "storage/set.h"

#include <algorithm>

namespace warden::storage {
namespace {

std::size_t IntCount(const Entry& set) { return set.value().size() / 8; }

std::int64_t IntAt(std::string_view bytes, std::size_t i) {
  std::int64_t v;
  std::memcpy(&v, bytes.data() + i * 8, 8);
  return v;
}

// The first index whose integer is >= v.
std::size_t LowerBound(std::string_view bytes, std::int64_t v) {
  std::size_t lo = 0;
  std::size_t hi = bytes.size() / 8;
  while (lo < hi) {
    const std::size_t mid = (lo + hi) / 2;
    if (IntAt(bytes, mid) < v) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

// Whether `member` may join a packed set of `size` members.
bool FitsPacked(std::size_t size, std::string_view member) {
  return size < kMaxPackedSetEntries && member.size() <= kMaxPackedSetMember;
}

Entry* ConvertToPacked(Keyspace& keyspace, Entry* set) {
  std::string& out = keyspace.scratch();
  out.clear();
  SetForEach(*set, [&](std::string_view m) { AppendPacked(out, m); });
  return keyspace.SetValue(set, out, Encoding::kSetPacked);
}

// The packed set without `member`, in the keyspace's scratch; false if it was not there.
bool PackedWithout(Keyspace& keyspace, const Entry& set, std::string_view member) {
  std::string& out = keyspace.scratch();
  out.clear();
  bool found = false;
  for (PackedReader r(set.value()); !r.done();) {
    const std::string_view m = r.Next();
    if (!found && m == member) {
      found = true;
    } else {
      AppendPacked(out, m);
    }
  }
  return found;
}

Entry* ConvertToTable(Keyspace& keyspace, Entry* set) {
  Keyspace* table = NewValueTable(keyspace);
  SetForEach(*set, [&](std::string_view m) { table->Store(m, {}, kNoDeadline, nullptr); });
  return keyspace.SetValue(set, TablePointerBytes(table), Encoding::kSetTable);
}

}  // namespace

bool ParseCanonicalInt64(std::string_view s, std::int64_t& out) {
  if (s.empty() || s.size() > 20) return false;
  if (s.size() == 1 && s[0] == '0') {
    out = 0;
    return true;
  }
  const std::size_t digits_at = s[0] == '-' ? 1 : 0;
  if (digits_at == s.size() || s[digits_at] < '1' || s[digits_at] > '9') return false;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && end == s.data() + s.size();
}

std::size_t SetSize(const Entry& set) {
  if (set.encoding() == Encoding::kSetInts) return IntCount(set);
  if (set.encoding() == Encoding::kSetPacked) return PackedCount(set.value());
  return set.table()->size();
}

bool SetContains(const Entry& set, std::string_view member) {
  if (set.encoding() == Encoding::kSetInts) {
    std::int64_t v;
    if (!ParseCanonicalInt64(member, v)) return false;
    const std::size_t i = LowerBound(set.value(), v);
    return i < IntCount(set) && IntAt(set.value(), i) == v;
  }
  if (set.encoding() == Encoding::kSetPacked) {
    for (PackedReader r(set.value()); !r.done();) {
      if (r.Next() == member) return true;
    }
    return false;
  }
  return set.table()->Peek(member) != nullptr;
}

bool SetAdd(Keyspace& keyspace, Entry*& set, std::string_view key, std::string_view member,
            const EncodingLimits& limits) {
  std::int64_t v = 0;
  const bool is_int = ParseCanonicalInt64(member, v);
  if (set == nullptr) {
    if (is_int && limits.set_max_intset_entries >= 1) {
      char bytes[8];
      std::memcpy(bytes, &v, 8);
      set =
          keyspace.Store(key, std::string_view(bytes, 8), kNoDeadline, nullptr, Encoding::kSetInts);
    } else if (FitsPacked(0, member)) {
      std::string& out = keyspace.scratch();
      out.clear();
      AppendPacked(out, member);
      set = keyspace.Store(key, out, kNoDeadline, nullptr, Encoding::kSetPacked);
    } else {
      Keyspace* table = NewValueTable(keyspace);
      table->Store(member, {}, kNoDeadline, nullptr);
      set =
          keyspace.Store(key, TablePointerBytes(table), kNoDeadline, nullptr, Encoding::kSetTable);
    }
    return true;
  }
  if (set->encoding() == Encoding::kSetInts) {
    if (is_int) {
      const std::string_view bytes = set->value();
      const std::size_t i = LowerBound(bytes, v);
      if (i < IntCount(*set) && IntAt(bytes, i) == v) return false;
      std::string& out = keyspace.scratch();
      out.assign(bytes.substr(0, i * 8));
      out.append(reinterpret_cast<const char*>(&v), 8);
      out.append(bytes.substr(i * 8));
      set = keyspace.SetValue(set, out, Encoding::kSetInts);
      if (IntCount(*set) > limits.set_max_intset_entries || out.size() > kMaxPackedBytes) {
        set = ConvertToTable(keyspace, set);
      }
      return true;
    }
    // A member that is not an integer: packed if the set is small enough, else a table.
    set = FitsPacked(IntCount(*set), member) ? ConvertToPacked(keyspace, set)
                                             : ConvertToTable(keyspace, set);
  }
  if (set->encoding() == Encoding::kSetPacked) {
    if (SetContains(*set, member)) return false;
    if (FitsPacked(PackedCount(set->value()), member)) {
      std::string& out = keyspace.scratch();
      out.assign(set->value());
      AppendPacked(out, member);
      set = keyspace.SetValue(set, out, Encoding::kSetPacked);
      return true;
    }
    set = ConvertToTable(keyspace, set);
  }
  Keyspace* table = set->table();
  if (table->Peek(member) != nullptr) return false;
  table->Store(member, {}, kNoDeadline, nullptr);
  keyspace.NoteModified(set->key());
  return true;
}

bool SetRemove(Keyspace& keyspace, Entry*& set, std::string_view member) {
  if (set->encoding() == Encoding::kSetInts) {
    std::int64_t v;
    if (!ParseCanonicalInt64(member, v)) return false;
    const std::string_view bytes = set->value();
    const std::size_t i = LowerBound(bytes, v);
    if (i >= IntCount(*set) || IntAt(bytes, i) != v) return false;
    if (bytes.size() == 8) {
      keyspace.Erase(set);
      set = nullptr;
      return true;
    }
    std::string& out = keyspace.scratch();
    out.assign(bytes.substr(0, i * 8));
    out.append(bytes.substr((i + 1) * 8));
    set = keyspace.SetValue(set, out, Encoding::kSetInts);
    return true;
  }
  if (set->encoding() == Encoding::kSetPacked) {
    if (!PackedWithout(keyspace, *set, member)) return false;
    if (keyspace.scratch().empty()) {
      keyspace.Erase(set);
      set = nullptr;
    } else {
      set = keyspace.SetValue(set, keyspace.scratch(), Encoding::kSetPacked);
    }
    return true;
  }
  Keyspace* table = set->table();
  if (!table->Erase(member, 0)) return false;
  if (table->size() == 0) {
    keyspace.Erase(set);
    set = nullptr;
  } else {
    keyspace.NoteModified(set->key());
  }
  return true;
}

std::string SetRandomMember(const Entry& set, Random& random) {
  if (set.encoding() == Encoding::kSetInts) {
    return std::to_string(IntAt(set.value(), random.Below(IntCount(set))));
  }
  if (set.encoding() == Encoding::kSetPacked) {
    std::size_t pick = random.Below(PackedCount(set.value()));
    PackedReader r(set.value());
    while (pick-- > 0) r.Next();
    return std::string(r.Next());
  }
  std::vector<Entry*> scratch;
  return std::string(TableRandomEntry(*set.table(), random, scratch).key());
}

std::string SetCopyValue(const Entry& set, Keyspace& to) {
  if (set.encoding() != Encoding::kSetTable) return std::string(set.value());
  Keyspace* table = NewValueTable(to);
  set.table()->ForEach([&](const Entry& e) { table->Store(e.key(), {}, kNoDeadline, nullptr); });
  return std::string(TablePointerBytes(table));
}

}  // namespace warden::storage
