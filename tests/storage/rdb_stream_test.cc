// Streams in the RDB format: payloads byte-equal to Redis 7.0.15's DUMP for streams built by the
// same commands (and loaded back to the same bytes), round trips of entries, counters, groups
// and pending entries, the 5.0-6.2 layout's derived counters, and hostile payloads (every
// truncation, corrupted bytes, and each inconsistency rdb.c or warden refuses) rejected
// without a crash.
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "storage/random.h"
#include "storage/rdb/listpack.h"
#include "storage/rdb/stream_codec.h"
#include "storage/stream_group.h"

namespace warden::storage::rdb {
namespace {

// DUMP payload bodies from redis-server 7.0.15 (the type byte 19 and the version and CRC
// trailer removed), made by the commands in each scenario's comment. Its seen and delivery
// times are wall-clock, so the groups scenario copies them from XINFO STREAM FULL.

// CONFIG SET stream-node-max-entries 100, stream-node-max-bytes 4096 (the defaults)
// XADD s 1-1 a 1 b 2; XADD s 1-2 a 3 b 4; XADD s 2-0 c hello; XADD s 5-0 a 123456789 b -5
// XADD s 5-7 a 9223372036854775807 b -9223372036854775808; XADD s 6-3 a 1.5 b 007; XDEL s 1-2
constexpr std::string_view kBasic =
    "011000000000000000010000000000000001c34072408212820000002b000501010102018161028162020020"
    "0900002001401102050103600902030104200b40130fdfff0201018163028568656c6c6f0606202c00044014"
    "09f315cd5b0705dffb02056011030601f4ff8000027f09f420624000018009401b40030c83312e3504833030"
    "37040501ff050603010101020600";

// stream-node-max-entries 3; XADD s i-0 f vi for i in 1..10; XDEL s 4-0 5-0 6-0; XDEL s 1-0;
// XTRIM s MINID 9-0; XADD s 11-0 f v11
constexpr std::string_view kNodesByEntries =
    "0210000000000000000700000000000000003636000000140001010201010181660200010301000100018276"
    "37030401030101010001827638030401020102010001827639030401ff10000000000000000a000000000000"
    "00002c2c0000000f000201000101018166020001020100010001837631300404010201010100018376313104"
    "0401ff030b00090006000b00";

// stream-node-max-bytes 200; for i in 1..20: XADD s i-0 f vi g <kMid> when i % 3 == 0, else
// XADD s i-0 big <kBig[:i*200]> when i % 5 == 0, else XADD s i-0 f vi; XTRIM s MAXLEN 15;
// XTRIM s MAXLEN ~ 10
constexpr std::string_view kNodesByBytes =
    "0410000000000000000b0000000000000000c34066409711970000001d00040100010101816602000102200a"
    "060001837631310480154012201920111f3204816702e0464144474a4d505356594245484b4e5154575a4346"
    "494c4f52550058e02319014808206a406c20580033206a02020103206a200c0034200c00ff10000000000000"
    "000f0000000000000000c3405c408f118f0000001a000301000102018166028167024009000020011f837631"
    "3504e0464144474a4d505356594245484b4e5154575a4346494c4f52550058e0231901480520510001600320"
    "65205a02360406200d4069c0110037201100ff1000000000000000120000000000000000c34052407d117d00"
    "000013000201000102018166028167024009000020011f8376313804e0464144474a4d505356594245484b4e"
    "5154575a4346494c4f52550058e023190148052051000160032065205a0439040601ff100000000000000014"
    "0000000000000000c3406c4fc007c00f00000a000101200208018362696704000102200c1d0001efa061686f"
    "76636a7178656c737a676e7562697077646b7279666d74e0ff19e1ff1de2ff21e3ff25e4ff29e5ff2de6ff31"
    "e6ff31e6ff31e6ff31e6ff31e6ff31e6ff31e6ff31e6ff31e60531041fa20401ff0a14000b0000001400";

// XADD s 1-0 f 1; XADD s 5-0 f 5; XDEL s 5-0; XSETID s 2-0; XADD s 3-0 f 3: a deleted entry
// above a live one in the same node.
constexpr std::string_view kTombstoneAboveLive =
    "0110000000000000000100000000000000003030000000140002010101010181660200010201000100010101"
    "04010301040100010501040102010201000103010401ff020300010005000300";

// XADD s 5-10 f 1; XADD s 6-0 f 2; XADD s 18446744073709551615-18446744073709551615 f 3
constexpr std::string_view kWrappingDeltas =
    "01100000000000000005000000000000000a3333000000140003010001010181660200010201000100010101"
    "040102010101dff602020104010201dffa02dff50203010401ff0381ffffffffffffffff81ffffffffffffff"
    "ff050a00000300";

// Default limits; XADD s 1000-i temp <i*37%1000> for i in 1..250, with note ni when i % 17 == 0;
// XDEL s 1000-50 1000-150 1000-151: three nodes of 100, 100 and 50 entries.
constexpr std::string_view kThreeDefaultNodes =
    "031000000000000003e80000000000000001c3431744b407b40400000d02630140000a8474656d7005000102"
    "010020010225010460090201014aa0090202016fa009040301c09402801e030401c0b9a00a030501c0dea00a"
    "030601c103a00a030701c128a00a030801c14da00a030901c172a00a030a01c197a00a030b01c1bca00a030c"
    "01c1e1a00a030d01c206a00a030e01c22ba00a030f01c250200a40aa0010209a80bc0ec27502846e6f746505"
    "836e3137040820170500011101c29a2028400a031201c2bfa00a031301c2e4a00a031401c309a00a031501c3"
    "2ea00a031601c353a00a031701c378a00a031801c39da00a031901c3c2a00a031a01c3e7a00a021b01242113"
    "406c021c0149a009021d016ea009031e01c093a028031f01c0b8a00a032001c0dd200a40ca0021203a80ca01"
    "c102e000ca013334a0ca032201c1272028405d032301c14ca00a032401c171a00a032501c196a00a032601c1"
    "bba00a032701c1e0a00a032801c205a00a032901c22aa00a032a01c24fa00a032b01c274a00a032c01c299a0"
    "0a032d01c2bea00a032e01c2e3a00a032f01c308a00a033001c32d200a000320c4033101c352200a40cd0032"
    "20aa80cd01c377e000cd013531a0cd033301c39c202840cd033401c3c1a00a033501c3e6a00a003620e5801f"
    "02370148a0090238016da009033901c092a028033a01c0b7a00a033b01c0dca00a033c01c101a00a033d01c1"
    "26a00a033e01c14ba00a033f01c170a00a034001c195a00a034101c1baa00a034201c1df200a40ca004320a7"
    "80ca01c204e000ca013638a0ca034401c229202840ca034501c24ea00a034601c273a00a034701c298a00a03"
    "4801c2bda00a034901c2e2a00a034a01c307a00a034b01c32ca00a034c01c351a00a034d01c376a00a034e01"
    "c39ba00a034f01c3c0a00a035001c3e5a00a00512229808d0052207980090253016c200940ca005420a780ca"
    "01c091e000ca013835a0ca035501c0b6a046035601c0dba00a035701c100a00a035801c125a00a035901c14a"
    "a00a035a01c16fa00a025b01c1c41d025c01c1c41d025d01c1c41d025e01c2c41d025f01c2c41d026001c2c4"
    "1d026101c2c41d026201c2c41d026301c2241d0101ff1000000000000003e80000000000000065c3433244cd"
    "12cd04000011026201020101018474656d700500200b0000200103c2e102042006000020180002a01a0fc306"
    "02846e6f746505846e31303205082018402d01c32b2029400a030301c350a00a030401c375a00a030501c39a"
    "a00a030601c3bfa00a030701c3e4a00a02080121202f404002090146a009020a016ba009030b01c090a02803"
    "0c01c0b5a00a030d01c0daa00a030e01c0ffa00a030f01c124a00a031001c149a00a031101c16e200a40cb00"
    "12206680e601c193e001cb013139a0cb031301c1b82029408a031401c1dda00a031501c202a00a031601c227"
    "a00a031701c24ca00a031801c271a00a031901c296a00a031a01c2bba00a031b01c2e0a00a031c01c305a00a"
    "031d01c32aa00a031e01c34fa00a031f01c374a00a032001c399a00a032101c3bea00a032201c3e3200a40ce"
    "002320aa80ce012001e10099013336a0cd02240145a1430225016aa009032601c08f203c40e1032701c0b4a0"
    "0a032801c0d9a00a032901c0fea00a032a01c123a00a032b01c148a00a032c01c16da00a032d01c192a00a03"
    "2e01c1b7a00a032f01c1dca00a033001c201200a000320ac033101c226a00a033201c24b200a4083033301c2"
    "70200a40cb0034201080cb01c295e1019a013533a0cc033501c2ba20294034033601c2dfa00a033701c304a0"
    "0a033801c329a00a033901c34ea00a033a01c373a00a033b01c398a00a033c01c3bda00a033d01c3e2a00a00"
    "3e217b8061023f0144a00902400169a009034101c08ea028034201c0b3a00a034301c0d8a00a034401c0fd20"
    "0a40cb004520a780cb01c122e001cb013730a0cb034601c147202940cb034701c16ca00a034801c191a00a03"
    "4901c1b6a00a034a01c1dba00a034b01c200a00a034c01c225a00a034d01c24aa00a034e01c26fa00a034f01"
    "c294a00a035001c2b9a00a035101c2dea00a035201c303a00a035301c328a00a035401c34da00a035501c372"
    "200a40ce005620aa80ce01c397e001ce013837a0ce035701c3bc202940ce025801c34436400a005922d48009"
    "005a21258009025b0168a009035c01c08da033035d01c0b2a00a035e01c0d7a00a035f01c0fca00a036001c1"
    "21a00a036101c146a00a036201c16ba00a026301c124220101ff1000000000000003e800000000000000c9c3"
    "41aa427114710200000b013201000101018474656d7005000102200d050001c1b50204600a030101c1daa00a"
    "030201c1ff200a401e0003200c80300fc22402846e6f746505846e323034050820180500010401c249202940"
    "0a030501c26ea00a030601c293a00a030701c2b8a00a030801c2dda00a030901c302a00a030a01c327a00a03"
    "0b01c34ca00a030c01c371a00a030d01c396a00a030e01c3bba00a030f01c3e0a00a0210011d208740820211"
    "0142a00902120167a009031301c08c202840cb0014202480cb01c0b1e001cb013231a0cb031501c0d6202940"
    "48031601c0fba00a031701c120a00a031801c145a00a031901c16aa00a031a01c18fa00a031b01c1b4a00a03"
    "1c01c1d9a00a031d01c1fea00a031e01c223a00a031f01c248a00a032001c26da00a032101c292a00a032201"
    "c2b7a00a032301c2dca00a032401c301200a40ce002520aa80ce01c326e001ce013338a0ce032601c34b2029"
    "40ce032701c370a00a032801c395a00a032901c3baa00a032a01c3dfa00a002b20ba8035022c0141a009022d"
    "0166a009032e01c08ba028032f01c0b0a00a033001c0d5a00a033101c0fa200a00ff40f743e840fa43e80143"
    "e8409740fa00";

// XADD s 1-0 f v; XDEL s 1-0
constexpr std::string_view kAllDeleted = "00000100000001000100";

// XADD s 1-0 a 1; XADD s 2-0 a 2; XDEL s 2-0; XTRIM s MINID 2-0: a node with no live entry.
constexpr std::string_view kOnlyTombstones =
    "01100000000000000001000000000000000026260000000f0000010201010181610200010301000100010101"
    "040103010101000102010401ff000200000002000200";

// XADD s i-0 f vi for i in 1..6; XGROUP CREATE s g1 0; XGROUP CREATE s g0 $;
// XGROUP CREATE s g2 3-5; XREADGROUP GROUP g1 alice COUNT 2 STREAMS s >;
// XREADGROUP GROUP g1 bob COUNT 3 STREAMS s >; XGROUP CREATECONSUMER s g1 carol;
// XACK s g1 2-0; then XCLAIM ... TIME t RETRYCOUNT n JUSTID (FORCE where not pending):
// g1 alice 1-0 1700000000000 7; g1 bob 3-0 1700000000123 300; g1 alice 4-0 1600000000000 1;
// g1 bob 5-0 1600000000001 2; g2 carol 6-0 1600000000002 0; XDEL s 3-0.
// Every consumer was seen at kSeen.
constexpr std::string_view kGroups =
    "011000000000000000010000000000000000c3404c405a075a00000023000501400007816602000102010020"
    "01048276310304200b0001600b0032200b0003200d40170033200b0002200d400b0034600b0004600b003560"
    "0b0005600b0036200b00ff050600010003000603026730060081ffffffffffffffff00000267310500050400"
    "0000000000000100000000000000000068e5cf8b01000007000000000000000300000000000000007b68e5cf"
    "8b010000412c0000000000000004000000000000000000806e87740100000100000000000000050000000000"
    "00000001806e8774010000020305616c696365decd5250a20100000200000000000000010000000000000000"
    "0000000000000004000000000000000003626f62decd5250a201000002000000000000000300000000000000"
    "0000000000000000050000000000000000056361726f6cdecd5250a201000000026732030581ffffffffffff"
    "ffff010000000000000006000000000000000002806e87740100000001056361726f6cdecd5250a201000001"
    "00000000000000060000000000000000";
constexpr std::int64_t kSeen = 1796643933662;

std::string FromHex(std::string_view hex) {
  std::string out;
  for (std::size_t i = 0; i + 1 < hex.size(); i += 2) {
    out.push_back(static_cast<char>(std::stoi(std::string(hex.substr(i, 2)), nullptr, 16)));
  }
  return out;
}

std::string Hex(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  for (const char c : bytes) {
    out.push_back(kDigits[static_cast<unsigned char>(c) >> 4]);
    out.push_back(kDigits[static_cast<unsigned char>(c) & 0xF]);
  }
  return out;
}

// A stream built as the commands build it.
class Builder {
 public:
  explicit Builder(StreamNodeLimits limits = {}) : limits_(limits) {}

