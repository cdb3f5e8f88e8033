#include "storage/keyspace.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>

#include "storage/reclaimer.h"

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

// The scratch buffer keeps at most this much between two rebuilds.
constexpr std::size_t kScratchKeepBytes = 64 * 1024;

// Buckets ClearSome empties between two page releases: 1 MB of them.
constexpr std::size_t kReleaseEveryBuckets = (std::size_t{1} << 20) / sizeof(std::uintptr_t);

// Hands back to the system the whole pages of `buckets` below bucket `upto`: ClearSome has zeroed
// them and never reads them again. Freeing a bucket array of ten million keys (128 MB) at once
// would otherwise unmap it all in one call and stall the loop for tens of milliseconds.
void ReleaseClearedPages(std::uintptr_t* buckets, std::size_t upto) {
  constexpr std::uintptr_t kPage = 4096;
  const auto base = reinterpret_cast<std::uintptr_t>(buckets);
  const std::uintptr_t start = (base + kPage - 1) & ~(kPage - 1);
  const std::uintptr_t end = (base + upto * sizeof(std::uintptr_t)) & ~(kPage - 1);
  // A range already released is released again for nothing: only the last step's share is new.
  const std::uintptr_t from =
      std::max(start, end > (std::size_t{1} << 20) ? end - (std::size_t{1} << 20) : start);
  if (end > from) madvise(reinterpret_cast<void*>(from), end - from, MADV_DONTNEED);
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

Keyspace::Keyspace(Random& random, EntryPool* pool, Reclaimer* reclaimer, bool timed)
    : random_(random),
      seed_(random.Next()),
      own_pool_(pool == nullptr ? std::make_unique<EntryPool>() : nullptr),
      pool_(pool == nullptr ? *own_pool_ : *pool),
      reclaimer_(reclaimer),
      timed_(timed) {}

Keyspace::~Keyspace() { Clear(); }

std::uint64_t Keyspace::Hash(std::string_view key) const {
  return HashBytes(key.data(), key.size(), seed_);
}

Entry* Keyspace::Allocate(std::size_t bytes) {
  void* block = pool_.Allocate(bytes);
  // Links keep a tag in the top bits: an address that uses them cannot be linked.
  if ((reinterpret_cast<Link>(block) & ~kAddressMask) != 0) std::abort();
  return static_cast<Entry*>(block);
}

void Keyspace::ReleaseValue(Entry* entry) {
  if (!IsLarge(entry->encoding())) return;
  LargeValue* value = entry->large();
  if (reclaimer_ != nullptr) {
    reclaimer_->Defer(std::unique_ptr<LargeValue>(value));
  } else {
    delete value;
  }
  entry->encoding_ = static_cast<std::uint64_t>(Encoding::kString);
}

void Keyspace::Free(Entry* entry) {
  ReleaseValue(entry);
  pool_.Free(entry, entry->block_size());
}

Keyspace::Link* Keyspace::FindLink(std::string_view key, std::uint64_t hash) {
  const Link tag = TagOf(hash);
  for (int t = 0; t <= (rehash_index_ >= 0 ? 1 : 0); ++t) {
    Table& table = tables_[t];
    if (table.size == 0) continue;
    const std::size_t index = hash & (table.size - 1);
    if (t == 0 && static_cast<std::int64_t>(index) < rehash_index_) continue;
    for (Link* link = &table.buckets[index]; *link != 0; link = &EntryOf(*link)->next_) {
      const Link l = *link;
      if ((l & kTagMask) == tag) {
        const Entry* e = EntryOf(l);
        if (e->key_len() == key.size() && std::memcmp(e->data(), key.data(), key.size()) == 0) {
          return link;
        }
      }
      if ((l & kLast) != 0) break;
    }
  }
  return nullptr;
}

Keyspace::Link* Keyspace::LinkOf(Entry* entry, int* table_index, Link** before) {
  const std::uint64_t hash = Hash(entry->key());
  for (int t = 0; t <= (rehash_index_ >= 0 ? 1 : 0); ++t) {
    Table& table = tables_[t];
    if (table.size == 0) continue;
    const std::size_t index = hash & (table.size - 1);
    if (t == 0 && static_cast<std::int64_t>(index) < rehash_index_) continue;
    Link* previous = nullptr;
    for (Link* link = &table.buckets[index]; *link != 0; link = &EntryOf(*link)->next_) {
      if (EntryOf(*link) == entry) {
        if (table_index != nullptr) *table_index = t;
        if (before != nullptr) *before = previous;
        return link;
      }
      previous = link;
    }
  }
  std::abort();  // every stored entry is linked in exactly one bucket
}

Entry* Keyspace::Find(std::string_view key, std::int64_t now_ms, Touch touch) {
  StepIfRehashing();
  if (size() == 0) return nullptr;
  Link* link = FindLink(key, Hash(key));
  if (link == nullptr) return nullptr;
  Entry* e = EntryOf(*link);
  if (e->ExpiredAt(now_ms)) {
    ExpireEntry(e);
    return nullptr;
  }
  if (touch == Touch::kYes && access_clock_ != nullptr && access_clock_->touch) {
    e->access_ = access_clock_->lfu ? access_clock_->Touched(e->access_, random_.Next())
                                    : access_clock_->now;
  }
  return e;
}

std::uint64_t Keyspace::PrefetchBucket(std::string_view key) const {
  const std::uint64_t hash = Hash(key);
  for (int t = 0; t <= (rehash_index_ >= 0 ? 1 : 0); ++t) {
    const Table& table = tables_[t];
    if (table.size != 0) __builtin_prefetch(&table.buckets[hash & (table.size - 1)]);
  }
  return hash;
}

void Keyspace::PrefetchEntry(std::uint64_t hash) const {
  for (int t = 0; t <= (rehash_index_ >= 0 ? 1 : 0); ++t) {
    const Table& table = tables_[t];
    if (table.size == 0) continue;
    const Link head = table.buckets[hash & (table.size - 1)];
    // A last entry with another tag is never read by the lookup: no need to load it.
    if (head != 0 && ((head & kTagMask) == TagOf(hash) || (head & kLast) == 0)) {
      __builtin_prefetch(EntryOf(head));
    }
  }
}

const Entry* Keyspace::Peek(std::string_view key) const {
  if (size() == 0) return nullptr;
  Link* link = const_cast<Keyspace*>(this)->FindLink(key, Hash(key));
  return link == nullptr ? nullptr : EntryOf(*link);
}

void Keyspace::Insert(Entry* entry, std::uint64_t hash) {
  MaybeGrow();
  // While resizing, new keys go to the new table so the old one only drains.
  Table& table = rehash_index_ >= 0 ? tables_[1] : tables_[0];
  const std::size_t index = hash & (table.size - 1);
  entry->next_ = table.buckets[index];
  table.buckets[index] = LinkTo(entry, TagOf(hash));
  ++table.used;
}

// Gives `existing` room for `needed` bytes: in place when its block fits, otherwise in a new
// block (header and key copied, the chain link moved). The value bytes are the caller's to write.
Entry* Keyspace::Relocate(Entry* existing, std::size_t needed) {
  const std::size_t old_bytes = existing->block_size();
  if (EntryPool::Fits(existing, old_bytes, needed)) return existing;
  Entry* e = Allocate(needed);
  std::memcpy(e, existing, existing->header_size() + existing->key_len());
  Link* link = LinkOf(existing, nullptr);
  *link = (*link & ~kAddressMask) | reinterpret_cast<Link>(e);
  pool_.Free(existing, old_bytes);
  return e;
}

Entry* Keyspace::SetValue(Entry* entry, std::string_view value, Encoding encoding) {
  Touched(entry->key(), false);
  // A large value stored again (its pointer unchanged) must survive the replacement.
  if (IsLarge(entry->encoding()) &&
      !(IsLarge(encoding) && value.size() == sizeof(LargeValue*) &&
        std::memcmp(value.data(), entry->data() + entry->key_len(), sizeof(LargeValue*)) == 0)) {
    ReleaseValue(entry);
  }
  if (!entry->wide_ && Entry::NeedsWide(0, value.size())) entry = Widen(entry);
  Entry* e = Relocate(entry, entry->header_size() + entry->key_len() + value.size());
  if (!value.empty()) std::memmove(e->data() + e->key_len(), value.data(), value.size());
  e->set_value_len(value.size());
  e->encoding_ = static_cast<std::uint64_t>(encoding);
  // A large rebuild must not keep its memory in the scratch buffer for good.
  if (value.data() == scratch_.data() && scratch_.capacity() > kScratchKeepBytes) {
    std::string().swap(scratch_);
  }
  return e;
}

Entry* Keyspace::ResizeValue(Entry* entry, std::size_t value_len, Encoding encoding) {
  Touched(entry->key(), false);
  if (!entry->wide_ && Entry::NeedsWide(0, value_len)) entry = Widen(entry);
  const std::size_t old_bytes = entry->block_size();
  const std::size_t needed = entry->header_size() + entry->key_len() + value_len;
  Entry* e = entry;
  if (!EntryPool::Fits(entry, old_bytes, needed)) {
    const std::size_t capacity = needed > EntryPool::kMaxPooled ? needed + needed / 2 : needed;
    e = Allocate(capacity);
    std::memcpy(e, entry, std::min(old_bytes, needed));
    Link* link = LinkOf(entry, nullptr);
    *link = (*link & ~kAddressMask) | reinterpret_cast<Link>(e);
    pool_.Free(entry, old_bytes);
  }
  e->set_value_len(value_len);
  e->encoding_ = static_cast<std::uint64_t>(encoding);
  return e;
}

Entry* Keyspace::Widen(Entry* entry) {
  const std::size_t key_len = entry->key_len();
  const std::size_t value_len = entry->value_len();
  const std::size_t old_bytes = entry->block_size();
  const std::size_t short_header = entry->header_size();
  Entry* e = Allocate(old_bytes + sizeof(Entry::WideLengths));
  std::memcpy(e, entry, short_header);
  e->wide_ = 1;
  e->key_len_ = 0;
  e->value_len_ = 0;
  e->set_wide_lengths({static_cast<std::uint32_t>(key_len), static_cast<std::uint32_t>(value_len)});
  std::memcpy(e->data(), entry->data(), key_len + value_len);
  Link* link = LinkOf(entry, nullptr);
  *link = (*link & ~kAddressMask) | reinterpret_cast<Link>(e);
  pool_.Free(entry, old_bytes);
  return e;
}

Entry* Keyspace::Store(std::string_view key, std::string_view value, std::int64_t deadline_ms,
                       Entry* existing, Encoding encoding) {
  if (existing != nullptr) {
    Entry* e = SetValue(existing, value, encoding);
    SetDeadline(e, deadline_ms);
    // A new value, as Redis's new object; under LFU it inherits the old one's counter, as
    // Redis 7.0's dbSetValue keeps `lru` so an overwritten hot key stays hot.
    if (access_clock_ == nullptr || !access_clock_->lfu) e->access_ = NowStamp();
    return e;
  }
  StepIfRehashing();
  const bool wide = Entry::NeedsWide(key.size(), value.size());
  const std::size_t header =
      sizeof(Entry) + (timed_ ? sizeof(std::int64_t) : 0) + (wide ? sizeof(Entry::WideLengths) : 0);
  Entry* e = Allocate(header + key.size() + value.size());
  e->next_ = 0;
  e->timed_ = timed_ ? 1 : 0;
  e->wide_ = wide ? 1 : 0;
  if (timed_) e->set_deadline(kNoDeadline);
  if (wide) {
    e->key_len_ = 0;
    e->value_len_ = 0;
    e->set_wide_lengths(
        {static_cast<std::uint32_t>(key.size()), static_cast<std::uint32_t>(value.size())});
  } else {
    e->key_len_ = key.size();
    e->value_len_ = value.size();
  }
  e->encoding_ = static_cast<std::uint64_t>(encoding);
  e->access_ = NowStamp();
  // An empty view may have no data pointer, which memcpy must not see.
  if (!key.empty()) std::memcpy(e->data(), key.data(), key.size());
  if (!value.empty()) std::memcpy(e->data() + key.size(), value.data(), value.size());
  Insert(e, Hash(key));
  SetDeadline(e, deadline_ms);  // tells the observer
  return e;
}

Entry* Keyspace::MoveTo(Entry* entry, Keyspace& to, std::string_view key, Entry* existing) {
  const std::int64_t deadline = entry->deadline_ms();
  const Encoding encoding = entry->encoding();
  const std::uint32_t stamp = entry->access_;  // the same value, as RENAME and MOVE keep it
  // The value's bytes are copied out before anything is freed: `key` may point into `entry`.
  std::string value(entry->value());
  std::string key_copy(key);
  Touched(entry->key(), true);
  // The value now belongs to the new entry: unlink the old one without releasing it.
  entry->encoding_ = static_cast<std::uint64_t>(Encoding::kString);
  Unlink(entry);
  pool_.Free(entry, entry->block_size());
  MaybeShrink();
  Entry* moved = to.Store(key_copy, value, deadline, existing, encoding);
  moved->access_ = stamp;
  return moved;
}

void Keyspace::SetDeadline(Entry* entry, std::int64_t deadline_ms) {
  const bool had = entry->has_deadline();
  if (entry->timed_ == 0) {
    // Only a table's entries are untimed, and nothing sets a deadline on them.
    if (deadline_ms != kNoDeadline) std::abort();
    return;
  }
  entry->set_deadline(deadline_ms);
  Touched(entry->key(), false);
  if (!had && deadline_ms != kNoDeadline) {
    ++volatile_count_;
  } else if (had && deadline_ms == kNoDeadline) {
    --volatile_count_;
  }
}

void Keyspace::Unlink(Entry* entry) {
  int table_index = 0;
  Link* before = nullptr;
  Link* link = LinkOf(entry, &table_index, &before);
  *link = entry->next_;
  // The entry ahead of a removed last entry is the last now.
  if (entry->next_ == 0 && before != nullptr) *before |= kLast;
  --tables_[table_index].used;
  if (entry->has_deadline()) --volatile_count_;
}

void Keyspace::Erase(Entry* entry) {
  Touched(entry->key(), true);
  Unlink(entry);
  Free(entry);
  MaybeShrink();
}

void Keyspace::ExpireEntry(Entry* entry) {
  if (keep_expired_) return;
  ++stats_.expired_keys;
  if (expiry_listener_ != nullptr) expiry_listener_->KeyExpired(db_index_, entry->key());
  // An expiry is not the command's change: the listener accounts for it (a DEL of its own).
  std::uint64_t* const counter = change_count_;
  change_count_ = nullptr;
  EraseUnattributed(entry);
  change_count_ = counter;
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
      Link link = table.buckets[i];
      while (link != 0) {
        Entry* e = EntryOf(link);
        link = e->next_;
        Free(e);
      }
    }
    std::free(table.buckets);
    table = Table{};
  }
  bucket_bytes_ = 0;
  rehash_index_ = -1;
  volatile_count_ = 0;
  clear_index_ = 0;
}

