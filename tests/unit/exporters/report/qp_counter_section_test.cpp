// QP counters in the outputs: the report's QP COUNTERS section (text and JSON), the series the
// exporter serves for them, and the driver knowledge behind them (which drivers bind, which
// raw name is which canonical counter).
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <string>

#include "collector/normalize/qp_counter_series.h"
#include "exporters/report/qp_counter_section.h"
#include "exporters/report/report_render.h"
#include "tests/support/report_of.h"

using namespace rdmatop;
using test::exposition_of;
using test::report_of;

namespace {

/// mlx5_0/1 in auto mode by PID with two bound counters (one of a process, one bound by hand),
/// rxe0/1 read (mode none), and the process that owns the first counter.
Snapshot snapshot_with_qp_counters() {
  Snapshot s;
  DeviceSample mlx5;
  mlx5.name = "mlx5_0";
  mlx5.driver = "mlx5";
  PortSample p1;
  p1.port = 1;
  p1.qp_counter_mode = QpCounterMode{1, 2};
  p1.bound_counters = {
      BoundCounter{
          4,
          1,
          std::nullopt,
          4321,
          "",
          "ib_write_bw",
          {418, 419},
          {{"local_ack_timeout_err", 1203}, {"packet_seq_err", 88}, {"rx_read_requests", 7}}},
      BoundCounter{9, 2, std::nullopt, std::nullopt, "", "", {500}, {{"out_of_sequence", 3}}}};
  mlx5.ports = {p1};
  DeviceSample rxe;
  rxe.name = "rxe0";
  rxe.driver = "rxe";
  PortSample p2;
  p2.port = 1;
  p2.qp_counter_mode = QpCounterMode{0, 0};
  rxe.ports = {p2};
  s.devices = {mlx5, rxe};
  s.sources.push_back(SourceStatus{"netlink-qp-counters", "mlx5_0/1", SourceState::ok, "", {}});
  s.sources.push_back(SourceStatus{"netlink-qp-counters", "rxe0/1", SourceState::ok, "", {}});
  return s;
}

std::string line_with(const std::string& text, const std::string& needle) {
  const auto at = text.find(needle);
  if (at == std::string::npos) return "";
  const auto begin = text.rfind('\n', at) + 1;
  return text.substr(begin, text.find('\n', at) - begin);
}

}  // namespace

TEST_CASE("which drivers bind, and raw names as canonical counters", "[report][qp_counters]") {
  CHECK(binds_qp_counters("mlx5") == true);
  CHECK(binds_qp_counters("rxe") == false);
  CHECK(binds_qp_counters("bnxt_re") == false);
  CHECK(binds_qp_counters("irdma") == false);
  CHECK_FALSE(binds_qp_counters("efa").has_value());
  CHECK(canonical_series_of(DriverFamily::mlx5, "local_ack_timeout_err") ==
        "rdma_ack_timeouts_total");
  CHECK(canonical_series_of(DriverFamily::mlx5, "out_of_sequence") == "rdma_out_of_sequence_total");
  CHECK(canonical_series_of(DriverFamily::rxe, "completer_retry_err") == "rdma_retransmits_total");
  CHECK(canonical_series_of(DriverFamily::rxe, "local_ack_timeout_err").empty());
  CHECK(canonical_series_of(DriverFamily::mlx5, "no_such_counter").empty());
}

TEST_CASE("QP COUNTERS text: modes, bound counters with owner and key counters, cannot-bind",
          "[report][qp_counters]") {
  const PublishedTick report = report_of(snapshot_with_qp_counters());
  REQUIRE(render_report_text(report).find("\nQP COUNTERS\n") != std::string::npos);
  const std::string text = render_qp_counter_text(report);
  INFO(text);
  CHECK(line_with(text, "  mlx5_0/1  auto (pid)").find("  2") != std::string::npos);
  CHECK(line_with(text, "  rxe0/1 ").find("none") != std::string::npos);
  CHECK(line_with(text, "  rxe0/1 ").find("driver rxe cannot bind QP counters") !=
        std::string::npos);
  const std::string owned = line_with(text, "ib_write_bw");
  CHECK(owned.find("4321") != std::string::npos);
  CHECK(owned.find("418,419") != std::string::npos);
  CHECK(owned.find("1203") != std::string::npos);  // ACK TIMEOUTS
  CHECK(owned.find("88") != std::string::npos);    // SEQ NAKS
  const std::string manual = line_with(text, "  500  ");
  REQUIRE_FALSE(manual.empty());
  CHECK(manual.find("mlx5_0/1  9     -") != std::string::npos);  // no owner named
}

