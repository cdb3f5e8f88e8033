// The differential case-file format (see README.md beside this file): one command per line in
// redis-cli quoting, with a few lower-case directives that say how to send a line or how to
// compare its replies. Parsing is pure, so the format is tested without any server.
#ifndef WARDEN_TESTS_DIFFERENTIAL_CASE_FILE_H_
#define WARDEN_TESTS_DIFFERENTIAL_CASE_FILE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warden::testing {

enum class LineKind {
  kCommand,    // send `args` as a command, read one reply
  kRaw,        // send `raw` as is, read `replies` replies
  kRawClose,   // send `raw` as is, read until the server closes the connection
  kScanAll,    // iterate SCAN from cursor 0 back to 0 with `args` as options; compare key sets
  kReconnect,  // replace both connections with fresh ones (no FLUSHALL)
};

struct CaseLine {
  int number = 0;    // 1-based line number in the file
  std::string text;  // the line as written, for messages
  LineKind kind = LineKind::kCommand;
  std::vector<std::string> args;  // the command, or SCAN's options for scanall
  std::string raw;                // the bytes raw/rawclose send
  int replies = 1;                // how many replies a raw line reads
  // Comparison: integers may differ by this much; arrays compared as sorted multisets;
  // only the reply's type byte compared.
  std::int64_t integer_tolerance = 0;
  bool sorted = false;
  bool type_only = false;
};

struct CaseFile {
  std::vector<CaseLine> lines;
  std::vector<std::string> errors;  // "line N: problem" for lines that could not be parsed
};

// Splits a line into arguments the way redis-cli does (sdssplitargs): blanks separate
// arguments; "..." understands \n \r \t \b \a \\ \" and \xHH; '...' understands only \'.
// A closing quote must be followed by a blank or the end. Nullopt on unbalanced quotes.
std::optional<std::vector<std::string>> SplitArgs(std::string_view line);

// Parses a whole case file. Blank lines and lines starting with '#' are skipped.
CaseFile ParseCaseFile(std::string_view contents);

}  // namespace warden::testing

#endif  // WARDEN_TESTS_DIFFERENTIAL_CASE_FILE_H_
