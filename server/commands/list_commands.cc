// The non-blocking list commands of Redis 7.0. The value model is storage/list.h; this file maps
// it to RESP. Where Redis parses an argument before or after it looks the key up decides which
// error wins, so each handler keeps Redis's order (noted where it differs between commands).
#include <cstdint>
#include <string>
#include <vector>

#include "protocol/request_parser.h"
#include "server/command_table.h"
#include "server/commands/commands.h"
#include "server/commands/list_ops.h"
#include "server/commands/typed_lookup.h"
#include "server/errors.h"
#include "server/notify.h"
#include "storage/list.h"

namespace warden::server {

using storage::Entry;
using storage::ListEnd;
using storage::ValueType;

namespace {

std::string_view PopEvent(ListEnd end) { return end == ListEnd::kHead ? "lpop" : "rpop"; }
std::string_view PushEvent(ListEnd end) { return end == ListEnd::kHead ? "lpush" : "rpush"; }

// After a pop from `key`: its event, and `del` when the list is gone (`list` nullptr).
void NotifyPopped(CommandContext& ctx, std::string_view key, const Entry* list, ListEnd end) {
  Notify(ctx, notify::kList, PopEvent(end), key);
  if (list == nullptr) Notify(ctx, notify::kGeneric, "del", key);
}

}  // namespace

[[nodiscard]] bool ListEndArg(CommandContext& ctx, std::string_view arg, ListEnd& end) {
  if (ArgIs(arg, "left")) {
    end = ListEnd::kHead;
  } else if (ArgIs(arg, "right")) {
    end = ListEnd::kTail;
  } else {
    ctx.reply.Error(errors::kSyntax);
    return false;
  }
  return true;
}

[[nodiscard]] bool ParseMpopArgs(CommandContext& ctx, std::size_t numkeys_at, MpopArgs& out) {
  std::int64_t numkeys = 0;
  if (!protocol::ParseStrictInt64(ctx.arg(numkeys_at), numkeys) || numkeys < 1) {
    ctx.reply.Error(errors::kNumkeysZero);
    return false;
  }
  const std::size_t first_key = numkeys_at + 1;
  if (static_cast<std::uint64_t>(numkeys) >= ctx.argc() - first_key) {
    ctx.reply.Error(errors::kSyntax);
    return false;
  }
  const std::size_t end_at = first_key + static_cast<std::size_t>(numkeys);
  out.keys = ctx.args.subspan(first_key, static_cast<std::size_t>(numkeys));
  if (!ListEndArg(ctx, ctx.arg(end_at), out.end)) return false;
  bool has_count = false;
  out.count = 1;
  for (std::size_t j = end_at + 1; j < ctx.argc(); ++j) {
    // A second COUNT is a syntax error, as is COUNT without a value.
    if (!has_count && ArgIs(ctx.arg(j), "count") && j + 1 < ctx.argc()) {
      std::int64_t count = 0;
      if (!protocol::ParseStrictInt64(ctx.arg(++j), count) || count < 1) {
        ctx.reply.Error(errors::kMpopCountZero);
        return false;
      }
      out.count = static_cast<std::size_t>(count);
      has_count = true;
    } else {
      ctx.reply.Error(errors::kSyntax);
      return false;
    }
  }
  return true;
}

void PopOneReply(CommandContext& ctx, std::string_view key, Entry*& list, ListEnd end) {
  std::string element;
  storage::ListPop(ctx.keyspace(), list, end, element);
  ctx.reply.Bulk(element);
  NotifyPopped(ctx, key, list, end);
}

void PopOneWithKeyReply(CommandContext& ctx, std::string_view key, Entry*& list, ListEnd end) {
  std::string element;
  storage::ListPop(ctx.keyspace(), list, end, element);
  ctx.reply.ArrayHeader(2);
  ctx.reply.Bulk(key);
  ctx.reply.Bulk(element);
  NotifyPopped(ctx, key, list, end);
}

void PopCountReply(CommandContext& ctx, std::string_view key, Entry*& list, ListEnd end,
                   std::size_t count) {
  std::vector<std::string> elements;
  storage::ListPopMany(ctx.keyspace(), list, end, count, elements);
  ctx.reply.ArrayHeader(elements.size());
  for (const std::string& e : elements) ctx.reply.Bulk(e);
  if (!elements.empty()) NotifyPopped(ctx, key, list, end);
}

void PopWithKeyReply(CommandContext& ctx, std::string_view key, Entry*& list, ListEnd end,
                     std::size_t count) {
  ctx.reply.ArrayHeader(2);
  ctx.reply.Bulk(key);
  PopCountReply(ctx, key, list, end, count);
}

void MoveReply(CommandContext& ctx, std::string_view src_key, Entry*& src, std::string_view dst_key,
               ListEnd from, ListEnd to) {
  storage::Keyspace& keyspace = ctx.keyspace();
  // Rotating a one-element list changes nothing; popping it first would delete the key and
  // lose its TTL, which Redis (pushing before it checks for an empty source) keeps.
  if (src_key == dst_key && storage::ListLength(*src) == 1) {
    ctx.reply.Bulk(*storage::ListIndex(*src, 0));
    Notify(ctx, notify::kList, PushEvent(to), dst_key);
    Notify(ctx, notify::kList, PopEvent(from), src_key);
    return;
  }
  // Redis pushes before it pops, and client-side caching sees the keys in that order: the
  // element is copied out, pushed, then popped from the source.
  std::string element(*storage::ListIndex(*src, from == ListEnd::kHead ? 0 : -1));
  Entry* dst = keyspace.Find(dst_key, ctx.now_ms);
  if (dst == nullptr) NotifyNew(ctx, dst_key);
  storage::ListPush(keyspace, dst, dst_key, element, to, ctx.limits());
  if (src_key == dst_key) src = dst;
  // Popped into the same string: the bytes are the element's, and its buffer needs no growth.
  storage::ListPop(keyspace, src, from, element);
  const bool src_gone = src == nullptr;
  Notify(ctx, notify::kList, PushEvent(to), dst_key);
  Notify(ctx, notify::kList, PopEvent(from), src_key);
  if (src_gone) Notify(ctx, notify::kGeneric, "del", src_key);
  ctx.reply.Bulk(element);
}

namespace {

[[nodiscard]] bool LookupList(CommandContext& ctx, std::string_view key, Entry*& list) {
  return LookupTyped(ctx, key, ValueType::kList, list);
}

// For the commands that only read the list: a missing key publishes `keymiss`.
[[nodiscard]] bool ReadList(CommandContext& ctx, std::string_view key, Entry*& list) {
  return LookupTypedRead(ctx, key, ValueType::kList, list);
}

void Push(CommandContext& ctx, ListEnd end, bool only_existing) {
  Entry* list = nullptr;
  if (!LookupList(ctx, ctx.arg(1), list)) return;
  if (list == nullptr && only_existing) {
    ctx.reply.Integer(0);
    return;
  }
  if (list == nullptr) NotifyNew(ctx, ctx.arg(1));
  std::size_t length = 0;
  for (std::size_t i = 2; i < ctx.argc(); ++i) {
    length = storage::ListPush(ctx.keyspace(), list, ctx.arg(1), ctx.arg(i), end, ctx.limits());
  }
  Notify(ctx, notify::kList, PushEvent(end), ctx.arg(1));
  ctx.reply.Integer(static_cast<std::int64_t>(length));
}

void Pop(CommandContext& ctx, ListEnd end) {
  // The arity is -2, so Redis checks the upper bound itself, with the arity error.
  if (ctx.argc() > 3) {
    errors::WrongArity(ctx.reply, end == ListEnd::kHead ? "lpop" : "rpop");
    return;
  }
  const bool with_count = ctx.argc() == 3;
  std::int64_t count = 1;
  if (with_count && (!protocol::ParseStrictInt64(ctx.arg(2), count) || count < 0)) {
    ctx.reply.Error(errors::kOutOfRangePositive);
    return;
  }
  Entry* list = nullptr;
  if (!LookupList(ctx, ctx.arg(1), list)) return;
  // A missing key is a null bulk without a count, a null array with one (even COUNT 0).
  if (list == nullptr) {
    if (with_count) {
      ctx.reply.NullArray();
    } else {
      ctx.reply.Null();
    }
    return;
  }
  if (with_count) {
    PopCountReply(ctx, ctx.arg(1), list, end, static_cast<std::size_t>(count));
  } else {
    PopOneReply(ctx, ctx.arg(1), list, end);
  }
}

void Move(CommandContext& ctx, ListEnd from, ListEnd to) {
  Entry* src = nullptr;
  if (!LookupList(ctx, ctx.arg(1), src)) return;
  if (src == nullptr) {
    ctx.reply.Null();
    return;
  }
  // The destination's type is checked only once the source has an element.
  Entry* dst = nullptr;
  if (!LookupList(ctx, ctx.arg(2), dst)) return;
  MoveReply(ctx, ctx.arg(1), src, ctx.arg(2), from, to);
}

}  // namespace

void LpushCommand(CommandContext& ctx) { Push(ctx, ListEnd::kHead, false); }

void RpushCommand(CommandContext& ctx) { Push(ctx, ListEnd::kTail, false); }

void LpushxCommand(CommandContext& ctx) { Push(ctx, ListEnd::kHead, true); }

void RpushxCommand(CommandContext& ctx) { Push(ctx, ListEnd::kTail, true); }

void LpopCommand(CommandContext& ctx) { Pop(ctx, ListEnd::kHead); }

void RpopCommand(CommandContext& ctx) { Pop(ctx, ListEnd::kTail); }

void LlenCommand(CommandContext& ctx) {
  Entry* list = nullptr;
  if (!ReadList(ctx, ctx.arg(1), list)) return;
  ctx.reply.Integer(list == nullptr ? 0 : static_cast<std::int64_t>(storage::ListLength(*list)));
}

void LrangeCommand(CommandContext& ctx) {
  // LRANGE parses its indexes before it looks the key up; LINDEX and LSET after.
  std::int64_t start = 0;
  std::int64_t stop = 0;
  if (!IntegerArg(ctx, ctx.arg(2), start) || !IntegerArg(ctx, ctx.arg(3), stop)) return;
  Entry* list = nullptr;
  if (!ReadList(ctx, ctx.arg(1), list)) return;
  const auto len = static_cast<std::int64_t>(list == nullptr ? 0 : storage::ListLength(*list));
  if (start < 0) start += len;
  if (stop < 0) stop += len;
  if (start < 0) start = 0;
  if (list == nullptr || start > stop || start >= len) {
    ctx.reply.ArrayHeader(0);
    return;
  }
  if (stop >= len) stop = len - 1;
  std::size_t left = static_cast<std::size_t>(stop - start + 1);
  ctx.reply.ArrayHeader(left);
  storage::ListForEachFrom(*list, static_cast<std::size_t>(start), [&](std::string_view e) {
    ctx.reply.Bulk(e);
    return --left > 0;
  });
}

void LindexCommand(CommandContext& ctx) {
  Entry* list = nullptr;
  if (!ReadList(ctx, ctx.arg(1), list)) return;
  if (list == nullptr) {
    ctx.reply.Null();
    return;
  }
  std::int64_t index = 0;
  if (!IntegerArg(ctx, ctx.arg(2), index)) return;
  const std::optional<std::string_view> element = storage::ListIndex(*list, index);
  if (element) {
    ctx.reply.Bulk(*element);
  } else {
    ctx.reply.Null();
  }
}

void LsetCommand(CommandContext& ctx) {
  Entry* list = nullptr;
  if (!LookupList(ctx, ctx.arg(1), list)) return;
  if (list == nullptr) {
    ctx.reply.Error(errors::kNoSuchKey);
    return;
  }
  std::int64_t index = 0;
  if (!IntegerArg(ctx, ctx.arg(2), index)) return;
  if (!storage::ListSet(ctx.keyspace(), list, index, ctx.arg(3), ctx.limits())) {
    ctx.reply.Error(errors::kIndexOutOfRange);
    return;
  }
  Notify(ctx, notify::kList, "lset", ctx.arg(1));
  ctx.reply.Ok();
}

void LinsertCommand(CommandContext& ctx) {
  bool after = false;
  if (ArgIs(ctx.arg(2), "after")) {
    after = true;
  } else if (!ArgIs(ctx.arg(2), "before")) {
    ctx.reply.Error(errors::kSyntax);
    return;
  }
  Entry* list = nullptr;
  if (!LookupList(ctx, ctx.arg(1), list)) return;
  if (list == nullptr) {
    ctx.reply.Integer(0);
    return;
  }
  const std::int64_t length =
      storage::ListInsert(ctx.keyspace(), list, ctx.arg(3), ctx.arg(4), after, ctx.limits());
  if (length >= 0) Notify(ctx, notify::kList, "linsert", ctx.arg(1));
  ctx.reply.Integer(length);
}

void LremCommand(CommandContext& ctx) {
  std::int64_t count = 0;
  if (!IntegerArg(ctx, ctx.arg(2), count)) return;
  Entry* list = nullptr;
  if (!LookupList(ctx, ctx.arg(1), list)) return;
  if (list == nullptr) {
    ctx.reply.Integer(0);
    return;
  }
  const std::size_t removed = storage::ListRemove(ctx.keyspace(), list, ctx.arg(3), count);
  if (removed > 0) Notify(ctx, notify::kList, "lrem", ctx.arg(1));
  if (list == nullptr) Notify(ctx, notify::kGeneric, "del", ctx.arg(1));
  ctx.reply.Integer(static_cast<std::int64_t>(removed));
}

void LtrimCommand(CommandContext& ctx) {
  std::int64_t start = 0;
  std::int64_t stop = 0;
  if (!IntegerArg(ctx, ctx.arg(2), start) || !IntegerArg(ctx, ctx.arg(3), stop)) return;
  Entry* list = nullptr;
  if (!LookupList(ctx, ctx.arg(1), list)) return;
  if (list != nullptr) {
    storage::ListTrim(ctx.keyspace(), list, start, stop);
    Notify(ctx, notify::kList, "ltrim", ctx.arg(1));
    if (list == nullptr) Notify(ctx, notify::kGeneric, "del", ctx.arg(1));
  }
  ctx.reply.Ok();
}

void LposCommand(CommandContext& ctx) {
  std::int64_t rank = 1;
  std::int64_t count = -1;  // -1: no COUNT, reply a single index
  std::int64_t maxlen = 0;  // 0: scan the whole list
  for (std::size_t j = 3; j < ctx.argc(); ++j) {
    const std::string_view opt = ctx.arg(j);
    const bool more = j + 1 < ctx.argc();
    if (more && ArgIs(opt, "rank")) {
      if (!IntegerArg(ctx, ctx.arg(++j), rank)) return;
      if (rank == 0) {
        ctx.reply.Error(errors::kLposRankZero);
        return;
      }
    } else if (more && ArgIs(opt, "count")) {
      if (!protocol::ParseStrictInt64(ctx.arg(++j), count) || count < 0) {
        ctx.reply.Error(errors::kLposCountNegative);
        return;
      }
    } else if (more && ArgIs(opt, "maxlen")) {
      if (!protocol::ParseStrictInt64(ctx.arg(++j), maxlen) || maxlen < 0) {
        ctx.reply.Error(errors::kLposMaxlenNegative);
        return;
      }
    } else {
      ctx.reply.Error(errors::kSyntax);
      return;
    }
  }
  // Redis 7.0 negates a negative rank in a long: RANK INT64_MIN stays negative, so every match
  // qualifies and COUNT's stop test (matches - rank + 1 >= count) wraps and never holds. The
  // unsigned arithmetic below reproduces that.
  const bool from_tail = rank < 0;
  if (from_tail) rank = static_cast<std::int64_t>(0 - static_cast<std::uint64_t>(rank));
  Entry* list = nullptr;
  if (!ReadList(ctx, ctx.arg(1), list)) return;
  if (list == nullptr) {
    if (count != -1) {
      ctx.reply.ArrayHeader(0);
    } else {
      ctx.reply.Null();
    }
    return;
  }
  const auto len = static_cast<std::int64_t>(storage::ListLength(*list));
  std::vector<std::int64_t> found;
  std::int64_t index = 0;
  std::int64_t matches = 0;
  const std::string_view element = ctx.arg(2);
  const auto visit = [&](std::string_view e) {
    if (maxlen != 0 && index >= maxlen) return false;
    if (e == element) {
      ++matches;
      if (matches >= rank) {
        found.push_back(from_tail ? len - index - 1 : index);
        if (count == -1) return false;
        const auto taken = static_cast<std::int64_t>(static_cast<std::uint64_t>(matches) -
                                                     static_cast<std::uint64_t>(rank) + 1);
        if (count != 0 && taken >= count) return false;
      }
    }
    ++index;
    return true;
  };
  if (from_tail) {
    storage::ListForEachReverse(*list, visit);
  } else {
    storage::ListForEachFrom(*list, 0, visit);
  }
  if (count != -1) {
    ctx.reply.ArrayHeader(found.size());
    for (std::int64_t i : found) ctx.reply.Integer(i);
  } else if (!found.empty()) {
    ctx.reply.Integer(found[0]);
  } else {
    ctx.reply.Null();
  }
}

void LmoveCommand(CommandContext& ctx) {
  ListEnd from = ListEnd::kHead;
  ListEnd to = ListEnd::kHead;
  if (!ListEndArg(ctx, ctx.arg(3), from) || !ListEndArg(ctx, ctx.arg(4), to)) return;
  Move(ctx, from, to);
}

void RpoplpushCommand(CommandContext& ctx) { Move(ctx, ListEnd::kTail, ListEnd::kHead); }

void LmpopCommand(CommandContext& ctx) {
  MpopArgs args;
  if (!ParseMpopArgs(ctx, 1, args)) return;
  // The first non-empty key in argument order wins; a wrong type before it is an error, after
  // it is never looked at.
  for (std::string_view key : args.keys) {
    Entry* list = nullptr;
    if (!LookupList(ctx, key, list)) return;
    if (list != nullptr) {
      // Written as the plain pop of what it took (Redis's listPopRangeAndReplyWithKey).
      const std::size_t popped = std::min(args.count, storage::ListLength(*list));
      PopWithKeyReply(ctx, key, list, args.end, args.count);
      if (ctx.server.propagation.active()) {
        const std::string n = std::to_string(popped);
        ctx.server.propagation.Replace({args.end == ListEnd::kHead ? "LPOP" : "RPOP", key, n});
      }
      return;
    }
  }
  ctx.reply.NullArray();
}

}  // namespace warden::server
