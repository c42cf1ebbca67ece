#include "probes/targets.h"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

namespace rdmatop::probes {
namespace {

namespace fs = std::filesystem;

TEST_CASE("endpoints parse host, port and bracketed IPv6", "[probes][targets]") {
  struct Row {
    const char* text;
    const char* host;
    std::uint16_t port;
  };
  for (const Row& r :
       {Row{"10.0.0.2", "10.0.0.2", 19875}, Row{"10.0.0.2:18515", "10.0.0.2", 18515},
        Row{"  host-a.example  ", "host-a.example", 19875}, Row{"[fd00::2]:7000", "fd00::2", 7000},
        Row{"[fd00::2]", "fd00::2", 19875}, Row{"fe80::1%eth0", "fe80::1%eth0", 19875}}) {
    INFO(r.text);
    const auto ep = parse_endpoint(r.text, kDefaultProbePort);
    REQUIRE(ep.ok());
    CHECK(ep->host == r.host);
    CHECK(ep->port == r.port);
  }
  for (const char* bad : {"", "   ", ":80", "h:0", "h:65536", "h:-1", "h:80x", "[fd00::2", "[::1]x",
                          "h;rm", "h\xff", "[]:80", "h:"}) {
    INFO(bad);
    const auto ep = parse_endpoint(bad, kDefaultProbePort);
    REQUIRE_FALSE(ep.ok());
    CHECK_FALSE(ep.error().message.empty());
  }
}

TEST_CASE("transport lists", "[probes][targets]") {
  auto kinds = parse_transport_list("rc_send,tcp,rc_send");
  REQUIRE(kinds.ok());
  CHECK(*kinds == std::vector<TransportKind>{TransportKind::rc_send, TransportKind::tcp});
  CHECK(parse_transport_list("rc_write").value() ==
        std::vector<TransportKind>{TransportKind::rc_write});
  for (const char* bad : {"", "udp", "rc_send,", "rc_send,,tcp", "RC_SEND"}) {
    INFO(bad);
    CHECK_FALSE(parse_transport_list(bad).ok());
  }
}

TEST_CASE("plain target files: comments, blanks, located errors", "[probes][targets]") {
  const auto list = parse_target_text(
      "# pod 3\n"
      "10.0.0.2\n"
      "\n"
      "10.0.0.3:19000   # rack b\n"
      "bad host\n"
      "10.0.0.4:99999\n"
      "10.0.0.2\n"
      "\t[fd00::5]:1\n",
      "mesh.txt");
  REQUIRE(list.targets.size() == 3);
  CHECK(list.targets[0].target == "10.0.0.2");
  CHECK(list.targets[0].endpoint.port == kDefaultProbePort);
  CHECK(list.targets[1].target == "10.0.0.3:19000");
  CHECK(list.targets[1].endpoint.port == 19000);
  CHECK(list.targets[2].endpoint.host == "fd00::5");
  CHECK(list.targets[0].group.empty());
  REQUIRE(list.errors.size() == 3);
  CHECK(list.errors[0].rfind("mesh.txt:5: ", 0) == 0);
  CHECK(list.errors[1].rfind("mesh.txt:6: bad port", 0) == 0);
  CHECK(list.errors[2] == "mesh.txt:7: duplicate target \"10.0.0.2\"");
  CHECK_FALSE(list.unreadable);
  CHECK(parse_target_text("", "e").targets.empty());
  CHECK(parse_target_text("\x01\x02\xfe", "g").errors.size() == 1);
}

TEST_CASE("YAML target files with groups and per-group options", "[probes][targets]") {
  const auto list = parse_target_yaml(R"(defaults:
  port: 19000
  rate: 2
groups:
  - name: tor-a
    rate: 10
    transports: [rc_send, tcp]
    tclass: [0, 106]
    targets:
      - 10.0.1.2
      - 10.0.1.3:7000
  - name: pod-3
    targets: [10.0.3.2]
  - name: broken
    tclass: 300
    targets: [10.0.4.2, "bad host"]
  - targets: [10.0.5.2]
  - name: extra
    colour: blue
    targets: [10.0.6.2]
)",
                                      "mesh.yaml");
  REQUIRE(list.targets.size() == 5);
  const auto& a = list.targets[0];
  CHECK(a.group == "tor-a");
  CHECK(a.endpoint.port == 19000);
  CHECK(a.rate == 10.0);
  CHECK(a.transports == std::vector<TransportKind>{TransportKind::rc_send, TransportKind::tcp});
  CHECK(a.traffic_classes == std::vector<std::uint32_t>{0, 106});
  CHECK(list.targets[1].endpoint.port == 7000);
  const auto& p = list.targets[2];
  CHECK(p.group == "pod-3");
  CHECK(p.rate == 2.0);
  CHECK(p.transports.empty());
  CHECK(list.targets[3].target == "10.0.4.2");
  CHECK(list.targets[3].traffic_classes.empty());
  CHECK(list.targets[4].group == "extra");
  REQUIRE(list.errors.size() == 4);
  CHECK(list.errors[0] == "mesh.yaml:15: bad value for \"tclass\"");
  CHECK(list.errors[1].rfind("mesh.yaml:16: invalid character", 0) == 0);
  CHECK(list.errors[2] == "mesh.yaml:17: group without a \"name\"");
  CHECK(list.errors[3] == "mesh.yaml:19: unknown key \"colour\"");
}

TEST_CASE("broken YAML is unreadable as a whole, with its line", "[probes][targets]") {
  const auto list = parse_target_yaml("groups:\n  - name: [unclosed\n", "m.yaml");
  CHECK(list.unreadable);
  REQUIRE(list.errors.size() == 1);
  CHECK(list.errors[0].rfind("m.yaml:", 0) == 0);
  CHECK(parse_target_yaml("- just\n- a list\n", "l.yaml").unreadable);
  const auto flat = parse_target_file("targets: [10.0.0.9]\n", "flat.yml");
  REQUIRE(flat.targets.size() == 1);
  CHECK(flat.targets[0].target == "10.0.0.9");
}

TEST_CASE("a watched target file reloads only on real changes", "[probes][targets]") {
  const fs::path dir =
      fs::temp_directory_path() / ("rdmatop-targets-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path file = dir / "mesh.txt";
  const auto write = [&](const std::string& text) { std::ofstream(file, std::ios::trunc) << text; };
  TargetFile watched(file.string());
  auto first = watched.poll();  // missing file
  REQUIRE(first.has_value());
  CHECK(first->unreadable);
  CHECK_FALSE(watched.poll().has_value());  // reported once
  write("10.0.0.2\n");
  auto loaded = watched.poll();
  REQUIRE(loaded.has_value());
  CHECK(loaded->targets.size() == 1);
  CHECK_FALSE(watched.poll().has_value());
  // Same bytes rewritten with a new mtime: the hash says nothing changed.
  fs::last_write_time(file, fs::last_write_time(file) + std::chrono::seconds(5));
  CHECK_FALSE(watched.poll().has_value());
  write("10.0.0.2\n10.0.0.3\n");
  auto changed = watched.poll();
  REQUIRE(changed.has_value());
  CHECK(changed->targets.size() == 2);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace rdmatop::probes
