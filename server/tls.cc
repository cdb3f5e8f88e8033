#include "server/tls.h"

#define WARDEN_OPENSSL_REDIRECT
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "server/command_context.h"
#include "server/tls_api.h"

namespace warden::server {
namespace {

constexpr int kTlsV1 = 1;
constexpr int kTlsV11 = 2;
constexpr int kTlsV12 = 4;
constexpr int kTlsV13 = 8;

std::string LastOpenSslError() {
  char buf[256];
  ERR_error_string_n(ERR_get_error(), buf, sizeof(buf));
  ERR_clear_error();
  return buf;
}

// Redis's parseProtocolsConfig: words separated by single spaces, any case; empty means
// TLSv1.2 and TLSv1.3.
std::optional<int> ParseProtocols(std::string_view text) {
  if (text.empty()) return kTlsV12 | kTlsV13;
  int protocols = 0;
  std::size_t at = 0;
  while (at <= text.size()) {
    const std::size_t end = std::min(text.find(' ', at), text.size());
    const std::string_view word = text.substr(at, end - at);
    at = end + 1;
    if (EqualsNoCase(word, "tlsv1")) {
      protocols |= kTlsV1;
    } else if (EqualsNoCase(word, "tlsv1.1")) {
      protocols |= kTlsV11;
    } else if (EqualsNoCase(word, "tlsv1.2")) {
      protocols |= kTlsV12;
    } else if (EqualsNoCase(word, "tlsv1.3")) {
      protocols |= kTlsV13;
    } else {
      return std::nullopt;
    }
  }
  return protocols;
}

// The key file's passphrase, from tls-key-file-pass (Redis's tlsPasswordCallback).
int PasswordCallback(char* buf, int size, int, void* user) {
  const auto* pass = static_cast<const std::string*>(user);
  if (pass == nullptr || pass->empty() || pass->size() > static_cast<std::size_t>(size)) {
    return -1;
  }
  std::memcpy(buf, pass->data(), pass->size());
  return static_cast<int>(pass->size());
}

std::optional<std::string> LoadDhParams(SSL_CTX* ctx, const std::string& path) {
  std::FILE* file = std::fopen(path.c_str(), "r");
  if (file == nullptr) return "Failed to load " + path + ": " + std::strerror(errno);
  EVP_PKEY* pkey = nullptr;
  OSSL_DECODER_CTX* decoder = OSSL_DECODER_CTX_new_for_pkey(
      &pkey, "PEM", nullptr, "DH", OSSL_KEYMGMT_SELECT_DOMAIN_PARAMETERS, nullptr, nullptr);
  if (decoder == nullptr) {
    std::fclose(file);
    return "No decoder for DH params.";
  }
  const bool read = OSSL_DECODER_from_fp(decoder, file) != 0;
  OSSL_DECODER_CTX_free(decoder);
  std::fclose(file);
  if (!read) return path + ": failed to read DH params.";
  // On success the context owns the key.
  if (SSL_CTX_set0_tmp_dh_pkey(ctx, pkey) <= 0) {
    EVP_PKEY_free(pkey);
    return "Failed to load DH params file: " + path + ": " + LastOpenSslError();
  }
  return std::nullopt;
}

// Everything Redis's createSSLContext and tlsConfigure set on the server's context, with their
// log lines for each failure.
std::optional<std::string> Configure(SSL_CTX* ctx, const Config& c, int protocols) {
  // OpenSSL 3 refuses client-initiated renegotiation unless told otherwise, as Redis wants.
  SSL_CTX_set_options(ctx, SSL_OP_NO_SSLv2 | SSL_OP_NO_SSLv3 | SSL_OP_DONT_INSERT_EMPTY_FRAGMENTS |
                               SSL_OP_NO_COMPRESSION | SSL_OP_SINGLE_DH_USE);
  if ((protocols & kTlsV1) == 0) SSL_CTX_set_options(ctx, SSL_OP_NO_TLSv1);
  if ((protocols & kTlsV11) == 0) SSL_CTX_set_options(ctx, SSL_OP_NO_TLSv1_1);
  if ((protocols & kTlsV12) == 0) SSL_CTX_set_options(ctx, SSL_OP_NO_TLSv1_2);
  if ((protocols & kTlsV13) == 0) SSL_CTX_set_options(ctx, SSL_OP_NO_TLSv1_3);
  // Replies are sealed from a buffer that may move between attempts. OpenSSL's record buffers
  // stay with the session, as in Redis (SSL_MODE_RELEASE_BUFFERS would free and allocate them
  // around every request to save ~34 KB per idle TLS client).
  SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
  SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, nullptr);
  SSL_CTX_set_default_passwd_cb(ctx, PasswordCallback);
  SSL_CTX_set_default_passwd_cb_userdata(ctx, const_cast<std::string*>(&c.tls_key_file_pass));
  if (SSL_CTX_use_certificate_chain_file(ctx, c.tls_cert_file.c_str()) <= 0) {
    return "Failed to load certificate: " + c.tls_cert_file + ": " + LastOpenSslError();
  }
  if (SSL_CTX_use_PrivateKey_file(ctx, c.tls_key_file.c_str(), SSL_FILETYPE_PEM) <= 0) {
    return "Failed to load private key: " + c.tls_key_file + ": " + LastOpenSslError();
  }
  // The callback's pointer is into this Config, which a later CONFIG SET may replace.
  SSL_CTX_set_default_passwd_cb_userdata(ctx, nullptr);
  const char* ca_file = c.tls_ca_cert_file.empty() ? nullptr : c.tls_ca_cert_file.c_str();
  const char* ca_dir = c.tls_ca_cert_dir.empty() ? nullptr : c.tls_ca_cert_dir.c_str();
  if ((ca_file != nullptr || ca_dir != nullptr) &&
      SSL_CTX_load_verify_locations(ctx, ca_file, ca_dir) <= 0) {
    return "Failed to configure CA certificate(s) file/directory: " + LastOpenSslError();
  }
  if (!c.tls_ciphers.empty() && SSL_CTX_set_cipher_list(ctx, c.tls_ciphers.c_str()) == 0) {
    return "Failed to configure ciphers: " + c.tls_ciphers;
  }
  if (!c.tls_ciphersuites.empty() &&
      SSL_CTX_set_ciphersuites(ctx, c.tls_ciphersuites.c_str()) == 0) {
    return "Failed to configure ciphersuites: " + c.tls_ciphersuites;
  }
  if (c.tls_session_caching) {
    SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_SERVER);
    SSL_CTX_sess_set_cache_size(ctx, c.tls_session_cache_size);
    SSL_CTX_set_timeout(ctx, static_cast<long>(c.tls_session_cache_timeout_s));
    static constexpr unsigned char kSessionContext[] = "warden";
    SSL_CTX_set_session_id_context(ctx, kSessionContext, sizeof(kSessionContext) - 1);
  } else {
    SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_OFF);
  }
  if (c.tls_prefer_server_ciphers) SSL_CTX_set_options(ctx, SSL_OP_CIPHER_SERVER_PREFERENCE);
  if (!c.tls_dh_params_file.empty()) return LoadDhParams(ctx, c.tls_dh_params_file);
  SSL_CTX_set_dh_auto(ctx, 1);
  return std::nullopt;
}

}  // namespace