  Builder& Add(StreamId id, std::initializer_list<std::string_view> pairs) {
    stream.Append(id, std::span<const std::string_view>(pairs.begin(), pairs.size()), limits_);
    return *this;
  }
  // XDEL's bookkeeping around Stream::Delete.
  Builder& Del(StreamId id) {
    EXPECT_TRUE(stream.Delete(id));
    if (id > stream.max_deleted_id()) stream.SetMaxDeletedId(id);
    if (stream.length() == 0) {
      stream.SetFirstId(StreamId{});
    } else if (id == stream.first_id()) {
      StreamId first = StreamId::Max();
      stream.EdgeId(true, first);
      stream.SetFirstId(first);
    }
    return *this;
  }
  Builder& TrimMinId(StreamId id) {
    StreamTrim trim;
    trim.strategy = StreamTrim::Strategy::kMinId;
    trim.min_id = id;
    stream.Trim(trim);
    return *this;
  }
  // XTRIM MAXLEN [~]: approximate trimming is capped at 100 nodes' worth, as XTRIM does.
  Builder& TrimMaxLen(std::uint64_t n, bool approx) {
    StreamTrim trim;
    trim.strategy = StreamTrim::Strategy::kMaxLength;
    trim.max_length = n;
    trim.approx = approx;
    if (approx) trim.limit = 100 * limits_.max_entries;
    stream.Trim(trim);
    return *this;
  }

