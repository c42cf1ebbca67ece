#include <catch2/catch.hpp>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "tests/unit/tui/tui_test_support.h"
#include "tui/view_model.h"

using namespace rdmatop;
using namespace rdmatop::tui;
using rdmatop::tui_test::add_port;
using rdmatop::tui_test::make_finding;

namespace {

std::size_t column(const std::string& name) {
  const auto& cols = port_columns();
  const auto it = std::find(cols.begin(), cols.end(), name);
  REQUIRE(it != cols.end());
  return static_cast<std::size_t>(it - cols.begin());
}

/// Three ports: mlx5_0/1 busy and paused, mlx5_0/2 idle, mlx5_1/1 down with a reset counter.
PublishedTick three_ports() {
  PublishedTick r;
  add_port(r, "mlx5_0", 1, "ens1f0np0", "ACTIVE",
           {{"rdma_bytes_total", {{"direction", "rx"}}, RateState::ok, 2e9, 1},
            {"rdma_bytes_total", {{"direction", "tx"}}, RateState::ok, 1e9, 1},
            {"rdma_pfc_pause_seconds_total",
             {{"direction", "rx"}, {"priority", "3"}},
             RateState::ok,
             0.6,
             1},
            {"rdma_pfc_pause_seconds_total",
             {{"direction", "rx"}, {"priority", "0"}},
             RateState::ok,
             0.05,
             1},
            {"rdma_pfc_pause_seconds_total",
             {{"direction", "tx"}, {"priority", "3"}},
             RateState::ok,
             0.15,
             1},
            {"rdma_cnp_sent_total", {}, RateState::ok, 100, 1},
            {"rdma_cnp_received_total", {}, RateState::ok, 50, 1},
            {"rdma_ack_timeouts_total", {}, RateState::ok, 2, 1},
            {"rdma_port_discards_total", {{"direction", "rx"}}, RateState::ok, 0, 0}});
  add_port(r, "mlx5_0", 2, "ens1f1np1", "ACTIVE",
           {{"rdma_bytes_total", {{"direction", "rx"}}, RateState::ok, 10, 1},
            {"rdma_pfc_pause_seconds_total",
             {{"direction", "rx"}, {"priority", "3"}},
             RateState::ok,
             0,
             0},
            {"rdma_cnp_sent_total", {}, RateState::init, 0, 1}});
  add_port(r, "mlx5_1", 1, "ens2f0np0", "DOWN",
           {{"rdma_bytes_total", {{"direction", "rx"}}, RateState::reset, 0, 1},
            {"rdma_cnp_sent_total", {}, RateState::stale, 0, 1}});
  return r;
}

std::vector<std::string> first_column(const PortsTable& t) {
  std::vector<std::string> out;
  for (const auto& row : t.rows) out.push_back(row.cells[0].text);
  return out;
}

}  // namespace

TEST_CASE("ports table: one row per port, default device/port order", "[tui]") {
  const PublishedTick r = three_ports();
  const PortsTable t = build_ports_table(r, UiState{});
  CHECK(first_column(t) == std::vector<std::string>{"mlx5_0/1", "mlx5_0/2", "mlx5_1/1"});
  CHECK(t.port_indices == std::vector<std::size_t>{0, 1, 2});
  REQUIRE(t.rows[0].cells.size() == port_columns().size());
}

TEST_CASE("ports table sorts numerically by a column, words last", "[tui]") {
  const PublishedTick r = three_ports();
  UiState state;
  state.sort_column = column("RX B/s");
  state.sort_descending = true;
  // 2 GB/s > 10 B/s (text order would put "10 B/s" before "2 GB/s"); "reset" has no number.
  CHECK(first_column(build_ports_table(r, state)) ==
        std::vector<std::string>{"mlx5_0/1", "mlx5_0/2", "mlx5_1/1"});
  state.sort_descending = false;
  CHECK(first_column(build_ports_table(r, state)) ==
        std::vector<std::string>{"mlx5_0/2", "mlx5_0/1", "mlx5_1/1"});
  state.sort_column = column("STATE");
  CHECK(first_column(build_ports_table(r, state)).front() == "mlx5_0/1");
  CHECK(first_column(build_ports_table(r, state)).back() == "mlx5_1/1");  // DOWN after ACTIVE
  state.sort_column = column("PORT");
  state.sort_descending = true;
  CHECK(first_column(build_ports_table(r, state)) ==
        std::vector<std::string>{"mlx5_1/1", "mlx5_0/2", "mlx5_0/1"});
}

