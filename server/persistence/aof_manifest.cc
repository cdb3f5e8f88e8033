// The append-only directory's manifest (Redis 7.0's aof.c aofLoadManifestFromFile and
// getAofManifestAsString): one line per file, `file <name> seq <n> type <b|h|i>`.
#include <charconv>
#include <string>
#include <string_view>
#include <vector>

#include "server/persistence/aof.h"

namespace warden::server {
namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.back() == '\r' || s.back() == ' ')) s.remove_suffix(1);
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  return s;
}

std::vector<std::string_view> Words(std::string_view line) {
  std::vector<std::string_view> words;
  while (!line.empty()) {
    const std::size_t start = line.find_first_not_of(' ');
    if (start == std::string_view::npos) break;
    line.remove_prefix(start);
    const std::size_t end = line.find(' ');
    words.push_back(line.substr(0, end));
    if (end == std::string_view::npos) break;
    line.remove_prefix(end);
  }
  return words;
}

}  // namespace

std::optional<std::string> ParseAofManifest(std::string_view text, AofManifest& out) {
  out = AofManifest{};
  while (!text.empty()) {
    const std::size_t nl = text.find('\n');
    if (nl == std::string_view::npos) return "The AOF manifest file is invalid format";
    const std::string_view line = Trim(text.substr(0, nl));
    text.remove_prefix(nl + 1);
    if (line.empty() || line.front() == '#') continue;
    const std::vector<std::string_view> words = Words(line);
    if (words.size() % 2 != 0) return "Invalid AOF manifest file format";
    AofFileInfo info;
    info.type = 0;
    for (std::size_t i = 0; i < words.size(); i += 2) {
      if (words[i] == "file") {
        info.name = words[i + 1];
      } else if (words[i] == "seq") {
        const std::string_view v = words[i + 1];
        const auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), info.seq);
        if (ec != std::errc() || p != v.data() + v.size()) {
          return "Invalid AOF manifest file format";
        }
      } else if (words[i] == "type") {
        info.type = words[i + 1].size() == 1 ? words[i + 1][0] : 0;
      }
    }
    if (info.name.empty() || info.seq == 0 ||
        (info.type != 'b' && info.type != 'h' && info.type != 'i')) {
      return "Invalid AOF manifest file format";
    }
    if (info.name.find('/') != std::string::npos) return "Invalid AOF manifest file format";
    if (info.type == 'b') {
      if (out.base) return "Found duplicate base file information";
      out.current_base_seq = info.seq;
      out.base = std::move(info);
    } else if (info.type == 'h') {
      out.history.push_back(std::move(info));
    } else {
      if (info.seq <= out.current_incr_seq) return "Found a non-monotonic sequence number";
      out.current_incr_seq = info.seq;
      out.incrs.push_back(std::move(info));
    }
  }
  if (!out.base && out.incrs.empty()) return "Found an empty AOF manifest";
  return std::nullopt;
}

std::string FormatAofManifest(const AofManifest& manifest) {
  std::string out;
  auto line = [&out](const AofFileInfo& info) {
    out.append("file ").append(info.name).append(" seq ").append(std::to_string(info.seq));
    out.append(" type ").push_back(info.type);
    out.push_back('\n');
  };
  if (manifest.base) line(*manifest.base);
  for (const AofFileInfo& info : manifest.history) line(info);
  for (const AofFileInfo& info : manifest.incrs) line(info);
  return out;
}

}  // namespace warden::server
