// Table tests of the capture parsers for iproute2's rdma JSON, resource and QP counter mode
// outputs and for devlink (collector/capture/parse_rdma_statistic_json.cpp,
// parse_rdma_resource.cpp, parse_rdma_res_objects.cpp, parse_rdma_qp_mode.cpp,
// parse_devlink_info.cpp, parse_devlink_health.cpp; docs/capture.md). Each paste names where it
// was pasted; a JSON rendering no thread pasted is the plain paste beside it rendered as the
// iproute2 source named there prints it. Then the hostile shapes: prompts, CRLF, ANSI colours,
// cut last lines and cut JSON.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "collector/capture/capture_host.h"
#include "collector/capture/capture_text.h"
#include "tests/support/capture_read.h"

using namespace rdmatop;
using namespace rdmatop::capture;

namespace {

using IprRead = capture_test::CaptureRead;
constexpr auto ipr_read = capture_test::read_capture;
constexpr auto ipr_port_file = capture_test::capture_port_file;

std::optional<std::uint64_t> ipr_resource(const Facts& f, const std::string& dev,
                                          const std::string& name) {
  const auto d = f.devices.find(dev);
  if (d == f.devices.end()) return std::nullopt;
  const auto it = d->second.resources.find(name);
  if (it == d->second.resources.end()) return std::nullopt;
  return it->second;
}

std::optional<QpCounterMode> ipr_qp_mode(const Facts& f, const std::string& dev,
                                         std::uint32_t port) {
  const auto d = f.devices.find(dev);
  if (d == f.devices.end()) return std::nullopt;
  const auto p = d->second.ports.find(port);
  if (p == d->second.ports.end()) return std::nullopt;
  return p->second.qp_counter_mode;
}

const DevlinkHealthReporter* ipr_reporter(const Facts& f, const std::string& handle,
                                          const std::string& name) {
  const auto it = f.devlink.find(handle);
  if (it == f.devlink.end()) return nullptr;
  for (const DevlinkHealthReporter& r : it->second.reporters) {
    if (r.name == name) return &r;
  }
  return nullptr;
}

std::size_t ipr_ignored(const FileReport& r, const std::string& reason_part) {
  std::size_t n = 0;
  for (const auto& [reason, count] : r.log.ignored) {
    if (reason.find(reason_part) != std::string::npos) n += count;
  }
  return n;
}

constexpr auto ipr_check_accounting = capture_test::check_capture_accounting;

using Formats = std::vector<std::string>;

// sonic-net/sonic-buildimage#21891's receiver (`sudo rdma statistic`, the plain paste in
// tests/fixtures/real/sonic-21891-mlx5-receiver), as `rdma statistic show -j` prints the same
// port: iproute2 rdma/stat.c stat_show_parse_cb, print_string "ifname" and print_uint "port",
// then res_print_u64 per counter, one array for the dump (rdma.c new_json_obj).
constexpr const char* kStatJson =
    "[{\"ifname\":\"mlx5_0\",\"port\":1,\"rx_write_requests\":0,\"rx_read_requests\":0,"
    "\"rx_atomic_requests\":0,\"out_of_buffer\":1543,\"out_of_sequence\":0,"
    "\"duplicate_request\":0,\"rnr_nak_retry_err\":0}]\n";

// The same with -p (lib/json_writer.c jsonw_pretty: four blanks a level).
constexpr const char* kStatPretty =
    "[ {\n"
    "        \"ifname\": \"mlx5_0\",\n"
    "        \"port\": 1,\n"
    "        \"rx_write_requests\": 0,\n"
    "        \"out_of_buffer\": 1543,\n"
    "        \"rnr_nak_retry_err\": 0\n"
    "    } ]\n";

}  // namespace

TEST_CASE("capture rdma statistic -j / -p: the plain parser's hw_counters", "[capture]") {
  SECTION("-j after a prompt") {
    const auto r = ipr_read(std::string("$ rdma statistic show -j\n") + kStatJson);
    CHECK(r.report.formats == Formats{"rdma statistic -j"});
    CHECK(ipr_port_file(r.facts, "mlx5_0", 1, "hw_counters/out_of_buffer") == "1543");
    CHECK(ipr_port_file(r.facts, "mlx5_0", 1, "hw_counters/rx_write_requests") == "0");
    // ifname and port say where, they are no counters.
    CHECK(ipr_port_file(r.facts, "mlx5_0", 1, "hw_counters/port") == "<absent>");
    CHECK(ipr_port_file(r.facts, "mlx5_0", 1, "hw_counters/ifname") == "<absent>");
    CHECK(r.report.log.used == 1);
    ipr_check_accounting(r.report);
  }
  SECTION("-j gives exactly the facts of the plain rendering") {
    const auto plain = ipr_read(
        "sudo rdma statistic\nlink mlx5_0/1 rx_write_requests 0 rx_read_requests 0 "
        "rx_atomic_requests 0 out_of_buffer 1543 out_of_sequence 0\n duplicate_request 0 "
        "rnr_nak_retry_err 0\n");
    const auto json = ipr_read(kStatJson);
    CHECK(plain.report.formats == Formats{"rdma statistic"});
    CHECK(json.facts == plain.facts);
  }
  SECTION("-p, CRLF and ANSI colours (a Windows terminal's copy of a coloured `jq`)") {
    std::string text;
    for (const char c : std::string(kStatPretty)) {
      if (c == '\n') text += "\r";
      text.push_back(c);
    }
    const std::string coloured = "\x1b[1;39m" + text + "\x1b[0m";
    const auto r = ipr_read("# rdma -p statistic show\r\n" + coloured);
    CHECK(r.report.formats == Formats{"rdma statistic -j"});
    CHECK(ipr_port_file(r.facts, "mlx5_0", 1, "hw_counters/out_of_buffer") == "1543");
    CHECK(r.report.log.used == 7);
    ipr_check_accounting(r.report);
  }
  SECTION("a -p paste cut before its end is reported, nothing taken") {
    std::string cut(kStatPretty);
    cut.resize(cut.find("\"rnr_nak"));
    const auto r = ipr_read("$ rdma -p statistic show\n" + cut);
    CHECK(r.report.formats == Formats{"rdma statistic -j"});
    CHECK(r.facts.devices.empty());
    CHECK(r.report.log.used == 0);
    CHECK(ipr_ignored(r.report, "JSON cut before its end") == 5);
    ipr_check_accounting(r.report);
  }
  SECTION("damaged JSON is told from cut JSON") {
    const auto r = ipr_read("[{\"ifname\":\"mlx5_0\",\"port\":1,\"out_of_buffer\":15x43}]\n");
    CHECK(r.facts.devices.empty());
    CHECK(ipr_ignored(r.report, "JSON damaged at byte") == 1);
  }
  SECTION("a negative or fractional value is no counter") {
    const auto r = ipr_read("[{\"ifname\":\"mlx5_0\",\"port\":1,\"a\":-1,\"b\":1.5,\"c\":7}]\n");
    CHECK(ipr_port_file(r.facts, "mlx5_0", 1, "hw_counters/a") == "<absent>");
    CHECK(ipr_port_file(r.facts, "mlx5_0", 1, "hw_counters/b") == "<absent>");
    CHECK(ipr_port_file(r.facts, "mlx5_0", 1, "hw_counters/c") == "7");
  }
}

