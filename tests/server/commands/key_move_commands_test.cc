// RENAME, RENAMENX, COPY, MOVE and SWAPDB through the dispatcher, checked against
// redis-server 7.0.15: values of every type move with their deadline, copies are independent,
// and each error text is Redis's.
#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "tests/server/command_fixture.h"

namespace warden::server {
namespace {

class KeyMoveCommandsTest : public CommandTest {};

// RENAME, RENAMENX

TEST_F(KeyMoveCommandsTest, RenameMovesValue) {
  Run({"SET", "a", "1"});

  EXPECT_EQ(Run({"RENAME", "a", "b"}), "+OK\r\n");

  EXPECT_EQ(Run({"GET", "a"}), "$-1\r\n");
  EXPECT_EQ(Run({"GET", "b"}), "$1\r\n1\r\n");
}

TEST_F(KeyMoveCommandsTest, RenameOfMissingKeyFails) {
  EXPECT_EQ(Run({"RENAME", "nokey", "b"}), "-ERR no such key\r\n");
  EXPECT_EQ(Run({"RENAME", "nokey", "nokey"}), "-ERR no such key\r\n");
  EXPECT_EQ(Run({"RENAMENX", "nokey", "b"}), "-ERR no such key\r\n");
}

TEST_F(KeyMoveCommandsTest, RenameOfExpiredKeyFails) {
  Run({"SET", "a", "1", "PX", "100"});
  clock_.AdvanceMs(101);

  EXPECT_EQ(Run({"RENAME", "a", "b"}), "-ERR no such key\r\n");
}

TEST_F(KeyMoveCommandsTest, RenameToItself) {
  Run({"SET", "a", "1"});

  EXPECT_EQ(Run({"RENAME", "a", "a"}), "+OK\r\n");
  EXPECT_EQ(Run({"RENAMENX", "a", "a"}), ":0\r\n");
  EXPECT_EQ(Run({"GET", "a"}), "$1\r\n1\r\n");
}

TEST_F(KeyMoveCommandsTest, RenameKeepsSourceTtl) {
  Run({"SET", "a", "1", "PX", "30000"});

  Run({"RENAME", "a", "b"});

  EXPECT_EQ(Run({"PTTL", "b"}), ":30000\r\n");
}

TEST_F(KeyMoveCommandsTest, RenameReplacesDestinationOfAnyTypeAndItsTtl) {
  Run({"SET", "a", "1"});
  Run({"HSET", "b", "f", "v"});
  Run({"PEXPIRE", "b", "30000"});

  EXPECT_EQ(Run({"RENAME", "a", "b"}), "+OK\r\n");

  EXPECT_EQ(Run({"TYPE", "b"}), "+string\r\n");
  EXPECT_EQ(Run({"PTTL", "b"}), ":-1\r\n");
  EXPECT_EQ(Run({"DBSIZE"}), ":1\r\n");
}

TEST_F(KeyMoveCommandsTest, RenamenxLeavesExistingDestination) {
  Run({"SET", "a", "1"});
  Run({"SET", "b", "2"});

  EXPECT_EQ(Run({"RENAMENX", "a", "b"}), ":0\r\n");

  EXPECT_EQ(Run({"GET", "a"}), "$1\r\n1\r\n");
  EXPECT_EQ(Run({"GET", "b"}), "$1\r\n2\r\n");
}

TEST_F(KeyMoveCommandsTest, RenamenxToFreeName) {
  Run({"SET", "a", "1"});

  EXPECT_EQ(Run({"RENAMENX", "a", "b"}), ":1\r\n");

  EXPECT_EQ(Run({"EXISTS", "a", "b"}), ":1\r\n");
}

TEST_F(KeyMoveCommandsTest, RenamenxOntoExpiredKeySucceeds) {
  Run({"SET", "a", "1"});
  Run({"SET", "b", "2", "PX", "100"});
  clock_.AdvanceMs(101);

  EXPECT_EQ(Run({"RENAMENX", "a", "b"}), ":1\r\n");
  EXPECT_EQ(Run({"GET", "b"}), "$1\r\n1\r\n");
}

TEST_F(KeyMoveCommandsTest, RenameMovesHashTable) {
  PutTableHash("h", 5);

  Run({"RENAME", "h", "g"});

  EXPECT_EQ(Run({"HLEN", "g"}), ":5\r\n");
  EXPECT_EQ(Run({"HGET", "g", "f3"}), "$2\r\nv3\r\n");
  EXPECT_EQ(Run({"OBJECT", "ENCODING", "g"}), "$9\r\nhashtable\r\n");
}

TEST_F(KeyMoveCommandsTest, RenameMovesSet) {
  Run({"SADD", "s", "3", "1"});

  Run({"RENAME", "s", "t"});

  EXPECT_EQ(Run({"SMEMBERS", "t"}), "*2\r\n$1\r\n1\r\n$1\r\n3\r\n");
}

// COPY

TEST_F(KeyMoveCommandsTest, CopyDuplicatesString) {
  Run({"SET", "a", "1"});

  EXPECT_EQ(Run({"COPY", "a", "b"}), ":1\r\n");

  EXPECT_EQ(Run({"GET", "a"}), "$1\r\n1\r\n");
  EXPECT_EQ(Run({"GET", "b"}), "$1\r\n1\r\n");
}

TEST_F(KeyMoveCommandsTest, CopyOfMissingKeyIsZero) {
  EXPECT_EQ(Run({"COPY", "nokey", "b"}), ":0\r\n");
  EXPECT_EQ(Run({"EXISTS", "b"}), ":0\r\n");
}

TEST_F(KeyMoveCommandsTest, CopyKeepsTtl) {
  Run({"SET", "a", "1", "PX", "30000"});

  Run({"COPY", "a", "b"});

  EXPECT_EQ(Run({"PTTL", "b"}), ":30000\r\n");
}

TEST_F(KeyMoveCommandsTest, CopyToExistingKeyNeedsReplace) {
  Run({"SET", "a", "1"});
  Run({"SET", "b", "2"});

  EXPECT_EQ(Run({"COPY", "a", "b"}), ":0\r\n");
  EXPECT_EQ(Run({"GET", "b"}), "$1\r\n2\r\n");
}

TEST_F(KeyMoveCommandsTest, CopyReplaceOverwritesDestinationOfAnyType) {
  Run({"HSET", "a", "f", "v"});
  Run({"SADD", "b", "m"});

  EXPECT_EQ(Run({"COPY", "a", "b", "REPLACE"}), ":1\r\n");

  EXPECT_EQ(Run({"TYPE", "b"}), "+hash\r\n");
  EXPECT_EQ(Run({"HGET", "b", "f"}), "$1\r\nv\r\n");
}

TEST_F(KeyMoveCommandsTest, CopyOfPackedHashIsIndependent) {
  Run({"HSET", "a", "f", "v"});
  Run({"COPY", "a", "b"});

  Run({"HSET", "b", "f", "changed", "g", "new"});

  EXPECT_EQ(Run({"HGETALL", "a"}), "*2\r\n$1\r\nf\r\n$1\r\nv\r\n");
}

TEST_F(KeyMoveCommandsTest, CopyOfHashTableIsIndependent) {
  PutTableHash("a", 5);
  Run({"COPY", "a", "b"});

  Run({"HDEL", "b", "f0", "f1"});
  Run({"HSET", "b", "f2", "changed"});

  EXPECT_EQ(Run({"HLEN", "a"}), ":5\r\n");
  EXPECT_EQ(Run({"HGET", "a", "f2"}), "$2\r\nv2\r\n");
  EXPECT_EQ(Run({"HLEN", "b"}), ":3\r\n");
}

TEST_F(KeyMoveCommandsTest, CopyOfHashTableOutlivesTheOriginal) {
  PutTableHash("a", 5);
  Run({"COPY", "a", "b"});

  Run({"DEL", "a"});

  EXPECT_EQ(Run({"HLEN", "b"}), ":5\r\n");
  EXPECT_EQ(Run({"HGET", "b", "f4"}), "$2\r\nv4\r\n");
}

TEST_F(KeyMoveCommandsTest, CopyOfSetTableIsIndependent) {
  Run({"SADD", "a", "x", "y"});
  Run({"COPY", "a", "b"});

  Run({"SREM", "b", "x"});

  EXPECT_EQ(Run({"SCARD", "a"}), ":2\r\n");
  EXPECT_EQ(Run({"SCARD", "b"}), ":1\r\n");
}

TEST_F(KeyMoveCommandsTest, CopyOfIntsetIsIndependent) {
  Run({"SADD", "a", "1"});
  Run({"COPY", "a", "b"});

  Run({"SADD", "b", "2"});

  EXPECT_EQ(Run({"SMEMBERS", "a"}), "*1\r\n$1\r\n1\r\n");
  EXPECT_EQ(Run({"OBJECT", "ENCODING", "b"}), "$6\r\nintset\r\n");
}

TEST_F(KeyMoveCommandsTest, CopyToAnotherDatabase) {
  Run({"SET", "a", "1"});

  EXPECT_EQ(Run({"COPY", "a", "a", "DB", "1"}), ":1\r\n");

  Run({"SELECT", "1"});
  EXPECT_EQ(Run({"GET", "a"}), "$1\r\n1\r\n");
}

TEST_F(KeyMoveCommandsTest, CopyOfHashTableToAnotherDatabaseIsIndependent) {
  PutTableHash("a", 5);
  Run({"COPY", "a", "a", "DB", "2"});

  Run({"DEL", "a"});

  Run({"SELECT", "2"});
  EXPECT_EQ(Run({"HLEN", "a"}), ":5\r\n");
}

TEST_F(KeyMoveCommandsTest, CopyToSameKeyFails) {
  Run({"SET", "a", "1"});

  EXPECT_EQ(Run({"COPY", "a", "a"}), "-ERR source and destination objects are the same\r\n");
  EXPECT_EQ(Run({"COPY", "a", "a", "DB", "0"}),
            "-ERR source and destination objects are the same\r\n");
}

TEST_F(KeyMoveCommandsTest, CopyOptionErrors) {
  Run({"SET", "a", "1"});

  EXPECT_EQ(Run({"COPY", "a", "b", "FOO"}), "-ERR syntax error\r\n");
  EXPECT_EQ(Run({"COPY", "a", "b", "DB"}), "-ERR syntax error\r\n");
  EXPECT_EQ(Run({"COPY", "a", "b", "DB", "16"}), "-ERR DB index is out of range\r\n");
  EXPECT_EQ(Run({"COPY", "a", "b", "DB", "-1"}), "-ERR DB index is out of range\r\n");
  EXPECT_EQ(Run({"COPY", "a", "b", "DB", "abc"}),
            "-ERR value is not an integer or out of range\r\n");
  EXPECT_EQ(Run({"COPY", "a", "b", "DB", "99999999999"}),
            "-ERR value is out of range, value must between -2147483648 and 2147483647\r\n");
}

// MOVE

TEST_F(KeyMoveCommandsTest, MoveTakesKeyToAnotherDatabase) {
  Run({"SET", "a", "1"});

  EXPECT_EQ(Run({"MOVE", "a", "3"}), ":1\r\n");

  EXPECT_EQ(Run({"EXISTS", "a"}), ":0\r\n");
  Run({"SELECT", "3"});
  EXPECT_EQ(Run({"GET", "a"}), "$1\r\n1\r\n");
}

TEST_F(KeyMoveCommandsTest, MoveKeepsTtl) {
  Run({"SET", "a", "1", "PX", "30000"});

  Run({"MOVE", "a", "3"});

  Run({"SELECT", "3"});
  EXPECT_EQ(Run({"PTTL", "a"}), ":30000\r\n");
}

TEST_F(KeyMoveCommandsTest, MoveOfHashTableKeepsFields) {
  PutTableHash("h", 5);

  Run({"MOVE", "h", "1"});

  Run({"SELECT", "1"});
  EXPECT_EQ(Run({"HLEN", "h"}), ":5\r\n");
  EXPECT_EQ(Run({"HGET", "h", "f0"}), "$2\r\nv0\r\n");
}

TEST_F(KeyMoveCommandsTest, MoveOntoExistingKeyIsZeroAndKeepsBoth) {
  Run({"SET", "a", "here"});
  Run({"SELECT", "1"});
  Run({"SET", "a", "there"});
  Run({"SELECT", "0"});

  EXPECT_EQ(Run({"MOVE", "a", "1"}), ":0\r\n");

  EXPECT_EQ(Run({"GET", "a"}), "$4\r\nhere\r\n");
}

TEST_F(KeyMoveCommandsTest, MoveOfMissingKeyIsZero) {
  EXPECT_EQ(Run({"MOVE", "nokey", "1"}), ":0\r\n");
}

TEST_F(KeyMoveCommandsTest, MoveErrors) {
  Run({"SET", "a", "1"});

  EXPECT_EQ(Run({"MOVE", "a", "0"}), "-ERR source and destination objects are the same\r\n");
  EXPECT_EQ(Run({"MOVE", "a", "16"}), "-ERR DB index is out of range\r\n");
  EXPECT_EQ(Run({"MOVE", "a", "-1"}), "-ERR DB index is out of range\r\n");
  EXPECT_EQ(Run({"MOVE", "a", "abc"}), "-ERR value is not an integer or out of range\r\n");
  EXPECT_EQ(Run({"MOVE", "a", "99999999999"}),
            "-ERR value is out of range, value must between -2147483648 and 2147483647\r\n");
}

// SWAPDB

TEST_F(KeyMoveCommandsTest, SwapdbExchangesDatabases) {
  Run({"SET", "a", "zero"});
  Run({"SELECT", "1"});
  Run({"SET", "b", "one"});

  EXPECT_EQ(Run({"SWAPDB", "0", "1"}), "+OK\r\n");

  EXPECT_EQ(Run({"GET", "a"}), "$4\r\nzero\r\n");
  EXPECT_EQ(Run({"GET", "b"}), "$-1\r\n");
}

TEST_F(KeyMoveCommandsTest, SwapdbWithItselfChangesNothing) {
  Run({"SET", "a", "1"});

  EXPECT_EQ(Run({"SWAPDB", "0", "0"}), "+OK\r\n");

  EXPECT_EQ(Run({"GET", "a"}), "$1\r\n1\r\n");
}

TEST_F(KeyMoveCommandsTest, SwapdbErrors) {
  EXPECT_EQ(Run({"SWAPDB", "x", "1"}), "-ERR invalid first DB index\r\n");
  EXPECT_EQ(Run({"SWAPDB", "1", "x"}), "-ERR invalid second DB index\r\n");
  EXPECT_EQ(Run({"SWAPDB", "99999999999", "0"}), "-ERR invalid first DB index\r\n");
  EXPECT_EQ(Run({"SWAPDB", "0", "16"}), "-ERR DB index is out of range\r\n");
  EXPECT_EQ(Run({"SWAPDB", "-1", "0"}), "-ERR DB index is out of range\r\n");
}

}  // namespace
}  // namespace warden::server
