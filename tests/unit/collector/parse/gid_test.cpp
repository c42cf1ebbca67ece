#include <catch2/catch.hpp>

#include "collector/parse/gid.h"

using rdmatop::classify_gid;
using rdmatop::GidEntry;
using rdmatop::GidKind;

TEST_CASE("classify_gid sorts sysfs GID text into kinds", "[gid]") {
  struct Case {
    const char* text;
    GidKind kind;
  };
  const Case cases[] = {
      {"0000:0000:0000:0000:0000:0000:0000:0000", GidKind::unpopulated},
      {"0000:0000:0000:0000:0000:ffff:c0a8:6401", GidKind::ipv4_mapped},
      {"fe80:0000:0000:0000:ba59:9fff:fea1:b2c4", GidKind::link_local},
      {"febf:0000:0000:0000:0000:0000:0000:0001", GidKind::link_local},
      {"fec0:0000:0000:0000:0000:0000:0000:0001", GidKind::global},
      {"2001:0db8:0000:0000:0000:0000:0000:0001", GidKind::global},
      {"0000:0000:0000:0000:0000:fffe:c0a8:6401", GidKind::global},
      {"", GidKind::invalid},
      {"fe80::1", GidKind::invalid},
      {"fe80:0000:0000:0000:ba59:9fff:fea1:b2c", GidKind::invalid},
      {"fe80:0000:0000:0000:ba59:9fff:fea1:b2cg", GidKind::invalid},
      {"fe80-0000:0000:0000:ba59:9fff:fea1:b2c4", GidKind::invalid},
      {"fe80:0000:0000:0000:ba59:9fff:fea1:b2c4\n", GidKind::invalid},
  };
  for (const auto& c : cases) {
    INFO(c.text);
    CHECK(classify_gid(c.text) == c.kind);
  }
}

TEST_CASE("routable RoCE v2 needs type v2 and an IPv4-mapped or global address", "[gid]") {
  const GidEntry v1_mapped{2, "0000:0000:0000:0000:0000:ffff:c0a8:6401", "IB/RoCE v1", "eth0"};
  const GidEntry v2_local{1, "fe80:0000:0000:0000:ba59:9fff:fea1:b2c4", "RoCE v2", "eth0"};
  const GidEntry v2_mapped{3, "0000:0000:0000:0000:0000:ffff:c0a8:6401", "RoCE v2", "eth0"};
  const GidEntry v2_global{5, "2001:0db8:0000:0000:0000:0000:0000:0001", "RoCE v2", "eth0"};
  CHECK_FALSE(rdmatop::is_routable_roce_v2(v1_mapped));
  CHECK_FALSE(rdmatop::is_routable_roce_v2(v2_local));
  CHECK(rdmatop::is_routable_roce_v2(v2_mapped));
  CHECK(rdmatop::is_routable_roce_v2(v2_global));

  CHECK_FALSE(rdmatop::first_routable_roce_v2({v1_mapped, v2_local}).has_value());
  const auto found = rdmatop::first_routable_roce_v2({v2_local, v1_mapped, v2_global, v2_mapped});
  REQUIRE(found.has_value());
  CHECK(found->index == 5);
}
