// The stream commands that add, read by range, delete and trim entries: XADD, XRANGE,
// XREVRANGE, XLEN, XDEL, XTRIM, XSETID. The value model is storage/stream.h.
#include <charconv>
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
using storage::StreamId;
using storage::StreamTrim;

constexpr std::string_view kBothStrategies =
    "ERR syntax error, MAXLEN and MINID options at the same time are not compatible";

// XADD's and XTRIM's options (Redis's streamParseAddOrTrimArgsOrReply).
struct AddTrimArgs {
  StreamTrim trim;
  std::size_t trim_arg = 0;  // where the MAXLEN/MINID value is, for the file's rewrite
  bool no_mkstream = false;
  bool id_given = false;
  bool seq_given = true;
  StreamId id;
};

// Returns the position of XADD's id (XTRIM: the end), or 0 after replying an error.
std::size_t ParseAddOrTrim(CommandContext& ctx, AddTrimArgs& a, bool xadd) {
  std::size_t i = 2;
  bool limit_given = false;
  for (; i < ctx.argc(); ++i) {
    const std::size_t more = ctx.argc() - 1 - i;
    const std::string_view opt = ctx.arg(i);
    if (xadd && !opt.empty() && opt[0] == '*' && (opt.size() == 1 || opt[1] == '\0')) break;
    const bool maxlen = ArgIs(opt, "maxlen");
    if ((maxlen || ArgIs(opt, "minid")) && more > 0) {
      if (a.trim.strategy != StreamTrim::Strategy::kNone) {
        ctx.reply.Error(kBothStrategies);
        return 0;
      }
      a.trim.approx = false;
      const std::string_view next = ctx.arg(i + 1);
      if (more >= 2 && (next == "~" || next == "=")) {
        a.trim.approx = next == "~";
        ++i;
      }
      if (maxlen) {
        std::int64_t n = 0;
        if (!IntegerArg(ctx, ctx.arg(i + 1), n)) return 0;
        if (n < 0) {
          ctx.reply.Error("ERR The MAXLEN argument must be >= 0.");
          return 0;
        }
        a.trim.max_length = static_cast<std::uint64_t>(n);
        a.trim.strategy = StreamTrim::Strategy::kMaxLength;
      } else {
        if (!StreamIdArg(ctx, ctx.arg(i + 1), 0, true, nullptr, a.trim.min_id)) return 0;
        a.trim.strategy = StreamTrim::Strategy::kMinId;
      }
      ++i;
      a.trim_arg = i;
    } else if (ArgIs(opt, "limit") && more > 0) {
      if (!IntegerArg(ctx, ctx.arg(i + 1), a.trim.limit)) return 0;
      if (a.trim.limit < 0) {
        ctx.reply.Error("ERR The LIMIT argument must be >= 0.");
        return 0;
      }
      limit_given = true;
      ++i;
    } else if (xadd && ArgIs(opt, "nomkstream")) {
      a.no_mkstream = true;
    } else if (xadd) {
      if (!StreamIdArg(ctx, opt, 0, true, &a.seq_given, a.id)) return 0;
      a.id_given = true;
      break;
    } else {
      ctx.reply.Error(errors::kSyntax);
      return 0;
    }
  }
  if (a.trim.limit != 0 && a.trim.strategy == StreamTrim::Strategy::kNone) {
    ctx.reply.Error(
        "ERR syntax error, LIMIT cannot be used without specifying a trimming strategy");
    return 0;
  }
  if (!xadd && a.trim.strategy == StreamTrim::Strategy::kNone) {
    ctx.reply.Error("ERR syntax error, XTRIM must be called with a trimming strategy");
    return 0;
  }
  if (ctx.server.loading) {
    // The file holds the exact result of an approximate trim: never cut it short.
    a.trim.limit = 0;
  } else if (limit_given) {
    if (!a.trim.approx) {
      ctx.reply.Error("ERR syntax error, LIMIT cannot be used without the special ~ option");
      return 0;
    }
  } else if (a.trim.approx) {
    // At most 100 nodes' worth, as Redis bounds the work of one trim.
    std::int64_t limit = 0;
    if (__builtin_mul_overflow(ctx.limits().stream_node_max_entries, 100, &limit) ||
        limit > 1000000) {
      limit = 1000000;
    }
    a.trim.limit = limit <= 0 ? 10000 : limit;
  } else {
    a.trim.limit = 0;
  }
  return i;
}

