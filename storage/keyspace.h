// The keyspace: binary-safe keys, each holding a typed value and an optional absolute deadline.
// The same table, with no deadlines, holds the fields of a large hash or the members of a large
// set (see hash.h and set.h).
//
// Layout: each key is one block (Entry) from an EntryPool: a 16-byte header, the deadline (8
// bytes, in a keyspace of keys that can expire; a large value's table has none), for a key
// longer than 1023 bytes or a value longer than 16 MiB the two lengths (8 bytes), then the key
// bytes and the value bytes. The header holds the chain link, the short lengths, the
// encoding and the time of the last access (OBJECT IDLETIME, later eviction). The header's encoding
// says what the value bytes are: a string, a small collection packed inline (packed.h), or, for a
// large collection, a pointer to the table that holds it, owned by the entry. Freeing such a table
// can take long, so Erase and overwrites hand it to the Reclaimer (when the keyspace has one),
// which frees it in slices. Entries are chained in a power-of-two bucket array that resizes
// incrementally (two tables while a rehash is in progress, a few buckets moved per operation), so a
// resize of ten million keys never stalls the loop and SCAN keeps its guarantee across it. Every
// chain link (bucket or next pointer) carries 16 bits of the hash of the key it points to in its
// unused top bits, so a lookup compares those before it touches an entry: a miss seldom reads one,
// a hit reads the one it wants.
//
// Expiry: a key is expired when now_ms > deadline_ms. Find() and every operation that takes
// now_ms treat an expired key as absent and remove it (lazy expiry); Peek() and size() do not.
// Active expiry sweeps the table with a cursor, as Redis sweeps its expires table; there is no
// separate index of keys with a deadline (a lock server has few keys without one). In a keyspace
// where such keys are rare, a call finds fewer of them and lazy expiry does more of the work.
//
// Lifetime: an Entry* stays valid until that key is stored, erased or cleared. Views from
// Entry::key() and value() live as long as the Entry.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "storage/entry_pool.h"
#include "storage/large_value.h"
#include "storage/random.h"

