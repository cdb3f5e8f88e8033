// The append-only manifest as Redis 7.0 reads and writes it (aofLoadManifestFromFile,
// getAofManifestAsString): one line per file, base first, then history, then increments.
#include <gtest/gtest.h>

#include "server/persistence/aof.h"

namespace warden::server {
namespace {

TEST(AofManifestTest, ParsesWhatRedisWrites) {
  AofManifest m;
  ASSERT_FALSE(
      ParseAofManifest("file appendonly.aof.2.base.aof seq 2 type b\n"
                       "file appendonly.aof.1.incr.aof seq 1 type h\n"
                       "file appendonly.aof.3.incr.aof seq 3 type i\n"
                       "file appendonly.aof.4.incr.aof seq 4 type i\n",
                       m));
  ASSERT_TRUE(m.base.has_value());
  EXPECT_EQ(m.base->name, "appendonly.aof.2.base.aof");
  EXPECT_EQ(m.current_base_seq, 2);
  ASSERT_EQ(m.history.size(), 1u);
  ASSERT_EQ(m.incrs.size(), 2u);
  EXPECT_EQ(m.incrs[1].name, "appendonly.aof.4.incr.aof");
  EXPECT_EQ(m.current_incr_seq, 4);
  EXPECT_EQ(FormatAofManifest(m),
            "file appendonly.aof.2.base.aof seq 2 type b\n"
            "file appendonly.aof.1.incr.aof seq 1 type h\n"
            "file appendonly.aof.3.incr.aof seq 3 type i\n"
            "file appendonly.aof.4.incr.aof seq 4 type i\n");
}

TEST(AofManifestTest, CommentsBlankLinesAndKeyOrderAreAccepted) {
  AofManifest m;
  ASSERT_FALSE(ParseAofManifest("# written by hand\n\ntype i seq 1 file a.incr.aof\n", m));
  ASSERT_EQ(m.incrs.size(), 1u);
  EXPECT_FALSE(m.base.has_value());
}

TEST(AofManifestTest, MalformedManifestsAreRefusedWithRedisTexts) {
  AofManifest m;
  EXPECT_EQ(ParseAofManifest("", m), "Found an empty AOF manifest");
  EXPECT_EQ(ParseAofManifest("file a seq 1 type b", m), "The AOF manifest file is invalid format");
  EXPECT_EQ(ParseAofManifest("file a seq 1 type\n", m), "Invalid AOF manifest file format");
  EXPECT_EQ(ParseAofManifest("file a seq x type b\n", m), "Invalid AOF manifest file format");
  EXPECT_EQ(ParseAofManifest("file a seq 1 type z\n", m), "Invalid AOF manifest file format");
  EXPECT_EQ(ParseAofManifest("file ../a seq 1 type b\n", m), "Invalid AOF manifest file format");
  EXPECT_EQ(ParseAofManifest("file a seq 1 type b\nfile b seq 2 type b\n", m),
            "Found duplicate base file information");
  EXPECT_EQ(ParseAofManifest("file a seq 2 type i\nfile b seq 1 type i\n", m),
            "Found a non-monotonic sequence number");
}

TEST(AofCommandTest, CommandsAreRespArraysOfBulkStrings) {
  std::string out;
  const std::string_view argv[] = {"SET", "k", ""};
  AppendCommand(out, argv);
  EXPECT_EQ(out, "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$0\r\n\r\n");
  EXPECT_EQ(ParseAppendFsync("always"), AppendFsync::kAlways);
  EXPECT_EQ(ParseAppendFsync("no"), AppendFsync::kNo);
  EXPECT_EQ(ParseAppendFsync("everysec"), AppendFsync::kEverysec);
}

}  // namespace
}  // namespace warden::server