TEST_CASE("the filter matches any cell, case-insensitively", "[tui]") {
  const PublishedTick r = three_ports();
  UiState state;
  state.filter = "ENS1F1";
  CHECK(first_column(build_ports_table(r, state)) == std::vector<std::string>{"mlx5_0/2"});
  state.filter = "down";
  CHECK(first_column(build_ports_table(r, state)) == std::vector<std::string>{"mlx5_1/1"});
  state.filter = "mlx5_0";
  CHECK(build_ports_table(r, state).rows.size() == 2);
  state.filter = "nothing-like-this";
  CHECK(build_ports_table(r, state).rows.empty());
}

TEST_CASE("pause occupancy is the max over priorities, coloured by threshold", "[tui]") {
  const PublishedTick r = three_ports();
  const PortsTable t = build_ports_table(r, UiState{});
  const Cell& rx = t.rows[0].cells[column("RX PAUSE")];
  CHECK(rx.text == "60%");
  CHECK(rx.tone == Tone::crit);
  const Cell& tx = t.rows[0].cells[column("TX PAUSE")];
  CHECK(tx.text == "15%");
  CHECK(tx.tone == Tone::warn);
  CHECK(t.rows[1].cells[column("RX PAUSE")].tone == Tone::normal);
  // No pause series at all: absent, not zero.
  CHECK(t.rows[2].cells[column("RX PAUSE")].text == "-");
  CHECK(t.rows[2].cells[column("RX PAUSE")].tone == Tone::dim);

  CHECK(pause_tone(kPauseWarn - 0.001) == Tone::normal);
  CHECK(pause_tone(kPauseWarn) == Tone::warn);
  CHECK(pause_tone(kPauseCrit) == Tone::crit);
}

TEST_CASE("rate states show as words, never as numbers", "[tui]") {
  const PublishedTick r = three_ports();
  const PortsTable t = build_ports_table(r, UiState{});
  const Cell& init = t.rows[1].cells[column("CNP/s")];
  CHECK(init.text == "init");
  CHECK(init.tone == Tone::dim);
  CHECK_FALSE(init.sort_value.has_value());
  const Cell& reset = t.rows[2].cells[column("RX B/s")];
  CHECK(reset.text == "reset");
  CHECK(reset.tone == Tone::warn);
  CHECK(t.rows[2].cells[column("CNP/s")].text == "stale");
  CHECK(rate_cell(std::nullopt, "/s").text == "-");
}

TEST_CASE("combined figures: sums, and the first non-ok state wins", "[tui]") {
  const PublishedTick r = three_ports();
  const PortsTable t = build_ports_table(r, UiState{});
  CHECK(t.rows[0].cells[column("CNP/s")].text == "150/s");
  CHECK(t.rows[0].cells[column("RETX/s")].text == "2/s");
  CHECK(t.rows[0].cells[column("RETX/s")].tone == Tone::warn);
  CHECK(t.rows[0].cells[column("DROPS/s")].text == "0/s");
  CHECK(t.rows[0].cells[column("DROPS/s")].tone == Tone::normal);
}

TEST_CASE("port state and worst finding carry colour classes", "[tui]") {
  PublishedTick r = three_ports();
  r.findings.push_back(
      make_finding("RdmaCnpStorm", Severity::warning, FindingState::firing, "mlx5_0", "1", "w"));
  r.findings.push_back(
      make_finding("RdmaPfcStorm", Severity::critical, FindingState::pending, "mlx5_0", "1", "c"));
  r.findings.push_back(
      make_finding("RdmaOld", Severity::critical, FindingState::resolved, "mlx5_0", "2", "old"));
  const PortsTable t = build_ports_table(r, UiState{});
  CHECK(t.rows[0].cells[column("STATE")].tone == Tone::ok);
  CHECK(t.rows[2].cells[column("STATE")].tone == Tone::crit);
  const Cell& worst = t.rows[0].cells[column("WORST FINDING")];
  CHECK(worst.text == "critical RdmaPfcStorm");
  CHECK(worst.tone == Tone::crit);
  // A resolved finding is not "worst": the port reads ok.
  CHECK(t.rows[1].cells[column("WORST FINDING")].text == "ok");
  CHECK(t.rows[1].cells[column("WORST FINDING")].tone == Tone::ok);
}