  Stream stream;

 private:
  StreamNodeLimits limits_;
};

std::string Write(const Stream& s) {
  RdbWriter w;
  WriteStream(w, s);
  return w.buffer();
}

// Reads a whole payload; false also when bytes are left over.
bool Read(std::string_view payload, Stream& s, std::uint8_t type = kTypeStreamListpacks2) {
  RdbReader r(payload);
  return ReadStream(r, type, s, StreamNodeLimits{}) && r.left() == 0;
}

// Everything a stream shows: entries, counters, nodes, groups, consumers and pending entries.
std::string Describe(const Stream& s) {
  std::string out;
  char buf[48];
  s.Range(StreamId{}, StreamId::Max(), false,
          [&](StreamId id, std::span<const Stream::Field> fields) {
            out += id.Format(buf);
            for (const auto& [f, v] : fields) out += " " + std::string(f) + "=" + std::string(v);
            out += "\n";
            return true;
          });
  out += "length " + std::to_string(s.length()) + " nodes " + std::to_string(s.node_count());
  out += " radix " + std::to_string(s.radix_nodes());
  out += " last " + std::string(s.last_id().Format(buf));
  out += " first " + std::string(s.first_id().Format(buf));
  out += " max_deleted " + std::string(s.max_deleted_id().Format(buf));
  out += " added " + std::to_string(s.entries_added()) + "\n";
  if (const StreamGroups* groups = s.groups_if_any(); groups != nullptr) {
    for (const auto& [name, g] : groups->all()) {
      out += "group " + name + " last " + std::string(g->last_id.Format(buf)) + " read " +
             std::to_string(g->entries_read) + "\n";
      for (const auto& [id, p] : g->pel) {
        out += "  pending " + std::string(id.Format(buf)) + " " + p.consumer->name + " at " +
               std::to_string(p.delivery_time) + " x" + std::to_string(p.delivery_count) + "\n";
      }
      for (const auto& [cname, c] : g->consumers) {
        out += "  consumer " + cname + " seen " + std::to_string(c->seen_time) + ":";
        for (const auto& [id, p] : c->pel) {
          out += " " + std::string(id.Format(buf));
          EXPECT_EQ(p, &g->pel.at(id));
        }
        out += "\n";
      }
    }
  }
  return out;
}

struct Scenario {
  const char* name;
  std::string_view redis_hex;
  StreamNodeLimits limits;
  std::function<void(Builder&)> build;
};

std::string Mid() {
  std::string s;
  for (int i = 0; i < 70; ++i) s.push_back(static_cast<char>('A' + (i * 3) % 26));
  return s;
}
std::string Big() {
  std::string s;
  for (int i = 0; i < 5000; ++i) s.push_back(static_cast<char>('a' + (i * 7) % 26));
  return s;
}

std::vector<Scenario> Scenarios() {
  std::vector<Scenario> out;
  out.push_back({"Basic", kBasic, {}, [](Builder& b) {
                   b.Add({1, 1}, {"a", "1", "b", "2"})
                       .Add({1, 2}, {"a", "3", "b", "4"})
                       .Add({2, 0}, {"c", "hello"})
                       .Add({5, 0}, {"a", "123456789", "b", "-5"})
                       .Add({5, 7}, {"a", "9223372036854775807", "b", "-9223372036854775808"})
                       .Add({6, 3}, {"a", "1.5", "b", "007"})
                       .Del({1, 2});
                 }});
  out.push_back({"NodesByEntries", kNodesByEntries, {4096, 3}, [](Builder& b) {
                   for (std::uint64_t i = 1; i <= 10; ++i) {
                     const std::string v = "v" + std::to_string(i);
                     b.Add({i, 0}, {"f", v});
                   }
                   b.Del({4, 0}).Del({5, 0}).Del({6, 0}).Del({1, 0}).TrimMinId({9, 0});
                   b.Add({11, 0}, {"f", "v11"});
                 }});
  out.push_back({"NodesByBytes", kNodesByBytes, {200, 100}, [](Builder& b) {
                   const std::string mid = Mid();
                   const std::string big = Big();
                   for (std::uint64_t i = 1; i <= 20; ++i) {
                     const std::string v = "v" + std::to_string(i);
                     if (i % 3 == 0) {
                       b.Add({i, 0}, {"f", v, "g", mid});
                     } else if (i % 5 == 0) {
                       b.Add({i, 0}, {"big", std::string_view(big).substr(0, i * 200)});
                     } else {
                       b.Add({i, 0}, {"f", v});
                     }
                   }
                   b.TrimMaxLen(15, false).TrimMaxLen(10, true);
                 }});
  out.push_back({"TombstoneAboveLive", kTombstoneAboveLive, {}, [](Builder& b) {
                   b.Add({1, 0}, {"f", "1"}).Add({5, 0}, {"f", "5"}).Del({5, 0});
                   b.stream.SetLastId({2, 0});
                   b.Add({3, 0}, {"f", "3"});
                 }});
  out.push_back(
      {"WrappingDeltas", kWrappingDeltas, {}, [](Builder& b) {
         b.Add({5, 10}, {"f", "1"}).Add({6, 0}, {"f", "2"}).Add(StreamId::Max(), {"f", "3"});
       }});
  out.push_back({"ThreeDefaultNodes", kThreeDefaultNodes, {}, [](Builder& b) {
                   for (std::uint64_t i = 1; i <= 250; ++i) {
                     const std::string temp = std::to_string(i * 37 % 1000);
                     const std::string note = "n" + std::to_string(i);
                     if (i % 17 == 0) {
                       b.Add({1000, i}, {"temp", temp, "note", note});
                     } else {
                       b.Add({1000, i}, {"temp", temp});
                     }
                   }
                   b.Del({1000, 50}).Del({1000, 150}).Del({1000, 151});
                 }});
  out.push_back({"AllDeleted", kAllDeleted, {}, [](Builder& b) {
                   b.Add({1, 0}, {"f", "v"}).Del({1, 0});
                 }});
  out.push_back({"OnlyTombstones", kOnlyTombstones, {}, [](Builder& b) {
                   b.Add({1, 0}, {"a", "1"}).Add({2, 0}, {"a", "2"}).Del({2, 0}).TrimMinId({2, 0});
                 }});
  out.push_back({"Groups", kGroups, {}, [](Builder& b) {
                   for (std::uint64_t i = 1; i <= 6; ++i) {
                     const std::string v = "v" + std::to_string(i);
                     b.Add({i, 0}, {"f", v});
                   }
                   StreamGroups& groups = b.stream.groups();
                   groups.Create("g1", {5, 0}, 5);
                   groups.Create("g0", {6, 0}, kInvalidEntriesRead);
                   groups.Create("g2", {3, 5}, kInvalidEntriesRead);
                   StreamGroup& g1 = *groups.Find("g1");
                   StreamConsumer* alice = g1.GetConsumer("alice", kSeen, nullptr);
                   StreamConsumer* bob = g1.GetConsumer("bob", kSeen, nullptr);
                   g1.GetConsumer("carol", kSeen, nullptr);
                   g1.Deliver({1, 0}, alice, 1700000000000).delivery_count = 7;
                   g1.Deliver({3, 0}, bob, 1700000000123).delivery_count = 300;
                   g1.Deliver({4, 0}, alice, 1600000000000).delivery_count = 1;
                   g1.Deliver({5, 0}, bob, 1600000000001).delivery_count = 2;
                   StreamGroup& g2 = *groups.Find("g2");
                   StreamConsumer* carol = g2.GetConsumer("carol", kSeen, nullptr);
                   g2.Deliver({6, 0}, carol, 1600000000002).delivery_count = 0;
                   b.Del({3, 0});
                 }});
  return out;
}

TEST(RdbStreamTest, WritesRedisBytesForTheSameCommands) {
  for (const Scenario& sc : Scenarios()) {
    SCOPED_TRACE(sc.name);
    Builder b(sc.limits);
    sc.build(b);
    EXPECT_EQ(Hex(Write(b.stream)), sc.redis_hex);
  }
}

TEST(RdbStreamTest, RedisPayloadsLoadAsTheSameStreamAndWriteBackUnchanged) {
  for (const Scenario& sc : Scenarios()) {
    SCOPED_TRACE(sc.name);
    Builder b(sc.limits);
    sc.build(b);
    const std::string payload = FromHex(sc.redis_hex);
    Stream loaded;
    ASSERT_TRUE(Read(payload, loaded));
    EXPECT_EQ(Describe(loaded), Describe(b.stream));
    EXPECT_EQ(Write(loaded), payload);
    // The nodes came back whole (sizes and counters too): appends close them where Redis would.
    const StreamId base = b.stream.last_id();
    for (std::uint64_t i = 0; i < 12 && base.ms < UINT64_MAX - 100; ++i) {
      const StreamId id{base.ms + 1 + i, 0};
      const std::string value(i * 20, 'x');
      const std::string_view pairs[] = {"f", value};
      b.stream.Append(id, pairs, sc.limits);
      loaded.Append(id, pairs, sc.limits);
    }
    EXPECT_EQ(Hex(Write(loaded)), Hex(Write(b.stream)));
  }
}

TEST(RdbStreamTest, RoundTripsRandomStreamsWithGroups) {
  Random random(7);
  for (int round = 0; round < 40; ++round) {
    SCOPED_TRACE(round);
    const StreamNodeLimits limits{64 + random.Below(400),
                                  static_cast<std::int64_t>(random.Below(6))};
    Builder b(limits);
    std::vector<StreamId> ids;
    StreamId next{random.Below(3), random.Below(3)};
    const int adds = static_cast<int>(random.Below(60));
    for (int i = 0; i < adds; ++i) {
      std::vector<std::string> strings;
      const std::uint64_t fields = random.Below(4);
      for (std::uint64_t f = 0; f < fields; ++f) {
        strings.push_back(random.Below(2) ? "f" + std::to_string(f) : std::to_string(f * 1000));
        strings.push_back(std::string(random.Below(90), static_cast<char>('a' + random.Below(26))));
      }
      std::vector<std::string_view> views(strings.begin(), strings.end());
      b.stream.Append(next, views, limits);
      ids.push_back(next);
      if (random.Below(3) == 0) {
        next.ms += 1 + random.Below(1000);
        next.seq = random.Below(5);
      } else {
        ++next.seq;
      }
    }
    for (const StreamId id : ids) {
      if (random.Below(4) == 0) b.Del(id);
    }
    if (!ids.empty() && random.Below(3) == 0) b.TrimMinId(ids[random.Below(ids.size())]);
    if (random.Below(3) == 0) b.TrimMaxLen(random.Below(20), random.Below(2) == 1);
    const int group_count = static_cast<int>(random.Below(4));
    for (int g = 0; g < group_count; ++g) {
      const StreamId last = ids.empty() ? StreamId{} : ids[random.Below(ids.size())];
      StreamGroup* group = b.stream.groups().Create(
          "group" + std::to_string(random.Below(1000)), last,
          random.Below(2) ? kInvalidEntriesRead : static_cast<std::int64_t>(random.Below(99)));
      if (group == nullptr) continue;
      const int consumers = static_cast<int>(random.Below(4));
      for (int c = 0; c < consumers; ++c) {
        StreamConsumer* consumer =
            group->GetConsumer(std::string(random.Below(30), 'c') + std::to_string(c),
                               static_cast<std::int64_t>(random.Next() >> 1), nullptr);
        for (const StreamId id : ids) {
          if (random.Below(3) != 0) continue;
          // Times are never negative (RefusesTimesAndCountersRedisNeverWrites).
          StreamPending& p =
              group->Deliver(id, consumer, static_cast<std::int64_t>(random.Next() >> 1));
          p.delivery_count = random.Below(2) ? random.Below(5) : random.Next();
        }
      }
    }

    const std::string payload = Write(b.stream);
    Stream loaded;
    ASSERT_TRUE(Read(payload, loaded));
    EXPECT_EQ(Describe(loaded), Describe(b.stream));
    EXPECT_EQ(Write(loaded), payload);
  }
}

// Redis 5.0 to 6.2 wrote no first id, max deleted id, entries added or groups' entries read;
// rdb.c derives them.
TEST(RdbStreamTest, ReadsTheSixTwoLayoutDerivingTheNewCounters) {
  Builder b;
  for (std::uint64_t i = 1; i <= 5; ++i) b.Add({i, 0}, {"f", "v"});
  b.Del({1, 0}).Del({4, 0});
  const std::string v2 = Write(b.stream);
  // The type-19 tail after the nodes: length, last id, first id, max deleted, added, groups.
  RdbWriter tail;
  tail.Length(3);
  tail.Length(5);
  tail.Length(0);
  tail.Length(2);
  tail.Length(0);
  tail.Length(4);
  tail.Length(0);
  tail.Length(5);
  tail.Length(0);
  ASSERT_EQ(v2.substr(v2.size() - tail.buffer().size()), tail.buffer());

  RdbWriter w;
  w.Raw(std::string_view(v2).substr(0, v2.size() - tail.buffer().size()));
  w.Length(3);  // length
  w.Length(5);  // last id
  w.Length(0);
  const std::pair<const char*, StreamId> groups[] = {
      {"before", {0, 0}}, {"first", {2, 0}}, {"middle", {3, 0}}, {"last", {5, 0}}};
  w.Length(4);
  for (const auto& [name, last] : groups) {
    w.String(name);
    w.Length(last.ms);
    w.Length(last.seq);
    w.Length(0);  // PEL
    w.Length(0);  // consumers
  }

  Stream s;
  ASSERT_TRUE(Read(w.buffer(), s, kTypeStreamListpacks));
  EXPECT_EQ(s.first_id(), (StreamId{2, 0}));
  EXPECT_EQ(s.max_deleted_id(), StreamId{});
  EXPECT_EQ(s.entries_added(), 3u);
  const StreamGroups& g = *s.groups_if_any();
  EXPECT_EQ(g.Find("before")->entries_read, 0);
  EXPECT_EQ(g.Find("first")->entries_read, 1);
  EXPECT_EQ(g.Find("middle")->entries_read, kInvalidEntriesRead);
  EXPECT_EQ(g.Find("last")->entries_read, 3);

  // An empty stream's first id is the max, as streamGetEdgeID leaves it.
  RdbWriter empty;
  for (int i = 0; i < 5; ++i) empty.Length(i == 2 ? 7 : 0);  // nodes, length, last 7-0, groups
  Stream e;
  ASSERT_TRUE(Read(empty.buffer(), e, kTypeStreamListpacks));
  EXPECT_EQ(e.first_id(), StreamId::Max());
  EXPECT_EQ(e.last_id(), (StreamId{7, 0}));
  EXPECT_EQ(e.entries_added(), 0u);
}

std::vector<std::string> ValidPayloads() {
  std::vector<std::string> out;
  for (const Scenario& sc : Scenarios()) out.push_back(FromHex(sc.redis_hex));
  return out;
}

TEST(RdbStreamTest, EveryTruncationIsRefused) {
  for (const std::string& payload : ValidPayloads()) {
    for (std::size_t n = 0; n < payload.size(); ++n) {
      Stream s;
      RdbReader r(std::string_view(payload).substr(0, n));
      EXPECT_FALSE(ReadStream(r, kTypeStreamListpacks2, s, StreamNodeLimits{})) << n;
    }
  }
}

// Whatever a corrupted payload makes, it is refused or loads as a stream that works.
TEST(RdbStreamTest, CorruptedBytesNeverCrash) {
  for (const std::string& payload : ValidPayloads()) {
    for (std::size_t i = 0; i < payload.size(); ++i) {
      for (const unsigned char x : {0x01, 0x02, 0x10, 0x80, 0xFF}) {
        std::string bad = payload;
        bad[i] = static_cast<char>(bad[i] ^ x);
        Stream s;
        if (!Read(bad, s)) continue;
        Stream again;
        EXPECT_TRUE(Read(Write(s), again)) << i;
        Describe(s);
      }
    }
  }
}

// A payload made piece by piece, for the inconsistencies.
struct El {
  El(int v) : is_int(true), integer(v) {}  // NOLINT: a list of mixed elements
  El(const char* s) : str(s) {}            // NOLINT
  bool is_int = false;
  std::int64_t integer = 0;
  std::string_view str;
};

std::string Lp(std::initializer_list<El> elements) {
  ListpackWriter w;
  for (const El& e : elements) {
    if (e.is_int) {
      w.AppendInteger(e.integer);
    } else {
      w.AppendString(e.str);
    }
  }
  return w.Finish();
}

std::string Key(StreamId id) {
  std::string out;
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>(id.ms >> (56 - 8 * i)));
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>(id.seq >> (56 - 8 * i)));
  return out;
}

