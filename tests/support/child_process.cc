#include "child_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "deadline.h"

namespace warden::testing {
namespace {

bool IsExecutableFile(const std::string& path) { return access(path.c_str(), X_OK) == 0; }

// Points `target` (0, 1 or 2) at `fd` in the child. Only async-signal-safe calls.
void RedirectInChild(int fd, int target) {
  if (fd == target) {
    fcntl(fd, F_SETFD, 0);  // keep it across exec
  } else {
    dup2(fd, target);
  }
}

void CloseIfOpen(int& fd) {
  if (fd >= 0) close(fd);
  fd = -1;
}

}  // namespace

std::string FindExecutable(std::string_view name) {
  if (name.empty()) return "";
  if (name.find('/') != std::string_view::npos) {
    return IsExecutableFile(std::string(name)) ? std::string(name) : "";
  }
  const char* path_env = std::getenv("PATH");
  std::string_view dirs = path_env != nullptr ? path_env : "/usr/local/bin:/usr/bin:/bin";
  while (!dirs.empty()) {
    const std::size_t colon = dirs.find(':');
    std::string_view dir = dirs.substr(0, colon);
    dirs = colon == std::string_view::npos ? std::string_view() : dirs.substr(colon + 1);
    if (dir.empty()) dir = ".";
    std::string candidate = std::string(dir) + "/" + std::string(name);
    if (IsExecutableFile(candidate)) return candidate;
  }
  return "";
}

pid_t SpawnChild(const std::vector<std::string>& argv, const ChildStreams& streams,
                 std::string& error) {
  if (argv.empty()) {
    error = "SpawnChild: empty argv";
    return -1;
  }
  // Everything the child needs is prepared here: after fork it may not allocate.
  std::vector<char*> argv_ptrs;
  for (const std::string& arg : argv) argv_ptrs.push_back(const_cast<char*>(arg.c_str()));
  argv_ptrs.push_back(nullptr);
  int null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
  int exec_status[2];  // the child reports a failed exec's errno through this pipe
  if (null_fd < 0 || pipe2(exec_status, O_CLOEXEC) != 0) {
    error = std::string("SpawnChild: ") + std::strerror(errno);
    CloseIfOpen(null_fd);
    return -1;
  }
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);
    RedirectInChild(streams.stdin_fd >= 0 ? streams.stdin_fd : null_fd, 0);
    RedirectInChild(streams.stdout_fd >= 0 ? streams.stdout_fd : null_fd, 1);
    RedirectInChild(streams.stderr_fd >= 0 ? streams.stderr_fd : null_fd, 2);
    struct sigaction default_action = {};
    default_action.sa_handler = SIG_DFL;
    sigaction(SIGPIPE, &default_action, nullptr);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    execv(argv_ptrs[0], argv_ptrs.data());
    const int exec_errno = errno;
    (void)!write(exec_status[1], &exec_errno, sizeof(exec_errno));
    _exit(127);
  }
  close(exec_status[1]);
  close(null_fd);
  if (pid < 0) {
    error = std::string("fork: ") + std::strerror(errno);
    close(exec_status[0]);
    return -1;
  }
  // The pipe closes without data when exec succeeds (close-on-exec).
  int exec_errno = 0;
  ssize_t n;
  do {
    n = read(exec_status[0], &exec_errno, sizeof(exec_errno));
  } while (n < 0 && errno == EINTR);
  close(exec_status[0]);
  if (n > 0) {
    waitpid(pid, nullptr, 0);
    error = "cannot execute " + argv[0] + ": " + std::strerror(exec_errno);
    return -1;
  }
  return pid;
}

std::optional<int> WaitForChild(pid_t pid, int timeout_ms) {
  int status = 0;
  if (waitpid(pid, &status, WNOHANG) == pid) return status;
  const Deadline deadline(timeout_ms);
  const int pidfd = static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
  while (true) {
    // A pidfd becomes readable when the process exits; without one, re-check every few ms.
    const int remaining_ms = deadline.RemainingMs();
    if (pidfd >= 0) {
      pollfd watch = {.fd = pidfd, .events = POLLIN, .revents = 0};
      poll(&watch, 1, remaining_ms);
    } else {
      poll(nullptr, 0, remaining_ms < 5 ? remaining_ms : 5);
    }
    if (waitpid(pid, &status, WNOHANG) == pid) break;
    if (deadline.Expired()) {
      if (pidfd >= 0) close(pidfd);
      return std::nullopt;
    }
  }
  if (pidfd >= 0) close(pidfd);
  return status;
}