TEST_CASE("capture rdma statistic: iproute2 6.7's one counter a line", "[capture]") {
  // rdma/stat.c stat_show_parse_cb since iproute2 6.7: "link %s/" "%u ", then newline_indent
  // ("\n    ") and res_print_u64's "name" " value " per counter; the -j rendering beside it.
  const auto r = ipr_read(
      "$ rdma statistic show\nlink mlx5_0/1 \n    rx_write_requests 0 \n"
      "    out_of_buffer 1543 \n    rnr_nak_retry_err 0 \nlink mlx5_1/1 \n    out_of_buffer 7 \n"
      "    rnr_nak_retry_err");
  CHECK(r.report.formats == Formats{"rdma statistic"});
  CHECK(ipr_port_file(r.facts, "mlx5_0", 1, "hw_counters/out_of_buffer") == "1543");
  CHECK(ipr_port_file(r.facts, "mlx5_1", 1, "hw_counters/out_of_buffer") == "7");
  // The cut last counter lost its value: dropped.
  CHECK(ipr_port_file(r.facts, "mlx5_1", 1, "hw_counters/rnr_nak_retry_err") == "<absent>");
  const auto json = ipr_read(
      "[{\"ifname\":\"mlx5_0\",\"port\":1,\"rx_write_requests\":0,\"out_of_buffer\":1543,"
      "\"rnr_nak_retry_err\":0},{\"ifname\":\"mlx5_1\",\"port\":1,\"out_of_buffer\":7}]\n");
  CHECK(json.facts == r.facts);
  ipr_check_accounting(r.report);
}

TEST_CASE("capture rdma statistic: a bound QP counter is not the port's counters", "[capture]") {
  // `rdma statistic show` then `rdma statistic qp show` in one paste without a prompt between,
  // the counter as rdma/stat.c res_counter_line prints it (the man page's mlx5_2/1 cntn 4,
  // lqpn 178 and pid 30489).
  const auto r = ipr_read(
      "$ rdma statistic show link mlx5_2/1\n"
      "link mlx5_2/1 rx_write_requests 0 rx_read_requests 0 out_of_sequence 0\n"
      "link mlx5_2/1 cntn 4 qp-type RC pid 30489 comm ib_send_bw\n"
      "    rx_write_requests 12 rx_read_requests 3 out_of_sequence 1\n"
      "    LQPN: <178>\n");
  CHECK(r.report.formats == Formats{"rdma statistic"});
  CHECK(ipr_port_file(r.facts, "mlx5_2", 1, "hw_counters/out_of_sequence") == "0");
  CHECK(ipr_port_file(r.facts, "mlx5_2", 1, "hw_counters/rx_write_requests") == "0");
  CHECK(ipr_port_file(r.facts, "mlx5_2", 1, "hw_counters/cntn") == "<absent>");
  CHECK(ipr_port_file(r.facts, "mlx5_2", 1, "hw_counters/pid") == "<absent>");
  CHECK(ipr_ignored(r.report, "qp show counter") == 3);
  ipr_check_accounting(r.report);
}

