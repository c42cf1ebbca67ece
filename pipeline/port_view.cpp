#include "pipeline/port_view.h"

#include <algorithm>
#include <map>
#include <set>

#include "pipeline/tick.h"

namespace rdmatop {
namespace {

// The series the figures read are the canonical ones of docs/metrics.md.
constexpr std::string_view kPfcEnabled = "rdma_pfc_enabled";

bool counts_for(const FigureDef& def, const Series& s) {
  if (s.kind != SeriesKind::counter) return false;
  if (std::find(def.series.begin(), def.series.end(), s.name) == def.series.end()) return false;
  return def.direction.empty() || label_value(s.labels, "direction") == def.direction;
}

std::optional<Rate> figure_of(const FigureDef& def, const std::vector<SeriesWithRate>& series,
                              const std::string* priority) {
  std::vector<Rate> rates;
  for (const SeriesWithRate& s : series) {
    if (!counts_for(def, s.series)) continue;
    if (priority != nullptr && label_value(s.series.labels, "priority") != *priority) continue;
    rates.push_back(s.rate);
  }
  return combine_rates(rates, def.combine);
}

}  // namespace

bool is_priority_table_series(std::string_view name) {
  if (name == kPfcEnabled) return true;
  for (const FigureDef& def : priority_figure_defs()) {
    if (std::find(def.series.begin(), def.series.end(), name) != def.series.end()) return true;
  }
  return false;
}

const std::vector<FigureDef>& port_figure_defs() {
  using C = FigureCombine;
  static const std::vector<FigureDef> kDefs = {
      {"rx_bytes", "RX B/s", {"rdma_bytes_total"}, "rx", C::sum, " B/s"},
      {"tx_bytes", "TX B/s", {"rdma_bytes_total"}, "tx", C::sum, " B/s"},
      // The worst priority's share of time paused is the port's (rules/builtin/pfc.yaml).
      {"rx_pause", "RX PAUSE", {"rdma_pfc_pause_seconds_total"}, "rx", C::max, "%"},
      {"tx_pause", "TX PAUSE", {"rdma_pfc_pause_seconds_total"}, "tx", C::max, "%"},
      {"ecn", "ECN/s", {"rdma_ecn_marked_packets_total"}, "", C::sum, "/s"},
      {"cnp", "CNP/s", {"rdma_cnp_sent_total", "rdma_cnp_received_total"}, "", C::sum, "/s"},
      {"retransmits",
       "RETX/s",
       {"rdma_retransmits_total", "rdma_ack_timeouts_total"},
       "",
       C::sum,
       "/s"},
      {"drops",
       "DROPS/s",
       {"rdma_port_discards_total", "rdma_out_of_buffer_total"},
       "",
       C::sum,
       "/s"},
  };
  return kDefs;
}

const std::vector<FigureDef>& priority_figure_defs() {
  using C = FigureCombine;
  static const std::vector<FigureDef> kDefs = {
      {"rx_paused", "RX PAUSED", {"rdma_pfc_pause_seconds_total"}, "rx", C::sum, "%"},
      {"tx_paused", "TX PAUSED", {"rdma_pfc_pause_seconds_total"}, "tx", C::sum, "%"},
      {"rx_pause_frames", "RX PAUSE/s", {"rdma_pfc_pause_frames_total"}, "rx", C::sum, "/s"},
      {"tx_pause_frames", "TX PAUSE/s", {"rdma_pfc_pause_frames_total"}, "tx", C::sum, "/s"},
      {"xoff_to_xon", "XOFF->XON/s", {"rdma_pfc_pause_transitions_total"}, "rx", C::sum, "/s"},
      {"rx_bytes", "RX B/s", {"rdma_priority_bytes_total"}, "rx", C::sum, " B/s"},
      {"tx_bytes", "TX B/s", {"rdma_priority_bytes_total"}, "tx", C::sum, " B/s"},
      {"discards", "DISCARDS/s", {"rdma_priority_discards_total"}, "", C::sum, "/s"},
      {"ecn_marked", "ECN MARKED/s", {"rdma_priority_ecn_marked_packets_total"}, "", C::sum, "/s"},
  };
  return kDefs;
}

std::optional<Rate> combine_rates(const std::vector<Rate>& rates, FigureCombine combine) {
  if (rates.empty()) return std::nullopt;
  Rate out{RateState::ok, 0};
  for (const Rate& r : rates) {
    if (!rate_has_value(r)) return Rate{r.state, 0};
    out.per_second = combine == FigureCombine::max ? std::max(out.per_second, r.per_second)
                                                   : out.per_second + r.per_second;
  }
  return out;
}

PortView build_port_view(const std::vector<SeriesWithRate>& series) {
  PortView view;
  for (const FigureDef& def : port_figure_defs()) {
    view.figures.push_back(figure_of(def, series, nullptr));
  }
  std::map<std::string, bool> enabled;
  std::set<std::string> shown;  // label order
  for (const SeriesWithRate& s : series) {
    const std::string& prio = label_value(s.series.labels, "priority");
    if (prio.empty() || !is_priority_table_series(s.series.name)) continue;
    if (s.series.name == kPfcEnabled) enabled[prio] = s.series.value != 0;
    if (s.series.value != 0) shown.insert(prio);
  }
  for (const std::string& prio : shown) {
    PriorityView pv;
    pv.priority = prio;
    if (const auto on = enabled.find(prio); on != enabled.end()) pv.pfc_enabled = on->second;
    for (const FigureDef& def : priority_figure_defs()) {
      pv.figures.push_back(figure_of(def, series, &prio));
    }
    view.priorities.push_back(std::move(pv));
  }
  return view;
}

}  // namespace rdmatop
