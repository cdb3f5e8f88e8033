// CLIENT PAUSE and CLIENT UNPAUSE: holding clients' commands until a deadline on warden's clock.
//
// Dispatch asks active() for every command (the one branch a server that is not paused pays);
// while a pause is on, a command it holds is postponed: its arguments are copied here, the
// client is marked blocked (CLIENT LIST shows b; its pipeline waits, as behind BLPOP) and no
// reply is written. When the pause ends (its deadline passes on the injected clock, so DEBUG
// CLOCK ADVANCE ends it, or CLIENT UNPAUSE), the postponed commands are dispatched again in the
// order they arrived, from the loop (Server's before-poll hook), not from inside the command that
// ended the pause. Like Redis, a command dispatched again goes through every check once more and
// may be postponed again by a pause that is still on.
//
// Redis 7.0's rules: ALL holds every command, WRITE holds the commands that may write or
// propagate (write commands, EVAL/EVALSHA unless their shebang says no-writes, PUBLISH, SPUBLISH,
// PFCOUNT, FCALL). Pauses combine to the stricter mode and the later end. While paused, keys are
// not expired actively.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "server/session.h"

namespace warden::server {

class ServerState;
struct CommandSpec;

enum class PauseMode : std::uint8_t { kOff = 0, kWrite = 1, kAll = 2 };  // by strictness
// Who paused (Redis's pause_purpose): each keeps its own mode and end, and ending one leaves the
// other in force (CLIENT UNPAUSE does not end a FAILOVER's pause).
enum class PausePurpose : std::uint8_t { kClientCommand = 0, kFailover = 1 };

class ClientPause {
 public:
  ClientPause();
  ~ClientPause();
  ClientPause(const ClientPause&) = delete;
  ClientPause& operator=(const ClientPause&) = delete;

  bool active() const { return mode_ != PauseMode::kOff; }
  // The strictest of the purposes' modes.
  PauseMode mode() const { return mode_; }
  // The last instant of the purpose that ends first (the pause changes once the clock is past
  // it).
  std::int64_t end_ms() const;

  // Pauses for `purpose`, combined with that purpose's pause in progress (stricter mode, later
  // end), as Redis's pauseClients.
  void Pause(PausePurpose purpose, PauseMode mode, std::int64_t end_ms, std::int64_t now_ms);
  // Ends `purpose`'s pause (CLIENT UNPAUSE: the client command's).
  void Unpause(PausePurpose purpose);
  // Ends each purpose's pause whose end the clock is past. Returns true if one ended.
  bool ExpireIfDue(std::int64_t now_ms);

  // Whether the pause in force holds this command (only asked while active()).
  bool Holds(const ServerState& server, const Session& session, const CommandSpec& spec,
             std::span<const std::string_view> args) const;
  // Keeps a copy of `args` to dispatch again once the pause ends, and blocks the client.
  void Postpone(Session& session, std::span<const std::string_view> args);
  // Forgets a client that is going away.
  void Remove(const Session& session);

  // Clients released by the end of a pause, waiting to be dispatched again.
  bool has_released() const { return !released_.empty(); }
  // Dispatches the released clients' commands again, oldest first, into their connections'
  // reply buffers, and hands each client that is no longer blocked back to its connection.
  void DispatchReleased(ServerState& server);
  std::size_t postponed_clients() const { return postponed_.size(); }
  // Called when a pause begins and when it ends.
  void set_on_change(std::function<void()> on_change) { on_change_ = std::move(on_change); }

 private:
  struct Postponed {
    Session* session;
    std::vector<std::string> args;
  };
  struct Slot {
    PauseMode mode = PauseMode::kOff;
    std::int64_t end_ms = 0;
  };
  void Release();
  // The pause in force from the purposes' (Redis's updateClientPauseTypeAndEndTime): held
  // clients go back to be judged again when it eases, and on_change_ hears when it starts or
  // ends.
  void Update(PauseMode old);

  std::array<Slot, 2> slots_;
  PauseMode mode_ = PauseMode::kOff;
  std::vector<std::unique_ptr<Postponed>> postponed_;
  std::vector<std::unique_ptr<Postponed>> released_;
  std::function<void()> on_change_;
};

}  // namespace warden::server