namespace warden::storage {

inline constexpr std::int64_t kNoDeadline = 0;

enum class ValueType : std::uint8_t { kString, kHash, kSet, kZset, kList, kStream };

// How a value is held; OBJECT ENCODING shows Redis's name for the closest one.
enum class Encoding : std::uint8_t {
  kString = 0,
  kHashPacked,  // inline field, value, field, value... (packed_hash.h)
  kHashTable,   // a Keyspace* of field -> value
  kSetInts,     // inline sorted array of int64 (Redis's intset)
  kSetTable,    // a Keyspace* of members with empty values
  kZsetPacked,
  kZsetSorted,
  kListPacked,
  kListChunked,
  // Strings whose OBJECT ENCODING Redis decides by how they were written, not by their bytes:
  // changed in place by APPEND or SETRANGE ("raw"), or written by INCRBYFLOAT ("embstr" even
  // for "16"). kString answers by content: int, embstr or raw.
  kStringRaw,
  kStringNoInt,
  // A small set of strings packed inline (as Redis 7.2's listpack sets; 7.0 has no such form,
  // so OBJECT ENCODING answers "hashtable" for it, as 7.0 would).
  kSetPacked,
  // A Stream (stream.h): always large.
  kStream,
  // A string that reads as kString does, but is its own object where Redis would share one for
  // a small integer (COPY duplicates it): OBJECT REFCOUNT answers 1.
  kStringUnshared,
};

// A large encoding's value bytes are a pointer to the structure that holds the collection.
constexpr bool IsLarge(Encoding e) {
  return e == Encoding::kHashTable || e == Encoding::kSetTable || e == Encoding::kZsetSorted ||
         e == Encoding::kListChunked || e == Encoding::kStream;
}

constexpr ValueType TypeOf(Encoding e) {
  switch (e) {
    case Encoding::kString:
    case Encoding::kStringRaw:
    case Encoding::kStringNoInt:
    case Encoding::kStringUnshared:
      return ValueType::kString;
    case Encoding::kHashPacked:
    case Encoding::kHashTable:
      return ValueType::kHash;
    case Encoding::kSetInts:
    case Encoding::kSetPacked:
    case Encoding::kSetTable:
      return ValueType::kSet;
    case Encoding::kZsetPacked:
    case Encoding::kZsetSorted:
      return ValueType::kZset;
    case Encoding::kListPacked:
    case Encoding::kListChunked:
      return ValueType::kList;
    case Encoding::kStream:
      return ValueType::kStream;
  }
  return ValueType::kString;
}

class Keyspace;
class Reclaimer;

// The time stamps behind OBJECT IDLETIME and OBJECT FREQ, in an entry's 24 bits. Under an LRU
// (or no) policy a stamp is whole seconds of the server's clock in 24 bits that wrap, as Redis's
// LRU clock does (every 194 days). Under an LFU policy it is Redis's LFU word: the minute of the
// last decrement in the top 16 bits (wrapping every 45 days) and a logarithmic access counter in
// the low 8. One clock is shared by a server's databases, and the server sets it before each
// command, so a stamp costs a store (or, under LFU, a few arithmetic steps), not a clock read.
struct AccessClock {
  static constexpr std::uint32_t kMax = (1u << 24) - 1;
  // The counter a new key starts with under LFU (Redis's LFU_INIT_VAL): high enough that a key
  // just written is not the first one evicted.
  static constexpr std::uint32_t kLfuInitial = 5;
  static std::uint32_t StampAt(std::int64_t now_ms) {
    return static_cast<std::uint32_t>(static_cast<std::uint64_t>(now_ms) / 1000) & kMax;
  }
  // Seconds from `stamp` to `now` (Redis's estimateObjectIdleTime, which counts a wrapped
  // clock one second short).
  static std::int64_t IdleSeconds(std::uint32_t stamp, std::uint32_t now) {
    return now >= stamp ? now - stamp : now + (kMax - stamp);
  }
  void Set(std::int64_t now_ms, bool lookups_touch) {
    now = StampAt(now_ms);
    minutes = static_cast<std::uint32_t>(static_cast<std::uint64_t>(now_ms) / 60000) & 0xFFFF;
    touch = lookups_touch;
  }
  // What a key written now is stamped with.
  std::uint32_t NewStamp() const { return lfu ? (minutes << 8) | kLfuInitial : now; }
  // An LFU word's counter after the decay its idle minutes call for (Redis's LFUDecrAndReturn).
  std::uint32_t LfuCounter(std::uint32_t stamp) const {
    const std::uint32_t last = stamp >> 8;
    const std::uint32_t counter = stamp & 0xFF;
    const std::uint32_t elapsed = minutes >= last ? minutes - last : 0xFFFF - last + minutes;
    const std::uint32_t periods = lfu_decay_time != 0 ? elapsed / lfu_decay_time : 0;
    return periods > counter ? 0 : counter - periods;
  }
  // The stamp of a key accessed now: under LFU the decayed counter, incremented with the
  // probability 1 / ((counter - kLfuInitial) * lfu-log-factor + 1) (Redis's updateLFU), drawn
  // from `draw`, a uniform 64-bit value.
  std::uint32_t Touched(std::uint32_t stamp, std::uint64_t draw) const {
    if (!lfu) return now;
    std::uint32_t counter = LfuCounter(stamp);
    if (counter < 255) {
      const double base = counter > kLfuInitial ? counter - kLfuInitial : 0;
      const double p = 1.0 / (base * lfu_log_factor + 1);
      if (static_cast<double>(draw >> 11) * 0x1.0p-53 < p) ++counter;
    }
    return (minutes << 8) | counter;
  }

