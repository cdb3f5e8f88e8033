// Glob matching as Redis 7.0's stringmatchlen (util.c) does it, with patterns checked against
// redis-server 7.0.15 through KEYS.
#include "storage/glob.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

namespace warden::storage {
namespace {

const std::vector<std::string> kKeys = {
    "a",       "b",      "c",  "hello", "hallo", "hxllo", "hllo", "heeeello", "h*llo", "h?llo",
    "h[a]llo", "h\\llo", "k1", "k2",    "k10",   "[",     "]",    "ab]",      "x-y",   "b-",
};

struct KeysCase {
  const char* pattern;
  std::set<std::string> matches;
};

const KeysCase kKeysCases[] = {
    // Section 5.2.
    {"h?llo", {"hello", "hxllo", "h\\llo", "hallo", "h?llo", "h*llo"}},
    {"h[ae]llo", {"hello", "hallo"}},
    {"h[^e]llo", {"hxllo", "h\\llo", "hallo", "h?llo", "h*llo"}},
    {"h[!e]llo", {"hello"}},
    {"h[b-a]llo", {"hallo"}},
    {"h\\*llo", {"h*llo"}},
    {"h\\\\llo", {"h\\llo"}},
    {"[[]", {"["}},
    {"[]]", {}},
    {"[\\]]", {"]"}},
    {"[a-]", {"]", "a"}},
    {"[a", {"a"}},
    {"h[ae", {}},
    {"H*", {}},
    {"", {}},
    // More, from redis-server 7.0.15.
    {"h*llo",
     {"hello", "hallo", "hxllo", "hllo", "heeeello", "h*llo", "h?llo", "h[a]llo", "h\\llo"}},
    {"h*l*o",
     {"hello", "hallo", "hxllo", "hllo", "heeeello", "h*llo", "h?llo", "h[a]llo", "h\\llo"}},
    {"\\h*",
     {"hello", "hallo", "hxllo", "hllo", "heeeello", "h*llo", "h?llo", "h[a]llo", "h\\llo"}},
    {"k?", {"k1", "k2"}},
    {"k*", {"k1", "k2", "k10"}},
    {"k[0-9]", {"k1", "k2"}},
    {"k[0-9]*", {"k1", "k2", "k10"}},
    {"k1*0", {"k10"}},
    {"k1?", {"k10"}},
    {"k*0*", {"k10"}},
    {"*]", {"]", "ab]"}},
    {"x[-]y", {"x-y"}},
    {"x?y", {"x-y"}},
    {"[a-c]", {"a", "b", "c"}},
    {"[^a-c]", {"[", "]"}},
    {"?", {"a", "b", "c", "[", "]"}},
    {"??", {"k1", "k2", "b-"}},
    {"???", {"k10", "ab]", "x-y"}},
    // A trailing lone backslash matches a backslash.
    {"b\\", {}},
    {"*\\", {}},
    // "[x-]*" is one class: the range x..] (swapped) and '*', never closed.
    {"[x-]*", {"]", "a", "b", "c"}},
    {"h[a-]llo", {}},
    {"h[a\\]llo", {}},
    {"h[\\^]llo", {}},
    {"[]a]", {}},
    {"[^]]", {}},
};

class GlobKeysTest : public ::testing::TestWithParam<KeysCase> {};

TEST_P(GlobKeysTest, MatchesLikeRedisKeys) {
  std::set<std::string> matched;

  for (const std::string& key : kKeys) {
    if (GlobMatch(GetParam().pattern, key)) matched.insert(key);
  }

  EXPECT_EQ(matched, GetParam().matches);
}

INSTANTIATE_TEST_SUITE_P(Section5_2, GlobKeysTest, ::testing::ValuesIn(kKeysCases));

TEST(GlobTest, EmptyPatternMatchesEmptyString) { EXPECT_TRUE(GlobMatch("", "")); }

// Redis's matcher never enters its loop for an empty string, so "*" does not match it (KEYS *
// still lists the empty key through its all-keys fast path).
TEST(GlobTest, StarDoesNotMatchEmptyString) { EXPECT_FALSE(GlobMatch("*", "")); }

TEST(GlobTest, TrailingStarsMatchEndOfString) { EXPECT_TRUE(GlobMatch("a***", "a")); }

TEST(GlobTest, PatternLongerThanStringFails) { EXPECT_FALSE(GlobMatch("a?", "a")); }

TEST(GlobTest, IsBinarySafe) {
  using namespace std::string_literals;

  EXPECT_TRUE(GlobMatch("a?c"s, "a\0c"s));
  EXPECT_TRUE(GlobMatch("a\0*"s, "a\0xyz"s));
  EXPECT_FALSE(GlobMatch("a\0*"s, "a"s));
}

// Ranges compare signed chars: bytes >= 0x80 sort below ASCII.
TEST(GlobTest, HighBytesSortBelowAsciiInRanges) {
  EXPECT_TRUE(GlobMatch("[\x80-a]", "A"));
  EXPECT_TRUE(GlobMatch("[\x80-a]", "\xff"));
  EXPECT_FALSE(GlobMatch("[a-\xff]", "b"));
  EXPECT_FALSE(GlobMatch("[\xff-a]", "\x80"));
}

TEST(GlobTest, NestedStarsAgainstLongRunFinish) {
  const std::string text(5000, 'a');

  EXPECT_FALSE(GlobMatch("*a*a*a*a*a*a*a*a*b", text));
}

TEST(GlobTest, NestedStarsAgainstLongRunStillMatch) {
  const std::string text = std::string(5000, 'a') + "b";

  EXPECT_TRUE(GlobMatch("*a*a*a*a*a*a*a*a*b", text));
}

TEST(GlobTest, ManyStarsAgainstLongMixedTextFinish) {
  std::string text;
  for (int i = 0; i < 2000; ++i) text += "ab";

  EXPECT_FALSE(GlobMatch("*a*b*a*b*a*b*a*b*a*b*c", text));
}

TEST(GlobTest, IsCaseSensitive) { EXPECT_FALSE(GlobMatch("MAXMEMORY", "maxmemory")); }

// GlobMatchNoCase is stringmatchlen(..., nocase=1), as CONFIG GET uses it; the cases were checked
// with CONFIG GET against redis-server 7.0.15.
struct NoCaseCase {
  const char* pattern;
  const char* text;
  bool matches;
};

const NoCaseCase kNoCaseCases[] = {
    {"MAXMEMORY", "maxmemory", true},
    {"maxmemory", "MAXMEMORY", true},
    {"Max*", "maxmemory-policy", true},
    {"M?XMEMORY", "maxmemory", true},
    {"\\Maxmemory", "maxmemory", true},
    {"M[A-A]XMEMORY", "maxmemory", true},
    {"m[a-c]xmemory", "mAxmemory", true},
    {"m[^A]xmemory", "maxmemory", false},
    {"*-LIMIT", "lua-time-limit", true},
    {"lua*", "busy-reply-threshold", false},
    // Redis compares an escaped class member byte for byte, without folding case.
    {"m[\\A]xmemory", "maxmemory", false},
    {"m[\\a]xmemory", "maxmemory", true},
    // Redis swaps a reversed range before folding it: [Z-a] becomes z..a, which holds nothing.
    {"m[Z-a]xmemory", "maxmemory", false},
};

class GlobNoCaseTest : public ::testing::TestWithParam<NoCaseCase> {};

TEST_P(GlobNoCaseTest, MatchesLikeConfigGet) {
  EXPECT_EQ(GlobMatchNoCase(GetParam().pattern, GetParam().text), GetParam().matches);
}

INSTANTIATE_TEST_SUITE_P(Table, GlobNoCaseTest, ::testing::ValuesIn(kNoCaseCases));

}  // namespace
}  // namespace warden::storage
