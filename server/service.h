// Running as a service, as redis-server does: daemonize, a pid file, and readiness told to
// systemd (supervised systemd) over the socket it names in NOTIFY_SOCKET, without libsystemd.
#pragma once

#include <string>
#include <string_view>

namespace warden::server {

class Logger;

// Redis's daemonize(): forks, the parent exits 0, the child leaves the terminal's session and
// puts stdin, stdout and stderr on /dev/null. Returns false (errno set) if the fork failed.
bool Daemonize();

// Redis's createPidFile: a failure is logged and the server goes on. Redis's default path
// when daemonized without one.
inline constexpr std::string_view kDefaultPidFile = "/var/run/redis.pid";
void WritePidFile(const std::string& path, Logger& log);
void RemovePidFile(const std::string& path, Logger& log);

// Whether `supervised` (no, upstart, systemd, auto) means telling systemd: systemd, or auto
// with NOTIFY_SOCKET set, as Redis's redisSupervisedMode decides.
bool SupervisedBySystemd(std::string_view supervised);
// Redis's redisCommunicateSystemd: sends `state` ("READY=1\n") to NOTIFY_SOCKET. Returns false
// if there is no socket or the send failed (logged).
bool NotifySystemd(std::string_view state, Logger& log);

}  // namespace warden::server
