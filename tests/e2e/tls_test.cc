// TLS clients on warden and redis-server alike: certificates made by the test with the openssl
// tool, clients with and without a certificate under each tls-auth-clients, commands,
// pipelines, large values, pub/sub and blocking over TLS, bad input on the TLS port, a
// certificate swapped by CONFIG SET, and (warden only) a handshake that never finishes.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <csignal>
#include <optional>
#include <string>
#include <vector>

#include "aof_support.h"
#include "child_process.h"
#include "deadline.h"
#include "resp_client.h"
#include "server_fixture.h"
#include "server_process.h"

namespace warden::testing {
namespace {

using aof::Binary;
using aof::Send;
using aof::TempDir;

// A CA, a server certificate and a client certificate it signed, and a second CA with a client
// certificate of its own (which the server must refuse). Made once for the suite.
class Certificates {
 public:
  Certificates() {
    ok_ = Make("ca", "") && Make("server", "ca") && Make("client", "ca") && Make("other-ca", "") &&
          Make("stranger", "other-ca") && Make("server2", "ca");
  }
  bool ok() const { return ok_; }
  const std::string& error() const { return error_; }
  std::string Path(const std::string& name) const { return dir_.path() + "/" + name; }
  TlsClientFiles Client() const { return {Path("ca.crt"), Path("client.crt"), Path("client.key")}; }

 private:
  bool Run(const std::vector<std::string>& argv) {
    const ProgramResult r = RunProgram(argv, "", 30000);
    if (r.exit_code == 0) return true;
    error_ = r.err;
    return false;
  }
  // `issuer` empty: self-signed (a CA).
  bool Make(const std::string& name, const std::string& issuer) {
    const std::string key = Path(name + ".key");
    const std::string crt = Path(name + ".crt");
    if (!Run({"openssl", "genrsa", "-out", key, "2048"})) return false;
    const std::string subject = "/O=warden test/CN=" + name;
    if (issuer.empty()) {
      return Run({"openssl", "req", "-x509", "-new", "-nodes", "-sha256", "-key", key, "-days",
                  "30", "-subj", subject, "-out", crt});
    }
    const std::string csr = Path(name + ".csr");
    const std::string ext = Path(name + ".ext");
    return Run({"openssl", "req", "-new", "-sha256", "-key", key, "-subj", subject, "-out", csr}) &&
           Run({"sh", "-c", "echo subjectAltName=IP:127.0.0.1,DNS:localhost > '" + ext + "'"}) &&
           Run({"openssl", "x509", "-req", "-sha256", "-in", csr, "-CA", Path(issuer + ".crt"),
                "-CAkey", Path(issuer + ".key"), "-CAcreateserial", "-days", "30", "-extfile", ext,
                "-out", crt});
  }

