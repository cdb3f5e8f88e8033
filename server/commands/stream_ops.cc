#include "server/commands/stream_ops.h"

#include <charconv>
#include <cstring>

#include "server/commands/typed_lookup.h"
#include "server/persistence/propagation.h"

namespace warden::server {

using storage::StreamId;

bool ParseStreamId(std::string_view arg, std::uint64_t missing_seq, bool strict, bool* seq_given,
                   StreamId& id) {
  // Redis copies the argument into a 128-byte C string: a longer one is invalid, and a NUL
  // ends it.
  if (arg.size() > 127) return false;
  const std::size_t nul = arg.find('\0');
  if (nul != std::string_view::npos) arg = arg.substr(0, nul);
  if (strict && (arg == "-" || arg == "+")) return false;
  if (seq_given != nullptr) *seq_given = true;
  if (arg == "-") {
    id = StreamId{};
    return true;
  }
  if (arg == "+") {
    id = StreamId::Max();
    return true;
  }
  const std::size_t dash = arg.find('-');
  std::uint64_t ms = 0;
  std::uint64_t seq = missing_seq;
  if (!storage::ParseStreamUint(arg.substr(0, dash), ms)) return false;
  if (dash != std::string_view::npos) {
    const std::string_view rest = arg.substr(dash + 1);
    if (seq_given != nullptr && rest == "*") {
      seq = 0;
      *seq_given = false;
    } else if (!storage::ParseStreamUint(rest, seq)) {
      return false;
    }
  }
  id = StreamId{ms, seq};
  return true;
}

[[nodiscard]] bool StreamIdArg(CommandContext& ctx, std::string_view arg, std::uint64_t missing_seq,
                               bool strict, bool* seq_given, StreamId& id) {
  if (ParseStreamId(arg, missing_seq, strict, seq_given, id)) return true;
  ctx.reply.Error(kInvalidStreamId);
  return false;
}

void ReplyStreamId(CommandContext& ctx, StreamId id) {
  char buf[48];
  ctx.reply.Bulk(id.Format(buf));
}

void ReplyStreamEntry(CommandContext& ctx, StreamId id,
                      std::span<const storage::Stream::Field> fields) {
  ctx.reply.ArrayHeader(2);
  ReplyStreamId(ctx, id);
  ctx.reply.ArrayHeader(fields.size() * 2);
  for (const auto& [field, value] : fields) {
    ctx.reply.Bulk(field);
    ctx.reply.Bulk(value);
  }
}

[[nodiscard]] bool LookupStream(CommandContext& ctx, std::string_view key, storage::Entry*& entry) {
  return LookupTyped(ctx, key, storage::ValueType::kStream, entry);
}

storage::StreamNodeLimits StreamLimits(const CommandContext& ctx) {
  return {ctx.limits().stream_node_max_bytes, ctx.limits().stream_node_max_entries};
}

std::size_t ReplyStreamRange(CommandContext& ctx, const storage::Stream& stream, StreamId start,
                             StreamId end, std::size_t count, bool reverse) {
  const std::size_t mark = ctx.reply.DeferredMark();
  std::size_t n = 0;
  stream.Range(start, end, reverse, [&](StreamId id, std::span<const storage::Stream::Field> f) {
    ReplyStreamEntry(ctx, id, f);
    return ++n != count;
  });
  ctx.reply.InsertArrayHeader(mark, n);
  return n;
}

namespace {

// A served blocked reader runs outside any command (depth 0); its effects still go together,
// wrapped in MULTI/EXEC when more than one, as Redis's propagatePendingCommands writes them.
int EffectDepth(const CommandContext& ctx) {
  return ctx.server.call.depth > 0 ? ctx.server.call.depth : 1;
}

std::string_view Digits(std::int64_t v, char (&buf)[24]) {
  const char* end = std::to_chars(buf, buf + sizeof(buf), v).ptr;
  return {buf, static_cast<std::size_t>(end - buf)};
}

}  // namespace

void PropagateClaim(CommandContext& ctx, std::string_view key, std::string_view group_name,
                    const storage::StreamGroup& group, StreamId id,
                    const storage::StreamPending& pending) {
  Propagation& propagation = ctx.server.propagation;
  if (!propagation.active()) return;
  char id_buf[48];
  char last_buf[48];
  char time_buf[24];
  char count_buf[24];
  const std::string_view argv[] = {
      "XCLAIM",     key,
      group_name,   pending.consumer->name,
      "0",          id.Format(id_buf),
      "TIME",       Digits(pending.delivery_time, time_buf),
      "RETRYCOUNT", Digits(static_cast<std::int64_t>(pending.delivery_count), count_buf),
      "FORCE",      "JUSTID",
      "LASTID",     group.last_id.Format(last_buf)};
  propagation.Add(ctx.session.db, argv, EffectDepth(ctx));
}

void PropagateGroupId(CommandContext& ctx, std::string_view key, std::string_view group_name,
                      const storage::StreamGroup& group) {
  Propagation& propagation = ctx.server.propagation;
  if (!propagation.active()) return;
  char id_buf[48];
  char read_buf[24];
  const std::string_view argv[] = {"XGROUP",
                                   "SETID",
                                   key,
                                   group_name,
                                   group.last_id.Format(id_buf),
                                   "ENTRIESREAD",
                                   Digits(group.entries_read, read_buf)};
  propagation.Add(ctx.session.db, argv, EffectDepth(ctx));
}

void PropagateConsumerCreation(CommandContext& ctx, std::string_view key,
                               std::string_view group_name, std::string_view consumer) {
  Propagation& propagation = ctx.server.propagation;
  if (!propagation.active()) return;
  const std::string_view argv[] = {"XGROUP", "CREATECONSUMER", key, group_name, consumer};
  propagation.Add(ctx.session.db, argv, EffectDepth(ctx));
}

}  // namespace warden::server