TEST_CASE("findings: active first, filterable, resolved dimmed", "[tui]") {
  PublishedTick r = three_ports();
  r.findings.push_back(
      make_finding("RdmaOld", Severity::critical, FindingState::resolved, "mlx5_0", "2", "old"));
  r.findings.push_back(
      make_finding("RdmaCnpStorm", Severity::warning, FindingState::firing, "mlx5_0", "1", "cnp"));
  UiState state;
  auto shown = visible_findings(r, state);
  REQUIRE(shown.size() == 2);
  CHECK(shown[0]->rule == "RdmaCnpStorm");
  CHECK(finding_row(*shown[1]).cells[0].tone == Tone::dim);
  CHECK(finding_row(*shown[0]).cells[0].tone == Tone::warn);
  CHECK(finding_place(*shown[0]) == "mlx5_0/1");
  state.filter = "old";
  shown = visible_findings(r, state);
  REQUIRE(shown.size() == 1);
  CHECK(shown[0]->rule == "RdmaOld");
}

TEST_CASE("sparkline scales to the window maximum", "[tui]") {
  CHECK(sparkline({}, true).empty());
  CHECK(sparkline({0.0, 0.0}, false) == "__");
  CHECK(sparkline({0.0, 4.0, 8.0}, false) == "_=#");
  CHECK(sparkline({0.0, 4.0, 8.0}, true) == "\u2581\u2585\u2588");
  // Missing ticks (init/stale) are blanks, not zeros.
  CHECK(sparkline({1.0, std::nullopt, 1.0}, false) == "# #");
  // Any activity, however small against the peak, is visibly above zero.
  CHECK(sparkline({1e-9, 1.0}, false) == ".#");
}

TEST_CASE("sparkline ASCII fallback is pure ASCII", "[tui]") {
  const std::string line = sparkline({0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0}, false);
  CHECK(line.size() == 9);
  CHECK(std::all_of(line.begin(), line.end(),
                    [](char c) { return static_cast<unsigned char>(c) < 0x80; }));
  CHECK(line == "_.:-=+*##");
}

TEST_CASE("history keeps a bounded window, oldest first", "[tui]") {
  tui::History h(2);
  CHECK(h.latest() == nullptr);
  auto a = std::make_shared<const PublishedTick>();
  auto b = std::make_shared<const PublishedTick>();
  auto c = std::make_shared<const PublishedTick>();
  h.push(a);
  CHECK(h.previous() == nullptr);
  h.push(b);
  h.push(c);
  h.push(nullptr);
  CHECK(h.figures().size() == 2);
  CHECK(h.latest() == c);
  CHECK(h.previous() == b);
}

namespace {

std::shared_ptr<const PublishedTick> tick_with_rx(std::optional<double> mlx5_1_rx) {
  PublishedTick r;
  add_port(r, "mlx5_0", 1, "ens1f0np0", "ACTIVE",
           {{"rdma_bytes_total", {{"direction", "rx"}}, RateState::ok, 100, 5}});
  if (mlx5_1_rx) {
    add_port(r, "mlx5_1", 1, "ens2f0np0", "ACTIVE",
             {{"rdma_bytes_total", {{"direction", "rx"}}, RateState::ok, *mlx5_1_rx, 5}});
  }
  return std::make_shared<const PublishedTick>(std::move(r));
}

double rx_of(const std::vector<std::optional<Rate>>* figures) {
  REQUIRE(figures != nullptr);
  const auto& rate = (*figures)[static_cast<std::size_t>(PortFigure::rx_bytes)];
  REQUIRE(rate.has_value());
  return rate->per_second;
}

}  // namespace

