// --web-config parsing (exporter-toolkit shape) and the bcrypt check. The hash below was made
// by Python's crypt module (libxcrypt), an independent hasher: "pw" at cost 4.
#include <catch2/catch.hpp>

#include "exporters/prometheus/web_config.h"

using namespace rdmatop;

namespace {

const std::string kWebConfigHash = "$2b$04$fPZ0GoqKgxv65RoZIHo9j.gFpx8HH7/aONmcr6MH6/Q0in8M64L9e";

}  // namespace

TEST_CASE("web config: bcrypt users", "[exporter][web_config]") {
  auto c = parse_web_config("# comment\nbasic_auth_users:\n  prom: '" + kWebConfigHash +
                                "'\n  grafana: '" + kWebConfigHash + "'\n",
                            "/etc/rdmatop/web.yml");
  REQUIRE(c);
  REQUIRE(c->basic_auth_users.size() == 2);
  CHECK(c->basic_auth_users.at("prom") == kWebConfigHash);
  CHECK(c->basic_auth_users.count("grafana") == 1);

  auto empty = parse_web_config("", "web.yml");
  REQUIRE(empty);
  CHECK(empty->basic_auth_users.empty());
}

TEST_CASE("web config: bad files give a located, specific error", "[exporter][web_config]") {
  struct Case {
    const char* what;
    std::string text;
    const char* expect;
  };
  const std::vector<Case> cases = {
      {"plain password", "basic_auth_users:\n  prom: secret\n", "web.yml:2:9: basic_auth_users"},
      {"md5 crypt", "basic_auth_users: {prom: '$1$abc$defdefdefdefdefdefdefd'}\n",
       "not a bcrypt hash"},
      {"user list", "basic_auth_users: [prom]\n", "expected a mapping"},
      {"colon in user", "basic_auth_users: {'a:b': '" + kWebConfigHash + "'}\n",
       "invalid user name"},
      {"unknown top key", "http_server_config: {http2: false}\n",
       "web.yml:1:21: unsupported key 'http_server_config'"},
      {"TLS", "tls_server_config: {cert_file: a, key_file: b}\n",
       "tls_server_config is not supported"},
      {"top list", "- a\n", "expected a mapping at the top level"},
      {"broken yaml", "basic_auth_users: [unclosed\n", "web.yml:"},
      {"nested value", "basic_auth_users: {prom: {x: 1}}\n", "not a bcrypt hash"},
      {"non-UTF-8", std::string("basic_auth_users: {prom: \"\xff\xfe\"}\n"), "not a bcrypt hash"},
      // yaml-cpp threw a bare "bad conversion" for these (#22 item 8).
      {"list as a top key", "[a]: b\n", "web.yml:1:1: keys must be strings"},
      {"list as a user", "basic_auth_users: {[a]: b}\n",
       "web.yml:1:20: basic_auth_users: user names must be strings"},
  };
  for (const auto& c : cases) {
    INFO(c.what);
    auto r = parse_web_config(c.text, "web.yml");
    REQUIRE_FALSE(r);
    CHECK_THAT(r.error().message, Catch::Contains(c.expect));
  }
}

TEST_CASE("bcrypt check accepts the password and nothing else", "[exporter][web_config]") {
  CHECK(bcrypt_matches(kWebConfigHash, "pw"));
  CHECK_FALSE(bcrypt_matches(kWebConfigHash, "pW"));
  CHECK_FALSE(bcrypt_matches(kWebConfigHash, ""));
  CHECK_FALSE(bcrypt_matches(kWebConfigHash, "pw "));
  // htpasswd writes $2y$: the same algorithm under another prefix.
  CHECK(bcrypt_matches("$2y$" + kWebConfigHash.substr(4), "pw"));
  // A damaged hash never matches (crypt_rn fails or computes another string).
  CHECK_FALSE(bcrypt_matches(kWebConfigHash.substr(0, 30), "pw"));
  CHECK_FALSE(bcrypt_matches("", "pw"));
}
