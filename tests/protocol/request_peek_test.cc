// Looking ahead in a pipeline: only complete multibulk requests are reported, and nothing is
// consumed.
#include "protocol/request_peek.h"

#include <gtest/gtest.h>

#include <string>

namespace warden::protocol {
namespace {

using namespace std::string_literals;

TEST(PeekRequestsTest, ReportsTheCompleteRequestsOfAPipeline) {
  const std::string data =
      "*2\r\n$3\r\nGET\r\n$6\r\nlock:1\r\n"
      "*6\r\n$3\r\nSET\r\n$6\r\nlock:2\r\n$1\r\nt\r\n$2\r\nNX\r\n$2\r\nPX\r\n$3\r\n100\r\n"
      "*2\r\n$3\r\nGET\r\n$6\r\nlo";  // the third is still arriving
  PeekedRequest out[16];

  ASSERT_EQ(PeekRequests(data, out), 2u);

  EXPECT_EQ(out[0].argc, 2u);
  EXPECT_EQ(out[0].args[0], "GET");
  EXPECT_EQ(out[0].args[1], "lock:1");
  EXPECT_EQ(out[1].argc, 6u);
  EXPECT_EQ(out[1].args[1], "lock:2");
  EXPECT_EQ(out[1].args[3], "NX");
}

TEST(PeekRequestsTest, StopsAtTheCapacityGiven) {
  std::string data;
  for (int i = 0; i < 5; ++i) data += "*1\r\n$4\r\nPING\r\n";
  PeekedRequest out[3];

  EXPECT_EQ(PeekRequests(data, out), 3u);
}

TEST(PeekRequestsTest, KeysMayHoldAnyBytes) {
  const std::string key = "a\r\n$3\r\n\0b"s;
  const std::string data =
      "*2\r\n$3\r\nGET\r\n$" + std::to_string(key.size()) + "\r\n" + key + "\r\n";
  PeekedRequest out[2];

  ASSERT_EQ(PeekRequests(data, out), 1u);
  EXPECT_EQ(out[0].args[1], key);
}

TEST(PeekRequestsTest, LeavesAnythingUnusualToTheParser) {
  PeekedRequest out[4];

  EXPECT_EQ(PeekRequests("", out), 0u);
  EXPECT_EQ(PeekRequests("GET lock:1\r\n", out), 0u);                    // inline
  EXPECT_EQ(PeekRequests("*0\r\n", out), 0u);                            // empty
  EXPECT_EQ(PeekRequests("*-1\r\n", out), 0u);                           // null
  EXPECT_EQ(PeekRequests("*1\r\n:3\r\n", out), 0u);                      // not a bulk
  EXPECT_EQ(PeekRequests("*1\r\n$x\r\n", out), 0u);                      // bad length
  EXPECT_EQ(PeekRequests("*1\r\n$99999999999999999999\r\n", out), 0u);   // huge length
  EXPECT_EQ(PeekRequests("*1\r\n$4\r\nPI", out), 0u);                    // incomplete
  EXPECT_EQ(PeekRequests("*1\r\n$4\r\nPING\r\n*1\r\n$x\r\n", out), 1u);  // then bad
  EXPECT_EQ(PeekRequests("*2\n$3\r\nGET\r\n$1\r\nk\r\n", out), 0u);      // bare \n
}

}  // namespace
}  // namespace warden::protocol
