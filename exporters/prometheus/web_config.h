// The exporter's `--web-config FILE`: basic auth in the shape of the Prometheus exporter-toolkit
// web configuration (prometheus/exporter-toolkit docs/web-configuration.md), so one file format
// serves rdmatop and node_exporter alike. Supported: basic_auth_users (user -> bcrypt hash).
// tls_server_config is refused with the reason (the exporter serves plain HTTP; docs/exporter.md),
// and so is every other key: a security setting that silently does nothing is worse than a
// refusal.
#pragma once

#include <map>
#include <string>

#include "collector/model/result.h"

namespace rdmatop {

struct WebConfig {
  /// user -> bcrypt hash ($2a$, $2b$ or $2y$, e.g. from `htpasswd -nBC 10 USER`).
  std::map<std::string, std::string> basic_auth_users;
};

/// Parses the YAML text of a web config file read from `path` (named in messages).
Result<WebConfig> parse_web_config(const std::string& text, const std::string& path);

/// True when `password` matches the bcrypt `hash` (libxcrypt's crypt_rn, a constant-time
/// comparison of the result).
bool bcrypt_matches(const std::string& hash, const std::string& password);

}  // namespace rdmatop