TEST_CASE("capture rdma resource: the summary gives the devices' resources", "[capture]") {
  SECTION("`rdma res` with trailing blanks (ofiwg/libfabric#8256)") {
    const auto r = ipr_read(
        "```\n0: mlx5_0: pd 2 cq 3 qp 1 cm_id 0 mr 0 ctx 4027 srq 2 \n"
        "2: mlx5_2: pd 8056 cq 4030 qp 8053 cm_id 12079 mr 16159 ctx 4027 srq 2 \n```\n");
    CHECK(r.report.formats == Formats{"rdma resource"});
    CHECK(ipr_resource(r.facts, "mlx5_2", "qp") == 8053U);
    CHECK(ipr_resource(r.facts, "mlx5_2", "cm_id") == 12079U);
    CHECK(ipr_resource(r.facts, "mlx5_0", "ctx") == 4027U);
    CHECK(r.report.log.used == 2);
    ipr_check_accounting(r.report);
  }
  SECTION(
      "`rdma resource show` after a prompt, cut last line (linux-rdma, Chiara Meiohas's "
      "\"RDMA/nldev: Expose driver-specific QPs\" cover letter)") {
    const auto r = ipr_read(
        "$ rdma resource show\n0: ibp8s0f0: pd 3 cq 4 qp 3 cm_id 0 mr 0 ctx 0 srq 2\n"
        "1: ibp8s0f1: pd 3 cq 4 qp 3 cm_id 0 mr 0 ctx 0 srq");
    CHECK(ipr_resource(r.facts, "ibp8s0f0", "qp") == 3U);
    // The cut line is no record: nothing of it is taken.
    CHECK_FALSE(ipr_resource(r.facts, "ibp8s0f1", "qp").has_value());
    CHECK(r.report.log.used == 1);
    CHECK(r.report.log.ignored.at("not rdma resource output") == 1);
    ipr_check_accounting(r.report);
  }
  SECTION("-j (rdma/res.c res_no_args_parse_cb: ifindex, ifname, res_print_u64 per name)") {
    const auto r = ipr_read(
        "$ rdma -j resource\n[{\"ifindex\":0,\"ifname\":\"ibp8s0f0\",\"pd\":3,\"cq\":4,\"qp\":3,"
        "\"cm_id\":0,\"mr\":0,\"ctx\":0,\"srq\":2}]\n");
    CHECK(r.report.formats == Formats{"rdma resource"});
    CHECK(ipr_resource(r.facts, "ibp8s0f0", "srq") == 2U);
    CHECK_FALSE(ipr_resource(r.facts, "ibp8s0f0", "ifindex").has_value());
  }
  SECTION("rdma dev keeps its lines (openucx/ucx#11048): node_type is no count") {
    const auto r = ipr_read(
        "$ rdma dev\n0: bnxt_re0: node_type ca fw 231.0.154.0 node_guid 8e84:74ff:fe1f:2550 "
        "sys_image_guid 8e84:74ff:fe1f:2550\n");
    CHECK(r.report.formats == Formats{"rdma dev"});
  }
}

TEST_CASE("capture rdma resource show qp|cq|mr: rows count only as a whole dump", "[capture]") {
  // linux-rdma, Leon Romanovsky's "RDMA/core: Allow to create all QP types" (XRC QPs shown).
  const std::string rows =
      "link ibp0s9/1 lqpn 0 type SMI state RTS sq-psn 0 comm [ib_core]\n"
      "link ibp0s9/1 lqpn 1 type GSI state RTS sq-psn 0 comm [ib_core]\n"
      "link ibp0s9/1 lqpn 7 type UD state RTS sq-psn 0 comm [mlx5_ib]\n"
      "link ibp0s9/1 lqpn 42 type XRC_TGT state INIT sq-psn 0 path-mig-state MIGRATED comm "
      "[ib_uverbs]\n"
      "link ibp0s9/1 lqpn 43 type XRC_INI state INIT sq-psn 0 path-mig-state MIGRATED pdn 197 "
      "pid 419 comm ibv_xsrq_pingpong\n";
  SECTION("the whole dump under its prompt: the device's QPs in use") {
    const auto r =
        ipr_read("[leonro@vm ~]$ ibv_xsrq_pingpong &\n[leonro@vm ~]$ rdma res show qp\n" + rows);
    // A QP row also has "state": rdma link must not take it.
    CHECK(r.report.formats == Formats{"rdma resource qp|cq|mr"});
    CHECK(ipr_resource(r.facts, "ibp0s9", "qp") == 5U);
    CHECK(r.facts.devices.at("ibp0s9").ports.empty());  // no port state is made of a QP state
    CHECK(r.report.log.used == 5);
    ipr_check_accounting(r.report);
  }
  SECTION("a filtered dump counts nothing, and says why") {
    const auto r = ipr_read("$ rdma res show qp type SMI,GSI\n" + rows.substr(0, 130));
    CHECK_FALSE(ipr_resource(r.facts, "ibp0s9", "qp").has_value());
    CHECK(r.report.log.used == 0);
    CHECK(ipr_ignored(r.report, "not counted") == 2);
    ipr_check_accounting(r.report);
  }
  SECTION("rows without their command line count nothing") {
    const auto r = ipr_read(rows);
    CHECK(r.report.formats == Formats{"rdma resource qp|cq|mr"});
    CHECK(r.facts.devices.empty());
    CHECK(ipr_ignored(r.report, "no per-object rows or states") == 5);
  }
  SECTION("-dd adds the driver's own QPs, which the summary leaves out (Meiohas)") {
    const auto r = ipr_read(
        "$ rdma resource show qp -dd\n"
        "link ibp8s0f1/1 lqpn 465 type DRIVER subtype REG_UMR state RTS sq-psn 0 comm "
        "[mlx5_ib]\n");
    CHECK_FALSE(ipr_resource(r.facts, "ibp8s0f1", "qp").has_value());
  }
  SECTION(
      "a QP without a port and a CQ (netdev, Leon Romanovsky's \"rdma: Properly print "
      "device and link names in CLI output\"), with sudo and a cut last line") {
    const auto qp = ipr_read(
        "$ sudo rdma res show qp\nlink mlx5_0/- lqpn 1 type GSI state RTS sq-psn 0 comm "
        "[ib_core]\n");
    CHECK(ipr_resource(qp.facts, "mlx5_0", "qp") == 1U);
    const auto cq = ipr_read(
        "$ rdma res show cq\ndev rocep0s9 cqn 0 cqe 1023 users 2 poll-ctx WORKQUEUE "
        "adaptive-moderation on comm [ib_core]\ndev rocep0s9 cqn");
    CHECK(cq.report.formats == Formats{"rdma resource qp|cq|mr"});
    // The cut row still says one more CQ exists? No: it names no number, so it is no row.
    CHECK(ipr_resource(cq.facts, "rocep0s9", "cq") == 1U);
    CHECK(cq.report.log.ignored.at("not rdma resource output") == 1);
    ipr_check_accounting(cq.report);
  }
  SECTION("-j rows (rdma/res-qp.c res_qp_line under json: print_link's ifname, port)") {
    const auto r = ipr_read(
        "$ rdma -j res show qp\n[{\"ifindex\":0,\"ifname\":\"mlx5_0\",\"port\":1,\"lqpn\":1,"
        "\"type\":\"GSI\",\"state\":\"RTS\",\"sq-psn\":0,\"comm\":\"ib_core\"},{\"ifindex\":0,"
        "\"ifname\":\"mlx5_0\",\"port\":1,\"lqpn\":261,\"type\":\"UD\",\"state\":\"RTS\","
        "\"sq-psn\":0,\"comm\":\"ib_core\"}]\n");
    CHECK(r.report.formats == Formats{"rdma resource qp|cq|mr"});
    CHECK(ipr_resource(r.facts, "mlx5_0", "qp") == 2U);
    // The per-port objects of a QP dump carry "state": no port state comes of them.
    CHECK(r.facts.devices.at("mlx5_0").ports.empty());
  }
}

