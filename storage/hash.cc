#include "storage/hash.h"

namespace warden::storage {
namespace {

// Moves a packed hash into a table of its own.
Entry* ConvertToTable(Keyspace& keyspace, Entry* hash) {
  Keyspace* table = NewValueTable(keyspace);
  HashForEach(*hash, [&](std::string_view field, std::string_view value) {
    table->Store(field, value, kNoDeadline, nullptr);
  });
  return keyspace.SetValue(hash, TablePointerBytes(table), Encoding::kHashTable);
}

}  // namespace

Keyspace* NewValueTable(Keyspace& owner) {
  return new Keyspace(owner.random(), &owner.pool(), nullptr, /*timed=*/false);
}

const Entry& TableRandomEntry(Keyspace& table, Random& random, std::vector<Entry*>& scratch) {
  // Up to this many entries a walk is cheaper than the expected draws.
  constexpr std::size_t kWalkEntries = 64;
  // The longest chain the rejection sampling covers exactly.
  constexpr std::size_t kMaxPickChain = 8;
  // Redis's GETFAIR_NUM_ENTRIES.
  constexpr std::size_t kFairSample = 20;
  const std::size_t size = table.size();
  if (size <= kWalkEntries) {
    std::size_t skip = random.Below(size);
    const Entry* picked = nullptr;
    table.ForEachUntil([&](const Entry& e) {
      if (skip-- > 0) return true;
      picked = &e;
      return false;
    });
    return *picked;
  }
  // Helps a resize along, as every table operation does, so that exact draws resume.
  if (table.rehashing()) table.RehashSteps(static_cast<int>(kFairSample));
  if (!table.rehashing()) {
    while (true) {
      // A SCAN step of count 0 collects exactly one bucket, the one the cursor's low bits name.
      scratch.clear();
      table.Scan(random.Next(), 0, scratch);
      if (scratch.size() > kMaxPickChain) return *scratch[random.Below(scratch.size())];
      const std::size_t position = random.Below(kMaxPickChain);
      if (position < scratch.size()) return *scratch[position];
    }
  }
  scratch.clear();
  table.SampleEntries(kFairSample, /*with_deadline=*/false, scratch);
  // A sample can come back empty from a long run of empty buckets; Redis then draws a bucket.
  if (scratch.empty()) return *table.RandomEntry(0);
  return *scratch[random.Below(scratch.size())];
}

std::size_t HashLength(const Entry& hash) {
  if (hash.encoding() == Encoding::kHashPacked) {
    std::size_t n = 0;
    for (PackedHashReader r(hash.value()); !r.done(); ++n) r.Next();
    return n;
  }
  return hash.table()->size();
}

std::optional<std::string_view> HashGet(const Entry& hash, std::string_view field) {
  if (hash.encoding() == Encoding::kHashPacked) {
    unsigned char buf[16];
    const unsigned char* uuid = PackedHashFieldUuid(field, buf);
    for (PackedHashReader r(hash.value()); !r.done();) {
      r.Next();
      if (r.FieldIs(field, uuid)) return r.value();
    }
    return std::nullopt;
  }
  const Entry* e = hash.table()->Peek(field);
  if (e == nullptr) return std::nullopt;
  return e->value();
}

bool HashSet(Keyspace& keyspace, Entry*& hash, std::string_view key, std::string_view field,
             std::string_view value, const EncodingLimits& limits) {
  const bool too_long = field.size() > limits.hash_max_listpack_value ||
                        value.size() > limits.hash_max_listpack_value;
  if (hash == nullptr) {
    std::string& packed = keyspace.scratch();
    packed.clear();
    unsigned char buf[16];
    AppendPackedHashField(packed, field, PackedHashFieldUuid(field, buf));
    AppendPacked(packed, value);
    hash = keyspace.Store(key, packed, kNoDeadline, nullptr, Encoding::kHashPacked);
    if (too_long || limits.hash_max_listpack_entries < 1) hash = ConvertToTable(keyspace, hash);
    return true;
  }
  if (hash->encoding() == Encoding::kHashPacked && too_long) {
    hash = ConvertToTable(keyspace, hash);
  }
  if (hash->encoding() == Encoding::kHashTable) {
    Keyspace* table = hash->table();
    Entry* existing = table->Find(field, 0);
    table->Store(field, value, kNoDeadline, existing);
    keyspace.NoteModified(hash->key());
    return existing == nullptr;
  }
  // Rebuilt whole: the field keeps its place, or a new one goes last.
  std::string& packed = keyspace.scratch();
  packed.clear();
  bool found = false;
  std::size_t fields = 0;
  unsigned char buf[16];
  const unsigned char* uuid = PackedHashFieldUuid(field, buf);
  for (PackedHashReader r(hash->value()); !r.done(); ++fields) {
    r.Next();
    if (!found && r.FieldIs(field, uuid)) {
      packed.append(r.raw_field());
      AppendPacked(packed, value);
      found = true;
    } else {
      packed.append(r.raw_pair());
    }
  }
  if (!found) {
    AppendPackedHashField(packed, field, uuid);
    AppendPacked(packed, value);
    ++fields;
  }
  if (packed.size() > kMaxPackedBytes) {
    // Too big to pack whatever the options say: the old value converts, then takes the write.
    hash = ConvertToTable(keyspace, hash);
    Keyspace* table = hash->table();
    table->Store(field, value, kNoDeadline, table->Find(field, 0));
    return !found;
  }
  hash = keyspace.SetValue(hash, packed, Encoding::kHashPacked);
  if (fields > limits.hash_max_listpack_entries) hash = ConvertToTable(keyspace, hash);
  return !found;
}

bool HashDelete(Keyspace& keyspace, Entry*& hash, std::string_view field) {
  if (hash->encoding() == Encoding::kHashTable) {
    Keyspace* table = hash->table();
    if (!table->Erase(field, 0)) return false;
    if (table->size() == 0) {
      keyspace.Erase(hash);
      hash = nullptr;
    } else {
      keyspace.NoteModified(hash->key());
    }
    return true;
  }
  std::string& packed = keyspace.scratch();
  packed.clear();
  bool found = false;
  unsigned char buf[16];
  const unsigned char* uuid = PackedHashFieldUuid(field, buf);
  for (PackedHashReader r(hash->value()); !r.done();) {
    r.Next();
    if (!found && r.FieldIs(field, uuid)) {
      found = true;
      continue;
    }
    packed.append(r.raw_pair());
  }
  if (!found) return false;
  if (packed.empty()) {
    keyspace.Erase(hash);
    hash = nullptr;
  } else {
    hash = keyspace.SetValue(hash, packed, Encoding::kHashPacked);
  }
  return true;
}

std::string HashCopyValue(const Entry& hash, Keyspace& to) {
  if (hash.encoding() == Encoding::kHashPacked) return std::string(hash.value());
  Keyspace* table = NewValueTable(to);
  hash.table()->ForEach(
      [&](const Entry& e) { table->Store(e.key(), e.value(), kNoDeadline, nullptr); });
  return std::string(TablePointerBytes(table));
}

}  // namespace warden::storage
