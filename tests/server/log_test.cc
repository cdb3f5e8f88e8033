// What the log sends to syslog(3): each level's priority and each facility's code, as Redis's
// serverLogRaw and its syslog_facility table give them. (Whether a line reaches a syslog socket
// is checked end to end by test_operator_config.py, where a mount namespace can provide one.)
#include "server/log.h"

#include <gtest/gtest.h>
#include <syslog.h>

namespace warden::server {
namespace {

TEST(LogTest, LevelsMapToSyslogPrioritiesAsRedisMapsThem) {
  EXPECT_EQ(SyslogPriority(LogLevel::kDebug), LOG_DEBUG);
  EXPECT_EQ(SyslogPriority(LogLevel::kVerbose), LOG_INFO);
  EXPECT_EQ(SyslogPriority(LogLevel::kNotice), LOG_NOTICE);
  EXPECT_EQ(SyslogPriority(LogLevel::kWarning), LOG_WARNING);
}

TEST(LogTest, FacilitiesAreSyslogsOwn) {
  EXPECT_EQ(SyslogFacility("user"), LOG_USER);
  EXPECT_EQ(SyslogFacility("local0"), LOG_LOCAL0);
  EXPECT_EQ(SyslogFacility("local7"), LOG_LOCAL7);
  EXPECT_EQ(SyslogFacility("kern"), LOG_LOCAL0);
}

}  // namespace
}  // namespace warden::server