  std::uint32_t now = 0;
  std::uint32_t minutes = 0;  // Redis's LFUGetTimeInMinutes
  bool touch = true;  // whether lookups count as accesses (not for a CLIENT NO-TOUCH client)
  bool lfu = false;   // an LFU maxmemory policy is set: stamps are LFU words
  double lfu_log_factor = 10;
  std::uint32_t lfu_decay_time = 1;
};

// Whether a lookup counts as an access of the key (Redis's LOOKUP_NOTOUCH when not).
enum class Touch : bool { kNo, kYes };

class Entry {
 public:
  std::string_view key() const { return {data(), key_len()}; }
  // The value bytes: a string, a packed collection, or (large encodings) a pointer.
  std::string_view value() const { return {data() + key_len(), value_len()}; }
  Encoding encoding() const { return static_cast<Encoding>(encoding_); }
  ValueType type() const { return TypeOf(encoding()); }
  bool is_string() const { return type() == ValueType::kString; }
  // What a large encoding's value bytes point to.
  LargeValue* large() const {
    LargeValue* v;
    std::memcpy(&v, data() + key_len(), sizeof(v));
    return v;
  }
  // The table of a kHashTable or kSetTable value.
  inline Keyspace* table() const;
  std::int64_t deadline_ms() const {
    if (timed_ == 0) return kNoDeadline;
    std::int64_t d;
    std::memcpy(&d, reinterpret_cast<const char*>(this + 1), sizeof(d));
    return d;
  }
  bool has_deadline() const { return deadline_ms() != kNoDeadline; }
  bool ExpiredAt(std::int64_t now_ms) const {
    const std::int64_t d = deadline_ms();
    return d != kNoDeadline && now_ms > d;
  }
  // When the key was last read or written, as an AccessClock stamp (OBJECT IDLETIME).
  std::uint32_t access_stamp() const { return access_; }

 private:
  friend class Keyspace;
  // Lengths that fit these are kept in the header; an entry with a longer key or value is
  // "wide": both lengths are in a word after the deadline, 8 more bytes it alone pays.
  static constexpr std::size_t kShortKeyMax = (std::size_t{1} << 10) - 1;
  static constexpr std::size_t kShortValueMax = (std::size_t{1} << 24) - 1;
  struct WideLengths {
    std::uint32_t key;
    std::uint32_t value;
  };

  // Where the key starts: after the header, the deadline (in a timed keyspace) and the wide
  // lengths. Computed without a branch, as every lookup reads it.
  std::size_t header_size() const {
    return sizeof(Entry) + ((std::size_t{timed_} + std::size_t{wide_}) << 3);
  }
  const char* data() const { return reinterpret_cast<const char*>(this) + header_size(); }
  char* data() { return reinterpret_cast<char*>(this) + header_size(); }
  void set_deadline(std::int64_t d) { std::memcpy(reinterpret_cast<char*>(this + 1), &d, 8); }
  WideLengths wide_lengths() const {
    WideLengths w;
    std::memcpy(&w, reinterpret_cast<const char*>(this + 1) + (std::size_t{timed_} << 3),
                sizeof(w));
    return w;
  }
  void set_wide_lengths(WideLengths w) {
    std::memcpy(reinterpret_cast<char*>(this + 1) + (std::size_t{timed_} << 3), &w, sizeof(w));
  }
  std::size_t key_len() const { return wide_ ? wide_lengths().key : key_len_; }
  std::size_t value_len() const { return wide_ ? wide_lengths().value : value_len_; }
  // The entry must be wide, or `n` at most kShortValueMax.
  void set_value_len(std::size_t n) {
    if (wide_) {
      WideLengths w = wide_lengths();
      w.value = static_cast<std::uint32_t>(n);
      set_wide_lengths(w);
    } else {
      value_len_ = n;
    }
  }
  static bool NeedsWide(std::size_t key_len, std::size_t value_len) {
    return key_len > kShortKeyMax || value_len > kShortValueMax;
  }

  std::size_t block_size() const { return header_size() + key_len() + value_len(); }

