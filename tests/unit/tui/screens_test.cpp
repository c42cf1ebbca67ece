#include <algorithm>
#include <catch2/catch.hpp>

#include "tests/support/probe_samples.h"
#include "tests/support/text_search.h"
#include "tests/unit/tui/tui_test_support.h"
#include "tui/probe_panel.h"
#include "tui/screens.h"

using namespace rdmatop;
using rdmatop::test::contains;
using namespace rdmatop::tui;
using rdmatop::tui_test::add_port;
using rdmatop::tui_test::make_finding;

namespace {

std::shared_ptr<const PublishedTick> busy_report(double rx_per_second) {
  PublishedTick r;
  r.snapshot.hostname = "host-a";
  r.snapshot.sources.push_back(SourceStatus{"sysfs", "mlx5_0", SourceState::ok, "", {}});
  r.snapshot.sources.push_back(
      SourceStatus{"ethtool", "ens1f0np0", SourceState::error, "GSTATS: No such device", {}});
  add_port(r, "mlx5_0", 1, "ens1f0np0", "ACTIVE",
           {{"rdma_bytes_total", {{"direction", "rx"}}, RateState::ok, rx_per_second, 5},
            {"rdma_pfc_pause_seconds_total",
             {{"direction", "rx"}, {"priority", "3"}},
             RateState::ok,
             0.25,
             7},
            {"rdma_pfc_enabled", {{"priority", "3"}}, RateState::ok, 0, 1}});
  add_port(r, "mlx5_1", 1, "ens2f0np0", "DOWN", {});
  r.findings.push_back(make_finding("RdmaPfcPushbackFromNetwork", Severity::warning,
                                    FindingState::firing, "mlx5_0", "1", "network pauses us"));
  return std::make_shared<const PublishedTick>(std::move(r));
}

std::string text_of(const Frame& frame) {
  return frame_text(frame, 1000);
}

}  // namespace

TEST_CASE("header names the source, shows a failing source and the pause state", "[tui]") {
  tui::History h;
  h.push(busy_report(1e9));
  UiState state;
  state.paused = true;
  FrameContext ctx;
  ctx.source_label = "demo: pfc-storm";
  ctx.replay = true;
  const std::string text = text_of(render_frame(h, state, ctx));
  CHECK(contains(text, "host host-a"));
  CHECK(contains(text, "source: demo: pfc-storm"));
  CHECK(contains(text, "[REPLAY]"));
  CHECK(contains(text, "[PAUSED]"));
  CHECK(contains(text, "1 error (ethtool ens1f0np0: GSTATS: No such device)"));
  CHECK(contains(text, "1 warning"));
}

TEST_CASE("a long source path is elided from the left; the state markers stay on screen", "[tui]") {
  tui::History h;
  h.push(busy_report(1e9));
  UiState state;
  state.paused = true;
  FrameContext ctx;
  ctx.width = 100;
  ctx.source_label = "/a/very/long/checkout/path/tests/fixtures/hosts/mlx5/recording.rdmatop";
  const Frame frame = render_frame(h, state, ctx);
  const std::string first = line_text(frame.front(), 1000);
  INFO(first);
  CHECK(contains(first, "[PAUSED]"));
  CHECK(contains(first, "source: \u2026"));
  CHECK(first.ends_with("/recording.rdmatop"));
  CHECK(display_width(first) <= 100);
}

TEST_CASE("elide_left keeps the end and marks the cut", "[tui]") {
  CHECK(elide_left("abcdef", 6, "...") == "abcdef");
  CHECK(elide_left("abcdef", 5, "...") == "...ef");
  CHECK(elide_left("ab\u00e9cd", 4, "\u2026") == "\u2026\u00e9cd");
  CHECK(elide_left("abcdef", 2, "...") == "..");
}

TEST_CASE("batch frame: all ports and findings with evidence, no key bar", "[tui]") {
  tui::History h;
  h.push(busy_report(1e9));
  UiState state;
  const std::string text = text_of(render_frame(h, state, FrameContext{}));
  CHECK(contains(text, "mlx5_0/1"));
  CHECK(contains(text, "mlx5_1/1"));
  CHECK(contains(text, "RdmaPfcPushbackFromNetwork"));
  CHECK(contains(text, "evidence: rdma_cnp_sent_total"));
  CHECK(contains(text, "remediation: do the thing"));
  CHECK_FALSE(contains(text, "q:quit"));
  CHECK_FALSE(contains(text, "> mlx5"));  // no cursor in batch mode
}

TEST_CASE("interactive frame fills exactly the terminal, cursor marked", "[tui]") {
  tui::History h;
  h.push(busy_report(1e9));
  UiState state;
  FrameContext ctx;
  ctx.width = 80;
  ctx.height = 24;
  const Frame frame = render_frame(h, state, ctx);
  CHECK(frame.size() == 24);
  const std::string text = text_of(frame);
  CHECK(contains(text, "> mlx5_0/1"));
  CHECK(contains(text, "q:quit"));
  for (const Line& line : frame) CHECK(display_width(line_text(line, 80)) <= 80);
}

TEST_CASE("detail view: PFC table, GIDs, raw counters, sparklines", "[tui]") {
  tui::History h;
  for (double rx : {0.0, 5e8, 1e9}) h.push(busy_report(rx));
  UiState state;
  state.view = View::detail;
  FrameContext ctx;
  ctx.unicode = false;
  const std::string text = text_of(render_frame(h, state, ctx));
  CHECK(contains(text, "PORT mlx5_0/1"));
  CHECK(contains(text, "PFC PER PRIORITY"));
  CHECK(contains(text, "RX PAUSED"));
  CHECK(contains(text, "25%"));
  CHECK(contains(text, "GID TABLE"));
  CHECK(contains(text, "first routable RoCE v2") == false);  // hand-built report chose none
  CHECK(contains(text, "0000:0000:0000:0000:0000:ffff:c0a8:6401"));
  CHECK(contains(text, "hw_counters/np_cnp_sent"));
  CHECK(contains(text, "LAST 3 TICKS"));
  CHECK(contains(text, "_=#"));  // rx bytes 0, 0.5G, 1G in ASCII
  ctx.unicode = true;
  CHECK(contains(text_of(render_frame(h, state, ctx)), "\u2581\u2585\u2588"));
}

