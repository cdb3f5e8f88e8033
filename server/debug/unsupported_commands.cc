#include "server/debug/unsupported_commands.h"

#include "server/command_table.h"

namespace warden::server {
namespace {

void AppendLower(std::string& out, std::string_view name) {
  for (char c : name.substr(0, UnsupportedCommands::kMaxNameBytes)) {
    out.push_back(c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c);
  }
}

}  // namespace

void UnsupportedCommands::RecordRequest(const CommandSpec* top,
                                        std::span<const std::string_view> args) {
  std::string name;
  if (top == nullptr) {
    AppendLower(name, args[0]);
  } else if (top->is_container() && args.size() >= 2) {
    name.append(top->name);
    name.push_back('|');
    AppendLower(name, args[1]);
  } else {
    return;  // not an unknown name (the caller refused it for another reason)
  }
  Record(std::move(name));
}

void UnsupportedCommands::RecordSubcommand(std::string_view command, std::string_view sub) {
  std::string name;
  AppendLower(name, command);
  name.push_back('|');
  AppendLower(name, sub);
  Record(std::move(name));
}

void UnsupportedCommands::Record(std::string name) {
  auto it = names_.find(name);
  if (it == names_.end()) {
    if (names_.size() >= kMaxNames) name = kOtherName;
    it = names_.try_emplace(std::move(name)).first;
  }
  ++it->second.since_reset;
  ++it->second.since_start;
}

void UnsupportedCommands::ForEachSinceReset(
    const std::function<void(std::string_view, std::uint64_t)>& fn) const {
  for (const auto& [name, counts] : names_) {
    if (counts.since_reset != 0) fn(name, counts.since_reset);
  }
}

std::size_t UnsupportedCommands::names_since_reset() const {
  std::size_t n = 0;
  for (const auto& [name, counts] : names_) n += counts.since_reset != 0 ? 1 : 0;
  return n;
}

void UnsupportedCommands::ResetCounts() {
  for (auto& [name, counts] : names_) counts.since_reset = 0;
}

std::string UnsupportedCommands::SummarySinceStart() const {
  std::string out;
  for (const auto& [name, counts] : names_) {
    if (!out.empty()) out.append(", ");
    // A name is whatever bytes the client sent: keep the log line one printable line.
    for (char c : name) {
      const auto u = static_cast<unsigned char>(c);
      if (u >= 0x20 && u < 0x7f) {
        out.push_back(c);
      } else {
        static constexpr char kHex[] = "0123456789abcdef";
        out.append("\\x");
        out.push_back(kHex[u >> 4]);
        out.push_back(kHex[u & 15]);
      }
    }
    out.append(" (");
    out.append(std::to_string(counts.since_start));
    out.push_back(')');
  }
  return out;
}

}  // namespace warden::server
