// The port view (pipeline/port_view.h): the figures of a port computed once from its series,
// and the surfaces that show them (the TUI's PFC table, the text report's) printing the same.
#include <catch2/catch.hpp>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "collector/normalize/metric_catalogue.h"
#include "exporters/report/report_render.h"
#include "pipeline/port_view.h"
#include "tests/unit/tui/tui_test_support.h"
#include "tui/screens.h"

using namespace rdmatop;
using rdmatop::tui_test::SeriesSpec;

namespace {

std::size_t pv_figure(std::string_view key) {
  const auto& defs = priority_figure_defs();
  for (std::size_t k = 0; k < defs.size(); ++k) {
    if (defs[k].key == key) return k;
  }
  FAIL("no priority figure " << key);
  return 0;
}

// mlx5_0/1: priority 3 carries RoCE traffic with PFC on and pauses; priority 0 has PFC off and
// only zeros; priority 5 has PFC on and no traffic; priority 6 has a non-zero series the
// priority table does not show (so it is no reason to list the priority).
PublishedTick pv_tick() {
  PublishedTick r;
  using L = Labels;
  tui_test::add_port(
      r, "mlx5_0", 1, "eth2", "ACTIVE",
      {SeriesSpec{"rdma_bytes_total", L{{"direction", "rx"}}, RateState::ok, 1000, 5},
       SeriesSpec{"rdma_pfc_enabled", L{{"priority", "3"}}, RateState::init, 0, 1},
       SeriesSpec{"rdma_pfc_enabled", L{{"priority", "0"}}, RateState::init, 0, 0},
       SeriesSpec{"rdma_pfc_enabled", L{{"priority", "5"}}, RateState::init, 0, 1},
       SeriesSpec{"rdma_pfc_pause_seconds_total", L{{"direction", "rx"}, {"priority", "3"}},
                  RateState::ok, 0.25, 9},
       SeriesSpec{"rdma_pfc_pause_seconds_total", L{{"direction", "rx"}, {"priority", "0"}},
                  RateState::ok, 0, 0},
       SeriesSpec{"rdma_pfc_pause_seconds_total", L{{"direction", "rx"}, {"priority", "4"}},
                  RateState::ok, 0.5, 3},
       SeriesSpec{"rdma_pfc_pause_frames_total", L{{"direction", "tx"}, {"priority", "3"}},
                  RateState::ok, 12, 40},
       SeriesSpec{"rdma_pfc_pause_transitions_total", L{{"direction", "rx"}, {"priority", "3"}},
                  RateState::reset, 0, 2},
       SeriesSpec{"rdma_priority_discards_total", L{{"priority", "3"}}, RateState::ok, 2, 7},
       SeriesSpec{"rdma_priority_packets_total", L{{"direction", "rx"}, {"priority", "6"}},
                  RateState::ok, 4, 8},
       SeriesSpec{"rdma_cnp_sent_total", {}, RateState::ok, 100, 1},
       SeriesSpec{"rdma_cnp_received_total", {}, RateState::ok, 50, 1},
       SeriesSpec{"rdma_retransmits_total", {}, RateState::stale, 0, 1}});
  return r;
}

std::string pv_without_blanks(std::string s) {
  std::erase_if(s, [](char c) { return c == ' ' || c == '\t'; });
  return s;
}

}  // namespace

