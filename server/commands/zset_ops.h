// What the sorted set commands share: Redis's score and range parsers, and the pop replies that
// ZPOPMIN/ZPOPMAX/ZMPOP and their blocking forms (BZPOPMIN, BZPOPMAX, BZMPOP) all send.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <utility>

#include "server/command_context.h"
#include "storage/zset.h"

namespace warden::server {

// Redis's string2d (ZADD and ZINCRBY scores, WEIGHTS): strtod over the whole argument; no
// leading space, no NaN, no overflow or underflow to zero.
bool ParseScore(std::string_view text, double& out);

// A score interval; a bound prefixed with '(' is exclusive.
struct ScoreRange {
  double min = 0;
  double max = 0;
  bool min_exclusive = false;
  bool max_exclusive = false;
};
// Redis's zslParseRange: strtod up to the first NUL, only the end checked (so " 2", "" and
// "1e400" pass); NaN refused. False on any error.
bool ParseScoreRange(std::string_view min, std::string_view max, ScoreRange& out);
// Redis's zslParseLexRange: "-", "+", "[member" or "(member". False on any error.
bool ParseLexRange(std::string_view min, std::string_view max, storage::LexBound& lo,
                   storage::LexBound& hi);

// The ranks [first, end) of the members inside a range; first >= end when none are.
std::pair<std::size_t, std::size_t> ScoreRangeRanks(const storage::Entry& zset,
                                                    const ScoreRange& range);
std::pair<std::size_t, std::size_t> LexRangeRanks(const storage::Entry& zset,
                                                  const storage::LexBound& lo,
                                                  const storage::LexBound& hi);

// Pops up to `count` (>= 1) members from `zset` (non-empty, at `key`), lowest first or with
// `max` highest first, and replies as Redis's genericZpopCommand:
//   flat, no key:    m1 s1 m2 s2 ...              ZPOPMIN/ZPOPMAX (RESP3: without a count)
//   nested, no key:  [m1 s1] [m2 s2] ...          ZPOPMIN/ZPOPMAX with a count in RESP3
//   flat, key:       key m1 s1 ...                BZPOPMIN/BZPOPMAX
//   nested, key:     key [[m1 s1] [m2 s2] ...]    ZMPOP, BZMPOP
// The key goes with its last member (`zset` becomes nullptr).
void ReplyZpop(CommandContext& ctx, storage::Entry*& zset, std::string_view key, bool max,
               std::int64_t count, bool nested, bool emit_key);

// ZMPOP's and BZMPOP's arguments from `numkeys_at` on: numkeys, the keys, MIN|MAX, [COUNT n].
// False after replying the error.
struct ZmpopArgs {
  std::size_t first_key = 0;
  std::size_t numkeys = 0;
  bool max = false;
  std::int64_t count = 1;
};
[[nodiscard]] bool ParseZmpopArgs(CommandContext& ctx, std::size_t numkeys_at, ZmpopArgs& out);

}  // namespace warden::server
