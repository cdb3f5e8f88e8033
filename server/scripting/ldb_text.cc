#include "server/scripting/ldb_text.h"

#include <cctype>
#include <cstdio>
#include <cstdlib>

#include "server/monitor.h"

namespace warden::server::ldb {
namespace {

long long AtoiLong(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i])) != 0) ++i;
  bool negative = false;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) negative = s[i++] == '-';
  long long value = 0;
  for (; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i) {
    if (value < (1LL << 40)) value = value * 10 + (s[i] - '0');
  }
  return negative ? -value : value;
}

// The line after a type byte at `pos`, up to its CR LF; `next` is where the reply goes on.
std::string_view HeaderLine(std::string_view resp, std::size_t pos, std::size_t& next) {
  std::size_t end = resp.find('\r', pos + 1);
  if (end == std::string_view::npos) end = resp.size();
  next = end + 2 > resp.size() ? resp.size() : end + 2;
  return resp.substr(pos + 1, end - pos - 1);
}

std::size_t AppendAt(std::string& out, std::string_view resp, std::size_t pos);

std::size_t AppendItems(std::string& out, std::string_view resp, std::size_t pos, long long count,
                        std::string_view separator) {
  for (long long j = 0; j < count && pos < resp.size(); ++j) {
    pos = AppendAt(out, resp, pos);
    if (j != count - 1) out.append(separator);
  }
  return pos;
}

// Steps over a reply without showing it (the types Redis leaves out), noting its errors.
std::size_t SkipAt(std::string_view resp, std::size_t pos,
                   std::vector<std::string_view>* errors = nullptr) {
  std::size_t next = 0;
  const std::string_view line = HeaderLine(resp, pos, next);
  const char type = resp[pos];
  if (type == '-' && errors != nullptr) errors->push_back(line);
  const long long n = AtoiLong(line);
  if (type == '=' || type == '!' || type == '$') return n < 0 ? next : next + n + 2;
  if (type == '>' || type == '*' || type == '~' || type == '%' || type == '|') {
    const long long items = type == '%' || type == '|' ? 2 * n : n;
    for (long long j = 0; j < items && next < resp.size(); ++j) next = SkipAt(resp, next, errors);
    // An attribute precedes the reply it describes.
    if (type == '|' && next < resp.size()) next = SkipAt(resp, next, errors);
  }
  return next;
}

std::size_t AppendAt(std::string& out, std::string_view resp, std::size_t pos) {
  std::size_t next = 0;
  const std::string_view line = HeaderLine(resp, pos, next);
  switch (resp[pos]) {
    case ':':
      out.append(line);
      return next;
    case '$': {
      const long long len = AtoiLong(line);
      if (len == -1) {
        out.append("NULL");
        return next;
      }
      AppendQuoted(out, resp.substr(next, static_cast<std::size_t>(len)));
      return next + static_cast<std::size_t>(len) + 2;
    }
    case '+':
    case '-':
      AppendQuoted(out, resp.substr(pos, line.size() + 1));
      return next;
    case '*': {
      const long long count = AtoiLong(line);
      if (count == -1) {
        out.append("NULL");
        return next;
      }
      out.push_back('[');
      next = AppendItems(out, resp, next, count, ",");
      out.push_back(']');
      return next;
    }
    case '~':
      out.append("~(");
      next = AppendItems(out, resp, next, AtoiLong(line), ",");
      out.push_back(')');
      return next;
    case '%': {
      const long long count = AtoiLong(line);
      out.push_back('{');
      for (long long j = 0; j < count && next < resp.size(); ++j) {
        next = AppendAt(out, resp, next);
        out.append(" => ");
        next = AppendAt(out, resp, next);
        if (j != count - 1) out.push_back(',');
      }
      out.push_back('}');
      return next;
    }
    case '_':
      out.append("(null)");
      return next;
    case '#':
      out.append(line.substr(0, 1) == "t" ? "#true" : "#false");
      return next;
    case ',':
      out.append("(double) ");
      out.append(line);
      return next;
    default:
      return SkipAt(resp, pos);
  }
}

}  // namespace

int Atoi(std::string_view s) { return static_cast<int>(AtoiLong(s)); }

std::size_t AppendReplyText(std::string& out, std::string_view resp) {
  if (resp.empty()) return 0;
  return AppendAt(out, resp, 0);
}

void CollectErrors(std::string_view resp, std::vector<std::string_view>& errors) {
  if (!resp.empty()) SkipAt(resp, 0, &errors);
}

bool TrimToMaxLen(std::string& entry, std::size_t maxlen) {
  if (maxlen == 0 || entry.size() <= maxlen) return false;
  entry.resize(maxlen);
  entry.append(" ...");
  return true;
}

