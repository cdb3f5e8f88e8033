// HyperLogLog commands: PFADD, PFCOUNT, PFMERGE, PFDEBUG and PFSELFTEST. A HyperLogLog is a
// string in Redis's exact representation (storage/hyperloglog.h), changed in place in its entry.
//
// As in Redis 7.0, PFCOUNT of one key writes the estimate it computes back into the header; that
// is a change (WATCH sees it, and the PFCOUNT itself is propagated), though the command is a read.
// A command that looks a HyperLogLog up to write it makes the string raw first, as Redis's
// dbUnshareStringValue does, without counting that as a change.
#include <cstdint>
#include <optional>
#include <string>

#include "server/commands/commands.h"
#include "server/commands/typed_lookup.h"
#include "server/errors.h"
#include "storage/hyperloglog.h"

namespace warden::server {
namespace {

namespace hll = storage::hll;
using storage::Entry;
using storage::Keyspace;
using storage::ValueType;

// A HyperLogLog's bytes in its keyspace entry; growing or shrinking them moves the entry, which
// the caller's pointer follows.
class EntryBytes final : public hll::HllBytes {
 public:
  EntryBytes(Keyspace& keyspace, Entry*& entry) : keyspace_(keyspace), entry_(entry) { Sync(); }
  void Resize(std::size_t size) override {
    entry_ = keyspace_.ResizeValue(entry_, size, storage::Encoding::kStringRaw);
    Sync();
  }

 private:
  void Sync() {
    data_ = reinterpret_cast<std::uint8_t*>(Keyspace::ValueBytes(entry_));
    size_ = entry_->value().size();
  }
  Keyspace& keyspace_;
  Entry*& entry_;
};

// isHLLObjectOrReply: false after replying when `entry` is not a string holding a HyperLogLog.
[[nodiscard]] bool IsHllOrReply(CommandContext& ctx, const Entry* entry) {
  if (!entry->is_string()) {
    ctx.reply.Error(errors::kWrongType);
    return false;
  }
  if (!hll::IsHll(entry->value())) {
    ctx.reply.Error(errors::kNotHll);
    return false;
  }
  return true;
}

// Raises `max` to the registers of every key from argument `first` on (missing keys are empty);
// false after replying. `any_dense`, if given, learns whether one of them is dense.
[[nodiscard]] bool MergeKeysOrReply(CommandContext& ctx, std::size_t first, hll::Registers& max,
                                    bool* any_dense) {
  for (std::size_t j = first; j < ctx.argc(); ++j) {
    Entry* entry = ctx.keyspace().Find(ctx.arg(j), ctx.now_ms);
    if (entry == nullptr) {
      NotifyKeyMiss(ctx, ctx.arg(j));
      continue;
    }
    if (!IsHllOrReply(ctx, entry)) return false;
    if (any_dense != nullptr && hll::EncodingOf(entry->value()) == hll::kDense) *any_dense = true;
    if (!hll::MergeInto(entry->value(), max)) {
      ctx.reply.Error(errors::kCorruptHll);
      return false;
    }
  }
  return true;
}

void MakeRaw(Entry* entry) { Keyspace::SetStringEncoding(entry, storage::Encoding::kStringRaw); }

// While one lives, the keyspace's changes are counted (so the command is propagated) but not
// signalled: no WATCH or tracking client hears of them. Redis signals a HyperLogLog's key once a
// command has written it whole (signalModifiedKey), not at each step, and not at all for PFDEBUG's
// conversions or the partial writes of a PFADD that then meets a corrupt form.
class Unsignaled {
 public:
  explicit Unsignaled(Keyspace& keyspace) : keyspace_(keyspace), observer_(keyspace.observer()) {
    keyspace.set_observer(nullptr);
  }
  ~Unsignaled() { keyspace_.set_observer(observer_); }
  Unsignaled(const Unsignaled&) = delete;
  Unsignaled& operator=(const Unsignaled&) = delete;