TEST_CASE("capture rdma statistic qp mode: auto mode with its criteria", "[capture]") {
  SECTION(
      "the first rendering (netdev, Mark Zhang's \"rdma: Add get per-port counter mode "
      "support\")") {
    const auto r = ipr_read(
        "$ rdma statistic qp mode\n0/1: mlx5_0/1: qp auto off\n1/1: mlx5_1/1: qp auto off\n"
        "2/1: mlx5_2/1: qp auto type on\n3/1: mlx5_3/1: qp auto off\n");
    CHECK(r.report.formats == Formats{"rdma statistic qp mode"});
    REQUIRE(ipr_qp_mode(r.facts, "mlx5_2", 1).has_value());
    CHECK(ipr_qp_mode(r.facts, "mlx5_2", 1)->mode == 1U);
    CHECK(ipr_qp_mode(r.facts, "mlx5_2", 1)->auto_mask == 1U);
    // "qp auto off" is none or manual: no mode is written for it, only that it is not auto.
    CHECK_FALSE(ipr_qp_mode(r.facts, "mlx5_0", 1).has_value());
    CHECK(r.facts.devices.at("mlx5_0").ports.at(1).qp_counter_not_auto);
    CHECK_FALSE(r.facts.devices.at("mlx5_2").ports.at(1).qp_counter_not_auto);
    CHECK(ipr_ignored(r.report, "mode not known") == 0);
    CHECK(r.report.log.used == 4);
    ipr_check_accounting(r.report);
  }
  SECTION(
      "today's rendering (rdma/stat.c qp_link_get_mode_parse_cb: print_link, \"mode\"), "
      "CRLF, colour") {
    const auto r = ipr_read(
        "# rdma statistic qp mode link mlx5_2/1\r\n"
        "link \x1b[1mmlx5_2/1\x1b[0m mode qp auto type,pid on optional-counters off\r\n");
    REQUIRE(ipr_qp_mode(r.facts, "mlx5_2", 1).has_value());
    CHECK(ipr_qp_mode(r.facts, "mlx5_2", 1)->auto_mask == 3U);
    // rdma statistic's detector does not take it as counters named "mode" and "qp".
    CHECK(r.report.formats == Formats{"rdma statistic qp mode"});
    CHECK(ipr_port_file(r.facts, "mlx5_2", 1, "hw_counters/mode") == "<absent>");
  }
  SECTION("-j, and a cut line") {
    const auto r = ipr_read(
        "[{\"ifindex\":2,\"ifname\":\"mlx5_2\",\"port\":1,\"mode\":\"qp auto pid on "
        "optional-counters on\"}]\n");
    REQUIRE(ipr_qp_mode(r.facts, "mlx5_2", 1).has_value());
    CHECK(ipr_qp_mode(r.facts, "mlx5_2", 1)->auto_mask == 2U);
    const auto cut = ipr_read("$ rdma statistic qp mode\nlink mlx5_2/1 mode qp auto type");
    CHECK_FALSE(ipr_qp_mode(cut.facts, "mlx5_2", 1).has_value());
    CHECK(ipr_ignored(cut.report, "mode not known") == 1);
  }
}

namespace {

// iproute2 commit 5937552b ("rdma: Add \"stat qp show\" support", Mark Zhang, 2019): its
// example as the mail archive wrapped it, the rest of the record at column 0. A 2019 kernel sent
// every counter's owner (nldev.c fill_res_counter_entry), so pid and comm say nothing of its mode.
constexpr const char* kQpShowMail =
    "$ rdma stat qp show\n"
    "link mlx5_2/1 cntn 5 pid 31609 comm client.1 rx_write_requests 0\n"
    "rx_read_requests 0 rx_atomic_requests 0 out_of_buffer 0 out_of_sequence 0\n"
    "duplicate_request 0 rnr_nak_retry_err 0 packet_seq_err 0\n"
    "implied_nak_seq_err 0 local_ack_timeout_err 0 resp_local_length_error 0\n"
    "resp_cqe_error 0 req_cqe_error 0 req_remote_invalid_request 0\n"
    "req_remote_access_errors 0 resp_remote_access_errors 0\n"
    "resp_cqe_flush_error 0 req_cqe_flush_error 0\n"
    "    LQPN: <178>\n";

// A counter of auto mode by type as iproute2 >= 6.7 prints it (res_get_hwcounters:
// newline_indent before every counter), the man page's mlx5_2/1, lqpn 178 and pid 30489.
constexpr const char* kQpShowAuto =
    "$ rdma statistic qp show\n"
    "link mlx5_2/1 cntn 4 qp-type RC pid 30489 comm ib_send_bw \n"
    "    rx_write_requests 12\n"
    "    out_of_sequence 1\n"
    "    LQPN: <178,179>\n";

const capture::PortFacts* qpc_port(const Facts& f, const std::string& dev, std::uint32_t port) {
  const auto d = f.devices.find(dev);
  if (d == f.devices.end()) return nullptr;
  const auto p = d->second.ports.find(port);
  return p == d->second.ports.end() ? nullptr : &p->second;
}

}  // namespace

