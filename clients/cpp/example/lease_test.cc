// A 30-second lease checked in a millisecond: warden runs on a thread of this process, and the
// test moves its clock.
#include <warden/embedded_server.h>

#include <cstdio>
#include <string>

int main() {
  std::string error;
  auto server = warden::EmbeddedServer::Start({"--enable-debug-command", "local"}, &error);
  if (!server) return std::fprintf(stderr, "%s\n", error.c_str()), 1;
  server->FreezeClock();
  const bool taken = server->Command({"SET", "lock:job", "me", "NX", "PX", "30000"}) == "+OK\r\n";
  server->AdvanceClockMs(30'000);
  const bool expired = server->Command({"GET", "lock:job"}) == "$-1\r\n";
  std::printf("taken=%d expired=%d port=%d\n", taken, expired, server->port());
  return taken && expired ? 0 : 1;
}
