#pragma once
// The CA certificates weld trusts when none is configured (SSL_CERT_FILE,
// CURL_CA_BUNDLE): the TLS library's own default where it exists, else the
// file the system keeps them in. The portable build's libcurl and OpenSSL
// carry Debian's default paths, which other distributions do not have
// (docs/install.md, "The portable tarball").

#include <string>
#include <vector>

namespace weld::provider {

/// Empty when `library_file` or `library_dir` (the TLS library's default
/// bundle and certificate folder; null when it has none) exists: the
/// library's default stays. Else the first of `candidates` that is a
/// readable file; empty when none is.
std::string choose_ca_bundle(const char* library_file, const char* library_dir,
                             const std::vector<std::string>& candidates);

/// choose_ca_bundle with libcurl's built-in defaults and where Debian and
/// Ubuntu, Fedora and RHEL, openSUSE, Alpine and Arch keep the bundle;
/// decided once per process. Empty: use libcurl's (and OpenSSL's) default.
const std::string& system_ca_bundle();

}  // namespace weld::provider
