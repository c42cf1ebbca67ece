#include "pipeline/port_view.h"

#include <algorithm>
#include <map>
#include <unordered_map>

#include "pipeline/tick.h"

namespace rdmatop {
namespace {

// The series the figures read are the canonical ones of docs/metrics.md.
constexpr std::string_view kPfcEnabled = "rdma_pfc_enabled";

// Which figures a series feeds: the port figure and the priority figure defs that name it.
struct FigureSlots {
  std::vector<std::size_t> port;      ///< into port_figure_defs()
  std::vector<std::size_t> priority;  ///< into priority_figure_defs()
};

// Built once from the two tables, so a tick looks each series up once instead of testing it
// against every figure (the figure-by-figure scan was 69% of build_tick on 64 ports).
const std::unordered_map<std::string_view, FigureSlots>& slots_by_series() {
  static const auto kSlots = [] {
    std::unordered_map<std::string_view, FigureSlots> out;
    const auto add = [&](const std::vector<FigureDef>& defs, auto member) {
      for (std::size_t k = 0; k < defs.size(); ++k) {
        for (const std::string_view name : defs[k].series) (out[name].*member).push_back(k);
      }
    };
    add(port_figure_defs(), &FigureSlots::port);
    add(priority_figure_defs(), &FigureSlots::priority);
    return out;
  }();
  return kSlots;
}

bool feeds(const FigureDef& def, const Series& s, const std::string& direction) {
  return s.kind == SeriesKind::counter && (def.direction.empty() || direction == def.direction);
}

std::vector<std::optional<Rate>> combine_each(const std::vector<FigureDef>& defs,
                                              const std::vector<std::vector<Rate>>& rates) {
  std::vector<std::optional<Rate>> out;
  out.reserve(defs.size());
  for (std::size_t k = 0; k < defs.size(); ++k) {
    out.push_back(combine_rates(rates[k], defs[k].combine));
  }
  return out;
}

}  // namespace

bool is_priority_table_series(std::string_view name) {
  if (name == kPfcEnabled) return true;
  const auto& slots = slots_by_series();
  const auto it = slots.find(name);
  return it != slots.end() && !it->second.priority.empty();
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
  const auto& port_defs = port_figure_defs();
  const auto& prio_defs = priority_figure_defs();
  struct Priority {
    std::optional<bool> enabled;
    bool shown = false;  // PFC on, or a non-zero series of the table
    std::vector<std::vector<Rate>> rates;
  };
  std::vector<std::vector<Rate>> port_rates(port_defs.size());
  std::map<std::string, Priority> priorities;  // label order
  const auto priority = [&](const std::string& label) -> Priority& {
    Priority& p = priorities[label];
    if (p.rates.empty()) p.rates.resize(prio_defs.size());
    return p;
  };
  // One pass, in series order, so sums add in the same order as before.
  for (const SeriesWithRate& s : series) {
    const std::string& prio = label_value(s.series.labels, "priority");
    if (s.series.name == kPfcEnabled) {
      if (prio.empty()) continue;
      Priority& p = priority(prio);
      p.enabled = s.series.value != 0;
      p.shown = p.shown || s.series.value != 0;
      continue;
    }
    const auto slots = slots_by_series().find(s.series.name);
    if (slots == slots_by_series().end()) continue;
    const std::string& direction = label_value(s.series.labels, "direction");
    for (const std::size_t k : slots->second.port) {
      if (feeds(port_defs[k], s.series, direction)) port_rates[k].push_back(s.rate);
    }
    if (prio.empty() || slots->second.priority.empty()) continue;
    Priority& p = priority(prio);
    p.shown = p.shown || s.series.value != 0;
    for (const std::size_t k : slots->second.priority) {
      if (feeds(prio_defs[k], s.series, direction)) p.rates[k].push_back(s.rate);
    }
  }
  PortView view;
  view.figures = combine_each(port_defs, port_rates);
  for (const auto& [label, p] : priorities) {
    if (!p.shown) continue;
    view.priorities.push_back(PriorityView{label, p.enabled, combine_each(prio_defs, p.rates)});
  }
  return view;
}

}  // namespace rdmatop