TEST_CASE("QP COUNTERS JSON: per port, null where absent; no section when not read",
          "[report][qp_counters]") {
  const auto doc =
      nlohmann::json::parse(render_report_json(report_of(snapshot_with_qp_counters())));
  REQUIRE(doc.contains("qp_counters"));
  const auto& ports = doc["qp_counters"];
  REQUIRE(ports.size() == 2);
  CHECK(ports[0]["device"] == "mlx5_0");
  CHECK(ports[0]["mode"] == "auto (pid)");
  CHECK(ports[0]["auto_mask"] == 2);
  CHECK(ports[0]["driver_binds_counters"] == true);
  const auto& c = ports[0]["bound_counters"][0];
  CHECK(c["id"] == 4);
  CHECK(c["pid"] == 4321);
  CHECK(c["owner"] == "ib_write_bw");
  CHECK(c["qpns"] == nlohmann::json::array({418, 419}));
  CHECK(c["key_counters"]["ack_timeouts"] == 1203);
  CHECK(c["key_counters"]["retransmits"].is_null());  // mlx5 has no such raw counter
  CHECK(c["hw_counters"]["rx_read_requests"] == 7);
  CHECK(ports[0]["bound_counters"][1]["owner"].is_null());
  CHECK(ports[1]["driver_binds_counters"] == false);
  CHECK(ports[1]["bound_counters"].empty());

  Snapshot unread = snapshot_with_qp_counters();
  unread.sources.clear();
  for (auto& d : unread.devices) {
    for (auto& p : d.ports) {
      p.qp_counter_mode.reset();
      p.bound_counters.clear();
    }
  }
  const PublishedTick report = report_of(unread);
  CHECK_FALSE(nlohmann::json::parse(render_report_json(report)).contains("qp_counters"));
  CHECK(render_report_text(report).find("QP COUNTERS") == std::string::npos);
}

TEST_CASE("QP COUNTERS: a kernel that rejects the request is the port's note",
          "[report][qp_counters]") {
  Snapshot s = snapshot_with_qp_counters();
  s.devices[1].ports[0].qp_counter_mode.reset();
  s.sources[1] = SourceStatus{"netlink-qp-counters",
                              "rxe0/1",
                              SourceState::no_data,
                              "not supported: RDMA_NLDEV_CMD_STAT_GET: Invalid argument",
                              {}};
  const std::string text = render_qp_counter_text(report_of(s));
  INFO(text);
  const std::string rxe = line_with(text, "  rxe0/1 ");
  CHECK(rxe.find("  -  ") != std::string::npos);
  CHECK(rxe.find("not supported: RDMA_NLDEV_CMD_STAT_GET: Invalid argument") != std::string::npos);
}

TEST_CASE("exporter: QP counter series by port, counter id and owner, with their help",
          "[exporter][qp_counters]") {
  const std::string out = exposition_of(snapshot_with_qp_counters());
  INFO(out);
  CHECK(out.find("rdma_port_qp_counter_mode{device=\"mlx5_0\",port=\"1\"} 1\n") !=
        std::string::npos);
  CHECK(out.find("rdma_port_qp_counter_auto_mask{device=\"mlx5_0\",port=\"1\"} 2\n") !=
        std::string::npos);
  CHECK(out.find("rdma_port_bound_counters{device=\"rxe0\",port=\"1\"} 0\n") != std::string::npos);
  CHECK(out.find("rdma_bound_counter_qps{comm=\"ib_write_bw\",counter_id=\"4\",device=\"mlx5_0\","
                 "pid=\"4321\",port=\"1\"} 2\n") != std::string::npos);
  CHECK(out.find("rdma_bound_counter_hw_total{comm=\"ib_write_bw\",counter_id=\"4\","
                 "device=\"mlx5_0\",hw_counter=\"local_ack_timeout_err\",pid=\"4321\","
                 "port=\"1\"} 1203\n") != std::string::npos);
  CHECK(out.find("rdma_bound_counter_qps{comm=\"\",counter_id=\"9\",device=\"mlx5_0\",pid=\"\","
                 "port=\"1\"} 1\n") != std::string::npos);
  CHECK(out.find("# TYPE rdma_bound_counter_hw_total counter\n") != std::string::npos);
  CHECK(out.find("# HELP rdma_port_qp_counter_mode QP counter mode of the port") !=
        std::string::npos);
}
