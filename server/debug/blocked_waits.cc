#include "server/debug/blocked_waits.h"

#include <algorithm>
#include <string>

#include "protocol/reply_writer.h"
#include "server/blocking.h"

namespace warden::server {

std::string WaitBlockedTimeoutError(std::size_t count, std::size_t blocked) {
  return "ERR timed out waiting for " + std::to_string(count) + " blocked clients (" +
         std::to_string(blocked) + " blocked)";
}

void BlockedClientWaits::Add(Session& session, std::size_t count, std::int64_t deadline_us) {
  session.blocked = true;
  waiters_.push_back(Waiter{&session, count, deadline_us});
}

std::size_t BlockedClientWaits::Answer(std::size_t blocked, std::int64_t now_us) {
  // Taken out first: handing a client back may flush (and so close) its connection, which
  // removes it from waiters_.
  std::vector<Waiter> done;
  const auto answered = [&](const Waiter& w) {
    return w.count <= blocked || (w.deadline_us != 0 && w.deadline_us <= now_us);
  };
  for (const Waiter& w : waiters_) {
    if (answered(w)) done.push_back(w);
  }
  if (done.empty()) return 0;
  waiters_.erase(std::remove_if(waiters_.begin(), waiters_.end(), answered), waiters_.end());
  for (const Waiter& w : done) {
    Session& session = *w.session;
    BlockedClientHost* host = session.host;
    protocol::ReplyWriter writer(&host->reply_buffer(), session.resp);
    if (w.count <= blocked) {
      writer.Integer(static_cast<std::int64_t>(blocked));
    } else {
      writer.Error(WaitBlockedTimeoutError(w.count, blocked));
    }
    session.blocked = false;
    host->Unblocked();
  }
  return done.size();
}

std::int64_t BlockedClientWaits::next_deadline_us() const {
  std::int64_t next = 0;
  for (const Waiter& w : waiters_) {
    if (w.deadline_us != 0 && (next == 0 || w.deadline_us < next)) next = w.deadline_us;
  }
  return next;
}

void BlockedClientWaits::Remove(const Session& session) {
  if (!session.blocked) return;
  waiters_.erase(std::remove_if(waiters_.begin(), waiters_.end(),
                                [&](const Waiter& w) { return w.session == &session; }),
                 waiters_.end());
}

}  // namespace warden::server
