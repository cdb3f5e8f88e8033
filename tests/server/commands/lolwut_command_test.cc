// LOLWUT through the dispatcher: the version line (RESP2 bulk, RESP3 verbatim), VERSION's
// parsing, the pictures Redis draws without random numbers (checked against redis-server
// 7.0.15's bytes), and the shape of the random ones: line count, line width, the characters
// used, and the credit lines.
#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "tests/server/command_fixture.h"

namespace warden::server {
namespace {

constexpr std::string_view kSchotterCredit =
    "Georg Nees - schotter, plotter on paper, 1968. Redis ver. 7.0.15";
constexpr std::string_view kSkylineCredit1 =
    "Dedicated to the 8 bit game developers of past and present.";
constexpr std::string_view kSkylineCredit2 =
    "Original 8 bit image from Plaguemon by hikikomori. Redis ver. 7.0.15";
constexpr std::string_view kNotInteger = "-ERR value is not an integer or out of range\r\n";

// The text of a RESP2 bulk reply.
std::string BulkText(std::string_view reply) {
  const std::size_t header_end = reply.find("\r\n");
  EXPECT_EQ(reply.front(), '$') << reply.substr(0, 80);
  const std::size_t length = std::stoul(std::string(reply.substr(1, header_end - 1)));
  EXPECT_EQ(reply.size(), header_end + 2 + length + 2);
  return std::string(reply.substr(header_end + 2, length));
}

std::vector<std::string> Lines(std::string_view text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  for (std::size_t nl = text.find('\n'); nl != std::string_view::npos;
       start = nl + 1, nl = text.find('\n', start)) {
    lines.emplace_back(text.substr(start, nl - start));
  }
  lines.emplace_back(text.substr(start));
  return lines;
}

// The Braille characters of a line (each U+2800..U+28FF, three bytes in UTF-8), or -1 when the
// line holds anything else.
int BrailleCount(std::string_view line) {
  if (line.size() % 3 != 0) return -1;
  for (std::size_t i = 0; i < line.size(); i += 3) {
    const auto b0 = static_cast<unsigned char>(line[i]);
    const auto b1 = static_cast<unsigned char>(line[i + 1]);
    const auto b2 = static_cast<unsigned char>(line[i + 2]);
    if (b0 != 0xE2 || (b1 != 0xA0 && b1 != 0xA1 && b1 != 0xA2 && b1 != 0xA3) ||
        (b2 & 0xC0) != 0x80) {
      return -1;
    }
  }
  return static_cast<int>(line.size() / 3);
}

// The pixels of a skyline line (a space between a color escape and a reset), or -1 when the
// line holds anything else.
int PixelCount(std::string_view line) {
  constexpr std::string_view kPixels[] = {"\033[0;30;40m \033[0m", "\033[0;90;100m \033[0m",
                                          "\033[0;37;47m \033[0m", "\033[0;97;107m \033[0m"};
  int n = 0;
  while (!line.empty()) {
    bool matched = false;
    for (std::string_view p : kPixels) {
      if (line.starts_with(p)) {
        line.remove_prefix(p.size());
        matched = true;
        break;
      }
    }
    if (!matched) return -1;
    ++n;
  }
  return n;
}

class LolwutCommandTest : public CommandTest {};

TEST_F(LolwutCommandTest, WithoutVersionRepliesTheVersionLine) {
  EXPECT_EQ(Run({"LOLWUT"}), "$18\r\nRedis ver. 7.0.15\n\r\n");
  EXPECT_EQ(Run({"LOLWUT", "foo", "bar"}), "$18\r\nRedis ver. 7.0.15\n\r\n");
}

TEST_F(LolwutCommandTest, VersionLineIsVerbatimTextInResp3) {
  Run({"HELLO", "3"});

  EXPECT_EQ(Run({"LOLWUT"}), "=22\r\ntxt:Redis ver. 7.0.15\n\r\n");
}

TEST_F(LolwutCommandTest, VersionsWithoutDrawingReplyTheVersionLine) {
  for (std::string_view v : {"7", "4", "0", "-1", "50", "9223372036854775807"}) {
    EXPECT_EQ(Run({"LOLWUT", "VERSION", v}), "$18\r\nRedis ver. 7.0.15\n\r\n") << v;
  }
  EXPECT_EQ(Run({"LOLWUT", "VERSION"}), "$18\r\nRedis ver. 7.0.15\n\r\n");
}

TEST_F(LolwutCommandTest, VersionMustBeAnInteger) {
  EXPECT_EQ(Run({"LOLWUT", "VERSION", "4.9"}), kNotInteger);
  EXPECT_EQ(Run({"LOLWUT", "version", "abc"}), kNotInteger);
}

// Redis formats the version with %u: only its low 32 bits count.
TEST_F(LolwutCommandTest, VersionNumberKeepsItsLow32Bits) {
  EXPECT_EQ(Run({"LOLWUT", "VERSION", "4294967301", "10", "2", "2"}),
            Run({"LOLWUT", "VERSION", "5", "10", "2", "2"}));
}

// Two rows of squares are drawn without a random number: Redis's picture, byte for byte.
TEST_F(LolwutCommandTest, SchotterWithTwoRowsIsRedisPicture) {
  EXPECT_EQ(BulkText(Run({"LOLWUT", "VERSION", "5", "10", "2", "2"})),
            "⠀⡤⠤⠤⠤⡤⠤⠤⠤⡄\n"
            "⠀⡇⠀⠀⠀⡇⠀⠀⠀⡇\n"
            "⠀⡧⠤⠤⠤⡧⠤⠤⠤⡇\n"
            "⠀⡇⠀⠀⠀⡇⠀⠀⠀⡇\n"
            "⠀⠧⠤⠤⠤⠧⠤⠤⠤⠇\n"
            "\n" +
                std::string(kSchotterCredit) + "\n");
}

TEST_F(LolwutCommandTest, SchotterClampsItsArguments) {
  EXPECT_EQ(BulkText(Run({"LOLWUT", "VERSION", "5", "0", "0", "0"})),
            "⠋\n\n" + std::string(kSchotterCredit) + "\n");
  EXPECT_EQ(Run({"LOLWUT", "VERSION", "5", "-5", "-5", "-5"}),
            Run({"LOLWUT", "VERSION", "5", "1", "1", "1"}));
  EXPECT_EQ(BulkText(Run({"LOLWUT", "VERSION", "5", "3", "1", "1"})),
            "⠀⡤⡄\n⠀⠉⠁\n\n" + std::string(kSchotterCredit) + "\n");
}

// The default picture: 66 columns, 8 x 12 squares of 16 pixels on a 132 x 196 canvas, so 49
// lines of Braille; 196 is not 1 modulo 4, so an empty line precedes the credit.
TEST_F(LolwutCommandTest, SchotterDefaultShape) {
  const std::vector<std::string> lines = Lines(BulkText(Run({"LOLWUT", "VERSION", "5"})));

  ASSERT_EQ(lines.size(), 49u + 3u);
  for (std::size_t i = 0; i < 49; ++i) EXPECT_EQ(BrailleCount(lines[i]), 66) << i;
  EXPECT_EQ(lines[49], "");
  EXPECT_EQ(lines[50], kSchotterCredit);
  EXPECT_EQ(lines[51], "");
}

// 40 columns, 4 x 3 squares: the canvas is 80 x 61, 1 modulo 4, so no empty line.
TEST_F(LolwutCommandTest, SchotterWithoutTrailingEmptyLine) {
  const std::vector<std::string> lines =
      Lines(BulkText(Run({"LOLWUT", "VERSION", "5", "40", "4", "3"})));

  ASSERT_EQ(lines.size(), 16u + 2u);
  for (std::size_t i = 0; i < 16; ++i) EXPECT_EQ(BrailleCount(lines[i]), 40) << i;
  EXPECT_EQ(lines[16], kSchotterCredit);
}

TEST_F(LolwutCommandTest, SchotterArgumentErrorsInOrder) {
  EXPECT_EQ(Run({"LOLWUT", "VERSION", "5", "abc"}), kNotInteger);
  EXPECT_EQ(Run({"LOLWUT", "VERSION", "5", "10", "abc"}), kNotInteger);
  EXPECT_EQ(Run({"LOLWUT", "VERSION", "5", "10", "2", "1.5"}), kNotInteger);
}

TEST_F(LolwutCommandTest, SchotterIgnoresExtraArguments) {
  EXPECT_EQ(Run({"LOLWUT", "VERSION", "5", "10", "2", "2", "x", "y"}),
            Run({"LOLWUT", "VERSION", "5", "10", "2", "2"}));
}

// A skyline one row tall has no building (every height rounds to 0): all white, as Redis.
TEST_F(LolwutCommandTest, SkylineOneRowTallIsAllWhite) {
  std::string expected;
  for (int i = 0; i < 4; ++i) expected += "\033[0;97;107m \033[0m";
  expected += "\n" + std::string(kSkylineCredit1) + "\n" + std::string(kSkylineCredit2) + "\n";

  EXPECT_EQ(BulkText(Run({"LOLWUT", "VERSION", "6", "4", "1"})), expected);
}

TEST_F(LolwutCommandTest, SkylineDefaultShape) {
  const std::vector<std::string> lines = Lines(BulkText(Run({"LOLWUT", "VERSION", "6"})));

  ASSERT_EQ(lines.size(), 20u + 3u);
  for (std::size_t i = 0; i < 20; ++i) EXPECT_EQ(PixelCount(lines[i]), 80) << i;
  EXPECT_EQ(lines[20], kSkylineCredit1);
  EXPECT_EQ(lines[21], kSkylineCredit2);
  EXPECT_EQ(lines[22], "");
}

// No building is taller than h - 1 (h/2 + (rand() % h)/2 at most), so the top row is sky.
TEST_F(LolwutCommandTest, SkylineTopRowIsSky) {
  const std::vector<std::string> lines =
      Lines(BulkText(Run({"LOLWUT", "VERSION", "6", "30", "12"})));

  ASSERT_EQ(lines.size(), 12u + 3u);
  std::string sky;
  for (int i = 0; i < 30; ++i) sky += "\033[0;97;107m \033[0m";
  EXPECT_EQ(lines[0], sky);
  EXPECT_NE(lines[11], sky);
}

TEST_F(LolwutCommandTest, SkylineClampsItsArguments) {
  const std::vector<std::string> lines =
      Lines(BulkText(Run({"LOLWUT", "VERSION", "6", "0", "-3"})));

  ASSERT_EQ(lines.size(), 1u + 3u);
  EXPECT_EQ(PixelCount(lines[0]), 1);
}

TEST_F(LolwutCommandTest, SkylineArgumentErrors) {
  EXPECT_EQ(Run({"LOLWUT", "VERSION", "6", "abc"}), kNotInteger);
  EXPECT_EQ(Run({"LOLWUT", "VERSION", "6", "10", "1.0"}), kNotInteger);
}

TEST_F(LolwutCommandTest, DrawingsInResp3AreVerbatimText) {
  Run({"HELLO", "3"});

  const std::string reply = Run({"LOLWUT", "VERSION", "6", "4", "1"});

  EXPECT_TRUE(reply.starts_with("=")) << reply;
  EXPECT_NE(reply.find("\r\ntxt:\033[0;97;107m"), std::string::npos) << reply;
}

// The random draws come from the server's seeded source, so a seed replays a picture.
TEST_F(LolwutCommandTest, DrawingsReplayFromTheServerSeed) {
  state_.random.Reseed(42);
  const std::string first = Run({"LOLWUT", "VERSION", "6"});
  const std::string second = Run({"LOLWUT", "VERSION", "6"});
  state_.random.Reseed(42);

  EXPECT_EQ(Run({"LOLWUT", "VERSION", "6"}), first);
  EXPECT_NE(second, first);
}

}  // namespace
}  // namespace warden::server
