#include "aof_support.h"

#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "child_process.h"
#include "deadline.h"

namespace warden::testing::aof {

namespace fs = std::filesystem;

std::string Binary(ServerKind kind) {
  return kind == ServerKind::kWarden ? WARDEN_BINARY_PATH : FindExecutable("redis-server");
}

TempDir::TempDir() {
  std::string pattern = (fs::temp_directory_path() / "warden-aof-XXXXXX").string();
  path_ = mkdtemp(pattern.data());
}

TempDir::~TempDir() {
  std::error_code ec;
  fs::remove_all(path_, ec);
}

std::unique_ptr<ServerProcess> StartWith(ServerKind kind, const std::string& dir,
                                         std::vector<std::string> args, std::string* error) {
  args.insert(args.begin(), {"--appendonly", "yes", "--aof-use-rdb-preamble", "no", "--dir", dir,
                             "--databases", "16"});
  std::string err;
  std::unique_ptr<ServerProcess> server = ServerProcess::Start(Binary(kind), err, args);
  if (error != nullptr) *error = err;
  return server;
}

std::string Send(RespClient& client, const std::vector<std::string>& argv) {
  return client.Command(argv).bytes;
}

testing::Reply Parsed(RespClient& client, const std::vector<std::string>& argv) {
  return ParseReply(client.Command(argv).bytes).reply;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string> StreamItems(RespClient& client, const std::string& key) {
  std::vector<std::string> items = {Send(client, {"XRANGE", key, "-", "+"})};
  const testing::Reply info = Parsed(client, {"XINFO", "STREAM", key});
  for (std::size_t i = 0; i + 1 < info.elements.size(); i += 2) {
    const std::string& field = info.elements[i].text;
    if (field == "last-generated-id" || field == "max-deleted-entry-id" ||
        field == "entries-added" || field == "recorded-first-entry-id" || field == "length") {
      items.push_back(field + "=" + info.elements[i + 1].text);
    }
  }
  // A group's entries-read (and so its lag) is not kept by Redis's own log: the XCLAIMs that
  // record a read carry the group's last id, not its count, so after a restart both servers
  // answer null where they counted. The rest of the group is compared.
  for (const testing::Reply& group : Parsed(client, {"XINFO", "GROUPS", key}).elements) {
    const std::string& name = group.elements[1].text;
    items.push_back(name + " consumers=" + group.elements[3].text +
                    " pending=" + group.elements[5].text + " last=" + group.elements[7].text);
    for (const testing::Reply& consumer :
         Parsed(client, {"XINFO", "CONSUMERS", key, name}).elements) {
      items.push_back(name + "/" + consumer.elements[1].text +
                      " pending=" + consumer.elements[3].text);
    }
    for (const testing::Reply& p :
         Parsed(client, {"XPENDING", key, name, "-", "+", "100"}).elements) {
      items.push_back(name + " " + p.elements[0].text + " " + p.elements[1].text + " x" +
                      p.elements[3].text);
    }
  }
  return items;
}

std::string DataSet(RespClient& client) {
  std::string out;
  for (int db = 0; db < 3; ++db) {
    Send(client, {"SELECT", std::to_string(db)});
    const testing::Reply keys = Parsed(client, {"KEYS", "*"});
    std::vector<std::string> names;
    for (const testing::Reply& k : keys.elements) names.push_back(k.text);
    std::sort(names.begin(), names.end());
    for (const std::string& key : names) {
      const std::string type = Parsed(client, {"TYPE", key}).text;
      out += std::to_string(db) + " " + key + " " + type +
             " expireat=" + Send(client, {"PEXPIRETIME", key});
      std::vector<std::string> items;
      if (type == "string") {
        items.push_back(Send(client, {"GET", key}));
      } else if (type == "hash") {
        const testing::Reply v = Parsed(client, {"HGETALL", key});
        for (std::size_t i = 0; i + 1 < v.elements.size(); i += 2) {
          items.push_back(v.elements[i].text + "=" + v.elements[i + 1].text);
        }
        std::sort(items.begin(), items.end());
      } else if (type == "set") {
        for (const testing::Reply& m : Parsed(client, {"SMEMBERS", key}).elements) {
          items.push_back(m.text);
        }
        std::sort(items.begin(), items.end());
      } else if (type == "zset") {
        items.push_back(Send(client, {"ZRANGE", key, "0", "-1", "WITHSCORES"}));
      } else if (type == "list") {
        items.push_back(Send(client, {"LRANGE", key, "0", "-1"}));
      } else if (type == "stream") {
        items = StreamItems(client, key);
      }
      for (const std::string& item : items) out += " " + item;
      out += "\n";
    }
  }
  Send(client, {"SELECT", "0"});
  // The function libraries, one by one (FUNCTION LIST answers in the server's dict order).
  std::vector<std::string> libraries;
  for (const testing::Reply& library : Parsed(client, {"FUNCTION", "LIST"}).elements) {
    libraries.push_back(library.elements[1].text);
  }
  std::sort(libraries.begin(), libraries.end());
  for (const std::string& name : libraries) {
    out += "library " + Send(client, {"FUNCTION", "LIST", "LIBRARYNAME", name, "WITHCODE"}) + "\n";
  }
  return out;
}

bool WaitForRewrites(RespClient& c, int rewrites) {
  const std::string done = "aof_rewrites:" + std::to_string(rewrites) + "\r\n";
  // Bounded polling of the server's own state: the cron installs a finished rewrite.
  for (const Deadline deadline(20000); !deadline.Expired();) {
    const std::string info = Send(c, {"INFO", "persistence"});
    if (info.find("aof_rewrite_in_progress:0\r\n") != std::string::npos &&
        info.find(done) != std::string::npos) {
      return true;
    }
  }
  return false;
}

}  // namespace warden::testing::aof
