// Incremental RESP request parser.
//
// The connection owns the bytes; the parser owns only its progress through them. The caller passes
// every unconsumed byte, starting with the first byte of the request in progress, each time more
// arrive. Progress is kept as offsets, so the caller may move or grow its buffer between calls as
// long as those bytes stay in order. A declared length is checked against the limits before the
// caller is asked to hold that many bytes.
//
// Lifetime: the views returned by args() point into the caller's buffer (multibulk) or into the
// parser (inline, whose quoting needs unescaping). They stay valid until the next Parse() or
// Reset() call, or until the caller changes the consumed bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace warden::protocol {

// Redis's defaults (server.h: PROTO_INLINE_MAX_SIZE, proto-max-bulk-len).
struct ParserLimits {
  std::size_t max_inline_bytes = 64 * 1024;
  std::int64_t max_bulk_len = 512LL * 1024 * 1024;
  std::int64_t max_multibulk_len = 2147483647;
  // Tighter limits for clients that still have to authenticate (networking.c).
  std::int64_t unauthenticated_max_multibulk_len = 10;
  std::int64_t unauthenticated_max_bulk_len = 16384;
};

enum class ParseStatus {
  kNeedMore,  // no complete request yet; call again with more bytes
  kRequest,   // args() holds a request; consumed() bytes belong to it
  kEmpty,     // an empty request (blank inline line, *0, *-1): skip consumed() bytes, no reply
  kError,     // error() holds Redis's protocol error text; reply it and close
};

class RequestParser {
 public:
  explicit RequestParser(ParserLimits limits = {}) : limits_(limits) {}

  // Parses from `data`, which must begin where the current request begins.
  ParseStatus Parse(std::string_view data, bool authenticated);

  std::span<const std::string_view> args() const { return args_; }
  std::size_t consumed() const { return pos_; }
  // The reply text without the leading "-"; stable for the parser's lifetime.
  std::string_view error() const { return error_; }
  // Bytes the request in progress still needs before it can complete, if known (a bulk whose length
  // was declared); 0 otherwise. Lets the caller size its read buffer once for a large argument.
  std::size_t bytes_wanted() const { return wanted_; }
  // True while a multibulk request is partly read.
  bool in_progress() const { return pos_ != 0; }

  // Forgets the request in progress and the last request; call after consuming a complete one.
  void Reset();
  // Between requests, gives back argument arrays grown past `keep_args` entries, so that one
  // request of a million arguments does not pin their memory for the connection's life (Redis
  // frees a client's argv after each command).
  void ShrinkIfIdle(std::size_t keep_args);
  // The bytes the parser holds for arguments (CLIENT LIST's argv-mem is Redis's equivalent).
  std::size_t memory_bytes() const;

  const ParserLimits& limits() const { return limits_; }
  void set_limits(const ParserLimits& limits) { limits_ = limits; }

 private:
  ParseStatus ParseInline(std::string_view data);
  ParseStatus ParseMultibulk(std::string_view data, bool authenticated);
  ParseStatus Fail(std::string_view error);

  struct Span {
    std::size_t offset;
    std::size_t length;
  };

  ParserLimits limits_;
  std::size_t pos_ = 0;              // bytes of the current request parsed so far
  std::int64_t multibulk_left_ = 0;  // arguments still to read; 0 before the count line
  std::int64_t bulk_len_ = -1;       // length of the argument being read, -1 before its header
  std::size_t wanted_ = 0;
  std::vector<Span> spans_;
  std::vector<std::string_view> args_;
  std::string inline_storage_;
  std::vector<std::pair<std::size_t, std::size_t>> inline_spans_;
  std::string_view error_;
  std::string error_storage_;
};

// Splits an inline request line the way Redis's sdssplitargs does: blanks separate arguments,
// "..." takes \n \r \t \b \a \\ \" and \xHH escapes, '...' takes \'. A closing quote must be
// followed by a blank or the end. Appends the unescaped bytes of each argument to `storage` and
// its place to `spans`. Returns false on unbalanced quotes.
bool SplitInlineArgs(std::string_view line, std::string& storage,
                     std::vector<std::pair<std::size_t, std::size_t>>& spans);

// Redis's string2ll: optional '-', no '+', no leading zeros, no blanks, at most 20 chars, no "-0".
bool ParseStrictInt64(std::string_view text, std::int64_t& out);

}  // namespace warden::protocol