TEST_CASE("capture rdma statistic qp show: the counters bound to QPs", "[capture]") {
  SECTION("the commit's example, wrapped by the mail archive") {
    const auto r = ipr_read(kQpShowMail);
    CHECK(r.report.formats == Formats{"rdma statistic qp show"});
    const capture::PortFacts* port = qpc_port(r.facts, "mlx5_2", 1);
    REQUIRE(port != nullptr);
    REQUIRE(port->bound_counters.size() == 1);
    const BoundCounter& c = port->bound_counters[0];
    CHECK(c.id == 5U);
    CHECK(c.pid == std::optional<std::uint32_t>(31609));
    CHECK(c.comm == "client.1");
    CHECK(c.kern_name.empty());
    CHECK_FALSE(c.qp_type.has_value());
    CHECK(c.mode == 0U);  // an owner alone does not tell auto by PID from manual
    CHECK(c.qpns == std::vector<std::uint32_t>{178});
    CHECK(c.hw_counters.size() == 18U);
    CHECK(c.hw_counters.at("req_cqe_flush_error") == 0U);
    // Its counters are the counter's, not the port's.
    CHECK(ipr_port_file(r.facts, "mlx5_2", 1, "hw_counters/rx_write_requests") == "<absent>");
    CHECK(r.facts.qp_counters_listed);  // `rdma stat qp show`: every counter of the host
    CHECK(r.report.log.used == 8U);
    ipr_check_accounting(r.report);
  }
  SECTION("6.7's one counter a line; a QP type means auto mode") {
    const auto r = ipr_read(kQpShowAuto);
    const capture::PortFacts* port = qpc_port(r.facts, "mlx5_2", 1);
    REQUIRE(port != nullptr);
    REQUIRE(port->bound_counters.size() == 1);
    const BoundCounter& c = port->bound_counters[0];
    CHECK(c.mode == 1U);
    CHECK(c.qp_type == std::optional<std::uint8_t>(2));  // IB_QPT_RC
    CHECK(c.qpns == std::vector<std::uint32_t>{178, 179});
    CHECK(c.hw_counters.at("rx_write_requests") == 12U);
    ipr_check_accounting(r.report);
  }
  SECTION("-j gives the plain rendering's counter (rdma/stat.c under json, \"lqpn\" array)") {
    const auto j = ipr_read(
        "$ rdma -j statistic qp show\n"
        "[{\"ifindex\":2,\"ifname\":\"mlx5_2\",\"port\":1,\"cntn\":4,\"qp-type\":\"RC\","
        "\"pid\":30489,\"comm\":\"ib_send_bw\",\"rx_write_requests\":12,"
        "\"out_of_sequence\":1,\"lqpn\":[178,179]}]\n");
    CHECK(j.report.formats == Formats{"rdma statistic qp show"});
    const auto plain = ipr_read(kQpShowAuto);
    REQUIRE(qpc_port(j.facts, "mlx5_2", 1) != nullptr);
    CHECK(qpc_port(j.facts, "mlx5_2", 1)->bound_counters ==
          qpc_port(plain.facts, "mlx5_2", 1)->bound_counters);
    CHECK(j.facts.qp_counters_listed);
  }
  SECTION("a manual counter of today's kernel: no type, no owner") {
    const auto r = ipr_read(
        "# rdma statistic qp show\nlink mlx5_2/1 cntn 4 \n    rx_write_requests 0\n"
        "    LQPN: <178>\n");
    REQUIRE(qpc_port(r.facts, "mlx5_2", 1) != nullptr);
    CHECK(qpc_port(r.facts, "mlx5_2", 1)->bound_counters.at(0).mode == 2U);
  }
  SECTION("a kernel user's counter: comm in brackets (rdma/res.c print_comm)") {
    const auto r = ipr_read(
        "$ rdma statistic qp show\nlink mlx5_0/1 cntn 2 comm [rds_rdma] \n"
        "    rx_write_requests 0\n    LQPN: <5>\n");
    REQUIRE(qpc_port(r.facts, "mlx5_0", 1) != nullptr);
    const BoundCounter& c = qpc_port(r.facts, "mlx5_0", 1)->bound_counters.at(0);
    CHECK(c.kern_name == "rds_rdma");
    CHECK(c.comm.empty());
  }
  SECTION("a filtered dump or one without its command line lists not every counter") {
    for (const std::string cmd :
         {"$ rdma statistic qp show link mlx5_2/1\n", "$ rdma statistic qp show | head\n", ""}) {
      const auto r = ipr_read(cmd +
                              "link mlx5_2/1 cntn 4 \n    rx_write_requests 0\n"
                              "    LQPN: <178>\n");
      CHECK(qpc_port(r.facts, "mlx5_2", 1)->bound_counters.size() == 1U);
      CHECK_FALSE(r.facts.qp_counters_listed);
    }
  }
  SECTION("a record cut before its QP list is not used, and the dump is not whole") {
    const auto r = ipr_read(
        "$ rdma statistic qp show\nlink mlx5_2/1 cntn 4 pid 3 comm a\n"
        "    rx_write_requests 0\n    rx_read_req");
    CHECK(qpc_port(r.facts, "mlx5_2", 1) == nullptr);
    CHECK_FALSE(r.facts.qp_counters_listed);
    CHECK(ipr_ignored(r.report, "not as the tool prints it") == 3);
    ipr_check_accounting(r.report);
  }
  SECTION("a whole dump that printed nothing: no counter on any port") {
    const auto r = ipr_read(
        "$ rdma statistic qp show\n$ rdma statistic qp mode\n"
        "link rxe0/1 mode qp auto off\n");
    CHECK(r.facts.qp_counters_listed);
    CHECK(r.report.formats == (Formats{"rdma statistic qp show", "rdma statistic qp mode"}));
    const auto json = ipr_read("$ rdma -j stat qp\n[]\n");
    CHECK(json.facts.qp_counters_listed);
    ipr_check_accounting(json.report);
  }
}