void RawId(RdbWriter& w, StreamId id) { w.Raw(Key(id)); }

// One entry 1-0 f=v: the master entry, then flags SAMEFIELDS, deltas 0 0, the value, 4 parts.
const std::string kOneEntry = Lp({1, 0, 1, "f", 0, 2, 0, 0, "v", 4});

struct Payload {
  std::vector<std::pair<std::string, std::string>> nodes{{Key({1, 0}), kOneEntry}};
  std::uint64_t length = 1;
  StreamId last{1, 0};
  StreamId first{1, 0};
  std::uint64_t added = 1;
  std::function<void(RdbWriter&)> groups = [](RdbWriter& w) { w.Length(0); };

  std::string Bytes() const {
    RdbWriter w;
    w.Length(nodes.size());
    for (const auto& [key, lp] : nodes) {
      w.String(key);
      w.String(lp);
    }
    w.Length(length);
    w.Length(last.ms);
    w.Length(last.seq);
    w.Length(first.ms);
    w.Length(first.seq);
    w.Length(0);
    w.Length(0);
    w.Length(added);
    groups(w);
    return w.buffer();
  }
};

// A group "g" at 1-0 with entries read 1 and `pel` (id 1-0 delivered at 5, once), then
// `consumers`.
std::function<void(RdbWriter&)> Group(std::vector<StreamId> pel,
                                      std::function<void(RdbWriter&)> consumers) {
  return [pel, consumers](RdbWriter& w) {
    w.Length(1);
    w.String("g");
    w.Length(1);
    w.Length(0);
    w.Length(1);
    w.Length(pel.size());
    for (const StreamId id : pel) {
      RawId(w, id);
      w.Millis(5);
      w.Length(1);
    }
    consumers(w);
  };
}

