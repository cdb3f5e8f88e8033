// Consumer groups: XGROUP's subcommands, XACK, XPENDING, XCLAIM and XAUTOCLAIM. The model is
// storage/stream_group.h. XCLAIM and XAUTOCLAIM are written to the append-only file as the
// exact XCLAIMs of what they changed, never as sent, as Redis propagates them.
#include <algorithm>
#include <string>
#include <vector>

#include "protocol/request_parser.h"
#include "server/command_table.h"
#include "server/commands/commands.h"
#include "server/commands/stream_ops.h"
#include "server/commands/typed_lookup.h"
#include "server/errors.h"
#include "server/notify.h"
#include "server/persistence/propagation.h"

namespace warden::server {
namespace {

using storage::Entry;
using storage::Stream;
using storage::StreamConsumer;
using storage::StreamGroup;
using storage::StreamId;
using storage::StreamPel;

void SubcommandSyntaxError(CommandContext& ctx) {
  errors::SubcommandSyntax(ctx.reply, ctx.arg(0), ctx.arg(1));
}

void NoGroupForKey(CommandContext& ctx, std::string_view key, std::string_view group) {
  // Redis formats the names with %s: each ends at its first NUL.
  ctx.reply.Error({"NOGROUP No such key '", errors::CString(key), "' or consumer group '",
                   errors::CString(group), "'"});
}

// The stream at argument 1 and its group at argument 2, or a reply: WRONGTYPE, or NOGROUP for a
// missing key or group (XCLAIM, XAUTOCLAIM).
[[nodiscard]] bool FindGroup(CommandContext& ctx, Entry*& entry, StreamGroup*& group) {
  if (!LookupTypedRead(ctx, ctx.arg(1), storage::ValueType::kStream, entry)) return false;
  group = entry != nullptr ? FindStreamGroup(*storage::StreamOf(*entry), ctx.arg(2)) : nullptr;
  if (group == nullptr) {
    NoGroupForKey(ctx, ctx.arg(1), ctx.arg(2));
    return false;
  }
  return true;
}

// The consumer that claims: found (its seen time refreshed) or created, once per command.
StreamConsumer* Claimer(CommandContext& ctx, StreamGroup& group) {
  bool created = false;
  StreamConsumer* consumer = group.GetConsumer(ctx.arg(3), ctx.live_now_ms(), &created);
  consumer->seen_time = ctx.live_now_ms();
  if (created) {
    ctx.server.dbs.CountChange();
    Notify(ctx, notify::kStream, "xgroup-createconsumer", ctx.arg(1));
  }
  return consumer;
}

void ReplyClaimed(CommandContext& ctx, const Stream& stream, StreamId id, bool justid) {
  if (justid) {
    ReplyStreamId(ctx, id);
    return;
  }
  stream.Get(id, [&](std::span<const Stream::Field> fields) { ReplyStreamEntry(ctx, id, fields); });
}

}  // namespace

void XgroupCommand(CommandContext& ctx) {
  const std::string_view opt = ctx.arg(1);
  if (ArgIs(opt, "help")) {
    static constexpr std::string_view kLines[] = {
        "XGROUP <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
        "CREATE <key> <groupname> <id|$> [option]",
        "    Create a new consumer group. Options are:",
        "    * MKSTREAM",
        "      Create the empty stream if it does not exist.",
        "    * ENTRIESREAD entries_read",
        "      Set the group's entries_read counter (internal use).",
        "CREATECONSUMER <key> <groupname> <consumer>",
        "    Create a new consumer in the specified group.",
        "DELCONSUMER <key> <groupname> <consumer>",
        "    Remove the specified consumer.",
        "DESTROY <key> <groupname>",
        "    Remove the specified group.",
        "SETID <key> <groupname> <id|$> [ENTRIESREAD entries_read]",
        "    Set the current group ID and entries_read counter.",
        "HELP",
        "    Prints this help.",
    };
    ReplyHelp(ctx.reply, kLines);
    return;
  }
  const bool create = ArgIs(opt, "create");
  const bool setid = ArgIs(opt, "setid");
  bool mkstream = false;
  std::int64_t entries_read = storage::kInvalidEntriesRead;
  for (std::size_t i = 5; i < ctx.argc();) {
    if (create && ArgIs(ctx.arg(i), "mkstream")) {
      mkstream = true;
      ++i;
    } else if ((create || setid) && ArgIs(ctx.arg(i), "entriesread") && i + 1 < ctx.argc()) {
      if (!IntegerArg(ctx, ctx.arg(i + 1), entries_read)) return;
      if (entries_read < 0 && entries_read != storage::kInvalidEntriesRead) {
        ctx.reply.Error("ERR value for ENTRIESREAD must be positive or -1");
        return;
      }
      i += 2;
    } else {
      SubcommandSyntaxError(ctx);
      return;
    }
  }
  const std::string_view key = ctx.arg(2);
  const std::string_view name = ctx.arg(3);
  Entry* entry = nullptr;
  if (!LookupStream(ctx, key, entry)) return;
  Stream* stream = entry != nullptr ? storage::StreamOf(*entry) : nullptr;
  StreamGroup* group = nullptr;
  if (!mkstream) {
    if (stream == nullptr) {
      ctx.reply.Error(
          "ERR The XGROUP subcommand requires the key to exist. Note that for CREATE you may "
          "want to use the MKSTREAM option to create an empty stream automatically.");
      return;
    }
    group = FindStreamGroup(*stream, name);
    if (group == nullptr && !create && !ArgIs(opt, "destroy")) {
      ctx.reply.Error({"NOGROUP No such consumer group '", errors::CString(name),
                       "' for key name '", errors::CString(key), "'"});
      return;
    }
  }
  storage::Keyspace& keyspace = ctx.keyspace();
  if (create && ctx.argc() >= 5 && ctx.argc() <= 8) {
    StreamId id;
    if (ctx.arg(4) == "$") {
      if (stream != nullptr) id = stream->last_id();
    } else if (!StreamIdArg(ctx, ctx.arg(4), 0, true, nullptr, id)) {
      return;
    }
    if (stream == nullptr) {
      entry = storage::StreamCreate(keyspace, key);
      stream = storage::StreamOf(*entry);
      NotifyNew(ctx, key);
      keyspace.NoteModified(key);
    }
    if (stream->groups().Create(name, id, entries_read) == nullptr) {
      ctx.reply.Error("BUSYGROUP Consumer Group name already exists");
      return;
    }
    ctx.reply.Ok();
    ctx.server.dbs.CountChange();
    Notify(ctx, notify::kStream, "xgroup-create", key);
  } else if (setid && (ctx.argc() == 5 || ctx.argc() == 7)) {
    StreamId id;
    if (ctx.arg(4) == "$") {
      id = stream->last_id();
    } else if (!StreamIdArg(ctx, ctx.arg(4), 0, false, nullptr, id)) {
      return;
    }
    group->last_id = id;
    group->entries_read = entries_read;
    ctx.reply.Ok();
    ctx.server.dbs.CountChange();
    Notify(ctx, notify::kStream, "xgroup-setid", key);
  } else if (ArgIs(opt, "destroy") && ctx.argc() == 4) {
    if (group == nullptr) {
      ctx.reply.Integer(0);
      return;
    }
    stream->groups().Destroy(name);
    ctx.reply.Integer(1);
    ctx.server.dbs.CountChange();
    Notify(ctx, notify::kStream, "xgroup-destroy", key);
  } else if (ArgIs(opt, "createconsumer") && ctx.argc() == 5) {
    bool created = false;
    group->GetConsumer(ctx.arg(4), ctx.live_now_ms(), &created);
    if (created) {
      ctx.server.dbs.CountChange();
      Notify(ctx, notify::kStream, "xgroup-createconsumer", key);
    }
    ctx.reply.Integer(created ? 1 : 0);
  } else if (ArgIs(opt, "delconsumer") && ctx.argc() == 5) {
    std::int64_t pending = 0;
    if (group->FindConsumer(ctx.arg(4)) != nullptr) {
      pending = static_cast<std::int64_t>(group->DeleteConsumer(ctx.arg(4)));
      ctx.server.dbs.CountChange();
      Notify(ctx, notify::kStream, "xgroup-delconsumer", key);
    }
    ctx.reply.Integer(pending);
  } else {
    SubcommandSyntaxError(ctx);
  }
}

void XackCommand(CommandContext& ctx) {
  Entry* entry = nullptr;
  if (!LookupTypedRead(ctx, ctx.arg(1), storage::ValueType::kStream, entry)) return;
  StreamGroup* group =
      entry != nullptr ? FindStreamGroup(*storage::StreamOf(*entry), ctx.arg(2)) : nullptr;
  if (group == nullptr) {
    ctx.reply.Integer(0);
    return;
  }
  // All ids are checked first (the reply is all or nothing), then read again as acknowledged.
  StreamId id;
  for (std::size_t i = 3; i < ctx.argc(); ++i) {
    if (!StreamIdArg(ctx, ctx.arg(i), 0, true, nullptr, id)) return;
  }
  std::int64_t acked = 0;
  for (std::size_t i = 3; i < ctx.argc(); ++i) {
    ParseStreamId(ctx.arg(i), 0, true, nullptr, id);
    if (group->Ack(id)) {
      ++acked;
      ctx.server.dbs.CountChange();
    }
  }
  ctx.reply.Integer(acked);
}

void XpendingCommand(CommandContext& ctx) {
  const bool summary = ctx.argc() == 3;
  if (!summary && (ctx.argc() < 6 || ctx.argc() > 9)) {
    ctx.reply.Error(errors::kSyntax);
    return;
  }
  StreamId start;
  StreamId end;
  std::int64_t count = 0;
  std::int64_t min_idle = 0;
  std::string_view consumer_name;
  bool by_consumer = false;
  if (!summary) {
    std::size_t at = 3;
    if (ArgIs(ctx.arg(3), "idle")) {
      if (!IntegerArg(ctx, ctx.arg(4), min_idle)) return;
      if (ctx.argc() < 8) {
        ctx.reply.Error(errors::kSyntax);
        return;
      }
      at += 2;
    }
    if (!IntegerArg(ctx, ctx.arg(at + 2), count)) return;
    if (count < 0) count = 0;
    const std::string_view s = ctx.arg(at);
    const bool start_ex = s.size() > 1 && s[0] == '(';
    if (!StreamIdArg(ctx, start_ex ? s.substr(1) : s, 0, start_ex, nullptr, start)) return;
    if (start_ex && !start.Increment()) {
      ctx.reply.Error("ERR invalid start ID for the interval");
      return;
    }
    const std::string_view e = ctx.arg(at + 1);
    const bool end_ex = e.size() > 1 && e[0] == '(';
    if (!StreamIdArg(ctx, end_ex ? e.substr(1) : e, UINT64_MAX, end_ex, nullptr, end)) return;
    if (end_ex && !end.Decrement()) {
      ctx.reply.Error("ERR invalid end ID for the interval");
      return;
    }
    if (at + 3 < ctx.argc()) {
      consumer_name = ctx.arg(at + 3);
      by_consumer = true;
    }
  }
  Entry* entry = nullptr;
  StreamGroup* group = nullptr;
  if (!FindGroup(ctx, entry, group)) return;
  if (summary) {
    ctx.reply.ArrayHeader(4);
    ctx.reply.Integer(static_cast<std::int64_t>(group->pel.size()));
    if (group->pel.empty()) {
      ctx.reply.Null();
      ctx.reply.Null();
      ctx.reply.NullArray();
      return;
    }
    ReplyStreamId(ctx, group->pel.begin()->first);
    ReplyStreamId(ctx, group->pel.rbegin()->first);
    const std::size_t mark = ctx.reply.DeferredMark();
    std::size_t n = 0;
    for (const auto& [name, consumer] : group->consumers) {
      if (consumer->pel.empty()) continue;
      ctx.reply.ArrayHeader(2);
      ctx.reply.Bulk(name);
      ctx.reply.BulkInteger(static_cast<std::int64_t>(consumer->pel.size()));
      ++n;
    }
    ctx.reply.InsertArrayHeader(mark, n);
    return;
  }
  const StreamConsumer* consumer = nullptr;
  if (by_consumer) {
    consumer = group->FindConsumer(consumer_name);
    if (consumer == nullptr) {
      ctx.reply.ArrayHeader(0);
      return;
    }
  }
  const std::int64_t now = ctx.live_now_ms();
  const std::size_t mark = ctx.reply.DeferredMark();
  std::size_t n = 0;
  auto emit = [&](StreamId id, const storage::StreamPending& p) {
    if (count == 0 || id > end) return false;
    if (min_idle != 0 && now - p.delivery_time < min_idle) return true;
    ++n;
    --count;
    ctx.reply.ArrayHeader(4);
    ReplyStreamId(ctx, id);
    ctx.reply.Bulk(p.consumer->name);
    ctx.reply.Integer(std::max<std::int64_t>(0, now - p.delivery_time));
    ctx.reply.Integer(static_cast<std::int64_t>(p.delivery_count));
    return true;
  };
  if (consumer != nullptr) {
    for (auto it = consumer->pel.lower_bound(start); it != consumer->pel.end(); ++it) {
      if (!emit(it->first, *it->second)) break;
    }
  } else {
    for (auto it = group->pel.lower_bound(start); it != group->pel.end(); ++it) {
      if (!emit(it->first, it->second)) break;
    }
  }
  ctx.reply.InsertArrayHeader(mark, n);
}

void XclaimCommand(CommandContext& ctx) {
  Entry* entry = nullptr;
  StreamGroup* group = nullptr;
  if (!FindGroup(ctx, entry, group)) return;
  Stream& stream = *storage::StreamOf(*entry);
  std::int64_t min_idle = 0;
  if (!protocol::ParseStrictInt64(ctx.arg(4), min_idle)) {
    ctx.reply.Error("ERR Invalid min-idle-time argument for XCLAIM");
    return;
  }
  if (min_idle < 0) min_idle = 0;
  std::vector<StreamId> ids;
  std::size_t j = 5;
  for (; j < ctx.argc(); ++j) {
    StreamId id;
    if (!ParseStreamId(ctx.arg(j), 0, true, nullptr, id)) break;
    ids.push_back(id);
  }
  const std::int64_t now = ctx.live_now_ms();
  std::int64_t retry_count = -1;
  std::int64_t delivery_time = -1;
  bool force = false;
  bool justid = false;
  StreamId last_id;
  for (; j < ctx.argc(); ++j) {
    const bool more = j + 1 < ctx.argc();
    const std::string_view opt = ctx.arg(j);
    auto number = [&](std::string_view what, std::int64_t& out) {
      if (protocol::ParseStrictInt64(ctx.arg(++j), out)) return true;
      ctx.reply.Error({"ERR Invalid ", what, " option argument for XCLAIM"});
      return false;
    };
    if (ArgIs(opt, "force")) {
      force = true;
    } else if (ArgIs(opt, "justid")) {
      justid = true;
    } else if (ArgIs(opt, "idle") && more) {
      if (!number("IDLE", delivery_time)) return;
      // An idle time past the clock's range is a bogus time, taken as now below.
      if (__builtin_sub_overflow(now, delivery_time, &delivery_time)) delivery_time = -1;
    } else if (ArgIs(opt, "time") && more) {
      if (!number("TIME", delivery_time)) return;
    } else if (ArgIs(opt, "retrycount") && more) {
      if (!number("RETRYCOUNT", retry_count)) return;
    } else if (ArgIs(opt, "lastid") && more) {
      if (!StreamIdArg(ctx, ctx.arg(++j), 0, true, nullptr, last_id)) return;
    } else {
      ctx.reply.Error({"ERR Unrecognized XCLAIM option '", errors::CString(opt), "'"});
      return;
    }
  }
  ctx.server.propagation.Suppress();
  bool propagate_last_id = false;
  if (last_id > group->last_id) {
    group->last_id = last_id;
    propagate_last_id = true;
  }
  if (delivery_time == -1 || delivery_time < 0 || delivery_time > now) delivery_time = now;

  StreamConsumer* consumer = nullptr;
  const std::size_t mark = ctx.reply.DeferredMark();
  std::size_t n = 0;
  for (const StreamId& id : ids) {
    auto it = group->pel.find(id);
    if (!stream.Contains(id)) {
      if (it != group->pel.end()) {
        // Gone from the stream: dropped from the PEL, and the file told so.
        PropagateClaim(ctx, ctx.arg(1), ctx.arg(2), *group, id, it->second);
        propagate_last_id = false;
        ctx.server.dbs.CountChange();
        group->Ack(id);
      }
      continue;
    }
    if (force && it == group->pel.end()) it = group->pel.try_emplace(id).first;
    if (it == group->pel.end()) continue;
    storage::StreamPending& p = it->second;
    if (p.consumer != nullptr && min_idle != 0 && now - p.delivery_time < min_idle) continue;
    if (consumer == nullptr) consumer = Claimer(ctx, *group);
    if (p.consumer != consumer) {
      if (p.consumer != nullptr) p.consumer->pel.erase(id);
      p.consumer = consumer;
      consumer->pel[id] = &p;
    }
    p.delivery_time = delivery_time;
    if (retry_count >= 0) {
      p.delivery_count = static_cast<std::uint64_t>(retry_count);
    } else if (!justid) {
      ++p.delivery_count;
    }
    ReplyClaimed(ctx, stream, id, justid);
    ++n;
    PropagateClaim(ctx, ctx.arg(1), ctx.arg(2), *group, id, p);
    propagate_last_id = false;
    ctx.server.dbs.CountChange();
  }
  if (propagate_last_id) {
    PropagateGroupId(ctx, ctx.arg(1), ctx.arg(2), *group);
    ctx.server.dbs.CountChange();
  }
  ctx.reply.InsertArrayHeader(mark, n);
}

void XautoclaimCommand(CommandContext& ctx) {
  std::int64_t min_idle = 0;
  if (!protocol::ParseStrictInt64(ctx.arg(4), min_idle)) {
    ctx.reply.Error("ERR Invalid min-idle-time argument for XAUTOCLAIM");
    return;
  }
  if (min_idle < 0) min_idle = 0;
  StreamId start;
  const std::string_view s = ctx.arg(5);
  const bool start_ex = s.size() > 1 && s[0] == '(';
  if (!StreamIdArg(ctx, start_ex ? s.substr(1) : s, 0, start_ex, nullptr, start)) return;
  if (start_ex && !start.Increment()) {
    ctx.reply.Error("ERR invalid start ID for the interval");
    return;
  }
  constexpr std::int64_t kAttemptsFactor = 10;
  std::int64_t count = 100;
  bool justid = false;
  for (std::size_t j = 6; j < ctx.argc(); ++j) {
    if (ArgIs(ctx.arg(j), "count") && j + 1 < ctx.argc()) {
      std::int64_t v = 0;
      if (!protocol::ParseStrictInt64(ctx.arg(j + 1), v) || v < 1 || v > INT64_MAX / 16) {
        ctx.reply.Error("ERR COUNT must be > 0");
        return;
      }
      count = v;
      ++j;
    } else if (ArgIs(ctx.arg(j), "justid")) {
      justid = true;
    } else {
      ctx.reply.Error(errors::kSyntax);
      return;
    }
  }
  Entry* entry = nullptr;
  StreamGroup* group = nullptr;
  if (!FindGroup(ctx, entry, group)) return;
  // Redis allocates COUNT ids up front and refuses what it cannot allocate.
  if (count > (std::int64_t{1} << 43)) {
    ctx.reply.Error("ERR Insufficient memory, failed allocating transient memory, COUNT too high.");
    return;
  }
  ctx.server.propagation.Suppress();
  Stream& stream = *storage::StreamOf(*entry);
  std::int64_t attempts = count * kAttemptsFactor;
  const std::int64_t now = ctx.live_now_ms();
  StreamConsumer* consumer = nullptr;
  std::vector<StreamId> deleted;
  ctx.reply.ArrayHeader(3);
  const std::size_t cursor_mark = ctx.reply.DeferredMark();
  std::size_t n = 0;
  auto it = group->pel.lower_bound(start);
  while (attempts-- != 0 && count != 0 && it != group->pel.end()) {
    const StreamId id = it->first;
    storage::StreamPending& p = it->second;
    if (!stream.Contains(id)) {
      PropagateClaim(ctx, ctx.arg(1), ctx.arg(2), *group, id, p);
      ctx.server.dbs.CountChange();
      ++it;
      group->Ack(id);
      deleted.push_back(id);
      --count;
      continue;
    }
    if (min_idle != 0 && now - p.delivery_time < min_idle) {
      ++it;
      continue;
    }
    if (consumer == nullptr) consumer = Claimer(ctx, *group);
    group->Reassign(it, consumer);
    p.delivery_time = now;
    if (!justid) ++p.delivery_count;
    ReplyClaimed(ctx, stream, id, justid);
    ++n;
    --count;
    PropagateClaim(ctx, ctx.arg(1), ctx.arg(2), *group, id, p);
    ctx.server.dbs.CountChange();
    ++it;
  }
  ctx.reply.InsertArrayHeader(cursor_mark, n);
  // The cursor goes before the claimed entries: the next PEL entry, or 0-0 at the end.
  {
    std::string cursor;
    protocol::ReplyWriter writer(&cursor, ctx.session.resp);
    char buf[48];
    writer.Bulk((it == group->pel.end() ? StreamId{} : it->first).Format(buf));
    ctx.reply.InsertRawAt(cursor_mark, cursor);
  }
  ctx.reply.ArrayHeader(deleted.size());
  for (const StreamId& id : deleted) ReplyStreamId(ctx, id);
}

namespace {

// clang-format off
constexpr CommandSpec kXgroupTable[] = {
    {"xgroup|create",         -5, kWrite | kDenyOom,     XgroupCommand, 2, 2, 1, "@write @stream @slow"},
    {"xgroup|setid",          -5, kWrite | kNoWake,                XgroupCommand, 2, 2, 1, "@write @stream @slow"},
    {"xgroup|destroy",         4, kWrite,                XgroupCommand, 2, 2, 1, "@write @stream @slow"},
    {"xgroup|createconsumer",  5, kWrite | kDenyOom | kNoWake,     XgroupCommand, 2, 2, 1, "@write @stream @slow"},
    {"xgroup|delconsumer",     5, kWrite | kNoWake,                XgroupCommand, 2, 2, 1, "@write @stream @slow"},
    {"xgroup|help",            2, kLoading | kStale,     XgroupCommand, 0, 0, 0, "@stream @slow"},
};
// clang-format on

}  // namespace

std::span<const CommandSpec> XgroupSubcommands() { return kXgroupTable; }

}  // namespace warden::server
