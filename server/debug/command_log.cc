#include "server/debug/command_log.h"

#include <algorithm>
#include <utility>

#include "server/command_context.h"
#include "server/command_table.h"
#include "server/commands/commands.h"
#include "server/debug/debug_controls.h"
#include "server/scripting/script_engine.h"
#include "server/server_state.h"
#include "server/stats/slowlog.h"

namespace warden::server {

std::string_view OriginName(CommandOrigin origin) {
  switch (origin) {
    case CommandOrigin::kClient:
      return "client";
    case CommandOrigin::kExec:
      return "exec";
    case CommandOrigin::kScript:
      return "script";
  }
  return "client";
}

void CommandLog::Start(std::size_t max_entries) {
  on_ = true;
  // Rare: rebuild the ring in order, so that head_ is 0 until it is full again.
  const std::size_t kept = std::min(size_, max_entries);
  std::vector<Entry> ordered;
  ordered.reserve(kept);
  for (std::size_t i = size_ - kept; i < size_; ++i) {
    ordered.push_back(std::move(ring_[(head_ + i) % ring_.size()]));
  }
  dropped_ += size_ - kept;
  ring_ = std::move(ordered);
  head_ = 0;
  size_ = kept;
  max_entries_ = max_entries;
}

void CommandLog::Reset() {
  std::vector<Entry>().swap(ring_);  // RESET gives the memory back
  head_ = 0;
  size_ = 0;
  dropped_ = 0;
}

void CommandLog::Append(const CommandSpec& spec, std::span<const std::string_view> args,
                        std::int64_t time_ms, std::uint64_t client_id, std::string_view client_name,
                        int db, CommandOrigin origin) {
  // Until the ring is full, entries sit at [0, size_) and head_ stays 0; from then on the oldest
  // slot is reused.
  Entry* slot = nullptr;
  if (size_ < max_entries_) {
    if (size_ == ring_.size()) ring_.emplace_back();
    slot = &ring_[size_++];
  } else {
    slot = &ring_[head_];
    head_ = (head_ + 1) % ring_.size();
    ++dropped_;
  }
  slot->seq = next_seq_++;
  slot->time_ms = time_ms;
  slot->client_id = client_id;
  slot->client_name.assign(client_name);
  slot->db = db;
  slot->origin = origin;
  slot->data.clear();
  slot->ends.clear();
  // Long arguments are cut as the slow log cuts them, and an entry stops taking arguments past a
  // byte budget: a test asserts on names, keys and options, and a log of big values must not
  // hold their copies.
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (slot->data.size() >= kMaxEntryBytes) {
      slot->data.append("... (" + std::to_string(args.size() - i) + " more arguments)");
      slot->ends.push_back(static_cast<std::uint32_t>(slot->data.size()));
      break;
    }
    const std::string_view arg =
        RedactedArgument(spec, args, i) ? std::string_view("(redacted)") : args[i];
    if (arg.size() > kMaxArgBytes) {
      slot->data.append(arg.substr(0, kMaxArgBytes));
      slot->data.append("... (" + std::to_string(arg.size() - kMaxArgBytes) + " more bytes)");
    } else {
      slot->data.append(arg);
    }
    slot->ends.push_back(static_cast<std::uint32_t>(slot->data.size()));
  }
}

void LogCall(ServerState& server, const Session& session, const CommandSpec& spec,
             std::span<const std::string_view> args, std::int64_t now_ms) {
  if (spec.handler == DebugCommand && args.size() >= 2 && ArgIs(args[1], "command-log")) return;
  const Session* client = &session;
  CommandOrigin origin = CommandOrigin::kClient;
  if (session.is_script) {
    origin = CommandOrigin::kScript;
    if (server.scripts->caller() != nullptr) client = server.scripts->caller();
  } else if (server.call.depth > 0) {
    // Call() nests only for scripts and EXEC.
    origin = CommandOrigin::kExec;
  }
  server.debug->command_log.Append(spec, args, now_ms, client->id, client->name, session.db,
                                   origin);
}

}  // namespace warden::server
