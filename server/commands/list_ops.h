// The parsing and reply logic of the list pops and moves, shared by LPOP/RPOP, LMPOP, LMOVE and
// RPOPLPUSH and by their blocking forms (BLPOP, BLMPOP, BLMOVE), which call these once a key
// has elements. Each function that pops takes a list that exists (not nullptr) and updates it
// as storage/list.h does.
#pragma once

#include <cstddef>
#include <span>
#include <string_view>

#include "server/command_context.h"
#include "storage/keyspace.h"
#include "storage/list.h"

namespace warden::server {

// LEFT or RIGHT, case-insensitive; false after replying a syntax error.
[[nodiscard]] bool ListEndArg(CommandContext& ctx, std::string_view arg, storage::ListEnd& end);

// LMPOP's arguments from numkeys on: numkeys key... LEFT|RIGHT [COUNT count].
struct MpopArgs {
  std::span<const std::string_view> keys;
  storage::ListEnd end = storage::ListEnd::kHead;
  std::size_t count = 1;
};
// Parses them from argument `numkeys_at` to the last one (BLMPOP: after its timeout); false
// after replying Redis's error.
[[nodiscard]] bool ParseMpopArgs(CommandContext& ctx, std::size_t numkeys_at, MpopArgs& out);

// The pops publish Redis's lpop/rpop event on the key, then `del` if they emptied it.
// Pops one element at `end` of the list at `key` and replies it as a bulk string (LPOP key).
void PopOneReply(CommandContext& ctx, std::string_view key, storage::Entry*& list,
                 storage::ListEnd end);
// Pops one element and replies [key, element] (BLPOP, BRPOP).
void PopOneWithKeyReply(CommandContext& ctx, std::string_view key, storage::Entry*& list,
                        storage::ListEnd end);
// Pops up to `count` elements (count > 0) and replies them as an array (LPOP key count).
void PopCountReply(CommandContext& ctx, std::string_view key, storage::Entry*& list,
                   storage::ListEnd end, std::size_t count);
// Pops up to `count` elements and replies [key, [elements]] (LMPOP, BLMPOP).
void PopWithKeyReply(CommandContext& ctx, std::string_view key, storage::Entry*& list,
                     storage::ListEnd end, std::size_t count);
// Moves the element at `from` of `src` (a list stored at `src_key`) to the `to` end of
// `dst_key`, creating it, and replies the element (LMOVE, RPOPLPUSH, BLMOVE). The caller has
// checked that `dst_key` is missing or a list. Publishes as Redis: the push on the destination
// (after `new` if created), then the pop on the source, then `del` if it was emptied.
void MoveReply(CommandContext& ctx, std::string_view src_key, storage::Entry*& src,
               std::string_view dst_key, storage::ListEnd from, storage::ListEnd to);

}  // namespace warden::server