TlsContext::~TlsContext() { SSL_CTX_free(ctx_); }

std::shared_ptr<TlsContext> TlsContext::Create(const Config& c, std::string& error) {
  if (c.tls_cert_file.empty()) {
    error = "No tls-cert-file configured!";
    return nullptr;
  }
  if (c.tls_key_file.empty()) {
    error = "No tls-key-file configured!";
    return nullptr;
  }
  if (c.tls_auth_clients != TlsAuthClients::kNo && c.tls_ca_cert_file.empty() &&
      c.tls_ca_cert_dir.empty()) {
    error =
        "Either tls-ca-cert-file or tls-ca-cert-dir must be specified when tls-cluster, "
        "tls-replication or tls-auth-clients are enabled!";
    return nullptr;
  }
  const std::optional<int> protocols = ParseProtocols(c.tls_protocols);
  if (!protocols) {
    error =
        "Invalid tls-protocols specified. Use a combination of 'TLSv1', 'TLSv1.1', 'TLSv1.2' and "
        "'TLSv1.3'.";
    return nullptr;
  }
  std::string load_error;
  if (LoadOpenSsl(load_error) == nullptr) {
    error = "Failed to load OpenSSL: " + load_error;
    return nullptr;
  }
  SSL_CTX* ctx = SSL_CTX_new(TLS_server_method());
  if (ctx == nullptr) {
    error = "Failed to create a TLS context: " + LastOpenSslError();
    return nullptr;
  }
  if (auto failure = Configure(ctx, c, *protocols)) {
    ERR_clear_error();
    SSL_CTX_free(ctx);
    error = std::move(*failure);
    return nullptr;
  }
  return std::shared_ptr<TlsContext>(new TlsContext(ctx));
}

