// The tls-* options: CONFIG GET's values and CONFIG SET's rows, with Redis 7.0's bounds, texts
// and apply steps (config.c's applyTlsCfg and applyTLSPort).
#include <array>

#include "server/config/config.h"
#include "server/config/config_options.h"
#include "server/config/config_values.h"
#include "server/log.h"
#include "server/server_state.h"
#include "server/tls.h"

namespace warden::server {
namespace {

using namespace config_values;  // NOLINT(build/namespaces): the table is built from them

constexpr auto kMut = ConfigMutability::kMutable;
constexpr std::int64_t kIntMax = INT32_MAX;
constexpr std::string_view kUpdateFailed = "Unable to update TLS configuration. Check server logs.";
constexpr std::array<std::string_view, 3> kAuthClients = {"no", "yes", "optional"};

std::string_view AuthClientsName(TlsAuthClients a) {
  return kAuthClients[a == TlsAuthClients::kNo ? 0 : a == TlsAuthClients::kYes ? 1 : 2];
}

// A new context from the options as they now are; connections already open keep theirs.
SetResult Reconfigure(ServerState& s) {
  std::string error;
  std::shared_ptr<TlsContext> context = TlsContext::Create(s.config, error);
  if (!context) {
    if (s.log != nullptr) s.log->Log(LogLevel::kWarning, "%s", error.c_str());
    return std::string(kUpdateFailed);
  }
  s.tls = std::move(context);
  return std::nullopt;
}

SetResult ApplyTlsConfig(ServerState& s) {
  if (s.config.tls_port == 0) return std::nullopt;
  return Reconfigure(s);
}

SetResult ApplyTlsPort(ServerState& s) {
  if (s.config.tls_port != 0 && !s.tls) {
    if (auto err = Reconfigure(s)) return err;
  }
  if (s.connections == nullptr || !s.connections->Relisten()) return std::nullopt;
  return "Unable to listen on this port. Check server logs.";
}

template <std::string Config::*field>
ConfigOption StringRow(std::string_view name) {
  return {name,
          "",
          kMut,
          [](Config& c, std::string_view v) -> SetResult {
            c.*field = std::string(v);
            return std::nullopt;
          },
          [](const Config& c) { return Quoted(c.*field); },
          ApplyTlsConfig};
}

template <bool Config::*field>
ConfigOption BoolRow(std::string_view name) {
  return {name,
          "",
          kMut,
          [](Config& c, std::string_view v) { return SetBool(v, c.*field); },
          [](const Config& c) { return YesNo(c.*field); },
          ApplyTlsConfig};
}

template <std::int64_t Config::*field>
ConfigOption IntRow(std::string_view name) {
  return {name,
          "",
          kMut,
          [](Config& c, std::string_view v) { return SetInteger(v, 0, kIntMax, c.*field); },
          [](const Config& c) { return std::to_string(c.*field); },
          ApplyTlsConfig};
}

const ConfigOption kTlsOptions[] = {
    {"tls-port", "", kMut,
     [](Config& c, std::string_view v) { return SetInteger(v, 0, 65535, c.tls_port); },
     [](const Config& c) { return std::to_string(c.tls_port); }, ApplyTlsPort},
    StringRow<&Config::tls_cert_file>("tls-cert-file"),
    StringRow<&Config::tls_key_file>("tls-key-file"),
    StringRow<&Config::tls_key_file_pass>("tls-key-file-pass"),
    StringRow<&Config::tls_ca_cert_file>("tls-ca-cert-file"),
    StringRow<&Config::tls_ca_cert_dir>("tls-ca-cert-dir"),
    StringRow<&Config::tls_dh_params_file>("tls-dh-params-file"),
    StringRow<&Config::tls_protocols>("tls-protocols"),
    StringRow<&Config::tls_ciphers>("tls-ciphers"),
    StringRow<&Config::tls_ciphersuites>("tls-ciphersuites"),
    // As in Redis, changing it rebuilds nothing: each new connection reads it.
    {"tls-auth-clients", "", kMut,
     [](Config& c, std::string_view v) -> SetResult {
       std::string name;
       if (auto err = SetEnum(v, kAuthClients, name)) return err;
       c.tls_auth_clients = name == "no"    ? TlsAuthClients::kNo
                            : name == "yes" ? TlsAuthClients::kYes
                                            : TlsAuthClients::kOptional;
       return std::nullopt;
     },
     [](const Config& c) { return std::string(AuthClientsName(c.tls_auth_clients)); }, nullptr},
    BoolRow<&Config::tls_prefer_server_ciphers>("tls-prefer-server-ciphers"),
    BoolRow<&Config::tls_session_caching>("tls-session-caching"),
    IntRow<&Config::tls_session_cache_size>("tls-session-cache-size"),
    IntRow<&Config::tls_session_cache_timeout_s>("tls-session-cache-timeout"),
    {"tls-handshake-timeout", "", kMut,
     [](Config& c, std::string_view v) {
       return SetInteger(v, 1, kIntMax, c.tls_handshake_timeout_ms);
     },
     [](const Config& c) { return std::to_string(c.tls_handshake_timeout_ms); }, nullptr},
};

}  // namespace

std::span<const ConfigOption> TlsConfigOptions() { return kTlsOptions; }

void AppendTlsConfigValues(const Config& c, std::vector<ConfigValue>& out) {
  out.insert(out.end(),
             {
                 {"tls-port", std::to_string(c.tls_port)},
                 {"tls-cert-file", c.tls_cert_file},
                 {"tls-key-file", c.tls_key_file},
                 {"tls-key-file-pass", c.tls_key_file_pass},
                 {"tls-ca-cert-file", c.tls_ca_cert_file},
                 {"tls-ca-cert-dir", c.tls_ca_cert_dir},
                 {"tls-dh-params-file", c.tls_dh_params_file},
                 {"tls-protocols", c.tls_protocols},
                 {"tls-ciphers", c.tls_ciphers},
                 {"tls-ciphersuites", c.tls_ciphersuites},
                 {"tls-auth-clients", std::string(AuthClientsName(c.tls_auth_clients))},
                 {"tls-prefer-server-ciphers", YesNo(c.tls_prefer_server_ciphers)},
                 {"tls-session-caching", YesNo(c.tls_session_caching)},
                 {"tls-session-cache-size", std::to_string(c.tls_session_cache_size)},
                 {"tls-session-cache-timeout", std::to_string(c.tls_session_cache_timeout_s)},
                 {"tls-handshake-timeout", std::to_string(c.tls_handshake_timeout_ms)},
             });
}

}  // namespace warden::server
