#include "server/debug/dataset_digest.h"

#include <cstdio>
#include <cstring>
#include <string_view>

#include "server/scripting/sha1.h"
#include "storage/hash.h"
#include "storage/list.h"
#include "storage/set.h"
#include "storage/stream.h"
#include "storage/zset.h"

namespace warden::server {
namespace {

using Digest = unsigned char[20];

// xorDigest: digest ^= SHA1(data).
void XorDigest(Digest& digest, std::string_view data) {
  unsigned char hash[20];
  Sha1(data, hash);
  for (int j = 0; j < 20; ++j) digest[j] ^= hash[j];
}

// mixDigest: digest = SHA1(digest ^ SHA1(data)).
void MixDigest(Digest& digest, std::string_view data) {
  XorDigest(digest, data);
  Sha1(std::string_view(reinterpret_cast<const char*>(digest), 20), digest);
}

// Redis's OBJ_* type numbers, mixed in big-endian as htonl(o->type).
std::uint32_t RedisTypeNumber(storage::ValueType type) {
  switch (type) {
    case storage::ValueType::kString:
      return 0;
    case storage::ValueType::kList:
      return 1;
    case storage::ValueType::kSet:
      return 2;
    case storage::ValueType::kZset:
      return 3;
    case storage::ValueType::kHash:
      return 4;
    case storage::ValueType::kStream:
      return 6;
  }
  return 0;
}

void MixBigEndian32(Digest& digest, std::uint32_t n) {
  const char bytes[4] = {static_cast<char>(n >> 24), static_cast<char>(n >> 16),
                         static_cast<char>(n >> 8), static_cast<char>(n)};
  MixDigest(digest, std::string_view(bytes, 4));
}

// An element digest (a member with its score, a field with its value) XORed into `digest`.
void XorPair(Digest& digest, std::string_view first, std::string_view second) {
  Digest element = {};
  MixDigest(element, first);
  MixDigest(element, second);
  XorDigest(digest, std::string_view(reinterpret_cast<const char*>(element), 20));
}

// xorObjectDigest.
void ObjectDigest(Digest& digest, const storage::Entry& e) {
  MixBigEndian32(digest, RedisTypeNumber(e.type()));
  switch (e.type()) {
    case storage::ValueType::kString:
      MixDigest(digest, e.value());
      break;
    case storage::ValueType::kList:
      storage::ListForEachFrom(e, 0, [&](std::string_view item) {
        MixDigest(digest, item);
        return true;
      });
      break;
    case storage::ValueType::kSet:
      storage::SetForEach(e, [&](std::string_view member) { XorDigest(digest, member); });
      break;
    case storage::ValueType::kZset:
      storage::ZsetVisit(e, 0, false, [&](std::string_view member, double score) {
        char buf[128];
        const int n = std::snprintf(buf, sizeof buf, "%.17g", score);
        XorPair(digest, member, std::string_view(buf, static_cast<std::size_t>(n)));
        return true;
      });
      break;
    case storage::ValueType::kHash:
      storage::HashForEach(e, [&](std::string_view field, std::string_view value) {
        XorPair(digest, field, value);
      });
      break;
    case storage::ValueType::kStream:
      storage::StreamOf(e)->Range(
          {0, 0}, storage::StreamId::Max(), false, [&](storage::StreamId id, auto fields) {
            char buf[48];
            const int n =
                std::snprintf(buf, sizeof buf, "%llu.%llu", static_cast<unsigned long long>(id.ms),
                              static_cast<unsigned long long>(id.seq));
            MixDigest(digest, std::string_view(buf, static_cast<std::size_t>(n)));
            for (const auto& [field, value] : fields) {
              MixDigest(digest, field);
              MixDigest(digest, value);
            }
            return true;
          });
      break;
  }
  if (e.has_deadline()) XorDigest(digest, "!!expire!!");
}

std::string Hex(const Digest& digest) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out(40, '0');
  for (int i = 0; i < 20; ++i) {
    out[2 * i] = kHex[digest[i] >> 4];
    out[2 * i + 1] = kHex[digest[i] & 0xF];
  }
  return out;
}

}  // namespace

std::string DatasetDigest(const storage::Databases& dbs) {
  Digest final_digest = {};
  for (int db = 0; db < dbs.count(); ++db) {
    const storage::Keyspace& keyspace = dbs.db(db);
    if (keyspace.size() == 0) continue;
    // The database number, so the same data in another database digests differently.
    MixBigEndian32(final_digest, static_cast<std::uint32_t>(db));
    keyspace.ForEach([&](const storage::Entry& e) {
      Digest digest = {};
      MixDigest(digest, e.key());
      ObjectDigest(digest, e);
      XorDigest(final_digest, std::string_view(reinterpret_cast<const char*>(digest), 20));
    });
  }
  return Hex(final_digest);
}

std::string ValueDigest(const storage::Entry* entry) {
  Digest digest = {};
  if (entry != nullptr) ObjectDigest(digest, *entry);
  return Hex(digest);
}

}  // namespace warden::server
