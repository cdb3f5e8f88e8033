#include "server/client_pause.h"

#include <algorithm>
#include <limits>

#include "protocol/reply_writer.h"
#include "server/blocking.h"
#include "server/command_table.h"
#include "server/commands/commands.h"
#include "server/dispatcher.h"
#include "server/scripting/script_engine.h"
#include "server/server_state.h"
#include "server/transaction.h"

namespace warden::server {
namespace {

// Redis's CMD_WRITE | CMD_MAY_REPLICATE, with a script's own declaration taken into account
// (evalGetCommandFlags).
bool MayWrite(const ServerState& server, const CommandSpec& spec,
              std::span<const std::string_view> args) {
  if ((EffectiveFlags(server, spec, args) & (kWrite | kMayReplicate)) != 0) return true;
  return spec.name == "publish" || spec.name == "spublish" || spec.name == "pfcount";
}

// warden's DEBUG CLOCK and DEBUG WAIT-BLOCKED: an ALL pause on a frozen clock ends only when a
// test moves the clock, so holding these would hold the server for good.
bool DrivesTime(const CommandSpec& spec, std::span<const std::string_view> args) {
  return spec.handler == DebugCommand && args.size() >= 2 &&
         (ArgIs(args[1], "clock") || ArgIs(args[1], "wait-blocked"));
}

}  // namespace

ClientPause::ClientPause() = default;
ClientPause::~ClientPause() = default;

void ClientPause::Pause(PausePurpose purpose, PauseMode mode, std::int64_t end_ms,
                        std::int64_t now_ms) {
  const PauseMode old = mode_;
  Slot& slot = slots_[static_cast<std::size_t>(purpose)];
  if (slot.mode == PauseMode::kOff) {
    slot = {mode, end_ms};
  } else {
    slot.mode = std::max(slot.mode, mode);
    slot.end_ms = std::max(slot.end_ms, end_ms);
  }
  // A pause whose end has already passed (CLIENT PAUSE 0) is over at once.
  if (slot.end_ms < now_ms) slot = {};
  Update(old);
}

void ClientPause::Unpause(PausePurpose purpose) {
  const PauseMode old = mode_;
  slots_[static_cast<std::size_t>(purpose)] = {};
  Update(old);
}

bool ClientPause::ExpireIfDue(std::int64_t now_ms) {
  if (mode_ == PauseMode::kOff) return false;
  const PauseMode old = mode_;
  bool ended = false;
  for (Slot& slot : slots_) {
    if (slot.mode != PauseMode::kOff && slot.end_ms < now_ms) {
      slot = {};
      ended = true;
    }
  }
  if (ended) Update(old);
  return ended;
}

std::int64_t ClientPause::end_ms() const {
  std::int64_t end = std::numeric_limits<std::int64_t>::max();
  for (const Slot& slot : slots_) {
    if (slot.mode != PauseMode::kOff) end = std::min(end, slot.end_ms);
  }
  return end;
}

void ClientPause::Update(PauseMode old) {
  mode_ = PauseMode::kOff;
  for (const Slot& slot : slots_) mode_ = std::max(mode_, slot.mode);
  if (mode_ < old) Release();
  if ((old == PauseMode::kOff) != (mode_ == PauseMode::kOff) && on_change_) on_change_();
}

bool ClientPause::Holds(const ServerState& server, const Session& session, const CommandSpec& spec,
                        std::span<const std::string_view> args) const {
  if (mode_ == PauseMode::kAll) return !DrivesTime(spec, args);
  if (mode_ != PauseMode::kWrite) return false;
  if (MayWrite(server, spec, args)) return true;
  // An EXEC takes the flags of what it would run (Redis's mstate.cmd_flags): commands queued
  // before the pause began.
  if (spec.handler != ExecCommand || !session.in_multi) return false;
  const QueuedCommands& queued = session.multi.queued;
  std::vector<std::string_view> queued_args;
  for (std::size_t i = 0; i < queued.size(); ++i) {
    queued.Args(i, queued_args);
    if (MayWrite(server, queued.spec(i), queued_args)) return true;
  }
  return false;
}

void ClientPause::Postpone(Session& session, std::span<const std::string_view> args) {
  auto p = std::make_unique<Postponed>();
  p->session = &session;
  p->args.assign(args.begin(), args.end());
  session.blocked = true;
  postponed_.push_back(std::move(p));
}

void ClientPause::Remove(const Session& session) {
  const auto is = [&](const std::unique_ptr<Postponed>& p) { return p->session == &session; };
  postponed_.erase(std::remove_if(postponed_.begin(), postponed_.end(), is), postponed_.end());
  released_.erase(std::remove_if(released_.begin(), released_.end(), is), released_.end());
}

void ClientPause::Release() {
  for (auto& p : postponed_) released_.push_back(std::move(p));
  postponed_.clear();
}

void ClientPause::DispatchReleased(ServerState& server) {
  std::vector<std::unique_ptr<Postponed>> batch;
  batch.swap(released_);
  for (const auto& p : batch) {
    Session& session = *p->session;
    session.blocked = false;
    std::vector<std::string_view> views(p->args.begin(), p->args.end());
    std::string scratch;  // a client without a connection (command tests) gets no reply
    std::string& out = session.host != nullptr ? session.host->reply_buffer() : scratch;
    protocol::ReplyWriter writer(&out, session.resp);
    Dispatch(server, session, views, writer);
    if (!session.blocked && session.host != nullptr) session.host->Unblocked();
  }
}

}  // namespace warden::server