std::unique_ptr<Keyspace> Keyspace::TakeAll() {
  auto taken = std::make_unique<Keyspace>(random_, &pool_, reclaimer_);
  Swap(*taken);
  return taken;
}

void Keyspace::Swap(Keyspace& other) {
  std::swap(tables_, other.tables_);
  std::swap(rehash_index_, other.rehash_index_);
  std::swap(volatile_count_, other.volatile_count_);
  std::swap(expire_cursor_, other.expire_cursor_);
  std::swap(bucket_bytes_, other.bucket_bytes_);
  std::swap(seed_, other.seed_);  // the tables were placed by their own seed
  std::swap(clear_index_, other.clear_index_);
}

bool Keyspace::ClearSome(std::size_t max_entries) {
  // Whole chains at a time: no link is left pointing at a freed entry. The counts stay as they
  // were; nothing reads them while the keyspace is being taken apart.
  for (Table& table : tables_) {
    if (table.buckets == nullptr) continue;
    while (clear_index_ < table.size) {
      Link link = table.buckets[clear_index_];
      // An empty bucket is left as it is: a page of them never written (the far part of a
      // table being rehashed into) would fault in a page to write zeros over zeros.
      if (link != 0) table.buckets[clear_index_] = 0;
      ++clear_index_;
      if (clear_index_ % kReleaseEveryBuckets == 0)
        ReleaseClearedPages(table.buckets, clear_index_);
      if (link == 0) {
        // Empty buckets count against the budget too, one per 64: a stretch of millions of
        // them (a rehash target not yet filled) took one call 10 ms.
        if (clear_index_ % 64 == 0) {
          if (max_entries <= 1) return false;
          --max_entries;
        }
        continue;
      }
      while (link != 0) {
        Entry* e = EntryOf(link);
        link = e->next_;
        // A small table is freed with its key: its fields count against the budget too.
        const std::size_t cost = 1 + (IsLarge(e->encoding()) ? e->large()->element_count() : 0);
        Free(e);
        max_entries = cost >= max_entries ? 0 : max_entries - cost;
      }
      if (max_entries == 0) return false;
    }
    clear_index_ = 0;
    std::free(table.buckets);
    bucket_bytes_ -= table.size * sizeof(Link);
    table = Table{};
  }
  rehash_index_ = -1;
  volatile_count_ = 0;
  return true;
}

