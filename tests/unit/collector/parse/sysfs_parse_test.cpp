#include "collector/parse/sysfs_parse.h"

#include "collector/parse/gid.h"
#include "tests/support/text_search.h"

#include <catch2/catch.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace rdmatop {
namespace {

using rdmatop::test::printable_ascii;

using namespace std::string_literals;  // "\0" inside literals needs std::string

struct CounterCase {
  std::string text;
  std::optional<std::uint64_t> expected;  // nullopt = must be an error
  std::string error_contains;
};

TEST_CASE("parse_counter_value accepts what sysfs prints and rejects the rest", "[sysfs_parse]") {
  const CounterCase cases[] = {
      {"0\n", 0, ""},
      {"12345\n", 12345, ""},
      {"18446744073709551615\n", UINT64_MAX, ""},  // u64 max, a %llu counter can print it
      {"42", 42, ""},                              // no newline (fixture written by hand)
      {"42 \n\t", 42, ""},                         // trailing whitespace only
      {"007\n", 7, ""},
      // Either side of 19 digits: summed directly up to it, through from_chars above it.
      {"9999999999999999999\n", 9999999999999999999ULL, ""},
      {"10000000000000000000\n", 10000000000000000000ULL, ""},
      {"0000000000000000000042\n", 42, ""},
      {"42\v\f\r\n", 42, ""},                                 // every isspace byte trails
      {"12\n34\n", std::nullopt, "not an unsigned decimal"},  // two lines: a digit after space
      {"", std::nullopt, "empty"},
      {"\n", std::nullopt, "empty"},
      {"-1\n", std::nullopt, "negative"},
      {" 42\n", std::nullopt, "not an unsigned decimal"},  // leading space: not sysfs output
      {"+42\n", std::nullopt, "not an unsigned decimal"},
      {"4 2\n", std::nullopt, "not an unsigned decimal"},
      {"0x10\n", std::nullopt, "not an unsigned decimal"},
      {"N/A (no PMA)\n", std::nullopt, "not an unsigned decimal"},  // pre-4.x PMA failure
      {"12abc\n", std::nullopt, "\"12abc\\n\""},
      {"18446744073709551616\n", std::nullopt, "exceeds 2^64-1"},
      {"99999999999999999999999\n", std::nullopt, "exceeds 2^64-1"},
      {std::string(100, '1'), std::nullopt, "too long"},
      {"12\0"
       "34\n"s,
       std::nullopt, "\\x00"},                     // embedded NUL, shown escaped
      {"\xff\xfe\n", std::nullopt, "\\xff\\xfe"},  // not UTF-8, shown escaped
      {"1.5\n", std::nullopt, "not an unsigned decimal"},
  };
  for (const auto& c : cases) {
    INFO("input: " << escape_for_message(c.text));
    const auto r = parse_counter_value(c.text);
    if (c.expected) {
      REQUIRE(r.ok());
      CHECK(*r == *c.expected);
    } else {
      REQUIRE_FALSE(r.ok());
      CHECK_THAT(r.error().message, Catch::Contains(c.error_contains));
      CHECK(printable_ascii(r.error().message));
      CHECK(r.error().code == 0);  // a parse error is not an errno
    }
  }
}

TEST_CASE("parse error messages truncate long garbage", "[sysfs_parse]") {
  const std::string garbage = "x" + std::string(50, '\x01');
  const auto r = parse_counter_value(garbage);
  REQUIRE_FALSE(r.ok());
  CHECK_THAT(r.error().message, Catch::Contains("...(51 bytes)"));
  CHECK(printable_ascii(r.error().message));
  CHECK(r.error().message.size() < 250);
}

TEST_CASE("escape_for_message quotes, escapes and cuts", "[sysfs_parse]") {
  const std::pair<std::string, std::string> cases[] = {
      {"abc", "\"abc\""},
      {"a\"b\\c", "\"a\\\"b\\\\c\""},
      {"\n\t\r", "\"\\n\\t\\r\""},
      {"\x7f\x80", "\"\\x7f\\x80\""},
      {""s, "\"\""},
      {"\0"s, "\"\\x00\""},
  };
  for (const auto& [in, out] : cases) CHECK(escape_for_message(in) == out);
  CHECK(escape_for_message("abcdef", 3) == "\"abc\"...(6 bytes)");
}

TEST_CASE("parse_signed_value keeps the kernel's -1", "[sysfs_parse]") {
  const std::pair<std::string, std::optional<std::int64_t>> cases[] = {
      {"-1\n", -1},
      {"100000\n", 100000},
      {"0\n", 0},
      {"-9223372036854775808\n", INT64_MIN},
      {"9223372036854775808\n", std::nullopt},
      {"-\n", std::nullopt},
      {"--1\n", std::nullopt},
      {"\n", std::nullopt},
      {"1e3\n", std::nullopt},
      {std::string(80, '9'), std::nullopt},
  };
  for (const auto& [text, expected] : cases) {
    INFO("input: " << escape_for_message(text));
    const auto r = parse_signed_value(text);
    REQUIRE(r.ok() == expected.has_value());
    if (expected) CHECK(*r == *expected);
  }
}

TEST_CASE("parse_index_name accepts only plain decimal names", "[sysfs_parse]") {
  const std::pair<std::string, std::optional<std::uint32_t>> cases[] = {
      {"0", 0u}, {"1", 1u},          {"1023", 1023u},     {"4294967295", 4294967295u},
      {"", {}},  {"01", {}},         {"1\n", {}},         {"-1", {}},
      {"a", {}}, {"4294967296", {}}, {"99999999999", {}}, {"1 ", {}},
  };
  for (const auto& [name, expected] : cases) {
    INFO("input: " << escape_for_message(name));
    const auto r = parse_index_name(name);
    REQUIRE(r.ok() == expected.has_value());
    if (expected) CHECK(*r == *expected);
  }
}

struct IdNameCase {
  std::string text;
  bool ok;
  std::uint32_t id;
  std::string name;
};

TEST_CASE("parse_state / parse_phys_state / parse_node_type", "[sysfs_parse]") {
  const IdNameCase states[] = {
      {"4: ACTIVE\n", true, 4, "ACTIVE"},
      {"1: DOWN\n", true, 1, "DOWN"},
      {"5: ACTIVE_DEFER\n", true, 5, "ACTIVE_DEFER"},
      {"9: UNKNOWN\n", true, 9, "UNKNOWN"},
      {"4:ACTIVE", true, 4, "ACTIVE"},
      {"ACTIVE\n", false, 0, ""},
      {": ACTIVE\n", false, 0, ""},
      {"4:\n", false, 0, ""},
      {"-4: ACTIVE\n", false, 0, ""},
      {"x: ACTIVE\n", false, 0, ""},
      {"99999999999: ACTIVE\n", false, 0, ""},
      {"", false, 0, ""},
      {"4: ACT\x01IVE\n", false, 0, ""},
      {"4: \xc3\x28\n", false, 0, ""},  // invalid UTF-8 in the name
  };
  for (const auto& c : states) {
    INFO("input: " << escape_for_message(c.text));
    const auto r = parse_state(c.text);
    REQUIRE(r.ok() == c.ok);
    if (c.ok) {
      CHECK(r->id == c.id);
      CHECK(r->name == c.name);
    } else {
      CHECK(printable_ascii(r.error().message));
    }
  }

  const IdNameCase phys[] = {
      {"5: LinkUp\n", true, 5, "LinkUp"},
      {"3: Disabled\n", true, 3, "Disabled"},
      {"2: Polling\n", true, 2, "Polling"},
      {"7: Phy Test\n", true, 7, "Phy Test"},  // names may contain spaces
      {"8: <unknown>\n", true, 8, "<unknown>"},
      {"LinkUp", false, 0, ""},
  };
  for (const auto& c : phys) {
    INFO("input: " << escape_for_message(c.text));
    const auto r = parse_phys_state(c.text);
    REQUIRE(r.ok() == c.ok);
    if (c.ok) {
      CHECK(r->id == c.id);
      CHECK(r->name == c.name);
    }
  }

  const IdNameCase node_types[] = {
      {"1: CA\n", true, 1, "CA"},
      {"4: RNIC\n", true, 4, "RNIC"},
      {"6: usNIC UDP\n", true, 6, "usNIC UDP"},
      {"CA\n", false, 0, ""},
  };
  for (const auto& c : node_types) {
    INFO("input: " << escape_for_message(c.text));
    const auto r = parse_node_type(c.text);
    REQUIRE(r.ok() == c.ok);
    if (c.ok) {
      CHECK(r->id == c.id);
      CHECK(r->name == c.name);
    }
  }
}

TEST_CASE("parse_rate reads Gb/s from the rate file", "[sysfs_parse]") {
  const std::pair<std::string, std::optional<double>> cases[] = {
      {"100 Gb/sec (4X EDR)\n", 100.0},
      {"2.5 Gb/sec (1X SDR)\n", 2.5},
      {"56 Gb/sec (4X FDR)\n", 56.0},
      {"25 Gb/sec (1X EDR)\n", 25.0},
      {"40 Gb/sec (4X FDR10)\n", 40.0},
      {"800 Gb/sec (4X XDR)\n", 800.0},
      {"10 Gb/sec\n", 10.0},  // without the width suffix the rate is still there
      {"", std::nullopt},
      {"\n", std::nullopt},
      {"Gb/sec (4X EDR)\n", std::nullopt},
      {"-100 Gb/sec (4X EDR)\n", std::nullopt},
      {"100 GB/sec (4X EDR)\n", std::nullopt},
      {"100 Gb/sec (4 EDR)\n", std::nullopt},
      {"100 Gb/sec (X EDR)\n", std::nullopt},
      // No speed name: core/sysfs.c rate_show prints "" for SDR/unknown speeds, as a real
      // i40iw port does (prometheus/node_exporter collector/fixtures/sys.ttar).
      {"10 Gb/sec (4X)\n", 10.0},
      {"100 Gb/sec (4X )\n", std::nullopt},
      {"100 Gb/sec (4X EDR\n", std::nullopt},
      {"100 Gb/sec garbage\n", std::nullopt},
      {"100. Gb/sec (4X EDR)\n", std::nullopt},
      {".5 Gb/sec (1X SDR)\n", std::nullopt},
      {"100 Gb/sec (4X \xff)\n", std::nullopt},
      {std::string(5000, '1') + " Gb/sec (4X EDR)", std::nullopt},
      {std::string(400, '9') + " Gb/sec (4X EDR)", std::nullopt},  // beyond double
  };
  for (const auto& [text, expected] : cases) {
    INFO("input: " << escape_for_message(text));
    const auto r = parse_rate(text);
    REQUIRE(r.ok() == expected.has_value());
    if (expected) {
      CHECK(*r == Approx(*expected));
    } else {
      CHECK(printable_ascii(r.error().message));
    }
  }
}

struct GidCase {
  std::string text;
  std::optional<std::string> canonical;  // nullopt = must be an error
  GidKind kind;
};

TEST_CASE("parse_gid validates GIDs, classify_gid classifies the result", "[sysfs_parse]") {
  const GidCase cases[] = {
      {"0000:0000:0000:0000:0000:0000:0000:0000\n", "0000:0000:0000:0000:0000:0000:0000:0000",
       GidKind::unpopulated},
      {"fe80:0000:0000:0000:ba59:9fff:fea1:b2c4\n", "fe80:0000:0000:0000:ba59:9fff:fea1:b2c4",
       GidKind::link_local},
      {"febf:0000:0000:0000:0000:0000:0000:0001\n", "febf:0000:0000:0000:0000:0000:0000:0001",
       GidKind::link_local},
      {"fec0:0000:0000:0000:0000:0000:0000:0001\n", "fec0:0000:0000:0000:0000:0000:0000:0001",
       GidKind::global},
      {"0000:0000:0000:0000:0000:ffff:c0a8:6401\n", "0000:0000:0000:0000:0000:ffff:c0a8:6401",
       GidKind::ipv4_mapped},
      {"0000:0000:0000:0000:0000:ffff:0a0b:0c01", "0000:0000:0000:0000:0000:ffff:0a0b:0c01",
       GidKind::ipv4_mapped},
      {"2001:0db8:0000:0000:0000:0000:0000:0001\n", "2001:0db8:0000:0000:0000:0000:0000:0001",
       GidKind::global},
      {"FE80:0000:0000:0000:BA59:9FFF:FEA1:B2C4\n", "fe80:0000:0000:0000:ba59:9fff:fea1:b2c4",
       GidKind::link_local},
      {"", std::nullopt, GidKind::invalid},
      {"\n", std::nullopt, GidKind::invalid},
      {"fe80::1\n", std::nullopt, GidKind::invalid},  // sysfs never compresses
      {"fe80:0000:0000:0000:ba59:9fff:fea1\n", std::nullopt, GidKind::invalid},
      {"fe80:0000:0000:0000:ba59:9fff:fea1:b2c4:0000\n", std::nullopt, GidKind::invalid},
      {"fe80-0000:0000:0000:ba59:9fff:fea1:b2c4\n", std::nullopt, GidKind::invalid},
      {"ge80:0000:0000:0000:ba59:9fff:fea1:b2c4\n", std::nullopt, GidKind::invalid},
      {"fe80:0000:0000:0000:ba59:9fff:fea1:b2c\n", std::nullopt, GidKind::invalid},
      {"fe80:000:00000:0000:ba59:9fff:fea1:b2c4\n", std::nullopt, GidKind::invalid},
      {" fe80:0000:0000:0000:ba59:9fff:fea1:b2c4\n", std::nullopt, GidKind::invalid},
      {"fe80:0000:0000:0000:ba59:9fff:fea1:b2c4\0"s, std::nullopt, GidKind::invalid},
      {"fe80:0000:0000:0000:ba59:9fff:fea1:b2\xc3\xa9", std::nullopt, GidKind::invalid},
      {std::string(200, 'f'), std::nullopt, GidKind::invalid},
  };
  for (const auto& c : cases) {
    INFO("input: " << escape_for_message(c.text));
    const auto r = parse_gid(c.text);
    REQUIRE(r.ok() == c.canonical.has_value());
    if (!c.canonical) {
      CHECK_THAT(r.error().message, Catch::Contains("not a GID") || Catch::Contains("too long"));
      CHECK(printable_ascii(r.error().message));
      continue;
    }
    CHECK(*r == *c.canonical);
    CHECK(classify_gid(*r) == c.kind);
  }
}

TEST_CASE("trim_attribute and parse_text_attribute", "[sysfs_parse]") {
  CHECK(trim_attribute("\n").empty());  // rxe fw_ver
  CHECK(trim_attribute("  16.35.2000 \n") == "16.35.2000");
  CHECK(trim_attribute("").empty());

  const std::pair<std::string, std::optional<std::string>> cases[] = {
      {"\n", ""},
      {"16.35.2000\n", "16.35.2000"},
      {"MT_0000000012\n", "MT_0000000012"},
      {"RoCE v2\n", "RoCE v2"},
      {"caf\xc3\xa9\n", "caf\xc3\xa9"},  // valid UTF-8 is kept
      {"a\0b\n"s, std::nullopt},
      {"a\x1b[2Jb\n", std::nullopt},         // terminal escape
      {"\xff\n", std::nullopt},              // invalid lead byte
      {"\xc3\n", std::nullopt},              // truncated sequence
      {"\xc0\xaf\n", std::nullopt},          // overlong '/'
      {"\xed\xa0\x80\n", std::nullopt},      // surrogate
      {"\xf4\x90\x80\x80\n", std::nullopt},  // > U+10FFFF
      {"\xc2\x85\n", std::nullopt},          // C1 control (NEL)
      {"a\tb\n", std::nullopt},
      {std::string(5000, 'a'), std::nullopt},
  };
  for (const auto& [text, expected] : cases) {
    INFO("input: " << escape_for_message(text));
    const auto r = parse_text_attribute(text);
    REQUIRE(r.ok() == expected.has_value());
    if (expected) {
      CHECK(*r == *expected);
    } else {
      CHECK(printable_ascii(r.error().message));
    }
  }
}

TEST_CASE("is_pci_address and is_valid_netdev_name", "[sysfs_parse]") {
  const std::pair<std::string, bool> pci[] = {
      {"0000:3b:00.0", true},   {"0000:af:00.1", true},  {"10000:01:00.0", true},
      {"ice.roce.0", false},    {"0000:3b:00.8", false}, {"0000:3b:00", false},
      {"000:3b:00.0", false},   {"0000:3b:0g.0", false}, {"", false},
      {"0000:3b:00.0x", false},
  };
  for (const auto& [name, ok] : pci) {
    INFO(name);
    CHECK(is_pci_address(name) == ok);
  }
  const std::pair<std::string, bool> ifnames[] = {
      {"ens1f0np0", true},
      {"bond0", true},
      {"vlan100", true},
      {"eth0.100", true},
      {"", false},
      {".", false},
      {"..", false},
      {"a/b", false},
      {"a:b", false},
      {"a b", false},
      {"a\nb", false},
      {"0123456789abcdef", false},
      {"0123456789abcde", true},
  };
  for (const auto& [name, ok] : ifnames) {
    INFO(escape_for_message(name));
    CHECK(is_valid_netdev_name(name) == ok);
  }
}

}  // namespace
}  // namespace rdmatop