std::function<void(RdbWriter&)> Consumers(
    std::vector<std::pair<const char*, std::vector<StreamId>>> cs) {
  return [cs](RdbWriter& w) {
    w.Length(cs.size());
    for (const auto& [name, ids] : cs) {
      w.String(name);
      w.Millis(9);
      w.Length(ids.size());
      for (const StreamId id : ids) RawId(w, id);
    }
  };
}

bool Loads(const Payload& p) {
  Stream s;
  return Read(p.Bytes(), s);
}

TEST(RdbStreamTest, TheHandMadeBaselineLoads) {
  EXPECT_TRUE(Loads(Payload{}));
  Payload p;
  p.groups = Group({{1, 0}}, Consumers({{"c", {{1, 0}}}, {"d", {}}}));
  Stream s;
  ASSERT_TRUE(Read(p.Bytes(), s));
  EXPECT_EQ(Describe(s),
            "1-0 f=v\nlength 1 nodes 1 radix 2 last 1-0 first 1-0 max_deleted 0-0 added 1\n"
            "group g last 1-0 read 1\n  pending 1-0 c at 5 x1\n  consumer c seen 9: 1-0\n"
            "  consumer d seen 9:\n");
}

TEST(RdbStreamTest, RefusesMalformedNodes) {
  const auto with_node = [](std::string key, std::string lp) {
    Payload p;
    p.nodes = {{std::move(key), std::move(lp)}};
    return p;
  };
  EXPECT_FALSE(Loads(with_node(Key({1, 0}).substr(0, 15), kOneEntry)));  // key not 16 bytes
  EXPECT_FALSE(Loads(with_node(Key({1, 0}) + "x", kOneEntry)));
  EXPECT_FALSE(Loads(with_node(Key({1, 0}), Lp({}))));  // "Empty listpack inside stream"
  // A master entry and no entries: Redis's validation lets it through, but never makes one.
  EXPECT_FALSE(Loads(with_node(Key({1, 0}), Lp({0, 0, 1, "f", 0}))));
  EXPECT_FALSE(Loads(with_node(Key({1, 0}), Lp({1, 0, 1, "f", 1, 2, 0, 0, "v", 4}))));  // not 0
  EXPECT_FALSE(Loads(with_node(Key({1, 0}), Lp({1, 0, 1, "f", 0, 2, 0, 0, "v", 5}))));  // count
  EXPECT_FALSE(Loads(with_node(Key({1, 0}), Lp({1, 0, 1, "f", 0, 6, 0, 0, "v", 4}))));  // flags
  EXPECT_FALSE(Loads(with_node(Key({1, 0}), Lp({1, 0, 1, "f", 0, "x", 0, 0, "v", 4}))));
  EXPECT_FALSE(Loads(with_node(Key({1, 0}), Lp({1, 0, 1, "f", 0, 2, 0, 0, "v", 4, 7}))));  // extra
  EXPECT_FALSE(Loads(with_node(Key({1, 0}), Lp({2, 0, 1, "f", 0, 2, 0, 0, "v", 4}))));     // short
  EXPECT_FALSE(Loads(with_node(Key({1, 0}), Lp({1, 0, 1, "f", 0, 0, 0, 0, 2, "f", "v", 8}))));
  EXPECT_FALSE(Loads(with_node(Key({1, 0}), Lp({1, 0, 1, "f", 0, 0, 0, 0, -1, 3}))));
  // The counters disagree with the flags.
  EXPECT_FALSE(Loads(with_node(Key({1, 0}), Lp({1, 0, 1, "f", 0, 3, 0, 0, "v", 4}))));
  // An entry below its node's key.
  EXPECT_FALSE(Loads(with_node(Key({2, 0}), Lp({1, 0, 1, "f", 0, 2, -1, 0, "v", 4}))));
  // Live entries out of order inside a node.
  Payload twice = with_node(Key({1, 0}), Lp({2, 0, 1, "f", 0, 2, 0, 0, "v", 4, 2, 0, 0, "w", 4}));
  twice.length = 2;
  twice.added = 2;
  EXPECT_FALSE(Loads(twice));
  // A listpack whose header lies about its size.
  std::string lp = kOneEntry;
  lp[0] = static_cast<char>(lp[0] + 1);
  EXPECT_FALSE(Loads(with_node(Key({1, 0}), lp)));
  // An entry with fields of its own.
  Payload spelled;
  spelled.nodes = {{Key({1, 0}), Lp({1, 0, 1, "f", 0, 0, 0, 0, 1, "g", "v", 6})}};
  EXPECT_TRUE(Loads(spelled));
}

