#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>

#include "exporters/report/probe_section.h"
#include "exporters/report/report_render.h"
#include "tests/support/probe_samples.h"

using namespace rdmatop;

using test::two_probe_ticks;

TEST_CASE("probe views: loss over the interval and the TCP baseline", "[report][probe]") {
  const PublishedTick report = two_probe_ticks();
  const auto views = probe_stream_views(report);
  REQUIRE(views.size() == 3);
  // rc_send: 100 sent and 10 timed out in the 10 s interval.
  REQUIRE(views[0].interval_loss.has_value());
  CHECK(*views[0].interval_loss == Approx(0.1));
  CHECK(views[0].sent_rate.per_second == Approx(10));
  CHECK(views[0].retransmit_rate.per_second == Approx(1));
  REQUIRE(views[0].tcp_baseline != nullptr);
  CHECK(views[0].tcp_baseline->transport == "tcp");
  CHECK(views[1].tcp_baseline == nullptr);  // TCP is the baseline itself
  // Nothing sent to the unreachable target: no loss to show at all.
  CHECK_FALSE(views[2].interval_loss.has_value());
  CHECK_FALSE(shown_loss(views[2]).has_value());
  // A single snapshot has no interval: the loss since the prober started is shown.
  const PublishedTick single =
      build_tick(nullptr, make_observation(test::probed_snapshot(200, 190, {})));
  const auto first_views = probe_stream_views(single);
  CHECK_FALSE(first_views[0].interval_loss.has_value());
  CHECK(shown_loss(first_views[0]) == Approx(0.05));
}

TEST_CASE("text report: a PROBES section next to the TCP baseline", "[report][probe]") {
  const std::string text = render_report_text(two_probe_ticks());
  REQUIRE(text.find("\nPROBES\n") != std::string::npos);
  CHECK(text.find("prober: 2 targets, 2 QPs") != std::string::npos);
  const auto line_of = [&](const std::string& needle) {
    const auto at = text.find(needle);
    REQUIRE(at != std::string::npos);
    return text.substr(at, text.find('\n', at) - at);
  };
  const std::string rc = line_of("rc_send tc=106");
  CHECK(rc.find("3.0us") != std::string::npos);    // p50
  CHECK(rc.find("2.50ms") != std::string::npos);   // max
  CHECK(rc.find("0.10x") != std::string::npos);    // p50 3 us vs TCP 30 us
  CHECK(rc.find(" 10% ") != std::string::npos);    // interval loss
  CHECK(rc.find("10 (qp)") != std::string::npos);  // retransmits with scope
  CHECK(rc.find("transport retry counter exceeded: 2") != std::string::npos);
  CHECK(line_of("rc_write").find("DOWN") != std::string::npos);
  CHECK(text.find("last error 10.0.0.9 rc_write: rdma_resolve_route: No route to host") !=
        std::string::npos);
}

TEST_CASE("JSON report: probes member only when a prober ran", "[report][probe]") {
  const auto doc = nlohmann::json::parse(render_report_json(two_probe_ticks()));
  REQUIRE(doc.contains("probes"));
  const auto& streams = doc["probes"]["streams"];
  REQUIRE(streams.size() == 3);
  CHECK(streams[0]["transport"] == "rc_send");
  CHECK(streams[0]["traffic_class"] == 106);
  CHECK(streams[0]["rtt"]["p99"] == 8e-6);
  CHECK(streams[0]["timeouts"] == 10);
  CHECK(streams[0]["retransmit_scope"] == "qp");
  CHECK(streams[0]["wc_errors"]["transport retry counter exceeded"] == 2);
  CHECK(streams[0]["interval_loss_ratio"].get<double>() == Approx(0.1));
  CHECK(streams[0]["tcp_baseline"]["rtt"]["p50"] == 30e-6);
  CHECK(streams[1]["tcp_baseline"].is_null());
  CHECK(streams[2]["rtt"].is_null());
  CHECK(streams[2]["retransmits"].is_null());
  CHECK(doc["probes"]["prober"]["registered_bytes"] == 131072);
  const auto plain = nlohmann::json::parse(render_report_json(build_tick(nullptr, {})));
  CHECK_FALSE(plain.contains("probes"));
  CHECK(render_report_text(build_tick(nullptr, {})).find("PROBES") == std::string::npos);
}

TEST_CASE("report: why retransmits are port-level, once per reason", "[report][probe]") {
  Snapshot snap = test::probed_snapshot(100, 100, std::chrono::seconds(10));
  const std::string refused = "rxe0/1: driver cannot bind QP counters or has none left (ENOMEM)";
  for (const char* target : {"10.0.0.3", "10.0.0.4"}) {
    ProbeTargetSample p = test::probe_stream(target, "rc_send", 10, 10);
    p.retransmits = 0;
    p.retransmit_scope = "port";
    p.retransmit_note = refused;
    snap.probes.push_back(p);
  }
  ProbeTargetSample off = test::probe_stream("10.0.0.5", "rc_send", 10, 10);
  off.retransmits = 0;
  off.retransmit_scope = "port";
  off.retransmit_note = "QP counter binding off";
  snap.probes.push_back(off);
  const PublishedTick report = build_tick(nullptr, make_observation(snap));

  const std::string text = render_report_text(report);
  CHECK(text.find("retransmits port-level for 2 streams: " + refused + "\n") != std::string::npos);
  CHECK(text.find("retransmits port-level for 1 stream: QP counter binding off\n") !=
        std::string::npos);
  CHECK(text.find(refused, text.find(refused) + 1) == std::string::npos);  // said once

  const auto doc = nlohmann::json::parse(render_report_json(report));
  const auto& streams = doc["probes"]["streams"];
  REQUIRE(streams.size() == 6);
  CHECK(streams[0]["retransmit_scope"] == "qp");
  CHECK(streams[0]["retransmit_note"] == "");
  CHECK(streams[3]["retransmit_note"] == refused);
  CHECK(streams[5]["retransmit_note"] == "QP counter binding off");
}