TEST_CASE("capture snapshot: qp mode and qp show tell none from manual", "[capture]") {
  const std::string link =
      "$ rdma link\nlink rxe0/1 state ACTIVE physical_state LINK_UP netdev eth0\n";
  const auto port_of = [](const std::string& text) {
    const auto set = assemble({{"s.txt", text, {}}});
    REQUIRE(set.captures.size() == 1);
    const Snapshot snap = build_snapshot(set.captures[0], set.files, set.host, 1);
    REQUIRE(snap.devices.size() == 1);
    REQUIRE(snap.devices[0].ports.size() == 1);
    return snap.devices[0].ports[0];
  };
  const std::string off = "$ rdma statistic qp mode\nlink rxe0/1 mode qp auto off\n";
  SECTION("auto off and no counter: none (core/counters.c rdma_counter_free)") {
    const PortSample p = port_of(link + off + "$ rdma statistic qp show\n");
    REQUIRE(p.qp_counter_mode.has_value());
    CHECK(p.qp_counter_mode->mode == 0U);
    CHECK(p.qp_counter_mode->auto_mask == 0U);
    CHECK(p.bound_counters.empty());
  }
  SECTION("auto off with a bound counter: manual") {
    const PortSample p = port_of(link + off +
                                 "$ rdma statistic qp show\nlink rxe0/1 cntn 1 \n"
                                 "    rx_write_requests 7\n    LQPN: <17>\n");
    REQUIRE(p.qp_counter_mode.has_value());
    CHECK(p.qp_counter_mode->mode == 2U);
    REQUIRE(p.bound_counters.size() == 1);
    CHECK(p.bound_counters[0].hw_counters.at("rx_write_requests") == 7U);
  }
  SECTION("auto off without the dump: the mode is not known") {
    CHECK_FALSE(port_of(link + off).qp_counter_mode.has_value());
  }
  SECTION("in auto mode every counter is an auto one") {
    const PortSample p = port_of(link +
                                 "$ rdma statistic qp mode\n"
                                 "link rxe0/1 mode qp auto pid on\n"
                                 "$ rdma statistic qp show\nlink rxe0/1 cntn 1 pid 40 comm a \n"
                                 "    LQPN: <17>\n");
    REQUIRE(p.qp_counter_mode.has_value());
    CHECK(p.qp_counter_mode->mode == 1U);
    REQUIRE(p.bound_counters.size() == 1);
    CHECK(p.bound_counters[0].mode == 1U);
  }
}

namespace {

// netdev, Jiri Pirko's "net/mlx5: Expose serial numbers in devlink info" (2025).
constexpr const char* kDevlinkInfo =
    "$ devlink dev info\n"
    "pci/0000:08:00.0:\n"
    "  driver mlx5_core\n"
    "  serial_number e4397f872caeed218000846daa7d2f49\n"
    "  board.serial_number MT2314XZ00YA\n"
    "  function.uid MT2314XZ00YAMLNXS0D0F0\n"
    "  versions:\n"
    "      fixed:\n"
    "        fw.psid MT_0000000894\n"
    "      running:\n"
    "        fw.version 28.41.1000\n"
    "        fw 28.41.1000\n"
    "      stored:\n"
    "        fw.version 28.41.1000\n"
    "        fw 28.41.1000\n"
    "auxiliary/mlx5_core.eth.0:\n"
    "  driver mlx5_core.eth\n";

}  // namespace

