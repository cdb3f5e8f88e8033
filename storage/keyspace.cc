#include "storage/keyspace.h"

#include <malloc.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>

namespace warden::storage {
namespace {

constexpr std::size_t kInitialBuckets = 4;
// Redis shrinks once fewer than 10% of the buckets would be used (HASHTABLE_MIN_FILL).
constexpr std::size_t kMinFillPercent = 10;

inline std::uint64_t Mix(std::uint64_t a, std::uint64_t b) {
  const unsigned __int128 r = static_cast<unsigned __int128>(a) * b;
  return static_cast<std::uint64_t>(r) ^ static_cast<std::uint64_t>(r >> 64);
}

inline std::uint64_t Load64(const char* p) {
  std::uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

inline std::uint64_t Load32(const char* p) {
  std::uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

// A seeded multiply-mix hash in the style of wyhash: fast on short keys, and the seed is drawn
// at start-up so bucket placement cannot be predicted from outside.
std::uint64_t HashBytes(const char* p, std::size_t n, std::uint64_t seed) {
  constexpr std::uint64_t k0 = 0xa0761d6478bd642fULL;
  constexpr std::uint64_t k1 = 0xe7037ed1a0b428dbULL;
  constexpr std::uint64_t k2 = 0x8ebc6af09c88c6e3ULL;
  std::uint64_t h = Mix(seed ^ k0, n ^ k1);
  std::size_t left = n;
  while (left > 16) {
    h = Mix(Load64(p) ^ k1, Load64(p + 8) ^ h);
    p += 16;
    left -= 16;
  }
  std::uint64_t a = 0;
  std::uint64_t b = 0;
  if (left >= 8) {
    a = Load64(p);
    b = Load64(p + left - 8);
  } else if (left >= 4) {
    a = Load32(p);
    b = Load32(p + left - 4);
  } else if (left > 0) {
    a = (static_cast<std::uint64_t>(static_cast<unsigned char>(p[0])) << 16) |
        (static_cast<std::uint64_t>(static_cast<unsigned char>(p[left >> 1])) << 8) |
        static_cast<unsigned char>(p[left - 1]);
  }
  return Mix(h ^ a ^ k2, b ^ k1 ^ n);
}

inline std::uint64_t ReverseBits(std::uint64_t v) {
  v = ((v >> 1) & 0x5555555555555555ULL) | ((v & 0x5555555555555555ULL) << 1);
  v = ((v >> 2) & 0x3333333333333333ULL) | ((v & 0x3333333333333333ULL) << 2);
  v = ((v >> 4) & 0x0F0F0F0F0F0F0F0FULL) | ((v & 0x0F0F0F0F0F0F0F0FULL) << 4);
  return __builtin_bswap64(v);
}

std::size_t NextPowerOfTwo(std::size_t n) {
  std::size_t size = kInitialBuckets;
  while (size < n) size <<= 1;
  return size;
}

}  // namespace

Keyspace::Keyspace(Random& random) : random_(random), seed_(random.Next()) {}

Keyspace::~Keyspace() { Clear(); }

std::uint64_t Keyspace::Hash(std::string_view key) const {
  return HashBytes(key.data(), key.size(), seed_);
}

Entry* Keyspace::Allocate(std::size_t key_len, std::size_t value_len) {
  void* block = std::malloc(sizeof(Entry) + key_len + value_len);
  if (block == nullptr) throw std::bad_alloc();
  memory_bytes_ += malloc_usable_size(block);
  return static_cast<Entry*>(block);
}

void Keyspace::Free(Entry* entry) {
  memory_bytes_ -= malloc_usable_size(entry);
  std::free(entry);
}

Entry** Keyspace::FindLink(std::string_view key, std::uint32_t hash) {
  for (int t = 0; t <= (rehash_index_ >= 0 ? 1 : 0); ++t) {
    Table& table = tables_[t];
    if (table.size == 0) continue;
    const std::size_t index = hash & (table.size - 1);
    if (t == 0 && static_cast<std::int64_t>(index) < rehash_index_) continue;
    for (Entry** link = &table.buckets[index]; *link != nullptr; link = &(*link)->next_) {
      const Entry* e = *link;
      if (e->hash_ == hash && e->key_len_ == key.size() &&
          std::memcmp(e->data(), key.data(), key.size()) == 0) {
        return link;
      }
    }
  }
  return nullptr;
}

Entry** Keyspace::LinkOf(Entry* entry, int* table_index) {
  for (int t = 0; t <= (rehash_index_ >= 0 ? 1 : 0); ++t) {
    Table& table = tables_[t];
    if (table.size == 0) continue;
    const std::size_t index = entry->hash_ & (table.size - 1);
    if (t == 0 && static_cast<std::int64_t>(index) < rehash_index_) continue;
    for (Entry** link = &table.buckets[index]; *link != nullptr; link = &(*link)->next_) {
      if (*link == entry) {
        if (table_index != nullptr) *table_index = t;
        return link;
      }
    }
  }
  std::abort();  // every stored entry is linked in exactly one bucket
}

Entry* Keyspace::Find(std::string_view key, std::int64_t now_ms) {
  StepIfRehashing();
  if (size() == 0) return nullptr;
  Entry** link = FindLink(key, static_cast<std::uint32_t>(Hash(key)));
  if (link == nullptr) return nullptr;
  Entry* e = *link;
  if (e->ExpiredAt(now_ms)) {
    ExpireEntry(e);
    return nullptr;
  }
  return e;
}

const Entry* Keyspace::Peek(std::string_view key) const {
  if (size() == 0) return nullptr;
  Entry** link = const_cast<Keyspace*>(this)->FindLink(key, static_cast<std::uint32_t>(Hash(key)));
  return link == nullptr ? nullptr : *link;
}

void Keyspace::Insert(Entry* entry) {
  MaybeGrow();
  // While resizing, new keys go to the new table so the old one only drains.
  Table& table = rehash_index_ >= 0 ? tables_[1] : tables_[0];
  const std::size_t index = entry->hash_ & (table.size - 1);
  entry->next_ = table.buckets[index];
  table.buckets[index] = entry;
  ++table.used;
}

Entry* Keyspace::Store(std::string_view key, std::string_view value, std::int64_t deadline_ms,
                       Entry* existing) {
  if (existing != nullptr) {
    const std::size_t needed = sizeof(Entry) + key.size() + value.size();
    if (malloc_usable_size(existing) >= needed) {
      std::memcpy(existing->data() + existing->key_len_, value.data(), value.size());
      existing->value_len_ = static_cast<std::uint32_t>(value.size());
      SetDeadline(existing, deadline_ms);
      return existing;
    }
    Entry* e = Allocate(key.size(), value.size());
    std::memcpy(e, existing, sizeof(Entry));
    std::memcpy(e->data(), key.data(), key.size());
    std::memcpy(e->data() + key.size(), value.data(), value.size());
    e->value_len_ = static_cast<std::uint32_t>(value.size());
    *LinkOf(existing, nullptr) = e;
    if (e->has_deadline()) volatile_[e->volatile_index_] = e;
    Free(existing);
    SetDeadline(e, deadline_ms);
    return e;
  }
  StepIfRehashing();
  Entry* e = Allocate(key.size(), value.size());
  e->next_ = nullptr;
  e->deadline_ms_ = kNoDeadline;
  e->hash_ = static_cast<std::uint32_t>(Hash(key));
  e->key_len_ = static_cast<std::uint32_t>(key.size());
  e->value_len_ = static_cast<std::uint32_t>(value.size());
  e->volatile_index_ = 0;
  std::memcpy(e->data(), key.data(), key.size());
  std::memcpy(e->data() + key.size(), value.data(), value.size());
  Insert(e);
  SetDeadline(e, deadline_ms);
  return e;
}

void Keyspace::AddVolatile(Entry* entry) {
  entry->volatile_index_ = static_cast<std::uint32_t>(volatile_.size());
  volatile_.push_back(entry);
}

void Keyspace::RemoveVolatile(Entry* entry) {
  Entry* last = volatile_.back();
  volatile_[entry->volatile_index_] = last;
  last->volatile_index_ = entry->volatile_index_;
  volatile_.pop_back();
}

void Keyspace::SetDeadline(Entry* entry, std::int64_t deadline_ms) {
  const bool had = entry->has_deadline();
  entry->deadline_ms_ = deadline_ms;
  if (!had && deadline_ms != kNoDeadline) {
    AddVolatile(entry);
  } else if (had && deadline_ms == kNoDeadline) {
    RemoveVolatile(entry);
  }
}

void Keyspace::Unlink(Entry* entry) {
  int table_index = 0;
  Entry** link = LinkOf(entry, &table_index);
  *link = entry->next_;
  --tables_[table_index].used;
  if (entry->has_deadline()) RemoveVolatile(entry);
}

void Keyspace::Erase(Entry* entry) {
  Unlink(entry);
  Free(entry);
  MaybeShrink();
}

void Keyspace::ExpireEntry(Entry* entry) {
  ++stats_.expired_keys;
  Erase(entry);
}

bool Keyspace::Erase(std::string_view key, std::int64_t now_ms) {
  Entry* e = Find(key, now_ms);
  if (e == nullptr) return false;
  Erase(e);
  return true;
}

void Keyspace::Clear() {
  for (Table& table : tables_) {
    for (std::size_t i = 0; i < table.size; ++i) {
      Entry* e = table.buckets[i];
      while (e != nullptr) {
        Entry* next = e->next_;
        Free(e);
        e = next;
      }
      table.buckets[i] = nullptr;
    }
    table.used = 0;
  }
  for (Table& table : tables_) {
    if (table.buckets != nullptr) memory_bytes_ -= malloc_usable_size(table.buckets);
    std::free(table.buckets);
    table = Table{};
  }
  rehash_index_ = -1;
  volatile_.clear();
  volatile_.shrink_to_fit();
}

void Keyspace::StartResize(std::size_t size) {
  auto** buckets = static_cast<Entry**>(std::calloc(size, sizeof(Entry*)));
  if (buckets == nullptr) throw std::bad_alloc();
  memory_bytes_ += malloc_usable_size(buckets);
  if (tables_[0].buckets == nullptr) {
    tables_[0] = Table{buckets, size, 0};
    return;
  }
  tables_[1] = Table{buckets, size, 0};
  rehash_index_ = 0;
}

void Keyspace::MaybeGrow() {
  if (rehash_index_ >= 0) return;
  if (tables_[0].size == 0) {
    StartResize(kInitialBuckets);
  } else if (tables_[0].used >= tables_[0].size) {
    StartResize(tables_[0].size * 2);
  }
}

void Keyspace::MaybeShrink() {
  if (rehash_index_ >= 0) return;
  const Table& t = tables_[0];
  if (t.size > kInitialBuckets && t.used * 100 / t.size < kMinFillPercent) {
    const std::size_t target = NextPowerOfTwo(t.used);
    if (target < t.size) StartResize(target);
  }
}

void Keyspace::FinishRehashIfDone() {
  if (tables_[0].used != 0) return;
  memory_bytes_ -= malloc_usable_size(tables_[0].buckets);
  std::free(tables_[0].buckets);
  tables_[0] = tables_[1];
  tables_[1] = Table{};
  rehash_index_ = -1;
}

bool Keyspace::RehashSteps(int buckets) {
  if (rehash_index_ < 0) return false;
  int empty_visits = buckets * 10;
  Table& from = tables_[0];
  Table& to = tables_[1];
  while (buckets-- > 0 && from.used != 0) {
    while (from.buckets[rehash_index_] == nullptr) {
      ++rehash_index_;
      if (--empty_visits == 0) return true;
    }
    Entry* e = from.buckets[rehash_index_];
    while (e != nullptr) {
      Entry* next = e->next_;
      const std::size_t index = e->hash_ & (to.size - 1);
      e->next_ = to.buckets[index];
      to.buckets[index] = e;
      --from.used;
      ++to.used;
      e = next;
    }
    from.buckets[rehash_index_] = nullptr;
    ++rehash_index_;
  }
  FinishRehashIfDone();
  return rehash_index_ >= 0;
}

// SCAN's cursor (Redis's dictScan): the bucket index is incremented on its reversed bits, so the
// buckets a bucket splits into when the table doubles, or merges from when it halves, are visited
// next to each other. A full iteration therefore returns every key that stayed in the table
// from start to end, across any number of resizes between calls; some may come twice. While a
// resize is in progress, a small-table bucket is emitted together with all its expansions in the
// large table.
std::uint64_t Keyspace::ScanStep(std::uint64_t v, std::vector<Entry*>& out) const {
  auto emit = [&out](const Table& t, std::uint64_t index) {
    for (Entry* e = t.buckets[index]; e != nullptr; e = e->next_) out.push_back(e);
  };
  if (rehash_index_ < 0) {
    const Table& t = tables_[0];
    const std::uint64_t m0 = t.size - 1;
    emit(t, v & m0);
    v |= ~m0;
    v = ReverseBits(v);
    ++v;
    return ReverseBits(v);
  }
  const Table* small = &tables_[0];
  const Table* large = &tables_[1];
  if (small->size > large->size) std::swap(small, large);
  const std::uint64_t m0 = small->size - 1;
  const std::uint64_t m1 = large->size - 1;
  emit(*small, v & m0);
  do {
    emit(*large, v & m1);
    v |= ~m1;
    v = ReverseBits(v);
    ++v;
    v = ReverseBits(v);
  } while (v & (m0 ^ m1));
  return v;
}

std::uint64_t Keyspace::Scan(std::uint64_t cursor, std::size_t count, std::vector<Entry*>& out) {
  if (size() == 0) return 0;
  std::size_t steps = count * 10;
  do {
    cursor = ScanStep(cursor, out);
  } while (cursor != 0 && --steps > 0 && out.size() < count);
  return cursor;
}

Entry* Keyspace::RandomEntry(std::int64_t now_ms) {
  while (size() > 0) {
    StepIfRehashing();
    // Pick a random non-empty bucket, then a random entry of its chain.
    Entry* head = nullptr;
    while (head == nullptr) {
      const std::size_t total = tables_[0].size + tables_[1].size;
      const std::size_t i = random_.Below(total);
      if (i < tables_[0].size) {
        if (static_cast<std::int64_t>(i) < rehash_index_) continue;
        head = tables_[0].buckets[i];
      } else {
        head = tables_[1].buckets[i - tables_[0].size];
      }
    }
    std::size_t length = 0;
    for (Entry* e = head; e != nullptr; e = e->next_) ++length;
    Entry* e = head;
    for (std::size_t k = random_.Below(length); k > 0; --k) e = e->next_;
    if (!e->ExpiredAt(now_ms)) return e;
    ExpireEntry(e);
  }
  return nullptr;
}

ExpireSample Keyspace::SampleExpired(std::int64_t now_ms, int samples) {
  ExpireSample result;
  for (int i = 0; i < samples && !volatile_.empty(); ++i) {
    Entry* e = volatile_[random_.Below(volatile_.size())];
    ++result.sampled;
    if (e->ExpiredAt(now_ms)) {
      ++result.expired;
      ExpireEntry(e);
    } else {
      // Saturates: a key set with PXAT near INT64_MAX must not overflow the sum.
      if (__builtin_add_overflow(result.ttl_sum_ms, e->deadline_ms_ - now_ms, &result.ttl_sum_ms)) {
        result.ttl_sum_ms = INT64_MAX;
      }
    }
  }
  return result;
}

std::size_t Keyspace::ExpireDue(std::int64_t now_ms) {
  std::size_t expired = 0;
  // Erasing swaps the last volatile key into the slot: walk backwards so every key is seen once.
  for (std::size_t i = volatile_.size(); i-- > 0;) {
    if (i >= volatile_.size()) continue;
    Entry* e = volatile_[i];
    if (e->deadline_ms_ <= now_ms) {
      ExpireEntry(e);
      ++expired;
    }
  }
  return expired;
}

}  // namespace warden::storage