TEST(RdbStreamTest, RefusesNodesOutOfOrder) {
  const std::string two = Lp({1, 0, 1, "f", 0, 2, 0, 0, "v", 4});
  Payload p;
  p.nodes = {{Key({2, 0}), two}, {Key({1, 0}), two}};
  p.length = 2;
  p.added = 2;
  p.last = {2, 0};
  EXPECT_FALSE(Loads(p));
  p.nodes = {{Key({1, 0}), two}, {Key({1, 0}), two}};  // "Listpack re-added with existing key"
  EXPECT_FALSE(Loads(p));
  // A node's key at or below a live entry of the node before.
  p.nodes = {{Key({1, 0}), Lp({2, 0, 1, "f", 0, 2, 0, 0, "v", 4, 2, 2, 0, "v", 4})},
             {Key({2, 0}), two}};
  p.length = 3;
  p.added = 3;
  EXPECT_FALSE(Loads(p));
  p.nodes[1].first = Key({4, 0});
  p.last = {4, 0};
  EXPECT_TRUE(Loads(p));
}

TEST(RdbStreamTest, RefusesCountersThatDisagree) {
  Payload p;
  p.length = 2;  // one live entry
  p.added = 2;
  EXPECT_FALSE(Loads(p));
  p = Payload{};
  p.last = {0, 5};  // below the last entry
  EXPECT_FALSE(Loads(p));
  p = Payload{};
  p.added = 0;  // fewer added than held
  EXPECT_FALSE(Loads(p));
  p = Payload{};
  p.nodes.clear();
  p.length = 1;  // "Stream length inconsistent with rax entries"
  EXPECT_FALSE(Loads(p));
}

