// The data set written as the commands that rebuild it (Redis's rewriteAppendOnlyFileRio): a
// rewrite's new base file. Runs in the forked child, on its copy of the keyspace.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <string>
#include <string_view>

#include "protocol/reply_writer.h"
#include "server/persistence/aof.h"
#include "storage/databases.h"
#include "storage/hash.h"
#include "storage/list.h"
#include "storage/set.h"
#include "storage/stream.h"
#include "storage/stream_group.h"
#include "storage/zset.h"

namespace warden::server {
namespace {

// Redis's AOF_REWRITE_ITEMS_PER_CMD: a large collection is written as several commands of this
// many elements, so no command in the file is unboundedly long.
constexpr std::size_t kItemsPerCommand = 64;
constexpr std::size_t kWriteChunk = 1 << 16;

class CommandWriter {
 public:
  explicit CommandWriter(int fd) : fd_(fd) {}

  // Starts a command of `args` words in all: the command name, the key, then the rest.
  void Begin(std::size_t args) {
    out_.push_back('*');
    out_.append(std::to_string(args));
    out_.append("\r\n");
  }
  void Bulk(std::string_view word) {
    out_.push_back('$');
    out_.append(std::to_string(word.size()));
    out_.append("\r\n");
    out_.append(word);
    out_.append("\r\n");
    if (out_.size() >= kWriteChunk) Drain();
  }
  void Double(double value) {
    char buf[64];
    const std::size_t n = protocol::FormatDouble(value, buf);
    Bulk(std::string_view(buf, n));
  }
  bool Finish() {
    Drain();
    return ok_;
  }

 private:
  void Drain() {
    std::string_view data = out_;
    while (!data.empty() && ok_) {
      const ssize_t n = write(fd_, data.data(), data.size());
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        ok_ = false;
        break;
      }
      data.remove_prefix(static_cast<std::size_t>(n));
    }
    out_.clear();
  }

  int fd_;
  bool ok_ = true;
  std::string out_;
};

// A collection of `total` items written `kItemsPerCommand` at a time as `command key item...`;
// `emit(writer)` writes one item's words, `width` words each.
class Batches {
 public:
  Batches(CommandWriter& w, std::string_view command, std::string_view key, std::size_t total,
          std::size_t width)
      : w_(w), command_(command), key_(key), left_(total), width_(width) {}

  template <typename Fn>
  void Item(Fn&& emit) {
    if (in_batch_ == 0) {
      const std::size_t n = std::min(left_, kItemsPerCommand);
      w_.Begin(2 + n * width_);
      w_.Bulk(command_);
      w_.Bulk(key_);
      in_batch_ = n;
    }
    emit();
    --in_batch_;
    --left_;
  }

