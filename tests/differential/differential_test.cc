// Runs every case file under cases/ against redis-server 7.0 and warden side by side and fails
// on each line whose replies differ (see README.md for the format). With WARDEN_DIFF_BOTH_REDIS=1
// both sides are redis-server, which proves the case files and the harness themselves.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "case_file.h"
#include "case_runner.h"
#include "child_process.h"
#include "server_process.h"

#ifndef WARDEN_BINARY_PATH
#error "WARDEN_BINARY_PATH must be defined as the path of the warden binary"
#endif
#ifndef WARDEN_DIFF_CASES_DIR
#error "WARDEN_DIFF_CASES_DIR must be defined as the directory of the case files"
#endif

namespace warden::testing {
namespace {

namespace fs = std::filesystem;

// The case files pin Redis 7.0 behaviour; another version differs in places.
constexpr std::string_view kRedisVersionTag = "v=7.0.";

std::vector<fs::path> ListCaseFiles() {
  std::vector<fs::path> files;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(WARDEN_DIFF_CASES_DIR, error)) {
    if (entry.path().extension() == ".txt") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::string CaseName(const ::testing::TestParamInfo<fs::path>& info) {
  std::string name = info.param.stem().string();
  std::replace_if(
      name.begin(), name.end(), [](char c) { return !std::isalnum(static_cast<unsigned char>(c)); },
      '_');
  return name;
}

// True when the environment variable `name` is "1".
bool EnvFlag(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr && std::string_view(value) == "1";
}

// WARDEN_DIFF_BOTH_REDIS=1 runs redis-server in warden's place, to prove the case files.
bool BothSidesAreRedis() { return EnvFlag("WARDEN_DIFF_BOTH_REDIS"); }
// WARDEN_DIFF_TRACE=1 prints every line with Redis's replies, for writing case files.
bool TraceRequested() { return EnvFlag("WARDEN_DIFF_TRACE"); }

// The two servers, started once per test process and restarted if one has died.
class ServerPair {
 public:
  // Starts whichever server is not running. Returns why that failed, or an empty string.
  std::string EnsureRunning() {
    const std::string redis = FindExecutable("redis-server");
    if (redis.empty()) {
      return "redis-server is not on PATH. The differential test compares warden with Redis 7.0: "
             "install it (Debian: apt-get install redis-server).";
    }
    if (!version_checked_) {
      const ProgramResult version = RunProgram({redis, "--version"}, "", 10000);
      if (version.out.find(kRedisVersionTag) == std::string::npos) {
        return redis + " is not Redis 7.0 (the case files pin 7.0 behaviour): " + version.out +
               version.err;
      }
      version_checked_ = true;
    }
    const std::string candidate = BothSidesAreRedis() ? redis : WARDEN_BINARY_PATH;
    if (FindExecutable(candidate).empty()) {
      return "warden binary not found at " + candidate + ": build the warden target first.";
    }
    std::string error;
    if (!StartIfStopped(reference_, redis, error) ||
        !StartIfStopped(candidate_, candidate, error)) {
      return error;
    }
    return "";
  }

  Target reference() const { return {.label = "redis-server", .port = reference_->port()}; }
  Target candidate() const {
    return {.label = BothSidesAreRedis() ? "redis-server#2" : "warden", .port = candidate_->port()};
  }

  // Describes each server that has exited since it was started, with its log.
  std::vector<std::string> DeadServers() {
    std::vector<std::string> dead;
    for (std::unique_ptr<ServerProcess>* server : {&reference_, &candidate_}) {
      if (*server && !(*server)->IsRunning()) {
        dead.push_back((*server)->binary() + " exited (" + DescribeWaitStatus((*server)->Stop()) +
                       "); log:\n" + (*server)->LogTail());
      }
    }
    return dead;
  }

 private:
  static bool StartIfStopped(std::unique_ptr<ServerProcess>& server, const std::string& binary,
                             std::string& error) {
    if (server && server->IsRunning()) return true;
    server = ServerProcess::Start(binary, error);
    return server != nullptr;
  }

  bool version_checked_ = false;
  std::unique_ptr<ServerProcess> reference_;
  std::unique_ptr<ServerProcess> candidate_;
};

class DifferentialTest : public ::testing::TestWithParam<fs::path> {
 protected:
  // The servers outlive single case files: starting them once keeps the suite fast.
  static void SetUpTestSuite() { servers_ = std::make_unique<ServerPair>(); }
  static void TearDownTestSuite() { servers_.reset(); }

  static inline std::unique_ptr<ServerPair> servers_;
};

TEST_P(DifferentialTest, RepliesMatchRedis) {
  const fs::path& path = GetParam();
  const std::string error = servers_->EnsureRunning();
  ASSERT_TRUE(error.empty()) << error;

  std::ifstream in(path, std::ios::binary);
  ASSERT_TRUE(in) << "cannot read " << path;
  const std::string contents((std::istreambuf_iterator<char>(in)),
                             std::istreambuf_iterator<char>());
  const CaseFile cases = ParseCaseFile(contents);
  for (const std::string& problem : cases.errors) ADD_FAILURE() << path.string() << ": " << problem;

  CaseRunner runner(servers_->reference(), servers_->candidate(), TraceRequested());
  for (const std::string& problem : runner.Start()) {
    ADD_FAILURE() << path.string() << ": " << problem;
  }
  int differences = 0;
  for (const CaseLine& line : cases.lines) {
    if (!runner.usable()) break;
    if (const std::optional<std::string> difference = runner.Run(line)) {
      ++differences;
      ADD_FAILURE_AT(path.c_str(), line.number) << *difference;
    }
  }
  for (const std::string& dead : servers_->DeadServers()) {
    ADD_FAILURE() << "after " << path.string() << ": " << dead;
  }
  RecordProperty("lines", static_cast<int>(cases.lines.size()));
  RecordProperty("differences", differences);
}

INSTANTIATE_TEST_SUITE_P(Cases, DifferentialTest, ::testing::ValuesIn(ListCaseFiles()), CaseName);

}  // namespace
}  // namespace warden::testing