  std::uintptr_t next_;  // the next entry of the chain, tagged (see Keyspace::Link)
  std::uint64_t key_len_ : 10;
  std::uint64_t value_len_ : 24;
  std::uint64_t encoding_ : 4;
  std::uint64_t timed_ : 1;  // the deadline follows the header
  std::uint64_t wide_ : 1;   // the lengths follow the deadline
  std::uint64_t access_ : 24;
};
static_assert(sizeof(Entry) == 16);

enum class TtlKind { kMissing, kPersistent, kExpiring };

struct ExpireSample {
  int sampled = 0;
  int expired = 0;
  std::int64_t ttl_sum_ms = 0;  // over the sampled keys that were still alive
  bool wrapped = false;         // the sweep reached the end of the table and starts over
};

// Told of each key removed because its deadline passed (lazy expiry on a lookup, active expiry,
// ExpireDue), just before the entry is erased: the key view dies when KeyExpired returns.
// KeyExpired must not touch the keyspace.
class ExpiryListener {
 public:
  virtual void KeyExpired(int db, std::string_view key) = 0;

 protected:
  ~ExpiryListener() = default;
};

struct KeyspaceStats {
  std::uint64_t expired_keys = 0;
};

// Told of every change to a key of a keyspace it observes, as Redis's signalModifiedKey: a
// value written, a deadline set, a key removed (deleted, expired, renamed or moved away). WATCH
// needs it; a keyspace has no observer unless a client watches a key, so nothing else pays.
class KeyObserver {
 public:
  // `removed`: the key is going away (deleted, expired, moved). The view lives for the call.
  virtual void KeyModified(const Keyspace& keyspace, std::string_view key, bool removed) = 0;

 protected:
  ~KeyObserver() = default;
};

class Keyspace final : public LargeValue {
 public:
  // Largest value (past Redis's 512 MB; a wide entry's lengths have 32 bits).
  static constexpr std::size_t kMaxLength = 0x7FFFFFFFu;
  // Largest key (256 MiB; kept from when the header held 28 bits of it).
  static constexpr std::size_t kMaxKeyLength = (std::size_t{1} << 28) - 1;

  // `random` seeds the hash and drives sampling; it must outlive the keyspace. Entries come from
  // `pool` (shared by the databases and their large values) or, when null, from a pool of the
  // keyspace's own. Large values that are overwritten or erased go to `reclaimer` when set,
  // and are freed at once otherwise.
  // A keyspace that is not `timed` (a large value's table) keeps no deadlines and saves their
  // 8 bytes per entry.
  explicit Keyspace(Random& random, EntryPool* pool = nullptr, Reclaimer* reclaimer = nullptr,
                    bool timed = true);
  ~Keyspace() override;
  Keyspace(const Keyspace&) = delete;
  Keyspace& operator=(const Keyspace&) = delete;

  // Keys held, counting expired keys not yet removed (Redis's DBSIZE).
  std::size_t size() const { return tables_[0].used + tables_[1].used; }
  // Keys held that carry a deadline.
  std::size_t volatile_size() const { return volatile_count_; }

  // The live entry for `key`, or nullptr. Removes the key if it has expired. A lookup that
  // touches stamps the entry with the access clock (when it is set and lets lookups touch).
  Entry* Find(std::string_view key, std::int64_t now_ms, Touch touch = Touch::kYes);
  // A hint for a pipeline of lookups: starts loading the bucket `key` hashes to into cache, and
  // returns that hash for the second step.
  std::uint64_t PrefetchBucket(std::string_view key) const;
  // The second step of such a hint, once the bucket is loaded: starts loading the entry the
  // chain begins with (the one the key of `hash`, from PrefetchBucket, most likely is).
  void PrefetchEntry(std::uint64_t hash) const;
  // The entry for `key` whether or not it has expired; never removes anything.
  const Entry* Peek(std::string_view key) const;

