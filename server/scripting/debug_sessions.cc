// SCRIPT DEBUG, and starting and ending an EVAL's debugging session: the fork or the blocked
// server, the socket switched to blocking I/O, and the children left to reap (eval.c's
// ldbStartSession, ldbEndSession, ldbKillForkedSessions).
#include <dirent.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "server/blocking.h"
#include "server/command_context.h"
#include "server/errors.h"
#include "server/log.h"
#include "server/scripting/lua_debugger.h"
#include "server/scripting/script_engine.h"
#include "server/server_state.h"

namespace warden::server {
namespace {

// Redis gives a session's writes 5 seconds before it gives up on the client.
constexpr int kSendTimeoutSeconds = 5;

void SetBlocking(int fd, bool blocking) {
  const int flags = fcntl(fd, F_GETFL);
  if (flags < 0) return;
  fcntl(fd, F_SETFL, blocking ? flags & ~O_NONBLOCK : flags | O_NONBLOCK);
}

void SetSendTimeout(int fd, int seconds) {
  timeval tv{};
  tv.tv_sec = seconds;
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
}

// The child keeps the client's socket alone: the listeners and every other client stay the
// parent's, so a client the parent closes is not held open by a session, and nothing the child
// does can reach another socket. Files (the log) stay open.
void CloseOtherSockets(int keep) {
  std::vector<int> fds;
  if (DIR* dir = opendir("/proc/self/fd")) {
    while (dirent* entry = readdir(dir)) {
      const int fd = std::atoi(entry->d_name);
      if (entry->d_name[0] != '.' && fd > 2 && fd != keep && fd != dirfd(dir)) fds.push_back(fd);
    }
    closedir(dir);
  }
  for (const int fd : fds) {
    struct stat st {};
    if (fstat(fd, &st) == 0 && S_ISSOCK(st.st_mode)) close(fd);
  }
}

}  // namespace

void ScriptDebugCommand(CommandContext& ctx) {
  // Redis's clientHasPendingReplies: the session writes to the socket itself, so no reply may
  // wait before it.
  const bool pending = !ctx.reply.buffer()->empty() ||
                       (ctx.session.host != nullptr && ctx.session.host->write_in_flight());
  if (pending) {
    ctx.reply.Error("ERR SCRIPT DEBUG must be called outside a pipeline");
    return;
  }
  const std::string_view mode = ctx.arg(2);
  if (ArgIs(mode, "no")) {
    ctx.session.lua_debug = Session::kLuaDebugOff;
  } else if (ArgIs(mode, "yes") || ArgIs(mode, "sync")) {
    if (ctx.session.tls || ctx.session.fd < 0) {
      ctx.reply.Error(errors::kScriptDebugUnsupported);
      return;
    }
    ctx.session.lua_debug = ArgIs(mode, "yes") ? Session::kLuaDebugFork : Session::kLuaDebugSync;
  } else {
    ctx.reply.Error("ERR Use SCRIPT DEBUG YES/SYNC/NO");
    return;
  }
  ctx.reply.Ok();
}

void EvalDebugged(CommandContext& ctx, void (*eval)(CommandContext&)) {
  Session& session = ctx.session;
  ServerState& server = ctx.server;
  Logger* log = server.log;
  const bool forked = session.lua_debug == Session::kLuaDebugFork;
  const int fd = session.fd;
  if (forked) {
    const std::int64_t fork_start_us = server.clock.MonotonicUs();
    const pid_t pid = fork();
    if (pid < 0) {
      ctx.reply.Error(
          {"ERR Fork() failed: can't run EVAL in debugging mode: ", std::strerror(errno)});
      session.lua_debug = Session::kLuaDebugOff;
      return;
    }
    if (pid > 0) {
      // The child has the client now: the parent drops it without a word.
      server.stats.latest_fork_usec = server.clock.MonotonicUs() - fork_start_us;
      ++server.stats.total_forks;
      server.scripts->debug_children().Add(pid);
      session.lua_debug = Session::kLuaDebugOff;
      session.close_now = true;
      return;
    }
    // The child: signals meant for the server are the parent's to handle.
    signal(SIGTERM, SIG_IGN);
    signal(SIGINT, SIG_IGN);
    CloseOtherSockets(fd);
    server.EnterForkedChild();
    if (log != nullptr) log->Log(LogLevel::kWarning, "Redis forked for debugging eval");
  } else if (log != nullptr) {
    log->Log(LogLevel::kWarning, "Redis synchronous debugging eval session started");
  }
  SetBlocking(fd, true);
  SetSendTimeout(fd, kSendTimeoutSeconds);
  {
    LuaDebugger debugger(*server.scripts, fd, ctx.arg(1));
    server.scripts->set_debugger(&debugger);
    eval(ctx);
    server.scripts->set_debugger(nullptr);
    debugger.End();
  }
  if (forked) {
    // The reply, and any the client's earlier requests left unsent, then the end.
    SendBlocking(fd, *ctx.reply.buffer());
    if (log != nullptr) log->Log(LogLevel::kWarning, "Lua debugging session child exiting");
    _exit(0);
  }
  if (log != nullptr) {
    log->Log(LogLevel::kWarning, "Redis synchronous debugging eval session ended");
  }
  SetBlocking(fd, false);
  SetSendTimeout(fd, 0);
  // The closed connection tells the client the session is over (CLIENT_CLOSE_AFTER_REPLY).
  session.close_after_reply = true;
}

void SendBlocking(int fd, std::string_view data) {
  while (!data.empty()) {
    const ssize_t n = send(fd, data.data(), data.size(), MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    // A failed write shows up as a failed read next (Redis ignores it too).
    if (n <= 0) return;
    data.remove_prefix(static_cast<std::size_t>(n));
  }
}

void DebugChildren::Reap() {
  std::erase_if(pids_, [](pid_t pid) {
    int status = 0;
    return waitpid(pid, &status, WNOHANG) == pid;
  });
}

void DebugChildren::KillAll(Logger* log) {
  for (const pid_t pid : pids_) {
    if (log != nullptr) {
      log->Log(LogLevel::kWarning, "Killing debugging session %ld", static_cast<long>(pid));
    }
    kill(pid, SIGKILL);
  }
  // Collected when they die, as the cron would: the server may be about to exit.
  for (const pid_t pid : pids_) {
    while (waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
    }
  }
  pids_.clear();
}

}  // namespace warden::server
