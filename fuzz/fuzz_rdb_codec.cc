// libFuzzer target: the RDB format's packed-blob readers and LZF (storage/rdb/) on any bytes, as
// they arrive from an RDB file or a RESTORE payload.
//
// The whole input goes to every reader: listpack, ziplist, zipmap and intset. For each, the
// walk agrees with validation (a malformed blob is refused before the callback runs), the
// unvalidated reader stays inside the bytes, and an accepted blob's elements survive being
// written out again: as a listpack (ListpackWriter), read back as the same strings, or as an
// intset of the same values. The input is also decompressed as LZF to a length taken from its
// first two bytes (exactly that length, or refused), compressed and decompressed back, and
// checksummed in two pieces that must agree with the whole.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "storage/rdb/crc64.h"
#include "storage/rdb/intset.h"
#include "storage/rdb/listpack.h"
#include "storage/rdb/lzf.h"
#include "storage/rdb/ziplist.h"
#include "storage/rdb/zipmap.h"

namespace warden::fuzz {
namespace {

using namespace storage::rdb;

void Check(bool ok, const char* what) {
  if (ok) return;
  std::fprintf(stderr, "fuzz check failed: %s\n", what);
  std::abort();
}

// The elements of an accepted blob, rewritten as a listpack, read back the same.
void CheckRewrite(const std::vector<std::string>& elements) {
  ListpackWriter writer;
  for (const std::string& e : elements) writer.AppendString(e);
  const std::size_t bytes = writer.bytes();
  const std::string lp = writer.Finish();
  Check(lp.size() == bytes, "bytes() is the size Finish returns");
  std::size_t i = 0;
  const bool ok = ListpackForEach(lp, [&](const PackedItem& item) {
    Check(i < elements.size() && item.str == elements[i], "a rewritten element reads back");
    ++i;
    return true;
  });
  Check(ok && i == elements.size(), "a rewritten listpack is valid and whole");
  Check(ListpackCount(lp) == elements.size(), "a rewritten listpack counts its elements");
}

template <typename Reader>
void WalkUnvalidated(std::string_view data) {
  Reader reader(data);
  PackedItem item;
  while (reader.Next(item)) {
  }
}

void FuzzListpack(std::string_view data) {
  std::vector<std::string> elements;
  const bool ok = ListpackForEach(data, [&](const PackedItem& item) {
    elements.emplace_back(item.str);
    return true;
  });
  Check(ok == ListpackValidate(data), "ListpackForEach agrees with ListpackValidate");
  Check(ok || elements.empty(), "nothing is visited in a refused listpack");
  WalkUnvalidated<ListpackReader>(data);
  if (!ok) return;
  Check(ListpackCount(data) == elements.size(), "ListpackCount counts the elements visited");
  CheckRewrite(elements);
}

void FuzzZiplist(std::string_view data) {
  std::vector<std::string> elements;
  const bool ok = ZiplistForEach(data, [&](const PackedItem& item) {
    elements.emplace_back(item.str);
    return true;
  });
  Check(ok == ZiplistValidate(data), "ZiplistForEach agrees with ZiplistValidate");
  Check(ok || elements.empty(), "nothing is visited in a refused ziplist");
  WalkUnvalidated<ZiplistReader>(data);
  if (ok) CheckRewrite(elements);
}

void FuzzZipmap(std::string_view data) {
  std::vector<std::string> elements;
  const bool ok = ZipmapForEach(data, [&](std::string_view field, std::string_view value) {
    elements.emplace_back(field);
    elements.emplace_back(value);
    return true;
  });
  Check(ok == ZipmapValidate(data), "ZipmapForEach agrees with ZipmapValidate");
  Check(ok != elements.empty(), "an accepted zipmap has a pair, a refused one shows none");
  ZipmapReader reader(data);
  std::string_view field;
  std::string_view value;
  while (reader.Next(field, value)) {
  }
  if (ok) CheckRewrite(elements);
}

void FuzzIntset(std::string_view data) {
  std::vector<std::int64_t> values;
  const bool ok = IntsetForEach(data, [&](std::int64_t v) {
    values.push_back(v);
    return true;
  });
  Check(ok == IntsetValidate(data), "IntsetForEach agrees with IntsetValidate");
  Check(ok != values.empty(), "an accepted intset has a value, a refused one shows none");
  if (!ok) return;
  const std::string encoded = IntsetEncode(values);
  Check(encoded.size() <= data.size(), "the narrowest encoding is no larger");
  std::size_t i = 0;
  Check(IntsetForEach(encoded,
                      [&](std::int64_t v) {
                        Check(i < values.size() && v == values[i], "a re-encoded value reads back");
                        ++i;
                        return true;
                      }) &&
            i == values.size(),
        "a re-encoded intset is valid and whole");
}

void FuzzLzf(std::string_view data) {
  if (data.size() >= 2) {
    const std::size_t expected = static_cast<unsigned char>(data[0]) |
                                 static_cast<std::size_t>(static_cast<unsigned char>(data[1])) << 8;
    std::string out;
    if (LzfDecompress(data.substr(2), expected, out)) {
      Check(out.size() == expected, "LZF decompresses to exactly the expected length");
    } else {
      Check(out.empty(), "a refused LZF input leaves the output empty");
    }
  }
  std::string packed;
  if (LzfCompress(data, packed)) {
    Check(data.size() > 20 && packed.size() <= data.size() - 4, "LZF saves at least 4 bytes");
    std::string plain;
    Check(LzfDecompress(packed, data.size(), plain) && plain == data, "LZF round-trips");
  }
}

void FuzzCrc(std::string_view data) {
  const std::size_t cut = data.empty() ? 0 : static_cast<unsigned char>(data[0]) % data.size();
  Check(Crc64(Crc64(0, data.substr(0, cut)), data.substr(cut)) == Crc64(0, data),
        "CRC-64 continues across a split");
}

}  // namespace
}  // namespace warden::fuzz

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  warden::fuzz::FuzzListpack(bytes);
  warden::fuzz::FuzzZiplist(bytes);
  warden::fuzz::FuzzZipmap(bytes);
  warden::fuzz::FuzzIntset(bytes);
  warden::fuzz::FuzzLzf(bytes);
  warden::fuzz::FuzzCrc(bytes);
  return 0;
}