TEST_CASE("capture devlink dev info: versions, driver and serials", "[capture]") {
  SECTION("plain, with an auxiliary instance") {
    const auto r = ipr_read(kDevlinkInfo);
    CHECK(r.report.formats == Formats{"devlink dev info"});
    REQUIRE(r.facts.devlink.contains("pci/0000:08:00.0"));
    const DevlinkInfo& info = r.facts.devlink.at("pci/0000:08:00.0");
    CHECK(info.bus_name == "pci");
    CHECK(info.dev_name == "0000:08:00.0");
    CHECK(info.driver == "mlx5_core");
    CHECK(info.serial_number == "e4397f872caeed218000846daa7d2f49");
    CHECK(info.board_serial_number == "MT2314XZ00YA");
    CHECK(info.fixed.at("fw.psid") == "MT_0000000894");
    CHECK(info.running.at("fw.version") == "28.41.1000");
    CHECK(info.stored.at("fw") == "28.41.1000");
    CHECK(r.facts.devlink.at("auxiliary/mlx5_core.eth.0").driver == "mlx5_core.eth");
    // function.uid has no place in DevlinkInfo: listed, not invented somewhere.
    CHECK(ipr_ignored(r.report, "no place for") == 1);
    ipr_check_accounting(r.report);
  }
  SECTION("mlx5.rst's example, its handle indented like the driver line, a cut last line") {
    const auto r = ipr_read(
        "   $ devlink dev info pci/0000:00:06.0\n      pci/0000:00:06.0:\n      driver mlx5_core\n"
        "      versions:\n         fixed:\n            fw.psid MT_0000000009\n"
        "         running:\n            fw.version 16.26.0100\n         stored:\n"
        "            fw.version");
    const DevlinkInfo& info = r.facts.devlink.at("pci/0000:00:06.0");
    CHECK(info.running.at("fw.version") == "16.26.0100");
    CHECK(info.stored.empty());  // the cut value is not guessed
    CHECK(ipr_ignored(r.report, "without a value") == 1);
    ipr_check_accounting(r.report);
  }
  SECTION("-j gives the plain rendering's facts (devlink.c pr_out_info under json)") {
    const auto r = ipr_read(
        "$ devlink -j dev info\n{\"info\":{\"pci/0000:08:00.0\":{\"driver\":\"mlx5_core\","
        "\"serial_number\":\"e4397f872caeed218000846daa7d2f49\",\"board.serial_number\":"
        "\"MT2314XZ00YA\",\"function.uid\":\"MT2314XZ00YAMLNXS0D0F0\",\"versions\":{\"fixed\":"
        "{\"fw.psid\":\"MT_0000000894\"},\"running\":{\"fw.version\":\"28.41.1000\",\"fw\":"
        "\"28.41.1000\"},\"stored\":{\"fw.version\":\"28.41.1000\",\"fw\":\"28.41.1000\"}}},"
        "\"auxiliary/mlx5_core.eth.0\":{\"driver\":\"mlx5_core.eth\"}}}\n");
    const auto plain = ipr_read(kDevlinkInfo);
    CHECK(r.report.formats == Formats{"devlink dev info"});
    CHECK(r.facts.devlink == plain.facts.devlink);
  }
  SECTION("-j cut before its end") {
    const auto r = ipr_read("{\"info\":{\"pci/0000:08:00.0\":{\"driver\":\"mlx5_co\n");
    CHECK(r.report.formats == Formats{"devlink dev info"});
    CHECK(r.facts.devlink.empty());
    CHECK(ipr_ignored(r.report, "JSON cut before its end") == 1);
  }
}

TEST_CASE("capture devlink health: reporters with their counts", "[capture]") {
  SECTION(
      "an E810 port reporter in error, last_dump_time wrapped by the mail (netdev, "
      "\"ice: add fw and port health reporters\")") {
    const auto r = ipr_read(
        "$ devlink health\n\npci/0000:b1:00.3:\n  reporter fw\n"
        "    state healthy error 0 recover 0 auto_dump true\n  reporter port\n"
        "    state error error 1 recover 0 last_dump_date 2024-03-17\n"
        "\tlast_dump_time 09:29:29 auto_dump true\n");
    CHECK(r.report.formats == Formats{"devlink health"});
    const auto* port = ipr_reporter(r.facts, "pci/0000:b1:00.3", "port");
    REQUIRE(port != nullptr);
    CHECK(port->state == "error");
    CHECK(port->error_count == 1U);
    CHECK(port->recover_count == 0U);
    CHECK(port->auto_dump == true);
    CHECK_FALSE(port->last_dump_ts_ms.has_value());  // a local date, not ms since boot
    const auto* fw = ipr_reporter(r.facts, "pci/0000:b1:00.3", "fw");
    REQUIRE(fw != nullptr);
    CHECK(fw->state == "healthy");
    CHECK_FALSE(fw->auto_recover.has_value());
    ipr_check_accounting(r.report);
  }
  SECTION("errors that recovered (octeontx2.rst, Marvell RVU NPA reporters)") {
    const auto r = ipr_read(
        "~# devlink health\npci/0002:01:00.0:\n  reporter hw_npa_intr\n"
        "      state healthy error 2872 recover 2872 last_dump_date 2020-12-10 last_dump_time "
        "09:39:09 grace_period 0 auto_recover true auto_dump true\n  reporter hw_npa_gen\n"
        "      state healthy error 2872 recover 2872 last_dump_date 2020-12-11 last_dump_time "
        "04:43:04 grace_period 0 auto_recover true auto_dump true\n");
    const auto* intr = ipr_reporter(r.facts, "pci/0002:01:00.0", "hw_npa_intr");
    REQUIRE(intr != nullptr);
    CHECK(intr->error_count == 2872U);
    CHECK(intr->recover_count == 2872U);
    CHECK(intr->grace_period_ms == 0U);
    CHECK(intr->auto_recover == true);
  }
  SECTION(
      "a port's reporters, and the old \"name\" line (netdev, \"devlink: Add devlink "
      "health port reporters\"; Aya Levin's \"devlink: Fix inconsistency between command "
      "input and output\")") {
    const auto r = ipr_read(
        "$ devlink health show\npci/0000:00:0a.0:\n   reporter fw\n"
        "     state healthy error 0 recover 0 auto_dump true\npci/0000:00:0a.0/1:\n"
        "   reporter tx\n     state healthy error 0 recover 0 grace_period 500 auto_recover "
        "true auto_dump true\n$ devlink health show pci/0000:04:00.0 reporter tx\n"
        "pci/0000:04:00.0:\n   name tx\n     state healthy error 0 recover 0 grace_period 500 "
        "auto_recover true\n");
    const auto* tx = ipr_reporter(r.facts, "pci/0000:00:0a.0/1", "tx");
    REQUIRE(tx != nullptr);
    CHECK(tx->grace_period_ms == 500U);
    CHECK(r.facts.devlink.at("pci/0000:00:0a.0/1").dev_name == "0000:00:0a.0");
    REQUIRE(ipr_reporter(r.facts, "pci/0000:04:00.0", "tx") != nullptr);
    CHECK(ipr_reporter(r.facts, "pci/0000:04:00.0", "tx")->auto_recover == true);
  }
  SECTION("-p (pr_out_section_start \"health\", one array per handle) and a cut document") {
    const std::string pretty =
        "{\n    \"health\": {\n        \"pci/0000:2b:00.0\": [ {\n"
        "                \"reporter\": \"fw\",\n                \"state\": \"error\",\n"
        "                \"error\": 3,\n                \"recover\": 2,\n"
        "                \"auto_dump\": false\n            } ]\n    }\n}\n";
    const auto r = ipr_read("$ devlink -p health show\n" + pretty);
    CHECK(r.report.formats == Formats{"devlink health"});
    const auto* fw = ipr_reporter(r.facts, "pci/0000:2b:00.0", "fw");
    REQUIRE(fw != nullptr);
    CHECK(fw->state == "error");
    CHECK(fw->error_count == 3U);
    CHECK(fw->recover_count == 2U);
    CHECK(fw->auto_dump == false);
    const auto cut = ipr_read("$ devlink -p health show\n" + pretty.substr(0, 120));
    CHECK(cut.report.formats == Formats{"devlink health"});
    CHECK(cut.facts.devlink.empty());
    CHECK(cut.report.log.used == 0);
    ipr_check_accounting(cut.report);
  }
}

