// --listen parsing (exporters/prometheus/listen_address.h): the forms accepted, the family and
// address each binds, and the "bad address" reasons. Binding is tested with real sockets by
// tests/exporter/listen_test.sh.
#include <catch2/catch.hpp>

#include "exporters/prometheus/listen_address.h"

namespace rdmatop {

TEST_CASE("Listen address forms name the family and address bound", "[exporter]") {
  const auto bound = [](const char* text) {
    auto parsed = parse_listen_address(text);
    REQUIRE(parsed.ok());
    return std::string(parsed->ipv6 ? "v6 " : "v4 ") + parsed->display();
  };
  CHECK(bound("9879") == "v4 0.0.0.0:9879");
  CHECK(bound(":9879") == "v4 0.0.0.0:9879");
  CHECK(bound("0.0.0.0:0") == "v4 0.0.0.0:0");
  CHECK(bound("127.0.0.1:9879") == "v4 127.0.0.1:9879");
  CHECK(bound("localhost:9879") == "v4 127.0.0.1:9879");
  CHECK(bound("[::]:9879") == "v6 [::]:9879");
  CHECK(bound("[::1]:0") == "v6 [::1]:0");
}

TEST_CASE("Listen address parsing refuses malformed addresses with the reason", "[exporter]") {
  const auto why = [](const char* text) {
    auto parsed = parse_listen_address(text);
    REQUIRE_FALSE(parsed.ok());
    return parsed.error().message;
  };
  CHECK_THAT(why(""), Catch::Contains("bad address"));
  CHECK_THAT(why("65536"), Catch::Contains("not a port"));
  CHECK_THAT(why("127.0.0.1:-1"), Catch::Contains("not a port"));
  CHECK_THAT(why("127.0.0.1:80x"), Catch::Contains("not a port"));
  CHECK_THAT(why("host.example:9879"), Catch::Contains("not a numeric IPv4 address"));
  CHECK_THAT(why("::1:9879"), Catch::Contains("needs brackets"));
  CHECK_THAT(why("[::1]9879"), Catch::Contains("[ADDRESS]:PORT"));
  CHECK_THAT(why("[1.2.3.4]:9879"), Catch::Contains("not a numeric IPv6 address"));
}

}  // namespace rdmatop