// An approximate trim is written as the exact trim it turned out to be: `= <length>` or
// `= <first id>` in place of `~ <n>` (Redis's streamRewriteTrimArgument), into `argv`.
void RewriteTrim(const Stream& stream, const AddTrimArgs& a, std::vector<std::string_view>& argv,
                 std::string& value) {
  if (!a.trim.approx) return;
  argv[a.trim_arg - 1] = "=";
  if (a.trim.strategy == StreamTrim::Strategy::kMaxLength) {
    value = std::to_string(stream.length());
  } else {
    char buf[48];
    value = std::string(stream.FirstIdWithTombstones().Format(buf));
  }
  argv[a.trim_arg] = value;
}

}  // namespace

void XaddCommand(CommandContext& ctx) {
  AddTrimArgs a;
  const std::size_t id_pos = ParseAddOrTrim(ctx, a, true);
  if (id_pos == 0) return;
  const std::size_t fields = ctx.argc() - id_pos - 1;
  if (id_pos + 1 > ctx.argc() || fields < 2 || fields % 2 == 1) {
    errors::WrongArity(ctx.reply, ctx.spec.name);
    return;
  }
  if (a.id_given && a.seq_given && a.id.is_zero()) {
    ctx.reply.Error("ERR The ID specified in XADD must be greater than 0-0");
    return;
  }
  Entry* entry = nullptr;
  if (!LookupStream(ctx, ctx.arg(1), entry)) return;
  if (entry == nullptr) {
    if (a.no_mkstream) {
      ctx.reply.Null();
      return;
    }
  }
  const Stream* existing = entry != nullptr ? storage::StreamOf(*entry) : nullptr;
  const StreamId last = existing != nullptr ? existing->last_id() : StreamId{};
  if (last == StreamId::Max()) {
    ctx.reply.Error("ERR The stream has exhausted the last possible ID, unable to add more items");
    return;
  }
  StreamId id;
  if (!a.id_given) {
    const auto now = static_cast<std::uint64_t>(ctx.live_now_ms());
    if (now > last.ms) {
      id = StreamId{now, 0};
    } else {
      id = last;
      id.Increment();
    }
  } else if (!a.seq_given && last.ms == a.id.ms) {
    if (last.seq == UINT64_MAX) {
      // Redis fails this without setting errno and reports the error of the last failed call,
      // which is this one in practice.
      ctx.reply.Error("ERR Elements are too large to be stored");
      return;
    }
    id = last;
    id.Increment();
  } else {
    id = a.id;
  }
  if (id <= last) {
    ctx.reply.Error(
        "ERR The ID specified in XADD is equal or smaller than the target stream top item");
    return;
  }
  std::size_t bytes = 0;
  for (std::size_t i = id_pos + 1; i < ctx.argc(); ++i) bytes += ctx.arg(i).size();
  if (bytes > (std::size_t{1} << 30)) {
    ctx.reply.Error("ERR Elements are too large to be stored");
    return;
  }
  storage::Keyspace& keyspace = ctx.keyspace();
  if (entry == nullptr) {
    entry = storage::StreamCreate(keyspace, ctx.arg(1));
    NotifyNew(ctx, ctx.arg(1));
  }
  Stream& stream = *storage::StreamOf(*entry);
  stream.Append(id, ctx.args.subspan(id_pos + 1), StreamLimits(ctx));
  ReplyStreamId(ctx, id);
  keyspace.NoteModified(ctx.arg(1));
  Notify(ctx, notify::kStream, "xadd", ctx.arg(1));
  if (a.trim.strategy != StreamTrim::Strategy::kNone && stream.Trim(a.trim) != 0) {
    Notify(ctx, notify::kStream, "xtrim", ctx.arg(1));
  }
  if (ctx.server.propagation.active()) {
    std::vector<std::string_view> argv(ctx.args.begin(), ctx.args.end());
    std::string trim_value;
    RewriteTrim(stream, a, argv, trim_value);
    char buf[48];
    argv[id_pos] = id.Format(buf);
    ctx.server.propagation.Replace(argv);
  }
}