  TempDir dir_;
  bool ok_ = false;
  std::string error_;
};

const Certificates& Certs() {
  static const Certificates* certs = new Certificates();
  return *certs;
}

// The options that give a server a TLS port with the suite's certificates, then `extra`.
std::vector<std::string> TlsArgs(std::uint16_t tls_port, std::vector<std::string> extra = {}) {
  std::vector<std::string> args = {"--tls-port",         std::to_string(tls_port),
                                   "--tls-cert-file",    Certs().Path("server.crt"),
                                   "--tls-key-file",     Certs().Path("server.key"),
                                   "--tls-ca-cert-file", Certs().Path("ca.crt")};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

class TlsTest : public ::testing::TestWithParam<ServerKind> {
 protected:
  void SetUp() override { ASSERT_TRUE(Certs().ok()) << Certs().error(); }

  // The server with a TLS port beside its plain one; `extra` follows the TLS options.
  bool Start(const std::vector<std::string>& extra = {}) {
    tls_port_ = FindFreePort();
    const std::vector<std::string> args = TlsArgs(tls_port_, extra);
    std::string error;
    server_ = ServerProcess::Start(Binary(GetParam()), error, args);
    EXPECT_TRUE(server_) << error;
    return server_ != nullptr;
  }
  std::optional<RespClient> Tls(const TlsClientFiles& files, std::string* error = nullptr) {
    return RespClient::ConnectTls(tls_port_, files, error);
  }
  std::optional<RespClient> Plain() { return RespClient::Connect(server_->port()); }
  ProgramResult Cli(const std::vector<std::string>& tls_args,
                    const std::vector<std::string>& command) {
    std::vector<std::string> argv = {
        "redis-cli", "-h", "127.0.0.1", "-p", std::to_string(tls_port_), "--tls"};
    argv.insert(argv.end(), tls_args.begin(), tls_args.end());
    argv.insert(argv.end(), command.begin(), command.end());
    return RunProgram(argv, "", 20000);
  }
  // Bounded wait for a line in the server's log.
  bool LogShows(const std::string& text) {
    for (const Deadline deadline(5000); !deadline.Expired();) {
      if (server_->LogTail(20000).find(text) != std::string::npos) return true;
      // A PING on the plain port lets the server's loop run before the next look.
      std::optional<RespClient> c = Plain();
      if (c) Send(*c, {"PING"});
    }
    return false;
  }

  std::uint16_t tls_port_ = 0;
  std::unique_ptr<ServerProcess> server_;
};

TEST_P(TlsTest, RedisCliWithAClientCertificate) {
  ASSERT_TRUE(Start());
  const std::vector<std::string> files = {"--cacert", Certs().Path("ca.crt"),
                                          "--cert",   Certs().Path("client.crt"),
                                          "--key",    Certs().Path("client.key")};
  ProgramResult r = Cli(files, {"SET", "lock:tls", "owner", "NX", "PX", "30000"});
  EXPECT_EQ(r.out, "OK\n") << r.err;
  r = Cli(files, {"GET", "lock:tls"});
  EXPECT_EQ(r.out, "owner\n") << r.err;
  // The same key from the plain port: one keyspace.
  std::optional<RespClient> plain = Plain();
  ASSERT_TRUE(plain);
  EXPECT_EQ(Send(*plain, {"GET", "lock:tls"}), "$5\r\nowner\r\n");
}

// tls-auth-clients yes (the default): no certificate, or one from another CA, is refused at the
// handshake and the refusal is logged; the server goes on serving.
TEST_P(TlsTest, AClientWithoutAGoodCertificateIsRefused) {
  ASSERT_TRUE(Start());
  for (const TlsClientFiles& files :
       {TlsClientFiles{Certs().Path("ca.crt"), "", ""},
        TlsClientFiles{Certs().Path("ca.crt"), Certs().Path("stranger.crt"),
                       Certs().Path("stranger.key")}}) {
    // With TLS 1.3 the client finishes its side first and learns of the refusal by the alert.
    std::optional<RespClient> c = Tls(files);
    if (c) {
      const ReadResult r = c->Command({"PING"});
      EXPECT_EQ(r.status, ReadStatus::kClosed) << r.bytes;
      EXPECT_EQ(r.bytes, "");
    }
  }
  EXPECT_TRUE(
      LogShows("Error accepting a client connection: error:0A0000C7:SSL "
               "routines::peer did not return a certificate"));
  EXPECT_TRUE(LogShows("certificate verify failed")) << server_->LogTail();
  const ProgramResult cli = Cli({"--cacert", Certs().Path("ca.crt")}, {"PING"});
  EXPECT_NE(cli.exit_code, 0);
  EXPECT_EQ(cli.out, "");
  std::optional<RespClient> good = Tls(Certs().Client());
  ASSERT_TRUE(good);
  EXPECT_EQ(Send(*good, {"PING"}), "+PONG\r\n");
}

TEST_P(TlsTest, OptionalAndNoAuthClients) {
  ASSERT_TRUE(Start({"--tls-auth-clients", "optional"}));
  std::optional<RespClient> anonymous = Tls({Certs().Path("ca.crt"), "", ""});
  ASSERT_TRUE(anonymous);
  EXPECT_EQ(Send(*anonymous, {"PING"}), "+PONG\r\n");
  // Optional still checks a certificate that is shown.
  std::optional<RespClient> stranger =
      Tls({Certs().Path("ca.crt"), Certs().Path("stranger.crt"), Certs().Path("stranger.key")});
  if (stranger) {
    EXPECT_EQ(stranger->Command({"PING"}).status, ReadStatus::kClosed);
  }
  std::optional<RespClient> plain = Plain();
  ASSERT_TRUE(plain);
  EXPECT_EQ(Send(*plain, {"CONFIG", "SET", "tls-auth-clients", "no"}), "+OK\r\n");
  EXPECT_EQ(Send(*plain, {"CONFIG", "GET", "tls-auth-clients"}),
            "*2\r\n$16\r\ntls-auth-clients\r\n$2\r\nno\r\n");
  // No longer asked for, the stranger's certificate is not looked at.
  stranger =
      Tls({Certs().Path("ca.crt"), Certs().Path("stranger.crt"), Certs().Path("stranger.key")});
  ASSERT_TRUE(stranger);
  EXPECT_EQ(Send(*stranger, {"PING"}), "+PONG\r\n");
}

// Many requests in one write, replies larger than a TLS record and than the socket buffer, and a
// value read back in one reply of several megabytes.
TEST_P(TlsTest, PipelinesAndLargeValues) {
  ASSERT_TRUE(Start());
  std::optional<RespClient> c = Tls(Certs().Client());
  ASSERT_TRUE(c);
  std::string batch;
  std::string expected;
  for (int i = 0; i < 2000; ++i) {
    batch += EncodeCommand({"INCR", "counter"});
    expected += ":" + std::to_string(i + 1) + "\r\n";
  }
  ASSERT_TRUE(c->SendRaw(batch));
  std::string got;
  for (int i = 0; i < 2000; ++i) {
    const ReadResult r = c->ReadReply();
    ASSERT_EQ(r.status, ReadStatus::kOk) << i;
    got += r.bytes;
  }
  EXPECT_EQ(got, expected);
  const std::string big(5 * 1024 * 1024 + 7, 'v');
  EXPECT_EQ(Send(*c, {"SET", "big", big}), "+OK\r\n");
  EXPECT_EQ(Send(*c, {"GET", "big"}), "$" + std::to_string(big.size()) + "\r\n" + big + "\r\n");
  EXPECT_EQ(Send(*c, {"STRLEN", "big"}), ":5242887\r\n");
}

TEST_P(TlsTest, PubSubAndBlockingOverTls) {
  ASSERT_TRUE(Start());
  std::optional<RespClient> subscriber = Tls(Certs().Client());
  std::optional<RespClient> waiter = Tls(Certs().Client());
  std::optional<RespClient> plain = Plain();
  ASSERT_TRUE(subscriber && waiter && plain);
  EXPECT_EQ(Send(*subscriber, {"SUBSCRIBE", "lock:released"}),
            "*3\r\n$9\r\nsubscribe\r\n$13\r\nlock:released\r\n:1\r\n");
  EXPECT_EQ(Send(*plain, {"PUBLISH", "lock:released", "job-7"}), ":1\r\n");
  EXPECT_EQ(subscriber->ReadReply().bytes,
            "*3\r\n$7\r\nmessage\r\n$13\r\nlock:released\r\n$5\r\njob-7\r\n");
  ASSERT_TRUE(waiter->Send({"BLPOP", "queue", "10"}));
  // The pop is served once the waiter is blocked; CLIENT LIST shows it so.
  for (const Deadline deadline(5000); !deadline.Expired();) {
    if (Send(*plain, {"CLIENT", "LIST"}).find("cmd=blpop") != std::string::npos) break;
  }
  EXPECT_EQ(Send(*plain, {"RPUSH", "queue", "job-8"}), ":1\r\n");
  EXPECT_EQ(waiter->ReadReply().bytes, "*2\r\n$5\r\nqueue\r\n$5\r\njob-8\r\n");
}

// Plaintext RESP and garbage on the TLS port end those connections (logged), a protocol error
// inside TLS gets Redis's reply, and the server serves on.
TEST_P(TlsTest, BadInputOnTheTlsPort) {
  ASSERT_TRUE(Start());
  std::optional<RespClient> plaintext = RespClient::Connect(tls_port_);
  ASSERT_TRUE(plaintext);
  ASSERT_TRUE(plaintext->SendRaw("*1\r\n$4\r\nPING\r\n"));
  EXPECT_EQ(plaintext->ReadUntilClose().status, ReadStatus::kClosed);
  EXPECT_TRUE(LogShows("wrong version number"));
  std::optional<RespClient> garbage = RespClient::Connect(tls_port_);
  ASSERT_TRUE(garbage);
  ASSERT_TRUE(garbage->SendRaw(std::string("\x16\x03\x01\xff\xff") + std::string(300, '\xee')));
  EXPECT_EQ(garbage->ReadUntilClose().status, ReadStatus::kClosed);

  std::optional<RespClient> c = Tls(Certs().Client());
  ASSERT_TRUE(c);
  ASSERT_TRUE(c->SendRaw("*1\r\n$-5\r\n"));
  const ReadResult r = c->ReadUntilClose();
  EXPECT_EQ(r.bytes, "-ERR Protocol error: invalid bulk length\r\n");
  std::optional<RespClient> again = Tls(Certs().Client());
  ASSERT_TRUE(again);
  EXPECT_EQ(Send(*again, {"PING"}), "+PONG\r\n");
}

// CONFIG SET of the certificate files: a new pair serves new connections (the open one goes
// on); a file that cannot be loaded is refused with Redis's text and changes nothing.
TEST_P(TlsTest, CertificatesAreReloadedByConfigSet) {
  ASSERT_TRUE(Start());
  std::optional<RespClient> before = Tls(Certs().Client());
  ASSERT_TRUE(before);
  EXPECT_EQ(before->PeerSubject(), "/O=warden test/CN=server");
  std::optional<RespClient> plain = Plain();
  ASSERT_TRUE(plain);
  EXPECT_EQ(Send(*plain, {"CONFIG", "SET", "tls-cert-file", Certs().Path("missing.crt")}),
            "-ERR CONFIG SET failed (possibly related to argument 'tls-cert-file') - Unable to "
            "update TLS configuration. Check server logs.\r\n");
  EXPECT_TRUE(LogShows("Failed to load certificate: " + Certs().Path("missing.crt")));
  EXPECT_EQ(Send(*plain, {"CONFIG", "SET", "tls-cert-file", Certs().Path("server2.crt"),
                          "tls-key-file", Certs().Path("server2.key")}),
            "+OK\r\n");
  std::optional<RespClient> after = Tls(Certs().Client());
  ASSERT_TRUE(after);
  EXPECT_EQ(after->PeerSubject(), "/O=warden test/CN=server2");
  EXPECT_EQ(Send(*after, {"PING"}), "+PONG\r\n");
  EXPECT_EQ(Send(*before, {"PING"}), "+PONG\r\n");
  EXPECT_EQ(Send(*plain, {"CONFIG", "GET", "tls-protocols"}),
            "*2\r\n$13\r\ntls-protocols\r\n$0\r\n\r\n");
  EXPECT_EQ(Send(*plain, {"CONFIG", "SET", "tls-protocols", "TLSv1.2 SSLv3"}),
            "-ERR CONFIG SET failed (possibly related to argument 'tls-protocols') - Unable to "
            "update TLS configuration. Check server logs.\r\n");
  // One name at a time: Redis lists a pattern's matches in its dictionary's order.
  EXPECT_EQ(Send(*plain, {"CONFIG", "GET", "tls-session-cache-size"}),
            "*2\r\n$22\r\ntls-session-cache-size\r\n$5\r\n20480\r\n");
  EXPECT_EQ(Send(*plain, {"CONFIG", "GET", "tls-session-cache-timeout"}),
            "*2\r\n$25\r\ntls-session-cache-timeout\r\n$3\r\n300\r\n");
}

TEST_P(TlsTest, MonitorAndScriptsOverTls) {
  ASSERT_TRUE(Start());
  std::optional<RespClient> monitor = Tls(Certs().Client());
  std::optional<RespClient> c = Tls(Certs().Client());
  ASSERT_TRUE(monitor && c);
  EXPECT_EQ(Send(*monitor, {"MONITOR"}), "+OK\r\n");
  EXPECT_EQ(Send(*c, {"EVAL", "return redis.call('SET', KEYS[1], ARGV[1])", "1", "lock:m", "t"}),
            "+OK\r\n");
  const ReadResult line = monitor->ReadReply();
  ASSERT_EQ(line.status, ReadStatus::kOk);
  EXPECT_NE(line.bytes.find("\"EVAL\" \"return redis.call('SET', KEYS[1], ARGV[1])\" \"1\" "
                            "\"lock:m\" \"t\""),
            std::string::npos)
      << line.bytes;
  const ReadResult inner = monitor->ReadReply();
  EXPECT_NE(inner.bytes.find("[0 lua] \"SET\" \"lock:m\" \"t\""), std::string::npos) << inner.bytes;
}

// A script past busy-reply-threshold: TLS clients are still read (from inside the script's
// run) and told BUSY, and SCRIPT KILL from one of them ends it.
TEST_P(TlsTest, ABusyScriptAnswersTlsClients) {
  ASSERT_TRUE(Start({"--busy-reply-threshold", "100"}));
  std::optional<RespClient> a = Tls(Certs().Client());
  std::optional<RespClient> b = Tls(Certs().Client());
  ASSERT_TRUE(a && b);
  ASSERT_TRUE(a->Send({"EVAL", "while true do end", "0"}));
  std::string reply;
  for (const Deadline deadline(10000); !deadline.Expired();) {
    reply = b->Command({"PING"}).bytes;
    if (reply != "+PONG\r\n") break;
  }
  EXPECT_EQ(reply,
            "-BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN "
            "NOSAVE.\r\n");
  EXPECT_EQ(b->Command({"SCRIPT", "KILL"}).bytes, "+OK\r\n");
  const ReadResult killed = a->ReadReply(10000);
  EXPECT_EQ(killed.bytes.rfind("-ERR Script killed by user with SCRIPT KILL...", 0), 0u)
      << killed.bytes;
  EXPECT_EQ(Send(*b, {"PING"}), "+PONG\r\n");
}

// client-output-buffer-limit over TLS counts the replies not yet sent, as over TCP: a TLS
// client that asks for much and reads nothing is closed.
TEST_P(TlsTest, TheOutputLimitClosesATlsClientThatDoesNotRead) {
  ASSERT_TRUE(Start({"--client-output-buffer-limit", "normal 1mb 0 0"}));
  std::optional<RespClient> plain = Plain();
  std::optional<RespClient> reader = Tls(Certs().Client());
  ASSERT_TRUE(plain && reader);
  ASSERT_EQ(Send(*plain, {"SET", "big", std::string(100000, 'v')}), "+OK\r\n");
  std::string gets;
  for (int i = 0; i < 2000; ++i) gets += EncodeCommand({"GET", "big"});
  // The server may close the client before all of the pipeline is sent: the send's result
  // depends on that race, what follows does not.
  reader->SendRaw(gets);
  EXPECT_TRUE(LogShows("scheduled to be closed ASAP for overcoming of output buffer limits."));
  // What the kernel already held arrives; then the end.
  ReadResult r;
  do {
    r = reader->ReadReply(10000);
  } while (r.status == ReadStatus::kOk);
  EXPECT_EQ(r.status, ReadStatus::kClosed);
  EXPECT_EQ(Send(*plain, {"INFO", "clients"}).find("connected_clients:1\r\n") != std::string::npos,
            true);
}

// A server that cannot load its certificate at start refuses to start.
TEST_P(TlsTest, ABadCertificateStopsTheStart) {
  std::string error;
  auto server = ServerProcess::Start(
      Binary(GetParam()), error,
      {"--tls-port", std::to_string(FindFreePort()), "--tls-cert-file", Certs().Path("missing.crt"),
       "--tls-key-file", Certs().Path("server.key"), "--tls-ca-cert-file", Certs().Path("ca.crt")});
  EXPECT_FALSE(server);
  EXPECT_NE(error.find("Failed to load certificate: " + Certs().Path("missing.crt")),
            std::string::npos)
      << error;
}

INSTANTIATE_TEST_SUITE_P(Servers, TlsTest, AllServers(), ServerKindName);

// warden's own bound: a client that connects to the TLS port and never finishes its handshake
// is closed after tls-handshake-timeout (Redis keeps it until `timeout`, off by default).
TEST(WardenTlsTest, AHandshakeThatNeverFinishesIsClosed) {
  ASSERT_TRUE(Certs().ok()) << Certs().error();
  const std::uint16_t tls_port = FindFreePort();
  std::string error;
  auto server = ServerProcess::Start(Binary(ServerKind::kWarden), error,
                                     TlsArgs(tls_port, {"--tls-handshake-timeout", "200"}));
  ASSERT_TRUE(server) << error;
  std::optional<RespClient> silent = RespClient::Connect(tls_port);
  std::optional<RespClient> partial = RespClient::Connect(tls_port);
  ASSERT_TRUE(silent && partial);
  // The start of a ClientHello record, and nothing more.
  ASSERT_TRUE(partial->SendRaw(std::string("\x16\x03\x01\x02\x00\x01", 6)));
  EXPECT_EQ(silent->ReadUntilClose(10000).status, ReadStatus::kClosed);
  EXPECT_EQ(partial->ReadUntilClose(10000).status, ReadStatus::kClosed);
  std::optional<RespClient> plain = RespClient::Connect(server->port());
  ASSERT_TRUE(plain);
  EXPECT_EQ(Send(*plain, {"CONFIG", "GET", "tls-handshake-timeout"}),
            "*2\r\n$21\r\ntls-handshake-timeout\r\n$3\r\n200\r\n");
}

// On SIGTERM a TLS client mid-pipeline gets every reply already computed, whole, then the end
// of the connection, as a TCP client does (limits_test.cc).
TEST(WardenTlsTest, SigtermDeliversTheComputedRepliesOverTls) {
  ASSERT_TRUE(Certs().ok()) << Certs().error();
  const std::uint16_t tls_port = FindFreePort();
  std::string error;
  auto server = ServerProcess::Start(Binary(ServerKind::kWarden), error, TlsArgs(tls_port));
  ASSERT_TRUE(server) << error;
  std::optional<RespClient> admin = RespClient::Connect(server->port());
  std::optional<RespClient> slow = RespClient::ConnectTls(tls_port, Certs().Client());
  ASSERT_TRUE(admin && slow);
  const std::string value(100000, 'v');
  const std::string bulk = "$100000\r\n" + value + "\r\n";
  ASSERT_EQ(Send(*admin, {"SET", "big", value}), "+OK\r\n");
  const std::string id = Send(*slow, {"CLIENT", "ID"});
  ASSERT_EQ(id[0], ':');
  std::string gets;
  for (int i = 0; i < 2000; ++i) gets += EncodeCommand({"GET", "big"});
  ASSERT_TRUE(slow->SendRaw(gets));
  // Paused: no longer read from while its replies wait for it ("events=w").
  const std::string mine = "id=" + id.substr(1, id.size() - 3) + " ";
  bool paused = false;
  for (const Deadline deadline(5000); !deadline.Expired() && !paused;) {
    const std::string list = Send(*admin, {"CLIENT", "LIST"});
    const std::size_t at = list.find(mine);
    paused = at != std::string::npos &&
             list.substr(at, list.find('\n', at) - at).find(" events=w ") != std::string::npos;
  }
  ASSERT_TRUE(paused);
  ASSERT_EQ(kill(server->pid(), SIGTERM), 0);
  int received = 0;
  while (true) {
    const ReadResult reply = slow->ReadReply(5000);
    if (reply.status != ReadStatus::kOk) {
      EXPECT_EQ(reply.status, ReadStatus::kClosed);
      EXPECT_EQ(reply.bytes, "") << "a reply was cut short";
      break;
    }
    ASSERT_EQ(reply.bytes, bulk) << "reply " << received;
    ++received;
  }
  EXPECT_GE(received, 10);
  EXPECT_LT(received, 2000);
  slow.reset();
  const std::optional<int> status = server->WaitForExit(5000);
  ASSERT_TRUE(status.has_value());
  EXPECT_TRUE(WIFEXITED(*status) && WEXITSTATUS(*status) == 0);
}

// Past maxclients, a TLS client is told why once its handshake is done, then closed. (Redis
// 7.0 writes the error before the handshake, where it cannot go, and just drops the client.)
TEST(WardenTlsTest, ATlsClientPastMaxclientsIsToldAfterItsHandshake) {
  ASSERT_TRUE(Certs().ok()) << Certs().error();
  const std::uint16_t tls_port = FindFreePort();
  std::string error;
  auto server = ServerProcess::Start(Binary(ServerKind::kWarden), error,
                                     TlsArgs(tls_port, {"--maxclients", "1"}));
  ASSERT_TRUE(server) << error;
  std::optional<RespClient> first = RespClient::ConnectTls(tls_port, Certs().Client());
  ASSERT_TRUE(first);
  EXPECT_EQ(Send(*first, {"PING"}), "+PONG\r\n");
  std::optional<RespClient> second = RespClient::ConnectTls(tls_port, Certs().Client());
  ASSERT_TRUE(second);
  const ReadResult r = second->ReadUntilClose();
  EXPECT_EQ(r.status, ReadStatus::kClosed);
  EXPECT_EQ(r.bytes, "-ERR max number of clients reached\r\n");
  EXPECT_EQ(Send(*first, {"PING"}), "+PONG\r\n");
}

}  // namespace
}  // namespace warden::testing