 private:
  CommandWriter& w_;
  std::string_view command_;
  std::string_view key_;
  std::size_t left_;
  std::size_t width_;
  std::size_t in_batch_ = 0;
};

// A stream as Redis 7.0's rewriteStreamObject writes it: its entries as XADDs (an empty stream
// as an XADD that trims itself away), XSETID for its ids and counters, then each group, its
// consumers and their pending entries.
void WriteStream(CommandWriter& w, std::string_view key, const storage::Stream& s) {
  char buf[48];
  if (s.length() != 0) {
    s.Range(storage::StreamId{}, storage::StreamId::Max(), false,
            [&](storage::StreamId id, std::span<const storage::Stream::Field> fields) {
              w.Begin(3 + fields.size() * 2);
              w.Bulk("XADD");
              w.Bulk(key);
              w.Bulk(id.Format(buf));
              for (const auto& [field, value] : fields) {
                w.Bulk(field);
                w.Bulk(value);
              }
              return true;
            });
  } else {
    w.Begin(7);
    for (std::string_view word :
         {std::string_view("XADD"), key, std::string_view("MAXLEN"), std::string_view("0"),
          std::string_view("0-1"), std::string_view("x"), std::string_view("y")}) {
      w.Bulk(word);
    }
  }
  w.Begin(7);
  w.Bulk("XSETID");
  w.Bulk(key);
  w.Bulk(s.last_id().Format(buf));
  w.Bulk("ENTRIESADDED");
  w.Bulk(std::to_string(s.entries_added()));
  w.Bulk("MAXDELETEDID");
  w.Bulk(s.max_deleted_id().Format(buf));
  const storage::StreamGroups* groups = s.groups_if_any();
  if (groups == nullptr) return;
  for (const auto& [name, group] : groups->all()) {
    w.Begin(7);
    w.Bulk("XGROUP");
    w.Bulk("CREATE");
    w.Bulk(key);
    w.Bulk(name);
    w.Bulk(group->last_id.Format(buf));
    w.Bulk("ENTRIESREAD");
    w.Bulk(std::to_string(group->entries_read));
    for (const auto& [consumer_name, consumer] : group->consumers) {
      if (consumer->pel.empty()) {
        w.Begin(5);
        w.Bulk("XGROUP");
        w.Bulk("CREATECONSUMER");
        w.Bulk(key);
        w.Bulk(name);
        w.Bulk(consumer_name);
        continue;
      }
      for (const auto& [id, pending] : consumer->pel) {
        w.Begin(12);
        w.Bulk("XCLAIM");
        w.Bulk(key);
        w.Bulk(name);
        w.Bulk(consumer_name);
        w.Bulk("0");
        w.Bulk(id.Format(buf));
        w.Bulk("TIME");
        w.Bulk(std::to_string(pending->delivery_time));
        w.Bulk("RETRYCOUNT");
        w.Bulk(std::to_string(pending->delivery_count));
        w.Bulk("JUSTID");
        w.Bulk("FORCE");
      }
    }
  }
}

void WriteEntry(CommandWriter& w, const storage::Entry& e) {
  const std::string_view key = e.key();
  switch (e.type()) {
    case storage::ValueType::kString:
      w.Begin(3);
      w.Bulk("SET");
      w.Bulk(key);
      w.Bulk(e.value());
      break;
    case storage::ValueType::kList: {
      Batches b(w, "RPUSH", key, storage::ListLength(e), 1);
      storage::ListForEachFrom(e, 0, [&](std::string_view item) {
        b.Item([&] { w.Bulk(item); });
        return true;
      });
      break;
    }
    case storage::ValueType::kSet: {
      Batches b(w, "SADD", key, storage::SetSize(e), 1);
      storage::SetForEach(e, [&](std::string_view member) { b.Item([&] { w.Bulk(member); }); });
      break;
    }
    case storage::ValueType::kZset: {
      Batches b(w, "ZADD", key, storage::ZsetSize(e), 2);
      storage::ZsetVisit(e, 0, false, [&](std::string_view member, double score) {
        b.Item([&] {
          w.Double(score);
          w.Bulk(member);
        });
        return true;
      });
      break;
    }
    case storage::ValueType::kStream:
      WriteStream(w, key, *storage::StreamOf(e));
      break;
    case storage::ValueType::kHash: {
      Batches b(w, "HMSET", key, storage::HashLength(e), 2);
      storage::HashForEach(e, [&](std::string_view field, std::string_view value) {
        b.Item([&] {
          w.Bulk(field);
          w.Bulk(value);
        });
      });
      break;
    }
  }
  if (e.has_deadline()) {
    w.Begin(3);
    w.Bulk("PEXPIREAT");
    w.Bulk(key);
    w.Bulk(std::to_string(e.deadline_ms()));
  }
}

}  // namespace

bool WriteDataSet(const storage::Databases& dbs, std::span<const std::string_view> libraries,
                  int fd) {
  CommandWriter w(fd);
  // The function libraries first, as Redis's rewriteFunctions: no key depends on them, but
  // nothing after them may call one before it exists.
  for (const std::string_view code : libraries) {
    w.Begin(3);
    w.Bulk("FUNCTION");
    w.Bulk("LOAD");
    w.Bulk(code);
  }
  for (int db = 0; db < dbs.count(); ++db) {
    const storage::Keyspace& keyspace = dbs.db(db);
    if (keyspace.size() == 0) continue;
    const std::string index = std::to_string(db);
    w.Begin(2);
    w.Bulk("SELECT");
    w.Bulk(index);
    keyspace.ForEach([&](const storage::Entry& e) { WriteEntry(w, e); });
  }
  return w.Finish();
}

}  // namespace warden::server