  // Stores `value` under `key` with `deadline_ms` (kNoDeadline for none). `existing` must be what
  // Find(key) just returned (nullptr if absent); it is invalid afterwards. Returns the entry.
  // A large value's pointer is passed as its value bytes, and the entry takes ownership of it.
  // The existing entry's own large value, if any, is released (unless it is the one stored).
  Entry* Store(std::string_view key, std::string_view value, std::int64_t deadline_ms,
               Entry* existing, Encoding encoding = Encoding::kString);
  // Replaces an entry's value in place, keeping its key and deadline; returns the entry, which
  // may have moved. `value` must not point into the entry. The old large value, if any, is released
  // unless it is the one stored.
  Entry* SetValue(Entry* entry, std::string_view value, Encoding encoding);
  // Makes the value `value_len` bytes long, keeping its first bytes (the rest is the caller's to
  // write through ValueBytes), with `encoding`; returns the entry, which may have moved. A block
  // that has to move for a larger value is allocated half again as large, so that APPEND and
  // SETRANGE grow a string in amortized constant time, as Redis's sds does.
  Entry* ResizeValue(Entry* entry, std::size_t value_len, Encoding encoding);
  static char* ValueBytes(Entry* entry) { return entry->data() + entry->key_len(); }
  // Sets a string's encoding without counting a change: Redis makes a string raw whenever a
  // command looks it up to write bits in place (SETBIT, BITFIELD), whether or not one changes.
  static void SetStringEncoding(Entry* entry, Encoding encoding) {
    entry->encoding_ = static_cast<std::uint64_t>(encoding);
  }
  // Moves `entry` (of this keyspace) to `key` in `to`, which may be this keyspace: the value,
  // large or not, and the deadline go with it. `existing` is what to.Find(key) returned; it is
  // replaced. `entry` is invalid afterwards. Returns the new entry.
  Entry* MoveTo(Entry* entry, Keyspace& to, std::string_view key, Entry* existing);
  void SetDeadline(Entry* entry, std::int64_t deadline_ms);
  // An empty keyspace sized for `keys` at once (Redis's dictExpand for an RDB's RESIZEDB), so a
  // load does not grow and rehash its table twenty times on the way.
  void Reserve(std::size_t keys);
  // Stamps every entry stored from now on, and each one a lookup touches. Stays with the index,
  // as the expiry listener does. Null (a large value's table): no stamps.
  void set_access_clock(const AccessClock* clock) { access_clock_ = clock; }
  // Sets when `entry` was last accessed (RESTORE's IDLETIME).
  static void SetAccessStamp(Entry* entry, std::uint32_t stamp) { entry->access_ = stamp; }
  // Removes an entry whose deadline has passed, as lazy expiry does: counted in expired_keys and
  // told to the expiry listener. The entry is invalid afterwards.
  void ExpireEntry(Entry* entry);
  // Who hears of expired keys, and the database number it is told. Stays with the index, not
  // the contents: Swap and TakeAll leave it where it is.
  // A read-only replica's keyspace (Redis's replicas): a key past its deadline reads as absent
  // but stays until the master's DEL removes it, so the data set stays the master's.
  void set_keep_expired(bool keep) { keep_expired_ = keep; }
  void SetExpiryListener(ExpiryListener* listener, int db) {
    expiry_listener_ = listener;
    db_index_ = db;
  }
  // Removes the entry; it is invalid afterwards.
  void Erase(Entry* entry);
  // The same for a removal no client asked for (eviction; expiry goes through it too): Redis
  // signals those with no client, so client-side caching's NOLOOP spares nobody.
  void EraseUnattributed(Entry* entry) {
    unattributed_ = true;
    Erase(entry);
    unattributed_ = false;
  }
  // True while an observer hears of such a removal.
  bool unattributed_change() const { return unattributed_; }
  // Removes `key` if present and live; returns whether a live key was removed.
  bool Erase(std::string_view key, std::int64_t now_ms);
  void Clear();
  // Hands every key to a new keyspace (same pool and reclaimer) and leaves this one empty: a
  // FLUSHDB that the reclaimer finishes in slices.
  std::unique_ptr<Keyspace> TakeAll();
  // Frees up to `max_entries` entries of a keyspace being taken apart; true once it is empty.
  // Every 64 empty buckets crossed count as one entry, so a call is bounded however sparse the
  // table.
  bool ClearSome(std::size_t max_entries) override;
  // How many buckets of the table being cleared ClearSome has crossed (for tests).
  std::size_t clear_position() const { return clear_index_; }
  std::size_t element_count() const override { return size(); }
  // Exchanges the contents of two keyspaces that share a pool and reclaimer (SWAPDB).
  void Swap(Keyspace& other);