 private:
  Keyspace& keyspace_;
  storage::KeyObserver* observer_;
};

}  // namespace

void PfaddCommand(CommandContext& ctx) {
  Keyspace& keyspace = ctx.keyspace();
  const std::string_view key = ctx.arg(1);
  Entry* entry = keyspace.Find(key, ctx.now_ms);
  int updated = 0;
  if (entry == nullptr) {
    entry = keyspace.Store(key, hll::Empty(), storage::kNoDeadline, nullptr,
                           storage::Encoding::kStringRaw);
    NotifyNew(ctx, key);
    ++updated;
  } else {
    if (!IsHllOrReply(ctx, entry)) return;
    MakeRaw(entry);
  }
  EntryBytes bytes(keyspace, entry);
  const std::size_t sparse_max = ctx.limits().hll_sparse_max_bytes;
  bool corrupt = false;
  {
    const Unsignaled unsignaled(keyspace);
    for (std::size_t j = 2; j < ctx.argc() && !corrupt; ++j) {
      const hll::Change change = hll::Add(bytes, ctx.arg(j), sparse_max);
      if (change == hll::Change::kChanged) ++updated;
      corrupt = change == hll::Change::kCorrupt;
    }
  }
  if (corrupt) {
    ctx.reply.Error(errors::kCorruptHll);
    return;
  }
  if (updated != 0) {
    keyspace.NoteModified(key);
    Notify(ctx, notify::kString, "pfadd", key);
    hll::InvalidateCache(bytes.data());
  }
  ctx.reply.Integer(updated != 0 ? 1 : 0);
}

void PfcountCommand(CommandContext& ctx) {
  if (ctx.argc() > 2) {
    hll::Registers max{};
    if (!MergeKeysOrReply(ctx, 1, max, nullptr)) return;
    ctx.reply.Integer(static_cast<std::int64_t>(hll::CountRegisters(max)));
    return;
  }
  Entry* entry = nullptr;
  if (!LookupTypedRead(ctx, ctx.arg(1), ValueType::kString, entry)) return;
  if (entry == nullptr) {
    ctx.reply.Integer(0);
    return;
  }
  if (!IsHllOrReply(ctx, entry)) return;
  MakeRaw(entry);
  const std::string_view value = entry->value();
  if (hll::CacheValid(value)) {
    ctx.reply.Integer(static_cast<std::int64_t>(hll::CachedCount(value)));
    return;
  }
  const std::optional<std::uint64_t> count = hll::Count(value);
  if (!count) {
    ctx.reply.Error(errors::kCorruptHll);
    return;
  }
  hll::StoreCount(reinterpret_cast<std::uint8_t*>(Keyspace::ValueBytes(entry)), *count);
  ctx.keyspace().NoteModified(ctx.arg(1));
  ctx.reply.Integer(static_cast<std::int64_t>(*count));
}

void PfmergeCommand(CommandContext& ctx) {
  hll::Registers max{};
  bool use_dense = false;
  // The destination is a source too.
  if (!MergeKeysOrReply(ctx, 1, max, &use_dense)) return;
  Keyspace& keyspace = ctx.keyspace();
  const std::string_view key = ctx.arg(1);
  Entry* entry = keyspace.Find(key, ctx.now_ms);
  if (entry == nullptr) {
    entry = keyspace.Store(key, hll::Empty(), storage::kNoDeadline, nullptr,
                           storage::Encoding::kStringRaw);
    NotifyNew(ctx, key);
  } else {
    MakeRaw(entry);
  }
  EntryBytes bytes(keyspace, entry);
  if (use_dense && !hll::ToDense(bytes)) {
    ctx.reply.Error(errors::kCorruptHll);
    return;
  }
  {
    const Unsignaled unsignaled(keyspace);
    hll::StoreMax(bytes, max, ctx.limits().hll_sparse_max_bytes);
  }
  hll::InvalidateCache(bytes.data());
  keyspace.NoteModified(key);
  // Redis announces a merge as a PFADD: in effect it adds many elements.
  Notify(ctx, notify::kString, "pfadd", key);
  ctx.reply.Ok();
}

void PfdebugCommand(CommandContext& ctx) {
  const std::string_view sub = ctx.arg(1);
  Keyspace& keyspace = ctx.keyspace();
  Entry* entry = keyspace.Find(ctx.arg(2), ctx.now_ms);
  if (entry == nullptr) {
    ctx.reply.Error("ERR The specified key does not exist");
    return;
  }
  if (!IsHllOrReply(ctx, entry)) return;
  MakeRaw(entry);
  EntryBytes bytes(keyspace, entry);
  const bool sparse = hll::EncodingOf(entry->value()) == hll::kSparse;
  if (ArgIs(sub, "getreg") || ArgIs(sub, "todense")) {
    // A conversion is a change (Redis counts it so that replicas convert too), but unsignaled.
    bool converted = true;
    if (sparse) {
      const Unsignaled unsignaled(keyspace);
      converted = hll::ToDense(bytes);
    }
    if (!converted) {
      ctx.reply.Error(errors::kCorruptHll);
      return;
    }
    if (ArgIs(sub, "todense")) {
      ctx.reply.Integer(sparse ? 1 : 0);
      return;
    }
    ctx.reply.ArrayHeader(hll::kRegisters);
    for (std::size_t j = 0; j < hll::kRegisters; ++j) {
      ctx.reply.Integer(hll::DenseRegister(entry->value(), j));
    }
  } else if (ArgIs(sub, "decode")) {
    if (!sparse) {
      ctx.reply.Error("ERR HLL encoding is not sparse");
      return;
    }
    std::string decoded;
    hll::DecodeSparse(entry->value(), decoded);
    ctx.reply.Bulk(decoded);
  } else if (ArgIs(sub, "encoding")) {
    ctx.reply.Status(sparse ? "sparse" : "dense");
  } else {
    ctx.reply.Error({"ERR Unknown PFDEBUG subcommand '", sub, "'"});
  }
}

void PfselftestCommand(CommandContext& ctx) {
  // Seeded from the clock, not a shared generator: Redis draws from rand().
  const std::string failure =
      hll::SelfTest(static_cast<std::uint64_t>(ctx.now_ms) ^ 0x9E3779B97F4A7C15ull,
                    ctx.limits().hll_sparse_max_bytes);
  if (failure.empty()) {
    ctx.reply.Ok();
  } else {
    ctx.reply.Error({"TESTFAILED ", failure});
  }
}

}  // namespace warden::server
