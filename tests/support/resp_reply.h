// A small RESP2/RESP3 reply reader for tests: it frames one reply out of a byte stream, turns it
// into a tree good enough to compare two servers' answers (sort arrays, allow integer slack), and
// prints bytes readably. It is deliberately independent of protocol/, so a bug there cannot hide
// itself in the tests that check it. Nothing here keeps views: every Reply owns its bytes.
#ifndef WARDEN_TESTS_SUPPORT_RESP_REPLY_H_
#define WARDEN_TESTS_SUPPORT_RESP_REPLY_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace warden::testing {

// One reply. Aggregates keep their elements in wire order; a map (or attribute) is flattened to
// key, value, key, value... Attributes (`|`) are kept as a reply of their own type whose last
// element is the reply they annotate.
struct Reply {
  char type = 0;                // the RESP type byte: + - : $ * % ~ _ # , ( = > |
  std::string text;             // line or bulk payload; empty for aggregates and nulls
  bool is_null = false;         // $-1, *-1 and RESP3 `_`
  std::vector<Reply> elements;  // children of * % ~ > |
  std::string raw;              // the exact bytes of this reply (re-encoded after SortArrays)
};

enum class ParseStatus {
  kComplete,    // `reply` and `length` are set
  kIncomplete,  // a prefix of a valid reply: read more bytes
  kMalformed,   // not RESP
};

struct ParseResult {
  ParseStatus status = ParseStatus::kIncomplete;
  std::size_t length = 0;  // bytes of `bytes` the reply occupies
  Reply reply;
};

// Parses the first reply in `bytes`. Bytes after it are ignored.
ParseResult ParseReply(std::string_view bytes);

// Writes `reply` back as RESP; for a reply straight from ParseReply this equals `raw`.
std::string EncodeReply(const Reply& reply);

// Encodes a command the way clients send it: an array of bulk strings.
std::string EncodeCommand(const std::vector<std::string>& argv);

// Sorts the elements of every array and set (and the pairs of every map) at every depth, so two
// replies holding the same multisets compare equal whatever order each server used.
void SortArrays(Reply& reply);

// True when both replies have the same shape and payloads, except that integers (`:`) may differ
// by up to `integer_tolerance`.
bool RepliesMatch(const Reply& a, const Reply& b, std::int64_t integer_tolerance);

// Renders bytes on one line: printable ASCII as is, \r \n \t \\ \" escaped, others as \xHH.
// Output longer than `max_chars` is cut and marked with its full length.
std::string EscapeBytes(std::string_view bytes, std::size_t max_chars = 600);

}  // namespace warden::testing

#endif  // WARDEN_TESTS_SUPPORT_RESP_REPLY_H_
