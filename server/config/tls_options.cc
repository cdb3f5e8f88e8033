// The tls-* option rows, with Redis 7.0's bounds, texts and apply steps (config.c's applyTlsCfg
// and applyTLSPort).
#include <array>

#include "server/config/config_options.h"
#include "server/config/option_rows.h"
#include "server/log.h"
#include "server/server_state.h"
#include "server/tls.h"

namespace warden::server {
namespace {

using namespace config_values;  // NOLINT(build/namespaces): the table is built from them
using namespace option_rows;    // NOLINT(build/namespaces)

constexpr std::string_view kUpdateFailed = "Unable to update TLS configuration. Check server logs.";
constexpr std::array<std::string_view, 3> kAuthClients = {"no", "yes", "optional"};

constexpr TlsAuthClients kAuthClientsValues[] = {TlsAuthClients::kNo, TlsAuthClients::kYes,
                                                 TlsAuthClients::kOptional};

// A new context from the options as they now are; connections already open keep theirs.
ConfigSetResult Reconfigure(ServerState& s) {
  std::string error;
  std::shared_ptr<TlsContext> context = TlsContext::Create(s.config, error);
  if (!context) {
    if (s.log != nullptr) s.log->Log(LogLevel::kWarning, "%s", error.c_str());
    return std::string(kUpdateFailed);
  }
  s.tls = std::move(context);
  return std::nullopt;
}

ConfigSetResult ApplyTlsConfig(ServerState& s) {
  if (s.config.tls_port == 0) return std::nullopt;
  return Reconfigure(s);
}

ConfigSetResult ApplyTlsPort(ServerState& s) {
  if (s.config.tls_port != 0 && !s.tls) {
    if (auto err = Reconfigure(s)) return err;
  }
  if (s.connections == nullptr || !s.connections->Relisten()) return std::nullopt;
  return "Unable to listen on this port. Check server logs.";
}

template <auto M>
using F = Field<M>;

const ConfigOption kTlsOptions[] = {
    Int<F<&Config::tls_port>, 0, 65535>("tls-port", 0, "TLS port (0: none)", ApplyTlsPort),
    String<F<&Config::tls_cert_file>>("tls-cert-file", 0, "the server's certificate",
                                      ApplyTlsConfig),
    String<F<&Config::tls_key_file>>("tls-key-file", 0, "its private key", ApplyTlsConfig),
    String<F<&Config::tls_key_file_pass>>("tls-key-file-pass", kConfigSensitive,
                                          "the key's passphrase", ApplyTlsConfig),
    String<F<&Config::tls_ca_cert_file>>(
        "tls-ca-cert-file", 0, "CA certificates clients are checked against", ApplyTlsConfig),
    String<F<&Config::tls_ca_cert_dir>>("tls-ca-cert-dir", 0, "or a directory of them",
                                        ApplyTlsConfig),
    String<F<&Config::tls_dh_params_file>>("tls-dh-params-file", 0, "DH parameters",
                                           ApplyTlsConfig),
    String<F<&Config::tls_protocols>>(
        "tls-protocols", 0, "TLSv1.2 TLSv1.3 or one of them (\"\": both)", ApplyTlsConfig),
    String<F<&Config::tls_ciphers>>("tls-ciphers", 0, "TLS 1.2 ciphers", ApplyTlsConfig),
    String<F<&Config::tls_ciphersuites>>("tls-ciphersuites", 0, "TLS 1.3 cipher suites",
                                         ApplyTlsConfig),
    // As in Redis, changing it rebuilds nothing: each new connection reads it.
    EnumClass<F<&Config::tls_auth_clients>, kAuthClients, kAuthClientsValues>(
        "tls-auth-clients", 0, "must a client present a certificate"),
    Bool<F<&Config::tls_prefer_server_ciphers>>("tls-prefer-server-ciphers", 0,
                                                "the server's cipher order first", ApplyTlsConfig),
    Bool<F<&Config::tls_session_caching>>("tls-session-caching", 0, "resume TLS sessions",
                                          ApplyTlsConfig),
    Int<F<&Config::tls_session_cache_size>, 0, kIntMax>("tls-session-cache-size", 0,
                                                        "sessions cached", ApplyTlsConfig),
    Int<F<&Config::tls_session_cache_timeout_s>, 0, kIntMax>(
        "tls-session-cache-timeout", 0, "seconds a cached session lasts", ApplyTlsConfig),
    Int<F<&Config::tls_handshake_timeout_ms>, 1, kIntMax>(
        "tls-handshake-timeout", kConfigWarden, "ms a TLS client has to finish its handshake"),
};

}  // namespace

std::span<const ConfigOption> TlsConfigOptions() { return kTlsOptions; }

}  // namespace warden::server