std::size_t ParseMaxLen(std::string_view arg) {
  const long long value = AtoiLong(arg);
  if (value != 0 && value <= 60) return 60;
  return static_cast<std::size_t>(value);
}

std::string SourceLine(int number, std::string_view source, bool current, bool breakpoint) {
  const char* prefix = current ? (breakpoint ? "->#" : "-> ") : (breakpoint ? "  #" : "   ");
  char head[32];
  const int n = std::snprintf(head, sizeof(head), "%s%-3d ", prefix, number);
  std::string line(head, static_cast<std::size_t>(n));
  line.append(source);
  return line;
}

std::vector<std::string> SplitSource(std::string_view body) {
  while (!body.empty() && (body.back() == '\n' || body.back() == '\r')) body.remove_suffix(1);
  std::vector<std::string> lines;
  if (body.empty()) return lines;
  std::size_t start = 0;
  while (true) {
    const std::size_t newline = body.find('\n', start);
    lines.emplace_back(body.substr(start, newline - start));
    if (newline == std::string_view::npos) break;
    start = newline + 1;
  }
  return lines;
}

ReplParse ParseReplCommand(std::string_view buffer, std::vector<std::string>& args) {
  args.clear();
  if (buffer.empty()) return ReplParse::kNeedMore;
  // Redis parses a C string copy: nothing after a NUL byte counts.
  buffer = buffer.substr(0, buffer.find('\0'));
  std::size_t p = buffer.find('*');
  if (p == std::string_view::npos) return ReplParse::kError;
  std::size_t crlf = buffer.find("\r\n", p);
  if (crlf == std::string_view::npos) return ReplParse::kNeedMore;
  const long long count = AtoiLong(buffer.substr(p + 1, crlf - p - 1));
  if (count <= 0 || count > 1024) return ReplParse::kError;
  p = crlf + 2;
  while (static_cast<long long>(args.size()) < count) {
    if (p >= buffer.size()) return ReplParse::kNeedMore;
    if (buffer[p] != '$') return ReplParse::kError;
    crlf = buffer.find("\r\n", p);
    if (crlf == std::string_view::npos) return ReplParse::kNeedMore;
    const long long len = AtoiLong(buffer.substr(p + 1, crlf - p - 1));
    if (len <= 0 || len > 1024) return ReplParse::kError;
    p = crlf + 2;
    if (p + static_cast<std::size_t>(len) + 2 > buffer.size()) return ReplParse::kNeedMore;
    args.emplace_back(buffer.substr(p, static_cast<std::size_t>(len)));
    p += static_cast<std::size_t>(len);
    if (buffer[p] != '\r' || buffer[p + 1] != '\n') return ReplParse::kError;
    p += 2;
  }
  return ReplParse::kCommand;
}

std::span<const std::string_view> HelpLines() {
  static constexpr std::string_view kLines[] = {
      "Redis Lua debugger help:",
      "[h]elp               Show this help.",
      "[s]tep               Run current line and stop again.",
      "[n]ext               Alias for step.",
      "[c]ontinue           Run till next breakpoint.",
      "[l]ist               List source code around current line.",
      "[l]ist [line]        List source code around [line].",
      "                     line = 0 means: current position.",
      "[l]ist [line] [ctx]  In this form [ctx] specifies how many lines",
      "                     to show before/after [line].",
      "[w]hole              List all source code. Alias for 'list 1 1000000'.",
      "[p]rint              Show all the local variables.",
      "[p]rint <var>        Show the value of the specified variable.",
      "                     Can also show global vars KEYS and ARGV.",
      "[b]reak              Show all breakpoints.",
      "[b]reak <line>       Add a breakpoint to the specified line.",
      "[b]reak -<line>      Remove breakpoint from the specified line.",
      "[b]reak 0            Remove all breakpoints.",
      "[t]race              Show a backtrace.",
      "[e]val <code>        Execute some Lua code (in a different callframe).",
      "[r]edis <cmd>        Execute a Redis command.",
      "[m]axlen [len]       Trim logged Redis replies and Lua var dumps to len.",
      "                     Specifying zero as <len> means unlimited.",
      "[a]bort              Stop the execution of the script. In sync",
      "                     mode dataset changes will be retained.",
      "",
      "Debugger functions you can call from Lua scripts:",
      "redis.debug()        Produce logs in the debugger console.",
      "redis.breakpoint()   Stop execution like if there was a breakpoint in the",
      "                     next line of code.",
  };
  return kLines;
}

}  // namespace warden::server::ldb
