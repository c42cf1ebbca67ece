#include "exporters/prometheus/web_config.h"

#include <crypt.h>
#include <yaml-cpp/yaml.h>

#include <set>

namespace rdmatop {

namespace {

Error config_error(const std::string& path, const YAML::Node& node, const std::string& what) {
  const YAML::Mark mark = node.Mark();
  std::string where = path;
  if (mark.line >= 0) {
    where += ":" + std::to_string(mark.line + 1) + ":" + std::to_string(mark.column + 1);
  }
  return Error{0, where + ": " + what};
}

/// Keys the map may carry; the first other scalar key is returned (empty when none).
std::string unknown_key(const YAML::Node& map, const std::set<std::string>& allowed) {
  for (const auto& kv : map) {
    if (kv.first.IsScalar() && allowed.count(kv.first.Scalar()) == 0) return kv.first.Scalar();
  }
  return {};
}

/// The first key of `map` that is not a scalar (`[a]: b`), or an undefined node: checked
/// before any key is converted, since yaml-cpp throws a bare "bad conversion" for those.
YAML::Node first_non_scalar_key(const YAML::Node& map) {
  for (const auto& kv : map) {
    if (!kv.first.IsScalar()) return kv.first;
  }
  return YAML::Node(YAML::NodeType::Undefined);
}

bool is_bcrypt(const std::string& hash) {
  // $2a$/$2b$/$2y$, two-digit cost, '$', 53 characters of salt and hash: 60 in all.
  return hash.size() == 60 && hash[0] == '$' && hash[1] == '2' &&
         (hash[2] == 'a' || hash[2] == 'b' || hash[2] == 'y') && hash[3] == '$' && hash[6] == '$';
}

}  // namespace

Result<WebConfig> parse_web_config(const std::string& text, const std::string& path) {
  YAML::Node loaded;
  try {
    loaded = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    return Error{0, path + ":" + std::to_string(e.mark.line + 1) + ":" +
                        std::to_string(e.mark.column + 1) + ": " + e.msg};
  }
  const YAML::Node& root = loaded;  // const: lookups never insert keys
  WebConfig config;
  if (root.IsNull()) return config;  // an empty file: no auth (as in the toolkit)
  if (!root.IsMap()) return config_error(path, root, "expected a mapping at the top level");
  try {
    if (root["tls_server_config"]) {
      // The exporter's HTTP server speaks plain HTTP only (exporters/http/http_server.h);
      // a TLS setting it ignored would leave the operator believing the port is encrypted.
      return config_error(path, root["tls_server_config"],
                          "tls_server_config is not supported: the exporter serves plain HTTP; "
                          "terminate TLS in a reverse proxy (docs/exporter.md)");
    }
    if (const YAML::Node key = first_non_scalar_key(root); key.IsDefined()) {
      return config_error(path, key, "keys must be strings, not lists or mappings");
    }
    const std::string extra = unknown_key(root, {"basic_auth_users"});
    if (!extra.empty()) {
      return config_error(
          path, root[extra],
          "unsupported key '" + extra + "' (rdmatop supports basic_auth_users only)");
    }
    if (const YAML::Node users = root["basic_auth_users"]; users && !users.IsNull()) {
      if (!users.IsMap()) return config_error(path, users, "basic_auth_users: expected a mapping");
      if (const YAML::Node key = first_non_scalar_key(users); key.IsDefined()) {
        return config_error(path, key, "basic_auth_users: user names must be strings");
      }
      for (const auto& kv : users) {
        const auto user = kv.first.Scalar();
        const auto hash = kv.second.IsScalar() ? kv.second.as<std::string>() : "";
        if (user.empty() || user.find(':') != std::string::npos) {
          return config_error(path, kv.first, "basic_auth_users: invalid user name '" + user + "'");
        }
        if (!is_bcrypt(hash)) {
          return config_error(path, kv.second,
                              "basic_auth_users: the password of '" + user +
                                  "' is not a bcrypt hash ($2a$, $2b$ or $2y$, 60 characters)");
        }
        config.basic_auth_users[user] = hash;
      }
    }
  } catch (const YAML::Exception& e) {
    return Error{0, path + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg};
  }
  return config;
}

bool bcrypt_matches(const std::string& hash, const std::string& password) {
  // crypt_rn re-hashes the password with the salt and cost stored in `hash`; it returns null on
  // failure instead of a magic string (crypt(5), libxcrypt).
  crypt_data data{};
  const char* out = crypt_rn(password.c_str(), hash.c_str(), &data, sizeof data);
  if (out == nullptr) return false;
  const std::string computed(out);
  if (computed.size() != hash.size()) return false;
  unsigned char diff = 0;
  for (std::size_t i = 0; i < hash.size(); ++i) {
    diff = static_cast<unsigned char>(diff | (computed[i] ^ hash[i]));
  }
  return diff == 0;
}

}  // namespace rdmatop