namespace {

void RangeCommand(CommandContext& ctx, bool reverse) {
  const std::string_view start_arg = ctx.arg(reverse ? 3 : 2);
  const std::string_view end_arg = ctx.arg(reverse ? 2 : 3);
  StreamId start;
  StreamId end;
  const bool start_ex = start_arg.size() > 1 && start_arg[0] == '(';
  if (!StreamIdArg(ctx, start_ex ? start_arg.substr(1) : start_arg, 0, start_ex, nullptr, start)) {
    return;
  }
  if (start_ex && !start.Increment()) {
    ctx.reply.Error("ERR invalid start ID for the interval");
    return;
  }
  const bool end_ex = end_arg.size() > 1 && end_arg[0] == '(';
  if (!StreamIdArg(ctx, end_ex ? end_arg.substr(1) : end_arg, UINT64_MAX, end_ex, nullptr, end)) {
    return;
  }
  if (end_ex && !end.Decrement()) {
    ctx.reply.Error("ERR invalid end ID for the interval");
    return;
  }
  std::int64_t count = -1;
  for (std::size_t i = 4; i < ctx.argc(); ++i) {
    if (ArgIs(ctx.arg(i), "count") && i + 1 < ctx.argc()) {
      if (!IntegerArg(ctx, ctx.arg(i + 1), count)) return;
      if (count < 0) count = 0;
      ++i;
    } else {
      ctx.reply.Error(errors::kSyntax);
      return;
    }
  }
  Entry* entry = nullptr;
  if (!LookupTypedRead(ctx, ctx.arg(1), storage::ValueType::kStream, entry)) return;
  if (entry == nullptr) {
    ctx.reply.ArrayHeader(0);
    return;
  }
  if (count == 0) {
    ctx.reply.NullArray();
    return;
  }
  ReplyStreamRange(ctx, *storage::StreamOf(*entry), start, end,
                   count < 0 ? 0 : static_cast<std::size_t>(count), reverse);
}

}  // namespace

void XrangeCommand(CommandContext& ctx) { RangeCommand(ctx, false); }

void XrevrangeCommand(CommandContext& ctx) { RangeCommand(ctx, true); }

void XlenCommand(CommandContext& ctx) {
  Entry* entry = nullptr;
  if (!LookupTypedRead(ctx, ctx.arg(1), storage::ValueType::kStream, entry)) return;
  ctx.reply.Integer(
      entry == nullptr ? 0 : static_cast<std::int64_t>(storage::StreamOf(*entry)->length()));
}

void XdelCommand(CommandContext& ctx) {
  Entry* entry = nullptr;
  if (!LookupStream(ctx, ctx.arg(1), entry)) return;
  if (entry == nullptr) {
    ctx.reply.Integer(0);
    return;
  }
  // Every id is checked before any is deleted, then read again as each is deleted: no array of
  // ids to allocate.
  StreamId id;
  for (std::size_t i = 2; i < ctx.argc(); ++i) {
    if (!StreamIdArg(ctx, ctx.arg(i), 0, true, nullptr, id)) return;
  }
  Stream& stream = *storage::StreamOf(*entry);
  std::int64_t deleted = 0;
  bool first_deleted = false;
  for (std::size_t i = 2; i < ctx.argc(); ++i) {
    ParseStreamId(ctx.arg(i), 0, true, nullptr, id);
    if (!stream.Delete(id)) continue;
    if (id == stream.first_id()) first_deleted = true;
    if (id > stream.max_deleted_id()) stream.SetMaxDeletedId(id);
    ++deleted;
  }
  if (deleted != 0) {
    if (stream.length() == 0) {
      stream.SetFirstId(StreamId{});
    } else if (first_deleted) {
      StreamId first;
      if (!stream.EdgeId(true, first)) first = StreamId::Max();
      stream.SetFirstId(first);
    }
    storage::Keyspace& keyspace = ctx.keyspace();
    keyspace.NoteModified(ctx.arg(1));
    Notify(ctx, notify::kStream, "xdel", ctx.arg(1));
  }
  ctx.reply.Integer(deleted);
}