void Keyspace::StartResize(std::size_t size) {
  auto* buckets = static_cast<Link*>(std::calloc(size, sizeof(Link)));
  if (buckets == nullptr) throw std::bad_alloc();
  bucket_bytes_ += size * sizeof(Link);
  if (tables_[0].buckets == nullptr) {
    tables_[0] = Table{buckets, size, 0};
    return;
  }
  tables_[1] = Table{buckets, size, 0};
  rehash_index_ = 0;
}

void Keyspace::Reserve(std::size_t keys) {
  if (size() != 0 || rehash_index_ >= 0 || keys <= tables_[0].size) return;
  if (tables_[0].buckets != nullptr) {
    bucket_bytes_ -= tables_[0].size * sizeof(Link);
    std::free(tables_[0].buckets);
    tables_[0] = Table{};
  }
  StartResize(NextPowerOfTwo(keys));
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
  bucket_bytes_ -= tables_[0].size * sizeof(Link);
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
    while (from.buckets[rehash_index_] == 0) {
      ++rehash_index_;
      if (--empty_visits == 0) return true;
    }
    Link link = from.buckets[rehash_index_];
    while (link != 0) {
      Entry* e = EntryOf(link);
      const Link next = e->next_;
      // The tag keeps only the hash's top bits: the index comes from hashing the key again.
      const std::size_t index = Hash(e->key()) & (to.size - 1);
      e->next_ = to.buckets[index];
      to.buckets[index] = LinkTo(e, link & kTagMask);
      --from.used;
      ++to.used;
      link = next;
    }
    from.buckets[rehash_index_] = 0;
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
    for (Link l = t.buckets[index]; l != 0; l = EntryOf(l)->next_) out.push_back(EntryOf(l));
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

Keyspace::Link* Keyspace::RandomBucket() {
  const std::size_t i = random_.Below(tables_[0].size + tables_[1].size);
  if (i < tables_[0].size) {
    return static_cast<std::int64_t>(i) < rehash_index_ ? nullptr : &tables_[0].buckets[i];
  }
  return &tables_[1].buckets[i - tables_[0].size];
}

Entry* Keyspace::RandomEntry(std::int64_t now_ms) {
  while (size() > 0) {
    StepIfRehashing();
    // Pick a random non-empty bucket, then a random entry of its chain.
    Link head = 0;
    while (head == 0) {
      const Link* bucket = RandomBucket();
      if (bucket != nullptr) head = *bucket;
    }
    std::size_t length = 0;
    for (Link l = head; l != 0; l = EntryOf(l)->next_) ++length;
    Entry* e = EntryOf(head);
    for (std::size_t k = random_.Below(length); k > 0; --k) e = EntryOf(e->next_);
    if (!e->ExpiredAt(now_ms)) return e;
    ExpireEntry(e);
  }
  return nullptr;
}

void Keyspace::SampleEntries(std::size_t count, bool with_deadline, std::vector<Entry*>& out) {
  if (size() == 0 || (with_deadline && volatile_count_ == 0)) return;
  StepIfRehashing();
  // Buckets are numbered across both tables; those of tables_[0] already moved are empty. With
  // only some keys carrying a deadline, proportionally more buckets are walked (up to 100
  // times more), so a sample of volatile keys is about as large as one of all keys.
  const std::size_t total = tables_[0].size + tables_[1].size;
  std::size_t sparsity = with_deadline ? size() / volatile_count_ : 1;
  sparsity = std::min<std::size_t>(std::max<std::size_t>(sparsity, 1), 100);
  std::size_t steps = count * 10 * sparsity;
  std::size_t index = random_.Below(total);
  std::size_t empty_run = 0;
  const std::size_t start = out.size();
  while (steps-- > 0 && out.size() - start < count) {
    const Table& t = index < tables_[0].size ? tables_[0] : tables_[1];
    const std::size_t i = index < tables_[0].size ? index : index - tables_[0].size;
    const bool moved = &t == &tables_[0] && static_cast<std::int64_t>(i) < rehash_index_;
    const Link head = moved ? 0 : t.buckets[i];
    if (head == 0) {
      // As dictGetSomeKeys: a long run of empty buckets means a sparse table; jump elsewhere.
      if (++empty_run >= 5 && empty_run > count) {
        index = random_.Below(total);
        empty_run = 0;
        continue;
      }
    } else {
      empty_run = 0;
      for (Link l = head; l != 0 && out.size() - start < count; l = EntryOf(l)->next_) {
        Entry* e = EntryOf(l);
        if (!with_deadline || e->has_deadline()) out.push_back(e);
      }
    }
    index = index + 1 < total ? index + 1 : 0;
  }
}

ExpireSample Keyspace::SampleExpired(std::int64_t now_ms, int samples) {
  ExpireSample result;
  StepIfRehashing();
  // As Redis's activeExpireCycle walks its expires table: a scan cursor kept between calls, so
  // every key is looked at within one sweep of the table, and a resize cannot make the sweep
  // miss one. A stretch of buckets with no key that has a deadline ends the call early.
  for (int steps = samples * 20; steps > 0 && result.sampled < samples && volatile_count_ > 0;
       --steps) {
    sweep_.clear();
    expire_cursor_ = ScanStep(expire_cursor_, sweep_);
    if (expire_cursor_ == 0) result.wrapped = true;
    // Erasing one entry leaves the others where they are: the collected pointers stay valid.
    for (Entry* e : sweep_) {
      if (!e->has_deadline()) continue;
      ++result.sampled;
      if (e->ExpiredAt(now_ms)) {
        ++result.expired;
        ExpireEntry(e);
      } else if (__builtin_add_overflow(result.ttl_sum_ms, e->deadline_ms() - now_ms,
                                        &result.ttl_sum_ms)) {
        // Saturates: a key set with PXAT near INT64_MAX must not overflow the sum.
        result.ttl_sum_ms = INT64_MAX;
      }
    }
  }
  return result;
}

std::size_t Keyspace::ExpireDue(std::int64_t now_ms) {
  std::size_t expired = 0;
  for (int t = 0; t < 2; ++t) {
    // A shrink started by an erase below allocates tables_[1] but moves nothing into it, so
    // this walk still sees every entry once.
    for (std::size_t i = 0; i < tables_[t].size; ++i) {
      for (Link l = tables_[t].buckets[i]; l != 0;) {
        Entry* e = EntryOf(l);
        l = e->next_;
        if (e->has_deadline() && e->deadline_ms() <= now_ms) {
          ExpireEntry(e);
          ++expired;
        }
      }
    }
  }
  return expired;
}

bool Keyspace::Verify() const {
  std::size_t with_deadline = 0;
  for (int t = 0; t < 2; ++t) {
    std::size_t count = 0;
    for (std::size_t i = 0; i < tables_[t].size; ++i) {
      for (Link l = tables_[t].buckets[i]; l != 0; l = EntryOf(l)->next_) {
        const Entry* e = EntryOf(l);
        const std::uint64_t hash = Hash(e->key());
        if ((l & kTagMask) != TagOf(hash)) return false;
        if (((l & kLast) != 0) != (e->next_ == 0)) return false;
        if ((hash & (tables_[t].size - 1)) != i) return false;
        if (e->timed_ != (timed_ ? 1 : 0)) return false;
        if (e->wide_ != 0 && (e->key_len_ != 0 || e->value_len_ != 0)) return false;
        if (e->has_deadline()) ++with_deadline;
        ++count;
      }
    }
    if (count != tables_[t].used) return false;
  }
  return with_deadline == volatile_count_;
}

}  // namespace warden::storage
