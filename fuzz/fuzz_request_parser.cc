// libFuzzer target: RequestParser on any bytes, fed as a connection feeds it.
//
// The first byte chooses the parser's situation (bit 0: the client has not authenticated, bit 1:
// tight limits, so the limit errors are reachable with short inputs); the next four give the
// sizes of the reads the rest arrives in (1 to 256 bytes, in turn). The same bytes fed in one
// read must give the same requests, empty requests and error, except that a read ending inside an
// over-long line may fail where the whole line would have parsed: Redis checks its inline
// limits against what has arrived so far, too.
//
// Checked on every step: a request or empty request consumes at least one and at most the bytes
// given; a request has arguments, and multibulk ones lie inside the consumed bytes; after an
// error the client is closed, so parsing stops; and every request, written back as a multibulk,
// parses to the same arguments.
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/request_parser.h"

namespace warden::fuzz {
namespace {

using protocol::ParserLimits;
using protocol::ParseStatus;
using protocol::RequestParser;

constexpr std::size_t kHeaderBytes = 5;

void Check(bool ok, const char* what) {
  if (ok) return;
  std::fprintf(stderr, "fuzz check failed: %s\n", what);
  std::abort();
}

struct Event {
  ParseStatus status;
  std::vector<std::string> args;
  std::string error;

  bool operator==(const Event&) const = default;
};

std::string Multibulk(const std::vector<std::string>& args) {
  std::string out = "*" + std::to_string(args.size()) + "\r\n";
  for (const std::string& arg : args) {
    out += "$" + std::to_string(arg.size()) + "\r\n" + arg + "\r\n";
  }
  return out;
}

void CheckRoundTrip(const std::vector<std::string>& args) {
  const std::string encoded = Multibulk(args);
  RequestParser parser;
  Check(parser.Parse(encoded, true) == ParseStatus::kRequest, "a written request parses");
  Check(parser.consumed() == encoded.size(), "a written request is consumed whole");
  Check(parser.args().size() == args.size(), "a written request keeps its argument count");
  for (std::size_t i = 0; i < args.size(); ++i) {
    Check(parser.args()[i] == args[i], "a written request keeps its arguments");
  }
}

// Parses what `buffer` holds, removing each complete request from its front. Returns false
// after an error.
bool Drain(RequestParser& parser, std::string& buffer, bool authenticated,
           std::vector<Event>& events) {
  while (true) {
    const ParseStatus status = parser.Parse(buffer, authenticated);
    if (status == ParseStatus::kNeedMore) return true;
    if (status == ParseStatus::kError) {
      Check(parser.error().starts_with("ERR Protocol error: "), "errors are protocol errors");
      events.push_back({status, {}, std::string(parser.error())});
      return false;
    }
    Check(parser.consumed() > 0, "a request consumes bytes");
    Check(parser.consumed() <= buffer.size(), "a request consumes only the bytes given");
    Event event{status, {}, {}};
    if (status == ParseStatus::kRequest) {
      Check(!parser.args().empty(), "a request has arguments");
      for (std::string_view arg : parser.args()) {
        if (buffer[0] == '*') {
          Check(arg.data() >= buffer.data() &&
                    arg.data() + arg.size() <= buffer.data() + parser.consumed(),
                "multibulk arguments lie inside the request");
        }
        event.args.emplace_back(arg);
      }
      CheckRoundTrip(event.args);
    } else {
      Check(parser.args().empty(), "an empty request has no arguments");
    }
    events.push_back(std::move(event));
    buffer.erase(0, parser.consumed());
    parser.Reset();
  }
}

std::vector<Event> Feed(std::string_view input, std::span<const std::size_t> reads,
                        bool authenticated, const ParserLimits& limits) {
  RequestParser parser(limits);
  std::string buffer;
  std::vector<Event> events;
  std::size_t next_read = 0;
  while (!input.empty()) {
    const std::size_t n = std::min(reads[next_read++ % reads.size()], input.size());
    buffer.append(input.substr(0, n));
    input.remove_prefix(n);
    if (!Drain(parser, buffer, authenticated, events)) break;
  }
  return events;
}

bool IsLimitError(const Event& e) {
  return e.status == ParseStatus::kError && e.error.find("too big") != std::string::npos;
}

}  // namespace
}  // namespace warden::fuzz

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace warden::fuzz;
  if (size < kHeaderBytes) return 0;
  const bool authenticated = (data[0] & 1) == 0;
  ParserLimits limits;
  if ((data[0] & 2) != 0) {
    limits.max_inline_bytes = 32;
    limits.max_bulk_len = 16;
    limits.max_multibulk_len = 8;
    limits.unauthenticated_max_multibulk_len = 2;
    limits.unauthenticated_max_bulk_len = 4;
  }
  std::array<std::size_t, kHeaderBytes - 1> reads;
  for (std::size_t i = 0; i < reads.size(); ++i) reads[i] = std::size_t{data[1 + i]} + 1;
  const std::string_view input(reinterpret_cast<const char*>(data) + kHeaderBytes,
                               size - kHeaderBytes);

  const std::vector<Event> split = Feed(input, reads, authenticated, limits);
  const std::size_t whole_read[] = {input.size() + 1};
  const std::vector<Event> whole = Feed(input, whole_read, authenticated, limits);
  if (split == whole) return 0;
  std::size_t same = 0;
  while (same < split.size() && same < whole.size() && split[same] == whole[same]) ++same;
  Check(same + 1 == split.size() && IsLimitError(split.back()),
        "split reads parse as one read does, up to a limit error");
  return 0;
}