TEST(RdbStreamTest, RefusesInconsistentGroups) {
  Payload p;
  const auto ok_consumers = Consumers({{"c", {{1, 0}}}});
  p.groups = Group({{1, 0}}, ok_consumers);
  EXPECT_TRUE(Loads(p));
  // "Duplicated consumer group name"
  p.groups = [&](RdbWriter& w) {
    RdbWriter one;
    Group({}, Consumers({}))(one);
    w.Length(2);
    w.Raw(std::string_view(one.buffer()).substr(1));
    w.Raw(std::string_view(one.buffer()).substr(1));
  };
  EXPECT_FALSE(Loads(p));
  // "Duplicated global PEL entry"
  p.groups = Group({{1, 0}, {1, 0}}, ok_consumers);
  EXPECT_FALSE(Loads(p));
  // "Duplicate stream consumer detected"
  p.groups = Group({{1, 0}}, Consumers({{"c", {{1, 0}}}, {"c", {}}}));
  EXPECT_FALSE(Loads(p));
  // "Consumer entry not found in group global PEL"
  p.groups = Group({{1, 0}}, Consumers({{"c", {{1, 0}, {2, 0}}}}));
  EXPECT_FALSE(Loads(p));
  // "Duplicated consumer PEL entry", and the same entry owned by two consumers.
  p.groups = Group({{1, 0}}, Consumers({{"c", {{1, 0}, {1, 0}}}}));
  EXPECT_FALSE(Loads(p));
  p.groups = Group({{1, 0}}, Consumers({{"c", {{1, 0}}}, {"d", {{1, 0}}}}));
  EXPECT_FALSE(Loads(p));
  // "Stream CG PEL entry without consumer"
  p.groups = Group({{1, 0}}, Consumers({{"c", {}}}));
  EXPECT_FALSE(Loads(p));
  // Entries read below -1, which XGROUP refuses.
  p.groups = [](RdbWriter& w) {
    w.Length(1);
    w.String("g");
    w.Length(1);
    w.Length(0);
    w.Length(static_cast<std::uint64_t>(-2));
    w.Length(0);
    w.Length(0);
  };
  EXPECT_FALSE(Loads(p));
  // Counts larger than the payload.
  p.groups = [](RdbWriter& w) { w.Length(1000); };
  EXPECT_FALSE(Loads(p));
}