void XtrimCommand(CommandContext& ctx) {
  AddTrimArgs a;
  if (ParseAddOrTrim(ctx, a, false) == 0) return;
  Entry* entry = nullptr;
  if (!LookupStream(ctx, ctx.arg(1), entry)) return;
  if (entry == nullptr) {
    ctx.reply.Integer(0);
    return;
  }
  Stream& stream = *storage::StreamOf(*entry);
  const std::int64_t deleted = stream.Trim(a.trim);
  if (deleted != 0) {
    Notify(ctx, notify::kStream, "xtrim", ctx.arg(1));
    ctx.keyspace().NoteModified(ctx.arg(1));
    if (ctx.server.propagation.active() && a.trim.approx) {
      std::vector<std::string_view> argv(ctx.args.begin(), ctx.args.end());
      std::string trim_value;
      RewriteTrim(stream, a, argv, trim_value);
      ctx.server.propagation.Replace(argv);
    }
  }
  ctx.reply.Integer(deleted);
}

void XsetidCommand(CommandContext& ctx) {
  StreamId id;
  if (!StreamIdArg(ctx, ctx.arg(2), 0, true, nullptr, id)) return;
  std::int64_t entries_added = -1;
  StreamId max_deleted;
  for (std::size_t i = 3; i < ctx.argc(); i += 2) {
    const bool more = i + 1 < ctx.argc();
    if (ArgIs(ctx.arg(i), "entriesadded") && more) {
      if (!IntegerArg(ctx, ctx.arg(i + 1), entries_added)) return;
      if (entries_added < 0) {
        ctx.reply.Error("ERR entries_added must be positive");
        return;
      }
    } else if (ArgIs(ctx.arg(i), "maxdeletedid") && more) {
      if (!StreamIdArg(ctx, ctx.arg(i + 1), 0, true, nullptr, max_deleted)) return;
      if (id < max_deleted) {
        ctx.reply.Error(
            "ERR The ID specified in XSETID is smaller than the provided max_deleted_entry_id");
        return;
      }
    } else {
      ctx.reply.Error(errors::kSyntax);
      return;
    }
  }
  Entry* entry = nullptr;
  if (!LookupStream(ctx, ctx.arg(1), entry)) return;
  if (entry == nullptr) {
    ctx.reply.Error(errors::kNoSuchKey);
    return;
  }
  Stream& stream = *storage::StreamOf(*entry);
  if (stream.length() > 0) {
    StreamId top;
    stream.EdgeId(false, top);
    if (id < top) {
      ctx.reply.Error("ERR The ID specified in XSETID is smaller than the target stream top item");
      return;
    }
    if (entries_added != -1 && stream.length() > static_cast<std::uint64_t>(entries_added)) {
      ctx.reply.Error(
          "ERR The entries_added specified in XSETID is smaller than the target stream length");
      return;
    }
  }
  stream.SetLastId(id);
  if (entries_added != -1) stream.SetEntriesAdded(static_cast<std::uint64_t>(entries_added));
  if (!max_deleted.is_zero()) stream.SetMaxDeletedId(max_deleted);
  ctx.reply.Ok();
  ctx.server.dbs.CountChange();
  Notify(ctx, notify::kStream, "xsetid", ctx.arg(1));
}

}  // namespace warden::server
