// XINFO STREAM [FULL [COUNT n]], XINFO GROUPS, XINFO CONSUMERS and XINFO HELP, with Redis
// 7.0's fields in its order.
#include <algorithm>
#include <string>

#include "server/command_table.h"
#include "server/commands/commands.h"
#include "server/commands/stream_ops.h"
#include "server/commands/typed_lookup.h"
#include "server/errors.h"

namespace warden::server {
namespace {

using storage::Entry;
using storage::Stream;
using storage::StreamGroup;
using storage::StreamId;

void SubcommandSyntaxError(CommandContext& ctx) {
  errors::SubcommandSyntax(ctx.reply, ctx.arg(0), ctx.arg(1));
}

// A group's position in the stream, as XINFO GROUPS and XINFO STREAM FULL both show it:
// last-delivered-id, entries-read and lag (null when Redis 7.0 cannot tell them).
void ReplyGroupPosition(CommandContext& ctx, const Stream& stream, const StreamGroup& group) {
  ctx.reply.Bulk("last-delivered-id");
  ReplyStreamId(ctx, group.last_id);
  ctx.reply.Bulk("entries-read");
  if (group.entries_read != storage::kInvalidEntriesRead) {
    ctx.reply.Integer(group.entries_read);
  } else {
    ctx.reply.Null();
  }
  ctx.reply.Bulk("lag");
  std::int64_t lag = 0;
  if (storage::StreamGroupLag(stream, group, lag)) {
    ctx.reply.Integer(lag);
  } else {
    ctx.reply.Null();
  }
}

// An array of at most `count` (0: all) elements written by `each` over [begin, end).
template <typename It, typename Fn>
void ReplyCapped(CommandContext& ctx, It begin, It end, std::int64_t count, Fn&& each) {
  const std::size_t mark = ctx.reply.DeferredMark();
  std::size_t n = 0;
  for (It it = begin; it != end && (count == 0 || static_cast<std::int64_t>(n) < count); ++it) {
    each(*it);
    ++n;
  }
  ctx.reply.InsertArrayHeader(mark, n);
}

void ReplyFullGroups(CommandContext& ctx, const Stream& stream, std::int64_t count) {
  const storage::StreamGroups* groups = stream.groups_if_any();
  if (groups == nullptr) {
    ctx.reply.ArrayHeader(0);
    return;
  }
  ctx.reply.ArrayHeader(groups->size());
  for (const auto& [name, group] : groups->all()) {
    ctx.reply.MapHeader(7);
    ctx.reply.Bulk("name");
    ctx.reply.Bulk(name);
    ReplyGroupPosition(ctx, stream, *group);
    ctx.reply.Bulk("pel-count");
    ctx.reply.Integer(static_cast<std::int64_t>(group->pel.size()));
    ctx.reply.Bulk("pending");
    ReplyCapped(ctx, group->pel.begin(), group->pel.end(), count, [&](const auto& pending) {
      ctx.reply.ArrayHeader(4);
      ReplyStreamId(ctx, pending.first);
      ctx.reply.Bulk(pending.second.consumer->name);
      ctx.reply.Integer(pending.second.delivery_time);
      ctx.reply.Integer(static_cast<std::int64_t>(pending.second.delivery_count));
    });
    ctx.reply.Bulk("consumers");
    ctx.reply.ArrayHeader(group->consumers.size());
    for (const auto& [cname, consumer] : group->consumers) {
      ctx.reply.MapHeader(4);
      ctx.reply.Bulk("name");
      ctx.reply.Bulk(cname);
      ctx.reply.Bulk("seen-time");
      ctx.reply.Integer(consumer->seen_time);
      ctx.reply.Bulk("pel-count");
      ctx.reply.Integer(static_cast<std::int64_t>(consumer->pel.size()));
      ctx.reply.Bulk("pending");
      ReplyCapped(ctx, consumer->pel.begin(), consumer->pel.end(), count, [&](const auto& p) {
        ctx.reply.ArrayHeader(3);
        ReplyStreamId(ctx, p.first);
        ctx.reply.Integer(p.second->delivery_time);
        ctx.reply.Integer(static_cast<std::int64_t>(p.second->delivery_count));
      });
    }
  }
}

void ReplyStreamInfo(CommandContext& ctx, const Stream& stream) {
  bool full = true;
  std::int64_t count = 10;
  const std::size_t options = ctx.argc() - 3;
  if (options == 0) {
    full = false;
  } else {
    if ((options != 1 && options != 3) || !ArgIs(ctx.arg(3), "full")) {
      SubcommandSyntaxError(ctx);
      return;
    }
    if (options == 3) {
      if (!ArgIs(ctx.arg(4), "count")) {
        SubcommandSyntaxError(ctx);
        return;
      }
      if (!IntegerArg(ctx, ctx.arg(5), count)) return;
      if (count < 0) count = 10;
    }
  }
  ctx.reply.MapHeader(full ? 9 : 10);
  ctx.reply.Bulk("length");
  ctx.reply.Integer(static_cast<std::int64_t>(stream.length()));
  ctx.reply.Bulk("radix-tree-keys");
  ctx.reply.Integer(static_cast<std::int64_t>(stream.node_count()));
  ctx.reply.Bulk("radix-tree-nodes");
  ctx.reply.Integer(static_cast<std::int64_t>(stream.radix_nodes()));
  ctx.reply.Bulk("last-generated-id");
  ReplyStreamId(ctx, stream.last_id());
  ctx.reply.Bulk("max-deleted-entry-id");
  ReplyStreamId(ctx, stream.max_deleted_id());
  ctx.reply.Bulk("entries-added");
  ctx.reply.Integer(static_cast<std::int64_t>(stream.entries_added()));
  ctx.reply.Bulk("recorded-first-entry-id");
  ReplyStreamId(ctx, stream.first_id());
  if (full) {
    ctx.reply.Bulk("entries");
    ReplyStreamRange(ctx, stream, StreamId{}, StreamId::Max(), static_cast<std::size_t>(count),
                     false);
    ctx.reply.Bulk("groups");
    ReplyFullGroups(ctx, stream, count);
    return;
  }
  const storage::StreamGroups* groups = stream.groups_if_any();
  ctx.reply.Bulk("groups");
  ctx.reply.Integer(groups != nullptr ? static_cast<std::int64_t>(groups->size()) : 0);
  for (const bool first : {true, false}) {
    ctx.reply.Bulk(first ? "first-entry" : "last-entry");
    bool emitted = false;
    stream.Range(StreamId{}, StreamId::Max(), !first,
                 [&](StreamId id, std::span<const Stream::Field> fields) {
                   ReplyStreamEntry(ctx, id, fields);
                   emitted = true;
                   return false;
                 });
    if (!emitted) ctx.reply.Null();
  }
}

}  // namespace

void XinfoCommand(CommandContext& ctx) {
  const std::string_view opt = ctx.arg(1);
  if (ArgIs(opt, "help")) {
    static constexpr std::string_view kLines[] = {
        "XINFO <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
        "CONSUMERS <key> <groupname>",
        "    Show consumers of <groupname>.",
        "GROUPS <key>",
        "    Show the stream consumer groups.",
        "STREAM <key> [FULL [COUNT <count>]",
        "    Show information about the stream.",
        "HELP",
        "    Prints this help.",
    };
    ReplyHelp(ctx.reply, kLines);
    return;
  }
  const std::string_view key = ctx.arg(2);
  Entry* entry = nullptr;
  if (!LookupTypedRead(ctx, key, storage::ValueType::kStream, entry)) return;
  if (entry == nullptr) {
    ctx.reply.Error(errors::kNoSuchKey);
    return;
  }
  const Stream& stream = *storage::StreamOf(*entry);
  if (ArgIs(opt, "consumers") && ctx.argc() == 4) {
    const storage::StreamGroups* groups = stream.groups_if_any();
    const StreamGroup* group = groups != nullptr ? groups->Find(ctx.arg(3)) : nullptr;
    if (group == nullptr) {
      ctx.reply.Error({"NOGROUP No such consumer group '", errors::CString(ctx.arg(3)),
                       "' for key name '", errors::CString(key), "'"});
      return;
    }
    const std::int64_t now = ctx.live_now_ms();
    ctx.reply.ArrayHeader(group->consumers.size());
    for (const auto& [name, consumer] : group->consumers) {
      ctx.reply.MapHeader(3);
      ctx.reply.Bulk("name");
      ctx.reply.Bulk(name);
      ctx.reply.Bulk("pending");
      ctx.reply.Integer(static_cast<std::int64_t>(consumer->pel.size()));
      ctx.reply.Bulk("idle");
      ctx.reply.Integer(std::max<std::int64_t>(0, now - consumer->seen_time));
    }
  } else if (ArgIs(opt, "groups") && ctx.argc() == 3) {
    const storage::StreamGroups* groups = stream.groups_if_any();
    if (groups == nullptr) {
      ctx.reply.ArrayHeader(0);
      return;
    }
    ctx.reply.ArrayHeader(groups->size());
    for (const auto& [name, group] : groups->all()) {
      ctx.reply.MapHeader(6);
      ctx.reply.Bulk("name");
      ctx.reply.Bulk(name);
      ctx.reply.Bulk("consumers");
      ctx.reply.Integer(static_cast<std::int64_t>(group->consumers.size()));
      ctx.reply.Bulk("pending");
      ctx.reply.Integer(static_cast<std::int64_t>(group->pel.size()));
      ReplyGroupPosition(ctx, stream, *group);
    }
  } else if (ArgIs(opt, "stream")) {
    ReplyStreamInfo(ctx, stream);
  } else {
    SubcommandSyntaxError(ctx);
  }
}

namespace {

// clang-format off
constexpr CommandSpec kXinfoTable[] = {
    {"xinfo|consumers",  4, kReadOnly,           XinfoCommand, 2, 2, 1, "@read @stream @slow"},
    {"xinfo|groups",     3, kReadOnly,           XinfoCommand, 2, 2, 1, "@read @stream @slow"},
    {"xinfo|stream",    -3, kReadOnly,           XinfoCommand, 2, 2, 1, "@read @stream @slow"},
    {"xinfo|help",       2, kLoading | kStale,   XinfoCommand, 0, 0, 0, "@stream @slow"},
};
// clang-format on

}  // namespace

std::span<const CommandSpec> XinfoSubcommands() { return kXinfoTable; }

}  // namespace warden::server