TEST_CASE("history keeps a ring of port figures, not the ticks", "[tui]") {
  tui::History h(3);
  auto first = tick_with_rx(1.0);
  std::weak_ptr<const PublishedTick> first_alive = first;
  h.push(std::move(first));
  h.push(tick_with_rx(std::nullopt));  // mlx5_1 gone for one tick
  h.push(tick_with_rx(3.0));
  // The first tick is neither latest nor previous: only its figures are kept.
  CHECK(first_alive.expired());
  auto window = h.port_figures("mlx5_1", 1);
  REQUIRE(window.size() == 3);
  CHECK(rx_of(window[0]) == 1.0);
  CHECK(window[1] == nullptr);
  CHECK(rx_of(window[2]) == 3.0);
  CHECK(rx_of(h.port_figures("mlx5_0", 1)[0]) == 100.0);
  CHECK(h.port_figures("mlx5_9", 1) ==
        std::vector<const std::vector<std::optional<Rate>>*>(3, nullptr));

  // A republished tick replaces the newest point; it does not add one.
  h.replace_latest(tick_with_rx(4.0));
  window = h.port_figures("mlx5_1", 1);
  REQUIRE(window.size() == 3);
  CHECK(rx_of(window[2]) == 4.0);

  // The ring is bounded: the oldest tick's figures go first.
  h.push(tick_with_rx(5.0));
  window = h.port_figures("mlx5_1", 1);
  REQUIRE(window.size() == 3);
  CHECK(window[0] == nullptr);
  CHECK(rx_of(window[2]) == 5.0);
}

TEST_CASE("each port's worst finding is the one a scan of every finding picks", "[tui]") {
  // WorstFindings files each finding once by (device, port); the ports table used to scan
  // every finding for every port. On shuffled findings (every severity and state, lifetime
  // evidence, device-wide ones without a port, ties) both must pick the same finding: the
  // first of the highest severity among the port's and its device's live findings.
  const auto scan = [](const std::vector<Finding>& findings, const std::string& device,
                       const std::string& port) {
    const Finding* worst = nullptr;
    for (const Finding& f : findings) {
      if (f.state == FindingState::resolved || is_lifetime(f)) continue;
      if (label_value(f.labels, "device") != device) continue;
      const std::string& p = label_value(f.labels, "port");
      if (!p.empty() && p != port) continue;
      if (worst == nullptr || f.severity > worst->severity) worst = &f;
    }
    return worst;
  };
  std::mt19937 rng(20261205);
  std::size_t found = 0;
  for (int round = 0; round < 200; ++round) {
    std::vector<Finding> findings;
    const auto n = rng() % 30;
    for (std::size_t i = 0; i < n; ++i) {
      const std::string device = "mlx5_" + std::to_string(rng() % 3);
      const std::string port = rng() % 4 == 0 ? "" : std::to_string(1 + rng() % 3);
      const auto severity = static_cast<Severity>(1 + rng() % 3);
      const auto state = static_cast<FindingState>(rng() % 3);
      Finding f = make_finding("R" + std::to_string(i), severity, state, device, port, "s");
      if (port.empty())
        f.labels.erase(std::remove_if(f.labels.begin(), f.labels.end(),
                                      [](const auto& kv) { return kv.first == "port"; }),
                       f.labels.end());
      if (rng() % 5 == 0) {
        f.labels.emplace_back(kEvidenceLabel, kLifetimeEvidence);
        std::sort(f.labels.begin(), f.labels.end());
      }
      findings.push_back(std::move(f));
    }
    const WorstFindings worst(findings);
    for (int d = 0; d < 4; ++d) {
      for (int p = 1; p <= 4; ++p) {
        const std::string device = "mlx5_" + std::to_string(d);
        const std::string port = std::to_string(p);
        INFO("round " << round << ", " << device << "/" << port);
        const Finding* expected = scan(findings, device, port);
        REQUIRE(worst.of(device, port) == expected);
        found += expected != nullptr ? 1 : 0;
      }
    }
  }
  CHECK(found > 500);
}
