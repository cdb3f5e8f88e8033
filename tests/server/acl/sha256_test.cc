// SHA-256 against the test vectors of FIPS 180-4's examples and NIST's byte-oriented set, around
// every padding boundary, and the digest Redis stores for a password (ACL GETUSER).
#include "server/acl/sha256.h"

#include <gtest/gtest.h>

#include <string>

#include "server/acl/acl.h"

namespace warden::server {
namespace {

std::string Hex(std::string_view data) {
  unsigned char digest[32];
  Sha256(data, digest);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (const unsigned char b : digest) {
    out += kHex[b >> 4];
    out += kHex[b & 0xF];
  }
  return out;
}

TEST(Sha256Test, FipsExamples) {
  EXPECT_EQ(Hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(Hex(std::string(1000000, 'a')),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

// 55 bytes pad into one block, 56 need a second; 63, 64 and 65 straddle a whole block.
TEST(Sha256Test, PaddingBoundaries) {
  EXPECT_EQ(Hex(std::string(55, 'a')),
            "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318");
  EXPECT_EQ(Hex(std::string(56, 'a')),
            "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a");
  EXPECT_EQ(Hex(std::string(63, 'a')),
            "7d3e74a05d7db15bce4ad9ec0658ea98e3f06eeecf16b4c6fff2da457ddc2f34");
  EXPECT_EQ(Hex(std::string(64, 'a')),
            "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb");
  EXPECT_EQ(Hex(std::string(65, 'a')),
            "635361c48bb9eab14198e76ea8ab7f1a41685d6ad62aa9146d301d4f17eb0ae0");
}

// redis-server 7.0: ACL SETUSER u >lock-password, then ACL GETUSER u's passwords.
TEST(Sha256Test, AclHashIsRedisDigest) {
  EXPECT_EQ(AclHashPassword("lock-password"), Hex("lock-password"));
  EXPECT_EQ(AclHashPassword("foobar"),
            "c3ab8ff13720e8ad9047dd39466b3c8974e592c2fa383d4a3960714caef0c4f2");
}

TEST(Sha256Test, ConstantTimeEqual) {
  EXPECT_TRUE(ConstantTimeEqual("abcd", "abcd", 4));
  EXPECT_FALSE(ConstantTimeEqual("abcd", "abce", 4));
  EXPECT_FALSE(ConstantTimeEqual("xbcd", "abcd", 4));
  EXPECT_TRUE(ConstantTimeEqual("", "", 0));
}

}  // namespace
}  // namespace warden::server
