// What the stream command files share: reading ids as Redis does, replying entries, finding
// a stream and its group.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "server/command_context.h"
#include "storage/stream.h"
#include "storage/stream_group.h"

namespace warden::server {

inline constexpr std::string_view kInvalidStreamId =
    "ERR Invalid stream ID specified as stream command argument";

// Redis's streamGenericParseIDOrReply: "ms-seq", "ms" (seq `missing_seq`), "-" and "+" unless
// `strict`; with `seq_given` non-null, "ms-*" too (then *seq_given is false). False after
// replying the error.
[[nodiscard]] bool StreamIdArg(CommandContext& ctx, std::string_view arg, std::uint64_t missing_seq,
                               bool strict, bool* seq_given, storage::StreamId& id);
// The same without a reply.
bool ParseStreamId(std::string_view arg, std::uint64_t missing_seq, bool strict, bool* seq_given,
                   storage::StreamId& id);

void ReplyStreamId(CommandContext& ctx, storage::StreamId id);
// One entry: [id, [field, value, ...]].
void ReplyStreamEntry(CommandContext& ctx, storage::StreamId id,
                      std::span<const storage::Stream::Field> fields);

// Finds `key`, which must hold a stream: false after replying WRONGTYPE; `entry` nullptr when
// missing.
[[nodiscard]] bool LookupStream(CommandContext& ctx, std::string_view key, storage::Entry*& entry);

// The group `name` of `stream`, or nullptr; a lookup never creates the stream's group table.
inline storage::StreamGroup* FindStreamGroup(storage::Stream& stream, std::string_view name) {
  const storage::StreamGroups* groups = stream.groups_if_any();
  return groups != nullptr ? groups->Find(name) : nullptr;
}

// The node limits of the configuration.
storage::StreamNodeLimits StreamLimits(const CommandContext& ctx);

// Replies with the entries in [start, end] (reversed with `reverse`), at most `count` (0: all):
// Redis's streamReplyWithRange without a group. Returns how many.
std::size_t ReplyStreamRange(CommandContext& ctx, const storage::Stream& stream,
                             storage::StreamId start, storage::StreamId end, std::size_t count,
                             bool reverse);

// XREADGROUP's and XCLAIM's effect for the append-only file: an XCLAIM that recreates the
// pending entry exactly (Redis's streamPropagateXCLAIM).
void PropagateClaim(CommandContext& ctx, std::string_view key, std::string_view group_name,
                    const storage::StreamGroup& group, storage::StreamId id,
                    const storage::StreamPending& pending);
// XGROUP SETID key group last-id ENTRIESREAD n, for the group's position.
void PropagateGroupId(CommandContext& ctx, std::string_view key, std::string_view group_name,
                      const storage::StreamGroup& group);
// XGROUP CREATECONSUMER key group consumer.
void PropagateConsumerCreation(CommandContext& ctx, std::string_view key,
                               std::string_view group_name, std::string_view consumer);

}  // namespace warden::server
