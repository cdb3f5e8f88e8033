#include "server/notify.h"

#include <charconv>
#include <cstring>

namespace warden::server {
namespace {

// Channel names up to this long are built on the stack.
constexpr std::size_t kStackChannel = 256;

// "__keyspace@<db>__:" or "__keyevent@<db>__:" followed by `tail`, in `buf` when it fits, else
// in `heap`.
std::string_view ChannelName(std::string_view prefix, int db, std::string_view tail,
                             char (&buf)[kStackChannel], std::string& heap) {
  char digits[16];
  const char* digits_end = std::to_chars(digits, digits + sizeof(digits), db).ptr;
  const std::string_view db_text(digits, static_cast<std::size_t>(digits_end - digits));
  const std::size_t size = prefix.size() + db_text.size() + 3 + tail.size();
  char* out = buf;
  if (size > sizeof(buf)) {
    heap.resize(size);
    out = heap.data();
  }
  char* p = out;
  for (std::string_view part : {prefix, db_text, std::string_view("__:"), tail}) {
    if (!part.empty()) std::memcpy(p, part.data(), part.size());
    p += part.size();
  }
  return {out, size};
}

}  // namespace

std::optional<int> ParseNotifyKeyspaceEvents(std::string_view classes) {
  int flags = 0;
  for (char c : classes) {
    switch (c) {
      case '\0':
        return flags;
      case 'A':
        flags |= notify::kAll;
        break;
      case 'g':
        flags |= notify::kGeneric;
        break;
      case '$':
        flags |= notify::kString;
        break;
      case 'l':
        flags |= notify::kList;
        break;
      case 's':
        flags |= notify::kSet;
        break;
      case 'h':
        flags |= notify::kHash;
        break;
      case 'z':
        flags |= notify::kZset;
        break;
      case 'x':
        flags |= notify::kExpired;
        break;
      case 'e':
        flags |= notify::kEvicted;
        break;
      case 'K':
        flags |= notify::kKeyspace;
        break;
      case 'E':
        flags |= notify::kKeyevent;
        break;
      case 't':
        flags |= notify::kStream;
        break;
      case 'm':
        flags |= notify::kKeyMiss;
        break;
      case 'd':
        flags |= notify::kModule;
        break;
      case 'n':
        flags |= notify::kNew;
        break;
      default:
        return std::nullopt;
    }
  }
  return flags;
}

std::string FormatNotifyKeyspaceEvents(int flags) {
  std::string out;
  if ((flags & notify::kAll) == notify::kAll) {
    out += 'A';
  } else {
    static constexpr struct {
      int flag;
      char letter;
    } kClasses[] = {
        {notify::kGeneric, 'g'}, {notify::kString, '$'},  {notify::kList, 'l'},
        {notify::kSet, 's'},     {notify::kHash, 'h'},    {notify::kZset, 'z'},
        {notify::kExpired, 'x'}, {notify::kEvicted, 'e'}, {notify::kStream, 't'},
        {notify::kModule, 'd'},  {notify::kNew, 'n'},
    };
    for (const auto& c : kClasses) {
      if ((flags & c.flag) != 0) out += c.letter;
    }
  }
  if ((flags & notify::kKeyspace) != 0) out += 'K';
  if ((flags & notify::kKeyevent) != 0) out += 'E';
  if ((flags & notify::kKeyMiss) != 0) out += 'm';
  return out;
}

void PublishKeyspaceEvent(ServerState& server, int type, std::string_view event,
                          std::string_view key, int db) {
  const int flags = server.config.notify_keyspace_events;
  if ((flags & type) == 0) return;
  char buf[kStackChannel];
  std::string heap;
  if ((flags & notify::kKeyspace) != 0) {
    server.pubsub.Publish(ChannelName("__keyspace@", db, key, buf, heap), event);
  }
  if ((flags & notify::kKeyevent) != 0) {
    server.pubsub.Publish(ChannelName("__keyevent@", db, event, buf, heap), key);
  }
}

// The DEL goes out at once, before the effects of the command that found the key expired and
// never inside their MULTI/EXEC, as Redis 7.0's propagateDeletion uses propagateNow.
void ServerState::KeyExpired(int db, std::string_view key) {
  NotifyKeyspaceEvent(*this, notify::kExpired, "expired", key, db);
  if (propagation.active()) [[unlikely]]
    propagation.Add(db, {"DEL", key}, /*depth=*/0);
}

}  // namespace warden::server