  // One SCAN call: collects whole buckets from `cursor` on until at least `count` entries are
  // collected, the cursor wraps to 0, or count * 10 buckets were visited. Returns the next cursor.
  // Entries are collected as they are, expired ones included: the caller filters.
  std::uint64_t Scan(std::uint64_t cursor, std::size_t count, std::vector<Entry*>& out);

  // A live random entry, removing expired ones it draws; nullptr when none is left.
  Entry* RandomEntry(std::int64_t now_ms);
  // Eviction's sample (Redis's dictGetSomeKeys): up to `count` entries, expired or not, from a
  // run of buckets that starts at a random one, appended to `out`; with `with_deadline` only
  // keys that have a deadline. Visits a bounded number of buckets, so it may return fewer.
  void SampleEntries(std::size_t count, bool with_deadline, std::vector<Entry*>& out);

  // Calls fn(const Entry&) for every entry, expired or not. fn must not modify the keyspace.
  template <typename Fn>
  void ForEach(Fn&& fn) const {
    for (const Table& t : tables_) {
      for (std::size_t i = 0; i < t.size; ++i) {
        for (Link l = t.buckets[i]; l != 0; l = EntryOf(l)->next_) fn(*EntryOf(l));
      }
    }
  }

  // Calls fn(const Entry&) for entries, expired or not, until it returns false.
  template <typename Fn>
  void ForEachUntil(Fn&& fn) const {
    for (const Table& t : tables_) {
      for (std::size_t i = 0; i < t.size; ++i) {
        for (Link l = t.buckets[i]; l != 0; l = EntryOf(l)->next_) {
          if (!fn(*EntryOf(l))) return;
        }
      }
    }
  }

  // Active expiry: goes on sweeping the table from where the last call stopped until `samples`
  // keys with a deadline were seen (or a bounded number of buckets passed) and removes the
  // expired ones.
  ExpireSample SampleExpired(std::int64_t now_ms, int samples);

  // Removes every key whose deadline is at or before `now_ms` (a clock moved forward by a test:
  // a lease of exactly the time advanced is over). O(keys with a deadline). Returns how many.
  std::size_t ExpireDue(std::int64_t now_ms);

  // Moves up to `buckets` buckets of an ongoing resize; returns whether one is still ongoing.
  bool RehashSteps(int buckets);
  bool rehashing() const { return rehash_index_ >= 0; }

  // Checks the structure: every link's tag and last-of-chain bit, each table's count, the count
  // of keys with a deadline. For tests and fuzzing; O(keys).
  bool Verify() const;

  // The observer told of changes to keys (null: none). It stays with this object through Swap
  // and TakeAll, as it watches a database, not its contents.
  void set_observer(KeyObserver* observer) { observer_ = observer; }
  KeyObserver* observer() const { return observer_; }
  // A value type changed the value of `key` in place (a large hash, set, list or sorted set),
  // without storing through this keyspace.
  void NoteModified(std::string_view key) { Touched(key, false); }
  // A counter raised by every change a command makes (a value written, a deadline set, a key
  // removed), but not by expiry: Redis's server.dirty, by which the server knows whether a
  // command changed anything and so must be written to the append-only file. Null: none.
  void set_change_counter(std::uint64_t* counter) { change_count_ = counter; }

  const KeyspaceStats& stats() const { return stats_; }
  // Gives up to `max_slabs` of the entry pool's empty slabs back to the system (a few per
  // cron tick, so a mass expiry returns its memory without a stall).
  std::size_t TrimMemory(std::size_t max_slabs) { return pool_.Trim(max_slabs); }

  // Bytes held by the pool's entries (shared by every keyspace on the pool) and this keyspace's
  // bucket arrays.
  std::size_t memory_bytes() const { return pool_.bytes_in_use() + bucket_bytes_; }
  std::size_t bucket_bytes() const { return bucket_bytes_; }
  // Bytes of one entry's block, as its size class counts it.
  static std::size_t BlockBytes(const Entry& e) { return e.block_size(); }
  // A buffer for rebuilding packed values, reused so updates do not allocate.
  std::string& scratch() { return scratch_; }
  Random& random() { return random_; }
  EntryPool& pool() { return pool_; }
  Reclaimer* reclaimer() { return reclaimer_; }