TlsChannel::TlsChannel(const TlsContext& context, TlsAuthClients auth_clients)
    : ssl_(SSL_new(context.ctx())), in_(BIO_new(BIO_s_mem())), out_(BIO_new(BIO_s_mem())) {
  // An empty memory BIO reports "retry" rather than end of file.
  BIO_set_mem_eof_return(in_, -1);
  BIO_set_mem_eof_return(out_, -1);
  SSL_set_bio(ssl_, in_, out_);
  switch (auth_clients) {
    case TlsAuthClients::kNo:
      SSL_set_verify(ssl_, SSL_VERIFY_NONE, nullptr);
      break;
    case TlsAuthClients::kOptional:
      SSL_set_verify(ssl_, SSL_VERIFY_PEER, nullptr);
      break;
    case TlsAuthClients::kYes:
      SSL_set_verify(ssl_, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, nullptr);
      break;
  }
  SSL_set_accept_state(ssl_);
}

TlsChannel::~TlsChannel() { SSL_free(ssl_); }

void TlsChannel::SetError(int ssl_error) {
  if (ssl_error == SSL_ERROR_SSL) {
    error_ = LastOpenSslError();
  } else if (ssl_error == SSL_ERROR_SYSCALL) {
    // With memory BIOs there is no system call: the peer's stream ended without close_notify.
    ERR_clear_error();
    error_ = "unexpected end of stream";
  } else {
    ERR_clear_error();
    error_ = "TLS error " + std::to_string(ssl_error);
  }
}

TlsChannel::Status TlsChannel::Receive(std::string_view cipher, IoBuffer& plain,
                                       std::size_t chunk) {
  while (!cipher.empty()) {
    const int fed = BIO_write(in_, cipher.data(), static_cast<int>(cipher.size()));
    if (fed <= 0) {
      error_ = "out of memory for TLS input";
      return Status::kError;
    }
    cipher.remove_prefix(static_cast<std::size_t>(fed));
  }
  for (;;) {
    char* at = plain.Reserve(chunk);
    const int n = SSL_read(ssl_, at, static_cast<int>(plain.free_space()));
    if (n > 0) {
      plain.Commit(static_cast<std::size_t>(n));
      established_ = true;
      continue;
    }
    const int err = SSL_get_error(ssl_, n);
    if (err == SSL_ERROR_WANT_READ || err == SSL_ERROR_WANT_WRITE) {
      // A TLS 1.3 handshake finishes without application data: the client speaks first.
      if (!established_ && SSL_is_init_finished(ssl_)) established_ = true;
      return Status::kOk;
    }
    if (err == SSL_ERROR_ZERO_RETURN) return Status::kClosed;
    SetError(err);
    return Status::kError;
  }
}

bool TlsChannel::HasOutgoing() const { return BIO_ctrl_pending(out_) > 0; }

void TlsChannel::TakeOutgoing(std::string& wire) {
  const std::size_t pending = BIO_ctrl_pending(out_);
  if (pending == 0) return;
  const std::size_t at = wire.size();
  wire.resize(at + pending);
  const int n = BIO_read(out_, wire.data() + at, static_cast<int>(pending));
  wire.resize(at + static_cast<std::size_t>(n > 0 ? n : 0));
}

bool TlsChannel::Seal(std::string& plain, std::string& wire) {
  TakeOutgoing(wire);
  if (!established_ || plain.empty()) return true;
  // A record at a time, each taken out at once: the write BIO never holds more than one, however
  // large the reply (it keeps the largest size it has held).
  constexpr std::size_t kRecord = 16 * 1024;
  for (std::size_t done = 0; done < plain.size();) {
    const std::size_t part = std::min(plain.size() - done, kRecord);
    const int n = SSL_write(ssl_, plain.data() + done, static_cast<int>(part));
    if (n <= 0) {
      SetError(SSL_get_error(ssl_, n));
      return false;
    }
    done += static_cast<std::size_t>(n);
    TakeOutgoing(wire);
  }
  plain.clear();
  return true;
}

}  // namespace warden::server
