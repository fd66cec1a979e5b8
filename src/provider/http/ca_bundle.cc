// Where the CA bundle is when the TLS library's default is not there
// (weld/provider/ca_bundle.h).
#include "weld/provider/ca_bundle.h"

#include <curl/curl.h>
#include <unistd.h>

#include <filesystem>

namespace weld::provider {

std::string choose_ca_bundle(const char* library_file, const char* library_dir,
                             const std::vector<std::string>& candidates) {
  std::error_code ec;
  if (library_file != nullptr && std::filesystem::is_regular_file(library_file, ec)) return {};
  if (library_dir != nullptr && std::filesystem::is_directory(library_dir, ec)) return {};
  for (const std::string& candidate : candidates) {
    if (std::filesystem::is_regular_file(candidate, ec) && ::access(candidate.c_str(), R_OK) == 0) return candidate;
  }
  return {};
}

const std::string& system_ca_bundle() {
  static const std::string chosen = [] {
    const curl_version_info_data* info = curl_version_info(CURLVERSION_NOW);
    return choose_ca_bundle(info->cainfo, info->capath,
                            {
                                "/etc/ssl/certs/ca-certificates.crt",                 // Debian, Ubuntu, Arch, Alpine
                                "/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem",  // Fedora, RHEL 7 and later
                                "/etc/pki/tls/certs/ca-bundle.crt",                   // older Fedora and RHEL
                                "/etc/ssl/ca-bundle.pem",                             // openSUSE
                                "/etc/ssl/cert.pem",                                  // Alpine, macOS
                            });
  }();
  return chosen;
}

}  // namespace weld::provider
