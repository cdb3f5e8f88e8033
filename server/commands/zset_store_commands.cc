// Sorted set algebra: ZUNION, ZINTER, ZDIFF, their STORE forms and ZINTERCARD, after Redis's
// zunionInterDiffGenericCommand. Plain sets are inputs too, every member scoring 1. A result
// is listed (or stored) in (score, member) order, as Redis builds it as a sorted set first.
#include <algorithm>
#include <cmath>
#include <string>
#include <unordered_map>
#include <vector>

#include "protocol/request_parser.h"
#include "server/command_table.h"
#include "server/commands/commands.h"
#include "server/commands/typed_lookup.h"
#include "server/commands/zset_ops.h"
#include "server/errors.h"
#include "server/notify.h"
#include "storage/set.h"

namespace warden::server {
namespace {

using storage::Entry;
using storage::ZsetItem;

enum class SetOp { kUnion, kInter, kDiff };
enum class Aggregate { kSum, kMin, kMax };

// One input: a sorted set, a plain set, or a missing key (empty).
struct Source {
  const Entry* entry = nullptr;
  double weight = 1;

  std::size_t size() const {
    if (entry == nullptr) return 0;
    return entry->type() == storage::ValueType::kSet ? storage::SetSize(*entry)
                                                     : storage::ZsetSize(*entry);
  }
  std::optional<double> Score(std::string_view member) const {
    if (entry == nullptr) return std::nullopt;
    if (entry->type() == storage::ValueType::kSet) {
      return storage::SetContains(*entry, member) ? std::optional<double>(1.0) : std::nullopt;
    }
    return storage::ZsetScore(*entry, member);
  }
  // Calls fn(member, score) for every element.
  template <typename Fn>
  void ForEach(Fn&& fn) const {
    if (entry == nullptr) return;
    if (entry->type() == storage::ValueType::kSet) {
      storage::SetForEach(*entry, [&](std::string_view m) { fn(m, 1.0); });
      return;
    }
    storage::ZsetVisit(*entry, 0, false, [&](std::string_view m, double s) {
      fn(m, s);
      return true;
    });
  }
};

void AggregateInto(double& target, double value, Aggregate aggregate) {
  if (aggregate == Aggregate::kSum) {
    target += value;
    // inf + -inf: Redis keeps 0 rather than NaN.
    if (std::isnan(target)) target = 0;
  } else if (aggregate == Aggregate::kMin) {
    target = value < target ? value : target;
  } else {
    target = value > target ? value : target;
  }
}

double Weighted(double score, double weight) {
  const double v = score * weight;
  return std::isnan(v) ? 0 : v;
}

std::vector<ZsetItem> Inter(std::vector<Source> sources, Aggregate aggregate,
                            std::size_t* cardinality, std::size_t limit) {
  std::vector<ZsetItem> out;
  std::stable_sort(sources.begin(), sources.end(),
                   [](const Source& a, const Source& b) { return a.size() < b.size(); });
  if (sources[0].size() == 0) return out;
  bool full = false;
  sources[0].ForEach([&](std::string_view m, double s) {
    if (full) return;
    double score = Weighted(s, sources[0].weight);
    for (std::size_t j = 1; j < sources.size(); ++j) {
      // The same key twice: its score, weighted again (Redis reads it directly).
      const std::optional<double> found =
          sources[j].entry == sources[0].entry ? std::optional<double>(s) : sources[j].Score(m);
      if (!found) return;
      AggregateInto(score, *found * sources[j].weight, aggregate);
    }
    if (cardinality != nullptr) {
      ++*cardinality;
      if (limit > 0 && *cardinality >= limit) full = true;
      return;
    }
    out.push_back({std::string(m), score});
  });
  return out;
}

std::vector<ZsetItem> Union(std::vector<Source> sources, Aggregate aggregate) {
  std::stable_sort(sources.begin(), sources.end(),
                   [](const Source& a, const Source& b) { return a.size() < b.size(); });
  std::vector<ZsetItem> out;
  std::unordered_map<std::string, std::size_t> index;
  for (const Source& source : sources) {
    source.ForEach([&](std::string_view m, double s) {
      const double score = Weighted(s, source.weight);
      const auto [it, fresh] = index.try_emplace(std::string(m), out.size());
      if (fresh) {
        out.push_back({it->first, score});
      } else {
        AggregateInto(out[it->second].score, score, aggregate);
      }
    });
  }
  return out;
}

std::vector<ZsetItem> Diff(const std::vector<Source>& sources) {
  std::vector<ZsetItem> out;
  sources[0].ForEach([&](std::string_view m, double s) {
    for (std::size_t j = 1; j < sources.size(); ++j) {
      if (sources[j].entry == sources[0].entry || sources[j].Score(m)) return;
    }
    out.push_back({std::string(m), s});
  });
  return out;
}

void SortItems(std::vector<ZsetItem>& items) {
  std::sort(items.begin(), items.end(), [](const ZsetItem& a, const ZsetItem& b) {
    if (a.score != b.score) return a.score < b.score;
    return a.member < b.member;
  });
}

// `numkeys_at` is where numkeys is; `store` says whether argument 1 is a destination.
void ZsetOperation(CommandContext& ctx, std::size_t numkeys_at, SetOp op, bool store,
                   bool cardinality_only) {
  std::int64_t numkeys = 0;
  if (!IntegerArg(ctx, ctx.arg(numkeys_at), numkeys)) return;
  if (numkeys < 1) {
    ctx.reply.Error({"ERR at least 1 input key is needed for '", ctx.spec.name, "' command"});
    return;
  }
  if (numkeys > static_cast<std::int64_t>(ctx.argc() - numkeys_at - 1)) {
    ctx.reply.Error(errors::kSyntax);
    return;
  }
  const auto n = static_cast<std::size_t>(numkeys);
  // Every key is looked up, and its type checked, before the options are read.
  std::vector<Source> sources(n);
  for (std::size_t i = 0; i < n; ++i) {
    Entry* e = ctx.keyspace().Find(ctx.arg(numkeys_at + 1 + i), ctx.now_ms);
    if (e == nullptr) NotifyKeyMiss(ctx, ctx.arg(numkeys_at + 1 + i));
    if (e != nullptr && e->type() != storage::ValueType::kZset &&
        e->type() != storage::ValueType::kSet) {
      ctx.reply.Error(errors::kWrongType);
      return;
    }
    sources[i].entry = e;
  }
  Aggregate aggregate = Aggregate::kSum;
  bool with_scores = false;
  std::int64_t limit = 0;
  const bool weighs = op != SetOp::kDiff && !cardinality_only;
  for (std::size_t j = numkeys_at + 1 + n; j < ctx.argc();) {
    const std::size_t remaining = ctx.argc() - j;
    const std::string_view opt = ctx.arg(j);
    if (weighs && remaining >= n + 1 && ArgIs(opt, "weights")) {
      ++j;
      for (std::size_t i = 0; i < n; ++i, ++j) {
        if (!ParseScore(ctx.arg(j), sources[i].weight)) {
          ctx.reply.Error(errors::kZsetWeightNotFloat);
          return;
        }
      }
    } else if (weighs && remaining >= 2 && ArgIs(opt, "aggregate")) {
      const std::string_view how = ctx.arg(j + 1);
      if (ArgIs(how, "sum")) {
        aggregate = Aggregate::kSum;
      } else if (ArgIs(how, "min")) {
        aggregate = Aggregate::kMin;
      } else if (ArgIs(how, "max")) {
        aggregate = Aggregate::kMax;
      } else {
        ctx.reply.Error(errors::kSyntax);
        return;
      }
      j += 2;
    } else if (!store && !cardinality_only && ArgIs(opt, "withscores")) {
      with_scores = true;
      ++j;
    } else if (cardinality_only && remaining >= 2 && ArgIs(opt, "limit")) {
      if (!protocol::ParseStrictInt64(ctx.arg(j + 1), limit) || limit < 0) {
        ctx.reply.Error(errors::kLimitNegative);
        return;
      }
      j += 2;
    } else {
      ctx.reply.Error(errors::kSyntax);
      return;
    }
  }
  if (cardinality_only) {
    std::size_t cardinality = 0;
    Inter(sources, aggregate, &cardinality, static_cast<std::size_t>(limit));
    ctx.reply.Integer(static_cast<std::int64_t>(cardinality));
    return;
  }
  std::vector<ZsetItem> items = op == SetOp::kUnion   ? Union(sources, aggregate)
                                : op == SetOp::kInter ? Inter(sources, aggregate, nullptr, 0)
                                                      : Diff(sources);
  SortItems(items);
  if (store) {
    storage::Keyspace& keyspace = ctx.keyspace();
    const bool existed = keyspace.Erase(ctx.arg(1), ctx.now_ms);
    if (!items.empty()) {
      // Built as a skiplist, then made a listpack if it is small enough.
      storage::ZsetStore(keyspace, ctx.arg(1), items, storage::ZsetFitsPacked(items, ctx.limits()));
      if (!existed) NotifyNew(ctx, ctx.arg(1));
      Notify(ctx, notify::kZset,
             op == SetOp::kUnion   ? "zunionstore"
             : op == SetOp::kInter ? "zinterstore"
                                   : "zdiffstore",
             ctx.arg(1));
    } else if (existed) {
      Notify(ctx, notify::kGeneric, "del", ctx.arg(1));
    }
    ctx.reply.Integer(static_cast<std::int64_t>(items.size()));
    return;
  }
  const bool nested = with_scores && ctx.reply.protocol() == 3;
  ctx.reply.ArrayHeader(with_scores && !nested ? items.size() * 2 : items.size());
  for (const ZsetItem& item : items) {
    if (nested) ctx.reply.ArrayHeader(2);
    ctx.reply.Bulk(item.member);
    if (with_scores) ctx.reply.Double(item.score);
  }
}

}  // namespace

void ZunionCommand(CommandContext& ctx) { ZsetOperation(ctx, 1, SetOp::kUnion, false, false); }
void ZinterCommand(CommandContext& ctx) { ZsetOperation(ctx, 1, SetOp::kInter, false, false); }
void ZdiffCommand(CommandContext& ctx) { ZsetOperation(ctx, 1, SetOp::kDiff, false, false); }
void ZunionstoreCommand(CommandContext& ctx) { ZsetOperation(ctx, 2, SetOp::kUnion, true, false); }
void ZinterstoreCommand(CommandContext& ctx) { ZsetOperation(ctx, 2, SetOp::kInter, true, false); }
void ZdiffstoreCommand(CommandContext& ctx) { ZsetOperation(ctx, 2, SetOp::kDiff, true, false); }
void ZintercardCommand(CommandContext& ctx) { ZsetOperation(ctx, 1, SetOp::kInter, false, true); }

}  // namespace warden::server