std::string DescribeWaitStatus(int status) {
  if (WIFEXITED(status)) return "exit code " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return "signal " + std::to_string(WTERMSIG(status));
  return "status " + std::to_string(status);
}

ProgramResult RunProgram(const std::vector<std::string>& argv, std::string_view input,
                         int timeout_ms) {
  ProgramResult result;
  std::vector<std::string> resolved = argv;
  if (!resolved.empty()) resolved[0] = FindExecutable(argv[0]);
  if (resolved.empty() || resolved[0].empty()) {
    result.err = "RunProgram: executable not found: " + (argv.empty() ? "" : argv[0]);
    return result;
  }
  // Writing to a program that stopped reading must fail with EPIPE, not kill the test.
  signal(SIGPIPE, SIG_IGN);
  int in_pipe[2], out_pipe[2], err_pipe[2];
  if (pipe2(in_pipe, O_CLOEXEC) != 0 || pipe2(out_pipe, O_CLOEXEC) != 0 ||
      pipe2(err_pipe, O_CLOEXEC) != 0) {
    result.err = std::string("pipe2: ") + std::strerror(errno);
    return result;
  }
  const pid_t pid = SpawnChild(
      resolved, {.stdin_fd = in_pipe[0], .stdout_fd = out_pipe[1], .stderr_fd = err_pipe[1]},
      result.err);
  close(in_pipe[0]);
  close(out_pipe[1]);
  close(err_pipe[1]);
  int stdin_fd = in_pipe[1];
  int stdout_fd = out_pipe[0];
  int stderr_fd = err_pipe[0];
  if (pid < 0) {
    CloseIfOpen(stdin_fd);
    CloseIfOpen(stdout_fd);
    CloseIfOpen(stderr_fd);
    return result;
  }
  fcntl(stdin_fd, F_SETFL, O_NONBLOCK);
  if (input.empty()) CloseIfOpen(stdin_fd);

  const Deadline deadline(timeout_ms);
  char buffer[65536];
  while (stdout_fd >= 0 || stderr_fd >= 0) {
    pollfd fds[3];
    nfds_t count = 0;
    for (const int fd : {stdout_fd, stderr_fd}) {
      if (fd >= 0) fds[count++] = {.fd = fd, .events = POLLIN, .revents = 0};
    }
    if (stdin_fd >= 0) fds[count++] = {.fd = stdin_fd, .events = POLLOUT, .revents = 0};
    const int remaining_ms = deadline.RemainingMs();
    if (remaining_ms == 0 || poll(fds, count, remaining_ms) == 0) {
      result.timed_out = true;
      break;
    }
    for (nfds_t i = 0; i < count; ++i) {
      if (fds[i].revents == 0) continue;
      if (fds[i].fd == stdin_fd) {
        const ssize_t n = write(stdin_fd, input.data(), input.size());
        if (n > 0) input.remove_prefix(static_cast<std::size_t>(n));
        if (input.empty() || (n < 0 && errno != EAGAIN && errno != EINTR)) CloseIfOpen(stdin_fd);
        continue;
      }
      int& fd = fds[i].fd == stdout_fd ? stdout_fd : stderr_fd;
      std::string& sink = fds[i].fd == stdout_fd ? result.out : result.err;
      const ssize_t n = read(fd, buffer, sizeof(buffer));
      if (n > 0) {
        sink.append(buffer, static_cast<std::size_t>(n));
      } else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
        CloseIfOpen(fd);
      }
    }
  }
  CloseIfOpen(stdin_fd);
  CloseIfOpen(stdout_fd);
  CloseIfOpen(stderr_fd);
  if (result.timed_out) kill(pid, SIGKILL);
  // Its output has ended, so it is exiting; allow a moment for that even at the deadline.
  std::optional<int> status = WaitForChild(pid, std::max(deadline.RemainingMs(), 1000));
  if (!status) {
    result.timed_out = true;
    kill(pid, SIGKILL);
    status = WaitForChild(pid, 5000);
  }
  if (status && WIFEXITED(*status)) result.exit_code = WEXITSTATUS(*status);
  return result;
}

}  // namespace warden::testing
