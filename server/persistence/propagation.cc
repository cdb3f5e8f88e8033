#include "server/persistence/propagation.h"

#include <charconv>

#include "server/persistence/aof.h"
#include "server/replication/replication.h"

namespace warden::server {

void Propagation::Replace(std::initializer_list<std::string_view> argv) {
  Replace(std::span<const std::string_view>(argv.begin(), argv.size()));
}

void Propagation::Replace(std::span<const std::string_view> argv) {
  replacement_.clear();
  AppendCommand(replacement_, argv);
  replaced_ = true;
}

void Propagation::ReplaceDeadline(std::string_view command, std::string_view key, std::int64_t ms) {
  char digits[24];
  const auto [end, ec] = std::to_chars(digits, digits + sizeof(digits), ms);
  Replace({command, key, std::string_view(digits, static_cast<std::size_t>(end - digits))});
}

void Propagation::ReplaceSet(std::string_view key, std::string_view value, std::int64_t ms) {
  char digits[24];
  const auto [end, ec] = std::to_chars(digits, digits + sizeof(digits), ms);
  Replace({"SET", key, value, "PXAT",
           std::string_view(digits, static_cast<std::size_t>(end - digits))});
}

void Propagation::Emit(int db, std::string_view encoded) {
  if (aof_on_) aof_.FeedEncoded(db, encoded);
  if (repl_on_) replication_.Feed(db, encoded);
}

void Propagation::Add(int db, std::span<const std::string_view> argv, int depth) {
  if (!active_) return;
  if (depth == 0) {
    scratch_.clear();
    AppendCommand(scratch_, argv);
    Emit(db, scratch_);
    return;
  }
  const std::size_t offset = pending_.size();
  AppendCommand(pending_, argv);
  ops_.push_back({db, offset, pending_.size() - offset});
}

void Propagation::AddCommand(int db, std::span<const std::string_view> argv, int depth) {
  if (!replaced_) {
    Add(db, argv, depth);
    return;
  }
  replaced_ = false;
  if (replacement_.empty()) return;  // suppressed
  if (depth == 0) {
    Emit(db, replacement_);
    return;
  }
  ops_.push_back({db, pending_.size(), replacement_.size()});
  pending_.append(replacement_);
}

void Propagation::EndCommand() {
  if (ops_.empty()) return;
  static constexpr std::string_view kMulti = "*1\r\n$5\r\nMULTI\r\n";
  static constexpr std::string_view kExec = "*1\r\n$4\r\nEXEC\r\n";
  const bool wrap = ops_.size() > 1;
  if (wrap) Emit(ops_.front().db, kMulti);
  for (const Op& op : ops_) {
    Emit(op.db, std::string_view(pending_).substr(op.offset, op.length));
  }
  if (wrap) Emit(ops_.back().db, kExec);
  ops_.clear();
  pending_.clear();
}

}  // namespace warden::server