TEST_CASE("detail view scrolls and the scroll is clamped", "[tui]") {
  tui::History h;
  h.push(busy_report(1));
  UiState state;
  state.view = View::detail;
  state.detail_scroll = 100000;
  FrameContext ctx;
  ctx.width = 80;
  ctx.height = 24;
  const Frame frame = render_frame(h, state, ctx);
  CHECK(frame.size() == 24);
  CHECK(state.detail_scroll > 0);
  CHECK(state.detail_scroll < 100000);
}

TEST_CASE("help lists every key binding", "[tui]") {
  tui::History h;
  h.push(busy_report(1));
  UiState state;
  state.view = View::help;
  const std::string text = text_of(render_frame(h, state, FrameContext{}));
  for (const auto& [keys, meaning] : key_help()) {
    CHECK(contains(text, keys));
    CHECK(contains(text, meaning));
  }
}

TEST_CASE("the filter hides non-matching ports and findings", "[tui]") {
  tui::History h;
  h.push(busy_report(1));
  UiState state;
  state.filter = "mlx5_1";
  const std::string text = text_of(render_frame(h, state, FrameContext{}));
  CHECK(contains(text, "PORTS  1 of 2"));
  CHECK_FALSE(contains(text, "  mlx5_0/1"));
  CHECK(contains(text, "no finding matches the filter"));
}

TEST_CASE("cursors are clamped when the rows shrink", "[tui]") {
  tui::History h;
  h.push(busy_report(1));
  UiState state;
  state.port_cursor = 7;
  FrameContext ctx;
  ctx.height = 30;
  render_frame(h, state, ctx);
  CHECK(state.port_cursor == 1);
}

TEST_CASE("a narrow terminal drops the least telling port columns first", "[tui]") {
  tui::History h;
  h.push(busy_report(1e9));
  UiState state;
  FrameContext ctx;
  ctx.width = 80;
  ctx.height = 24;
  const std::string narrow = text_of(render_frame(h, state, ctx));
  CHECK(contains(narrow, "RX PAUSE"));
  CHECK(contains(narrow, "WORST FINDING"));
  CHECK_FALSE(contains(narrow, "NETDEV"));
  ctx.width = 200;
  const std::string wide = text_of(render_frame(h, state, ctx));
  CHECK(contains(wide, "NETDEV"));
  CHECK(contains(wide, "RATE"));
}

TEST_CASE("finding text wraps at the terminal width instead of running off", "[tui]") {
  PublishedTick r = *busy_report(1);
  r.findings[0].annotations = {
      {"summary", "short"},
      {"remediation", "check the host receive path and the switch watchdog configuration now"}};
  tui::History h;
  h.push(std::make_shared<const PublishedTick>(r));
  UiState state;
  state.panel = Panel::findings;
  FrameContext ctx;
  ctx.width = 40;
  ctx.height = 40;
  const Frame frame = render_frame(h, state, ctx);
  const std::string text = frame_text(frame, 40);
  CHECK(contains(text, "    remediation: check the host receive\n"));
  CHECK(contains(text, "      path and the switch watchdog\n"));
  CHECK(contains(text, "      configuration now\n"));
}

TEST_CASE("probe panel: streams with RTTs, loss, the TCP baseline and a down target", "[tui]") {
  tui::History h;
  h.push(std::make_shared<const PublishedTick>(test::two_probe_ticks()));
  UiState state;
  const std::string text = text_of(render_frame(h, state, FrameContext{}));
  CHECK(contains(text, " PROBES  3 streams  prober: 2 targets, 2 QPs"));
  const auto rows = probe_rows(*h.latest());
  REQUIRE(rows.size() == 3);
  const auto cell = [&](std::size_t row, const std::string& column) {
    const auto& cols = probe_columns();
    const auto at =
        static_cast<std::size_t>(std::find(cols.begin(), cols.end(), column) - cols.begin());
    return rows[row].cells.at(at);
  };
  // rc_send lost 10 of the interval's 100 probes: at the critical threshold.
  CHECK(cell(0, "STREAM").text == "rc_send tc=106");
  CHECK(cell(0, "LOSS").text == "10%");
  CHECK(cell(0, "LOSS").tone == Tone::crit);
  CHECK(cell(0, "P50").text == "3.0us");
  CHECK(cell(0, "P99").tone == Tone::normal);  // 8 us: inside the 1 ms objective
  CHECK(cell(0, "VS TCP").text == "0.10x");    // 3 us against TCP's 30 us
  CHECK(cell(0, "ERRORS").tone == Tone::warn);
  CHECK(cell(1, "STREAM").text == "tcp");
  CHECK(cell(1, "LOSS").tone == Tone::ok);
  CHECK(cell(2, "UP").text == "DOWN");
  CHECK(cell(2, "UP").tone == Tone::crit);
  CHECK(cell(2, "P50").text == "-");
}

TEST_CASE("no prober, no probe panel", "[tui]") {
  tui::History h;
  h.push(busy_report(1e9));
  UiState state;
  CHECK_FALSE(contains(text_of(render_frame(h, state, FrameContext{})), "PROBES"));
}
