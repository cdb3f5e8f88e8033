#include "server/tls_api.h"

#include <dlfcn.h>
#include <openssl/opensslv.h>

namespace warden::server {

const OpenSslApi* g_openssl = nullptr;

namespace {

#define WARDEN_STRINGIFY_(x) #x
#define WARDEN_STRINGIFY(x) WARDEN_STRINGIFY_(x)
// The library the headers warden was built with belong to (Debian 12: libssl.so.3).
constexpr char kLibrary[] = "libssl.so." WARDEN_STRINGIFY(OPENSSL_VERSION_MAJOR);

struct Loaded {
  OpenSslApi api;
  std::string error;
  bool ok = false;
};

Loaded Load() {
  Loaded out;
  // Never closed: the contexts and sessions it makes live as long as the server.
  void* handle = dlopen(kLibrary, RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    out.error = std::string("cannot load ") + kLibrary + ": " + (why != nullptr ? why : "?");
    return out;
  }
  // dlsym on libssl's handle finds libcrypto's functions too: it searches the libraries libssl
  // needs.
#define WARDEN_OPENSSL_RESOLVE(name)                                        \
  out.api.name = reinterpret_cast<decltype(&::name)>(dlsym(handle, #name)); \
  if (out.api.name == nullptr) {                                            \
    out.error = std::string("cannot find ") + #name + " in " + kLibrary;    \
    return out;                                                             \
  }
  WARDEN_OPENSSL_FUNCTIONS(WARDEN_OPENSSL_RESOLVE)
#undef WARDEN_OPENSSL_RESOLVE
  out.ok = true;
  return out;
}

}  // namespace

const OpenSslApi* LoadOpenSsl(std::string& error) {
  static const Loaded loaded = Load();
  if (!loaded.ok) {
    error = loaded.error;
    return nullptr;
  }
  g_openssl = &loaded.api;
  return g_openssl;
}

}  // namespace warden::server
