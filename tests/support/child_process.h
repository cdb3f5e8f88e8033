// Starting other programs from tests: fork/exec with the child's standard streams wired to
// descriptors the caller chooses, waiting for a child with a deadline, and running a program to
// completion with given input while capturing its output. Children are killed if the test process
// dies (PR_SET_PDEATHSIG), so a crashed test leaves no server behind. Linux only.
#ifndef WARDEN_TESTS_SUPPORT_CHILD_PROCESS_H_
#define WARDEN_TESTS_SUPPORT_CHILD_PROCESS_H_

#include <sys/types.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warden::testing {

// Returns the path of the executable `name`: taken as is when it contains a '/', otherwise looked
// up on PATH. Empty when there is no such executable.
std::string FindExecutable(std::string_view name);

// Descriptors the child gets as stdin, stdout and stderr; -1 means /dev/null. The caller keeps
// ownership: the descriptors stay open in the parent.
struct ChildStreams {
  int stdin_fd = -1;
  int stdout_fd = -1;
  int stderr_fd = -1;
};

// Forks and runs argv[0] (a path, not looked up) with `argv`. Returns the child's pid once exec
// has succeeded, or -1 with `error` set (including when exec itself failed).
pid_t SpawnChild(const std::vector<std::string>& argv, const ChildStreams& streams,
                 std::string& error);

// Waits up to `timeout_ms` for the child `pid` to exit and reaps it. Returns its waitpid status,
// or nullopt if it is still running at the deadline.
std::optional<int> WaitForChild(pid_t pid, int timeout_ms);

// Describes a waitpid status for failure messages: "exit code 1", "signal 11".
std::string DescribeWaitStatus(int status);

struct ProgramResult {
  bool timed_out = false;  // the program was killed at the deadline
  int exit_code = -1;      // -1 when it ended by a signal
  std::string out;         // everything it wrote to stdout
  std::string err;         // everything it wrote to stderr
};

// Runs argv[0] (looked up like FindExecutable) with `argv`, writes `input` to its stdin and then
// closes it, and collects its output until it exits. Kills it after `timeout_ms`.
ProgramResult RunProgram(const std::vector<std::string>& argv, std::string_view input,
                         int timeout_ms);

}  // namespace warden::testing

#endif  // WARDEN_TESTS_SUPPORT_CHILD_PROCESS_H_