// Values no Redis writes, which the commands do arithmetic on: a delivery or seen time before
// 1970 (Redis stamps both with its clock; XPENDING and XINFO subtract them from now), and more
// entries added than a long long holds (the lag subtracts entries read from it).
TEST(RdbStreamTest, RefusesTimesAndCountersRedisNeverWrites) {
  const auto group = [](std::int64_t delivered, std::int64_t seen) {
    return [=](RdbWriter& w) {
      w.Length(1);
      w.String("g");
      w.Length(1);
      w.Length(0);
      w.Length(1);
      w.Length(1);
      RawId(w, {1, 0});
      w.Millis(delivered);
      w.Length(1);
      w.Length(1);
      w.String("c");
      w.Millis(seen);
      w.Length(1);
      RawId(w, {1, 0});
    };
  };
  Payload p;
  p.groups = group(0, 0);
  EXPECT_TRUE(Loads(p));
  p.groups = group(-1, 9);
  EXPECT_FALSE(Loads(p));
  p.groups = group(INT64_MIN, 9);
  EXPECT_FALSE(Loads(p));
  p.groups = group(5, -1);
  EXPECT_FALSE(Loads(p));
  p = Payload{};
  p.added = INT64_MAX;
  EXPECT_TRUE(Loads(p));
  p.added = std::uint64_t{1} << 63;
  EXPECT_FALSE(Loads(p));
}

TEST(RdbStreamTest, RefusesOtherTypes) {
  Stream s;
  EXPECT_FALSE(Read(Payload{}.Bytes(), s, kTypeListQuicklist2));
}

}  // namespace
}  // namespace warden::storage::rdb
