// DEBUG WAIT-BLOCKED: clients waiting until enough others are blocked in a blocking command
// (BLPOP and the rest, server/blocking.h), instead of polling INFO or CLIENT LIST in a loop.
//
// A waiter is a blocked client itself (its pipeline waits, as behind BLPOP) but is not counted
// among the clients it waits for. Its timeout is real time (Clock::MonotonicUs), so it still ends
// while a test keeps warden's clock frozen. The server answers the waiters from its loop, after
// each batch of commands, and arms a timer for the earliest timeout; nothing is looked at while
// no one waits.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "server/session.h"

namespace warden::server {

class BlockedClientWaits {
 public:
  // `session` waits until at least `count` clients are blocked, or until `deadline_us` on the
  // monotonic clock (0: no timeout). Its connection gets the reply.
  void Add(Session& session, std::size_t count, std::int64_t deadline_us);
  bool empty() const { return waiters_.empty(); }
  // Answers the waiters whose count `blocked` reaches (with `blocked`) and those whose deadline
  // has come (with the timeout error), and hands them back to their connections. Returns how
  // many it answered.
  std::size_t Answer(std::size_t blocked, std::int64_t now_us);
  // The earliest deadline of a waiter, or 0.
  std::int64_t next_deadline_us() const;
  // Forgets a client that is going away.
  void Remove(const Session& session);

 private:
  struct Waiter {
    Session* session;
    std::size_t count;
    std::int64_t deadline_us;
  };
  std::vector<Waiter> waiters_;
};

// The reply of a wait that timed out: "ERR timed out waiting for <count> blocked clients
// (<blocked> blocked)".
std::string WaitBlockedTimeoutError(std::size_t count, std::size_t blocked);

}  // namespace warden::server