 private:
  // An Entry* in the low 48 bits, which is all user-space addresses use on x86-64 and AArch64;
  // above them 15 bits of the entry's key hash, and in the top bit whether the entry is the last
  // of its chain. A lookup that misses on the tag of a last entry never reads the entry. 0 ends
  // a chain.
  using Link = std::uintptr_t;
  static constexpr int kTagShift = 48;
  static constexpr Link kAddressMask = (Link{1} << kTagShift) - 1;
  static constexpr Link kLast = Link{1} << 63;
  static constexpr Link kTagMask = ~kAddressMask & ~kLast;
  static Entry* EntryOf(Link link) { return reinterpret_cast<Entry*>(link & kAddressMask); }
  static Link TagOf(std::uint64_t hash) { return hash & kTagMask; }
  // The link to `e`, whose next_ is already set.
  static Link LinkTo(Entry* e, Link tag) {
    return reinterpret_cast<Link>(e) | tag | (e->next_ == 0 ? kLast : 0);
  }

  struct Table {
    Link* buckets = nullptr;
    std::size_t size = 0;  // power of two, or 0
    std::size_t used = 0;
  };

  std::uint64_t Hash(std::string_view key) const;
  Link* FindLink(std::string_view key, std::uint64_t hash);
  // The slot that links `entry`; `before` gets the slot linking the entry ahead of it in the
  // chain, or nullptr if it is first.
  Link* LinkOf(Entry* entry, int* table_index, Link** before = nullptr);
  // A random bucket among those in use (not yet moved out of tables_[0], or tables_[1]), or
  // nullptr when the draw fell on one already moved.
  Link* RandomBucket();
  void Unlink(Entry* entry);
  void Insert(Entry* entry, std::uint64_t hash);
  void Free(Entry* entry);
  Entry* Allocate(std::size_t bytes);
  void MaybeGrow();
  void MaybeShrink();
  void StartResize(std::size_t size);
  void FinishRehashIfDone();
  void StepIfRehashing() {
    if (rehash_index_ >= 0) RehashSteps(1);
  }
  std::uint64_t ScanStep(std::uint64_t cursor, std::vector<Entry*>& out) const;

  void Touched(std::string_view key, bool removed) {
    if (change_count_ != nullptr) ++*change_count_;
    if (observer_ != nullptr) [[unlikely]]
      observer_->KeyModified(*this, key, removed);
  }

  // Frees the large value an entry owns (now or through the reclaimer).
  void ReleaseValue(Entry* entry);
  Entry* Relocate(Entry* existing, std::size_t needed);
  // A copy of a short entry made wide, relinked in its place; `entry` is invalid afterwards.
  Entry* Widen(Entry* entry);
  std::uint32_t NowStamp() const {
    return access_clock_ != nullptr ? access_clock_->NewStamp() : 0;
  }

  Random& random_;
  std::uint64_t seed_;
  std::unique_ptr<EntryPool> own_pool_;
  EntryPool& pool_;
  Reclaimer* reclaimer_;
  bool timed_;
  Table tables_[2];
  std::int64_t rehash_index_ = -1;  // next bucket of tables_[0] to move, -1 when not resizing
  std::size_t volatile_count_ = 0;
  std::uint64_t expire_cursor_ = 0;  // where active expiry's sweep goes on
  std::vector<Entry*> sweep_;        // one sweep step's entries, reused
  KeyspaceStats stats_;
  ExpiryListener* expiry_listener_ = nullptr;
  bool keep_expired_ = false;
  bool unattributed_ = false;
  int db_index_ = 0;
  std::size_t bucket_bytes_ = 0;
  std::size_t clear_index_ = 0;  // ClearSome's progress through tables_[0], then tables_[1]
  std::string scratch_;
  KeyObserver* observer_ = nullptr;
  const AccessClock* access_clock_ = nullptr;
  std::uint64_t* change_count_ = nullptr;
};

inline Keyspace* Entry::table() const { return static_cast<Keyspace*>(large()); }

}  // namespace warden::storage
