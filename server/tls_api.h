// The OpenSSL functions warden calls, loaded from libssl (and the libcrypto it needs) when TLS is
// first configured rather than at start: a server without a tls-port never maps OpenSSL, whose
// relocations and start-up work were a third of warden's idle memory. ACL's SHA-256 and
// GENPASS's randomness need nothing of it (server/acl/sha256.h, getrandom).
//
// Only tls.cc calls OpenSSL. It includes this header with WARDEN_OPENSSL_REDIRECT defined, which
// turns each name below, and so each OpenSSL macro that expands to one (SSL_CTX_set_mode and the
// other SSL_CTX_ctrl wrappers), into a call through the loaded table; a function missing from the
// list fails to link, since the binary does not link OpenSSL.
#pragma once

#include <openssl/bio.h>
#include <openssl/decoder.h>
#include <openssl/err.h>
#include <openssl/ssl.h>

#include <string>

#define WARDEN_OPENSSL_FUNCTIONS(X)         \
  X(BIO_ctrl)                               \
  X(BIO_ctrl_pending)                       \
  X(BIO_new)                                \
  X(BIO_read)                               \
  X(BIO_s_mem)                              \
  X(BIO_write)                              \
  X(ERR_clear_error)                        \
  X(ERR_error_string_n)                     \
  X(ERR_get_error)                          \
  X(EVP_PKEY_free)                          \
  X(OSSL_DECODER_CTX_free)                  \
  X(OSSL_DECODER_CTX_new_for_pkey)          \
  X(OSSL_DECODER_from_fp)                   \
  X(SSL_CTX_ctrl)                           \
  X(SSL_CTX_free)                           \
  X(SSL_CTX_load_verify_locations)          \
  X(SSL_CTX_new)                            \
  X(SSL_CTX_set0_tmp_dh_pkey)               \
  X(SSL_CTX_set_cipher_list)                \
  X(SSL_CTX_set_ciphersuites)               \
  X(SSL_CTX_set_default_passwd_cb)          \
  X(SSL_CTX_set_default_passwd_cb_userdata) \
  X(SSL_CTX_set_options)                    \
  X(SSL_CTX_set_session_id_context)         \
  X(SSL_CTX_set_timeout)                    \
  X(SSL_CTX_set_verify)                     \
  X(SSL_CTX_use_PrivateKey_file)            \
  X(SSL_CTX_use_certificate_chain_file)     \
  X(SSL_free)                               \
  X(SSL_get_error)                          \
  X(SSL_is_init_finished)                   \
  X(SSL_new)                                \
  X(SSL_read)                               \
  X(SSL_set_accept_state)                   \
  X(SSL_set_bio)                            \
  X(SSL_set_verify)                         \
  X(SSL_write)                              \
  X(TLS_server_method)

namespace warden::server {

struct OpenSslApi {
#define WARDEN_OPENSSL_POINTER(name) decltype(&::name) name = nullptr;
  WARDEN_OPENSSL_FUNCTIONS(WARDEN_OPENSSL_POINTER)
#undef WARDEN_OPENSSL_POINTER
};

// Loads OpenSSL the first time (once per process, whichever thread asks first); nullptr, with
// why in `error`, if the library or one of its functions cannot be found.
const OpenSslApi* LoadOpenSsl(std::string& error);

// The table LoadOpenSsl filled: read only after it succeeded.
extern const OpenSslApi* g_openssl;

}  // namespace warden::server

#ifdef WARDEN_OPENSSL_REDIRECT
#define BIO_ctrl (::warden::server::g_openssl->BIO_ctrl)
#define BIO_ctrl_pending (::warden::server::g_openssl->BIO_ctrl_pending)
#define BIO_new (::warden::server::g_openssl->BIO_new)
#define BIO_read (::warden::server::g_openssl->BIO_read)
#define BIO_s_mem (::warden::server::g_openssl->BIO_s_mem)
#define BIO_write (::warden::server::g_openssl->BIO_write)
#define ERR_clear_error (::warden::server::g_openssl->ERR_clear_error)
#define ERR_error_string_n (::warden::server::g_openssl->ERR_error_string_n)
#define ERR_get_error (::warden::server::g_openssl->ERR_get_error)
#define EVP_PKEY_free (::warden::server::g_openssl->EVP_PKEY_free)
#define OSSL_DECODER_CTX_free (::warden::server::g_openssl->OSSL_DECODER_CTX_free)
#define OSSL_DECODER_CTX_new_for_pkey (::warden::server::g_openssl->OSSL_DECODER_CTX_new_for_pkey)
#define OSSL_DECODER_from_fp (::warden::server::g_openssl->OSSL_DECODER_from_fp)
#define SSL_CTX_ctrl (::warden::server::g_openssl->SSL_CTX_ctrl)
#define SSL_CTX_free (::warden::server::g_openssl->SSL_CTX_free)
#define SSL_CTX_load_verify_locations (::warden::server::g_openssl->SSL_CTX_load_verify_locations)
#define SSL_CTX_new (::warden::server::g_openssl->SSL_CTX_new)
#define SSL_CTX_set0_tmp_dh_pkey (::warden::server::g_openssl->SSL_CTX_set0_tmp_dh_pkey)
#define SSL_CTX_set_cipher_list (::warden::server::g_openssl->SSL_CTX_set_cipher_list)
#define SSL_CTX_set_ciphersuites (::warden::server::g_openssl->SSL_CTX_set_ciphersuites)
#define SSL_CTX_set_default_passwd_cb (::warden::server::g_openssl->SSL_CTX_set_default_passwd_cb)
#define SSL_CTX_set_default_passwd_cb_userdata \
  (::warden::server::g_openssl->SSL_CTX_set_default_passwd_cb_userdata)
#define SSL_CTX_set_options (::warden::server::g_openssl->SSL_CTX_set_options)
#define SSL_CTX_set_session_id_context (::warden::server::g_openssl->SSL_CTX_set_session_id_context)
#define SSL_CTX_set_timeout (::warden::server::g_openssl->SSL_CTX_set_timeout)
#define SSL_CTX_set_verify (::warden::server::g_openssl->SSL_CTX_set_verify)
#define SSL_CTX_use_PrivateKey_file (::warden::server::g_openssl->SSL_CTX_use_PrivateKey_file)
#define SSL_CTX_use_certificate_chain_file \
  (::warden::server::g_openssl->SSL_CTX_use_certificate_chain_file)
#define SSL_free (::warden::server::g_openssl->SSL_free)
#define SSL_get_error (::warden::server::g_openssl->SSL_get_error)
#define SSL_is_init_finished (::warden::server::g_openssl->SSL_is_init_finished)
#define SSL_new (::warden::server::g_openssl->SSL_new)
#define SSL_read (::warden::server::g_openssl->SSL_read)
#define SSL_set_accept_state (::warden::server::g_openssl->SSL_set_accept_state)
#define SSL_set_bio (::warden::server::g_openssl->SSL_set_bio)
#define SSL_set_verify (::warden::server::g_openssl->SSL_set_verify)
#define SSL_write (::warden::server::g_openssl->SSL_write)
#define TLS_server_method (::warden::server::g_openssl->TLS_server_method)
#endif
