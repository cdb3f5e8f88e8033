// XREAD and XREADGROUP, with BLOCK. A read that finds nothing blocks the client on its keys
// (server/blocking.h) with `$` replaced by the id it stood for, and runs again when a key
// receives data: then it serves only that key, at most COUNT entries (1000 without COUNT), as
// Redis 7.0 serves blocked stream readers.
#include <string>
#include <vector>

#include "protocol/request_parser.h"
#include "server/command_table.h"
#include "server/commands/blocking_ops.h"
#include "server/commands/commands.h"
#include "server/commands/stream_ops.h"
#include "server/commands/typed_lookup.h"
#include "server/errors.h"
#include "server/notify.h"
#include "server/persistence/propagation.h"
#include "storage/scratch_vector.h"

namespace warden::server {
namespace {

using storage::Entry;
using storage::Stream;
using storage::StreamConsumer;
using storage::StreamGroup;
using storage::StreamId;

// Redis's XREAD_BLOCKED_DEFAULT_COUNT: what a woken reader without COUNT gets at most.
constexpr std::size_t kBlockedDefaultCount = 1000;

struct ReadArgs {
  bool group_form = false;  // XREADGROUP
  bool block = false;
  std::int64_t deadline_ms = 0;
  std::size_t count = 0;
  std::size_t streams = 0;  // where the keys start
  std::size_t n = 0;        // how many streams
  bool noack = false;
  std::string_view group;
  std::string_view consumer;
};

[[nodiscard]] bool ParseRead(CommandContext& ctx, ReadArgs& a) {
  for (std::size_t i = 1; i < ctx.argc(); ++i) {
    const std::size_t more = ctx.argc() - i - 1;
    const std::string_view o = ctx.arg(i);
    if (ArgIs(o, "block") && more > 0) {
      if (ctx.session.is_script) {
        ctx.reply.Error(
            {"ERR ", ctx.arg(0), " command is not allowed with BLOCK option from scripts"});
        return false;
      }
      std::int64_t ms = 0;
      if (!protocol::ParseStrictInt64(ctx.arg(++i), ms)) {
        ctx.reply.Error("ERR timeout is not an integer or out of range");
        return false;
      }
      if (ms < 0) {
        ctx.reply.Error("ERR timeout is negative");
        return false;
      }
      a.block = true;
      if (ms == 0 || __builtin_add_overflow(ms, ctx.now_ms, &a.deadline_ms)) a.deadline_ms = 0;
    } else if (ArgIs(o, "count") && more > 0) {
      std::int64_t count = 0;
      if (!IntegerArg(ctx, ctx.arg(++i), count)) return false;
      a.count = count < 0 ? 0 : static_cast<std::size_t>(count);
    } else if (ArgIs(o, "streams") && more > 0) {
      a.streams = i + 1;
      const std::size_t rest = ctx.argc() - a.streams;
      if (rest % 2 != 0) {
        ctx.reply.Error(
            "ERR Unbalanced XREAD list of streams: for each stream key an ID or '$' must be "
            "specified.");
        return false;
      }
      a.n = rest / 2;
      break;
    } else if (ArgIs(o, "group") && more >= 2) {
      if (!a.group_form) {
        ctx.reply.Error(
            "ERR The GROUP option is only supported by XREADGROUP. You called XREAD instead.");
        return false;
      }
      a.group = ctx.arg(i + 1);
      a.consumer = ctx.arg(i + 2);
      i += 2;
    } else if (ArgIs(o, "noack")) {
      if (!a.group_form) {
        ctx.reply.Error(
            "ERR The NOACK option is only supported by XREADGROUP. You called XREAD instead.");
        return false;
      }
      a.noack = true;
    } else {
      ctx.reply.Error(errors::kSyntax);
      return false;
    }
  }
  if (a.streams == 0) {
    ctx.reply.Error(errors::kSyntax);
    return false;
  }
  if (a.group_form && a.group.data() == nullptr) {
    ctx.reply.Error("ERR Missing GROUP option for XREADGROUP");
    return false;
  }
  return true;
}

// Finds the consumer, refreshing its seen time, or creates it as Redis's XREADGROUP does.
StreamConsumer* ReaderConsumer(CommandContext& ctx, std::string_view key, StreamGroup& group,
                               const ReadArgs& a) {
  bool created = false;
  StreamConsumer* consumer = group.GetConsumer(a.consumer, ctx.live_now_ms(), &created);
  consumer->seen_time = ctx.live_now_ms();
  if (created) {
    ctx.server.dbs.CountChange();
    Notify(ctx, notify::kStream, "xgroup-createconsumer", key);
    if (a.noack) PropagateConsumerCreation(ctx, key, a.group, a.consumer);
  }
  return consumer;
}

// The consumer's own pending entries from `start` on (a history read).
void ReplyHistory(CommandContext& ctx, const Stream& stream, StreamConsumer& consumer,
                  StreamId start, std::size_t count) {
  const std::size_t mark = ctx.reply.DeferredMark();
  std::size_t n = 0;
  const std::int64_t now = ctx.live_now_ms();
  for (auto it = consumer.pel.lower_bound(start); it != consumer.pel.end(); ++it) {
    if (count != 0 && n == count) break;
    const bool found = stream.Get(it->first, [&](std::span<const Stream::Field> fields) {
      ReplyStreamEntry(ctx, it->first, fields);
    });
    if (found) {
      it->second->delivery_time = now;
      ++it->second->delivery_count;
    } else {
      // Deleted since it was delivered: the id with no fields.
      ctx.reply.ArrayHeader(2);
      ReplyStreamId(ctx, it->first);
      ctx.reply.NullArray();
    }
    ++n;
  }
  ctx.reply.InsertArrayHeader(mark, n);
}

// New entries after `after` for a group (or, with `group` null, a plain reader): Redis's
// streamReplyWithRange with a group, which moves the group on and fills the PEL.
void ReplyNew(CommandContext& ctx, std::string_view key, Stream& stream, StreamId after,
              std::size_t count, StreamGroup* group, StreamConsumer* consumer, const ReadArgs& a) {
  StreamId start = after;
  start.Increment();
  if (group == nullptr) {
    ReplyStreamRange(ctx, stream, start, StreamId::Max(), count, false);
    return;
  }
  const std::size_t mark = ctx.reply.DeferredMark();
  std::size_t n = 0;
  bool moved = false;
  const std::int64_t now = ctx.live_now_ms();
  stream.Range(start, StreamId::Max(), false, [&](StreamId id, std::span<const Stream::Field> f) {
    if (id > group->last_id) {
      group->Advance(stream, id);
      moved = true;
    }
    ReplyStreamEntry(ctx, id, f);
    if (!a.noack) {
      const storage::StreamPending& pending = group->Deliver(id, consumer, now);
      PropagateClaim(ctx, key, a.group, *group, id, pending);
    }
    return ++n != count;
  });
  ctx.reply.InsertArrayHeader(mark, n);
  if (a.noack && moved) PropagateGroupId(ctx, key, a.group, *group);
}

// Whether a live entry follows `after`. Redis wakes a stream reader only for an XADD (and a
// key that goes); warden retries it on any write to the key, so a write that added nothing
// (EXPIRE, XSETID past a deleted tail) must leave it waiting.
bool HasEntryAfter(const Stream& stream, StreamId after) {
  if (stream.last_id() <= after || !after.Increment()) return false;
  bool found = false;
  stream.Range(after, StreamId::Max(), false, [&](StreamId, std::span<const Stream::Field>) {
    found = true;
    return false;
  });
  return found;
}

void StreamHeader(CommandContext& ctx, std::string_view key) {
  if (ctx.session.resp != 3) ctx.reply.ArrayHeader(2);
  ctx.reply.Bulk(key);
}

// A woken reader: serves the key that received data, or goes on waiting.
void ServeRetry(CommandContext& ctx, const ReadArgs& a) {
  const std::string_view key = ctx.server.blocking.retry_key();
  std::size_t i = 0;
  while (i < a.n && ctx.arg(a.streams + i) != key) ++i;
  const std::string_view id_arg = ctx.arg(a.streams + a.n + i);
  Entry* entry = ctx.keyspace().Find(key, ctx.now_ms);
  const bool is_stream = entry != nullptr && entry->type() == storage::ValueType::kStream;
  if (a.group_form && !is_stream) {
    ctx.reply.Error("UNBLOCKED the stream key no longer exists");
    return;
  }
  const std::size_t count = a.count != 0 ? a.count : kBlockedDefaultCount;
  if (is_stream) {
    Stream& stream = *storage::StreamOf(*entry);
    StreamId after;
    StreamGroup* group = nullptr;
    if (a.group_form) {
      group = FindStreamGroup(stream, a.group);
      if (group == nullptr) {
        ctx.reply.Error("NOGROUP the consumer group this client was blocked on no longer exists");
        return;
      }
      after = group->last_id;
    } else {
      ParseStreamId(id_arg, 0, true, nullptr, after);
    }
    if (HasEntryAfter(stream, after)) {
      StreamConsumer* consumer = group != nullptr ? ReaderConsumer(ctx, key, *group, a) : nullptr;
      if (ctx.session.resp == 3) {
        ctx.reply.MapHeader(1);
      } else {
        ctx.reply.ArrayHeader(1);
      }
      StreamHeader(ctx, key);
      ReplyNew(ctx, key, stream, after, count, group, consumer, a);
      return;
    }
  }
  // Nothing new for this reader: it keeps its place.
  ctx.server.blocking.Block(ctx.session, ctx.spec, ctx.args, {}, 0);
}

void ReadCommand(CommandContext& ctx, bool group_form) {
  ReadArgs a;
  a.group_form = group_form;
  if (!ParseRead(ctx, a)) return;
  if (group_form) ctx.server.propagation.Suppress();
  if (Retrying(ctx)) {
    ServeRetry(ctx, a);
    return;
  }
  storage::ScratchVector<StreamId> after_ids;
  storage::ScratchVector<StreamGroup*> group_list;
  std::vector<StreamId>& after = *after_ids;
  std::vector<StreamGroup*>& groups = *group_list;
  after.resize(a.n);
  groups.resize(group_form ? a.n : 0);
  std::vector<std::string> resolved;  // `$` as the id it stood for, for a wait
  for (std::size_t i = 0; i < a.n; ++i) {
    const std::string_view key = ctx.arg(a.streams + i);
    const std::string_view id_arg = ctx.arg(a.streams + a.n + i);
    Entry* entry = nullptr;
    if (!LookupTypedRead(ctx, key, storage::ValueType::kStream, entry)) return;
    if (group_form) {
      StreamGroup* group =
          entry != nullptr ? FindStreamGroup(*storage::StreamOf(*entry), a.group) : nullptr;
      if (group == nullptr) {
        ctx.reply.Error({"NOGROUP No such key '", errors::CString(key), "' or consumer group '",
                         errors::CString(a.group), "' in XREADGROUP with GROUP option"});
        return;
      }
      groups[i] = group;
    }
    if (id_arg == "$") {
      if (group_form) {
        ctx.reply.Error(
            "ERR The $ ID is meaningless in the context of XREADGROUP: you want to read the "
            "history of this consumer by specifying a proper ID, or use the > ID to get new "
            "messages. The $ ID would just return an empty result set.");
        return;
      }
      after[i] = entry != nullptr ? storage::StreamOf(*entry)->last_id() : StreamId{};
      continue;
    }
    if (id_arg == ">") {
      if (!group_form) {
        ctx.reply.Error(
            "ERR The > ID can be specified only when calling XREADGROUP using the GROUP "
            "<group> <consumer> option.");
        return;
      }
      after[i] = StreamId::Max();
      continue;
    }
    if (!StreamIdArg(ctx, id_arg, 0, true, nullptr, after[i])) return;
  }

  std::size_t served = 0;
  std::size_t mark = 0;
  for (std::size_t i = 0; i < a.n; ++i) {
    const std::string_view key = ctx.arg(a.streams + i);
    Entry* entry = nullptr;
    // The types were checked above; the second lookup is Redis's own (xreadCommand looks every
    // key up twice, and a missing one notifies keymiss twice).
    if (!LookupTypedRead(ctx, key, storage::ValueType::kStream, entry)) return;
    if (entry == nullptr) continue;
    Stream& stream = *storage::StreamOf(*entry);
    StreamId gt = after[i];
    bool serve = false;
    bool history = false;
    if (group_form) {
      if (gt != StreamId::Max()) {
        serve = history = true;
      } else if (stream.length() != 0) {
        StreamId top;
        stream.EdgeId(false, top);
        if (top > groups[i]->last_id) {
          serve = true;
          gt = groups[i]->last_id;
        }
      }
    } else if (stream.length() != 0) {
      StreamId top;
      stream.EdgeId(false, top);
      serve = top > gt;
    }
    if (!serve) continue;
    if (++served == 1) mark = ctx.reply.DeferredMark();
    StreamHeader(ctx, key);
    StreamConsumer* consumer = group_form ? ReaderConsumer(ctx, key, *groups[i], a) : nullptr;
    if (history) {
      StreamId start = gt;
      start.Increment();
      ReplyHistory(ctx, stream, *consumer, start, a.count);
    } else {
      ReplyNew(ctx, key, stream, gt, a.count, group_form ? groups[i] : nullptr, consumer, a);
    }
    if (group_form) ctx.server.dbs.CountChange();
  }
  if (served != 0) {
    // RESP3: a map of stream to entries; RESP2: an array of [stream, entries] pairs.
    if (ctx.session.resp == 3) {
      ctx.reply.InsertMapHeader(mark, served);
    } else {
      ctx.reply.InsertArrayHeader(mark, served);
    }
    return;
  }
  if (!a.block || !(CanBlock(ctx))) {
    ctx.reply.NullArray();
    return;
  }
  // Blocks with `$` written as the id it stood for, so a retry reads after that id.
  std::vector<std::string_view> args(ctx.args.begin(), ctx.args.end());
  resolved.reserve(a.n);
  for (std::size_t i = 0; i < a.n; ++i) {
    if (ctx.arg(a.streams + a.n + i) != "$") continue;
    char buf[48];
    resolved.emplace_back(after[i].Format(buf));
    args[a.streams + a.n + i] = resolved.back();
  }
  ctx.server.blocking.Block(ctx.session, ctx.spec, args, ctx.args.subspan(a.streams, a.n),
                            a.deadline_ms);
}

}  // namespace

void XreadCommand(CommandContext& ctx) { ReadCommand(ctx, false); }

void XreadgroupCommand(CommandContext& ctx) { ReadCommand(ctx, true); }

}  // namespace warden::server