TEST_CASE("port view: figures combine their series as the table says", "[pipeline]") {
  const PublishedTick r = pv_tick();
  const PortView& v = r.ports.at(0).view;
  REQUIRE(v.figures.size() == port_figure_defs().size());
  CHECK(v.figure(PortFigure::rx_bytes)->per_second == 1000);
  CHECK_FALSE(v.figure(PortFigure::tx_bytes).has_value());  // no series: absent, not 0
  // The worst priority's share of time paused is the port's.
  CHECK(v.figure(PortFigure::rx_pause)->per_second == 0.5);
  CHECK(v.figure(PortFigure::cnp)->per_second == 150);
  // A stale input makes the figure stale, never a number.
  CHECK(v.figure(PortFigure::retransmits)->state == RateState::stale);

  // Priorities with PFC on or a non-zero counter the table shows, in label order.
  std::vector<std::string> shown;
  for (const PriorityView& p : v.priorities) shown.push_back(p.priority);
  CHECK(shown == std::vector<std::string>{"3", "4", "5"});
  const PriorityView& p3 = v.priorities[0];
  CHECK(p3.pfc_enabled == std::optional<bool>(true));
  CHECK(p3.figures[pv_figure("rx_paused")]->per_second == 0.25);
  CHECK(p3.figures[pv_figure("tx_pause_frames")]->per_second == 12);
  CHECK(p3.figures[pv_figure("xoff_to_xon")]->state == RateState::reset);
  CHECK_FALSE(p3.figures[pv_figure("rx_bytes")].has_value());
  CHECK_FALSE(v.priorities[1].pfc_enabled.has_value());  // priority 4: the host did not say
}

TEST_CASE("port view: combining rates", "[pipeline]") {
  CHECK_FALSE(combine_rates({}, FigureCombine::sum).has_value());
  const auto sum = combine_rates({{RateState::ok, 1}, {RateState::wrap, 2}}, FigureCombine::sum);
  REQUIRE(sum);
  CHECK(sum->per_second == 3);
  const auto max = combine_rates({{RateState::ok, 1}, {RateState::ok, 5}}, FigureCombine::max);
  CHECK(max->per_second == 5);
  CHECK(combine_rates({{RateState::ok, 1}, {RateState::reset, 0}}, FigureCombine::sum)->state ==
        RateState::reset);
}

TEST_CASE("port view: the TUI and the text report print the same PFC figures", "[pipeline]") {
  const PublishedTick r = pv_tick();
  const std::string text = render_report_text(r);
  // The header: the same columns, in the same order.
  std::string header;
  for (const std::string& c : tui::pfc_columns()) header += c;
  bool header_found = false;
  std::istringstream lines(text);
  std::vector<std::string> text_lines;
  for (std::string line; std::getline(lines, line);) {
    text_lines.push_back(pv_without_blanks(line));
    header_found = header_found || text_lines.back() == pv_without_blanks(header);
  }
  CHECK(header_found);
  // Every TUI row, cell for cell, is a line of the text report's table.
  const std::vector<tui::Row> rows = tui::pfc_rows(r.ports.at(0));
  REQUIRE(rows.size() == 3);
  for (const tui::Row& row : rows) {
    std::string cells;
    for (const tui::Cell& c : row.cells) cells += c.text;
    CAPTURE(cells);
    CHECK(std::find(text_lines.begin(), text_lines.end(), pv_without_blanks(cells)) !=
          text_lines.end());
  }
}

TEST_CASE("every figure reads catalogue counters of one unit, and shows that unit", "[port_view]") {
  for (const auto* defs : {&port_figure_defs(), &priority_figure_defs()}) {
    for (const FigureDef& def : *defs) {
      INFO("figure " << def.key);
      REQUIRE_FALSE(def.series.empty());
      const MetricInfo* first = find_metric(def.series.front());
      REQUIRE(first != nullptr);
      for (const std::string_view name : def.series) {
        INFO("series " << name);
        const MetricInfo* info = find_metric(name);
        REQUIRE(info != nullptr);
        CHECK(info->kind == MetricKind::counter);
        CHECK(info->scope == MetricScope::port);
        CHECK(info->unit == first->unit);
      }
      CHECK(def.unit == figure_unit(def.series.front()));
      // A rate's column title names its unit; a share of time's names what it measures.
      if (def.unit != "%") CHECK(def.title.ends_with(def.unit));
    }
  }
  CHECK(port_figure_defs()[static_cast<std::size_t>(PortFigure::rx_bytes)].title == "RX B/s");
  CHECK(priority_figure_defs()[0].unit == "%");
}