TEST_CASE("capture snapshot: rdma resource, qp mode and devlink reach the model", "[capture]") {
  // One host's session: the RDMA device, its netdev's PCI function (`ethtool -i`), the summary,
  // the QP counter mode and devlink (the shapes of the pastes above).
  const auto set =
      assemble({{"session.txt",
                 "$ rdma link\nlink mlx5_0/1 state ACTIVE physical_state LINK_UP "
                 "netdev eth2\n"
                 "$ ethtool -i eth2\ndriver: mlx5_core\nbus-info: 0000:08:00.0\n"
                 "$ rdma resource\n0: mlx5_0: pd 3 cq 4 qp 3 cm_id 0 mr 0 ctx 0 srq 2\n"
                 "$ rdma statistic qp mode\n"
                 "link mlx5_0/1 mode qp auto type on optional-counters off\n" +
                     std::string(kDevlinkInfo) +
                     "$ devlink health\npci/0000:08:00.0:\n  reporter fw_fatal\n"
                     "    state error error 1 recover 0 grace_period 1200000 "
                     "auto_recover true\npci/0000:08:00.0/65535:\n  reporter tx\n"
                     "    state healthy error 0 recover 0\n",
                 {}}});
  REQUIRE(set.captures.size() == 1);
  const Snapshot snap = build_snapshot(set.captures[0], set.files, set.host, 1);
  REQUIRE(snap.devices.size() == 1);
  const DeviceSample& dev = snap.devices[0];
  CHECK(dev.resources.at("qp") == 3U);
  CHECK(dev.resources.at("srq") == 2U);
  REQUIRE(dev.ports.size() == 1);
  REQUIRE(dev.ports[0].qp_counter_mode.has_value());
  CHECK(dev.ports[0].qp_counter_mode->mode == 1U);
  CHECK(dev.ports[0].qp_counter_mode->auto_mask == 1U);
  REQUIRE(dev.devlink.has_value());
  CHECK(dev.devlink->dev_name == "0000:08:00.0");
  CHECK(dev.devlink->running.at("fw.version") == "28.41.1000");
  // The instance's reporter and its port's, as collect_devlink joins them.
  REQUIRE(dev.devlink->reporters.size() == 2);
  CHECK(dev.devlink->reporters[0].name == "fw_fatal");
  CHECK(dev.devlink->reporters[0].error_count == 1U);
  CHECK(dev.devlink->reporters[1].name == "tx");
  bool devlink_ok = false;
  for (const auto& st : snap.sources) {
    if (st.source == "devlink" && st.target == "mlx5_0") devlink_ok = st.state == SourceState::ok;
  }
  CHECK(devlink_ok);

  SECTION("without a PCI address in the files, the instance is not guessed onto the device") {
    const auto bare = assemble(
        {{"b.txt",
          "$ rdma link\nlink mlx5_0/1 state ACTIVE netdev eth2\n" + std::string(kDevlinkInfo),
          {}}});
    const Snapshot s = build_snapshot(bare.captures[0], bare.files, bare.host, 1);
    REQUIRE(s.devices.size() == 1);
    CHECK_FALSE(s.devices[0].devlink.has_value());
    bool said = false;
    for (const auto& st : s.sources) {
      said = said || (st.source == "devlink" && st.state == SourceState::no_data &&
                      st.message.find("no PCI address") != std::string::npos);
    }
    CHECK(said);
  }
  SECTION("a reporter that counted an error since makes a second capture") {
    const auto two =
        assemble({{"before.txt",
                   "pci/0000:08:00.0:\n  reporter fw\n    state healthy error 0 recover 0\n",
                   {}},
                  {"after.txt",
                   "pci/0000:08:00.0:\n  reporter fw\n    state error error 1 recover 0\n",
                   {}}});
    CHECK(two.captures.size() == 2);
  }
  SECTION("without these pastes nothing is set and no devlink status is made up") {
    const auto plain = assemble({{"link.txt", "link mlx5_0/1 state ACTIVE netdev eth0\n", {}}});
    const Snapshot s = build_snapshot(plain.captures[0], plain.files, plain.host, 1);
    CHECK(s.devices[0].resources.empty());
    CHECK_FALSE(s.devices[0].ports[0].qp_counter_mode.has_value());
    for (const auto& st : s.sources) CHECK(st.source != "devlink");
  }
}
