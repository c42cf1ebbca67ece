#include "pipeline/port_view.h"

#include <algorithm>
#include <map>
#include <unordered_map>

#include "collector/normalize/metric_catalogue.h"
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

/// A figure of the tables below: its unit from the catalogue, and a rate's title ends in it
/// ("RX" -> "RX B/s"), where a share of time is titled by what it measures ("RX PAUSE").
FigureDef figure(std::string_view key, std::string_view name, std::vector<std::string_view> series,
                 std::string_view direction, FigureCombine combine) {
  const std::string_view unit = figure_unit(series.front());
  std::string title(name);
  if (unit != "%") title += unit;
  return FigureDef{key, std::move(title), std::move(series), direction, combine, unit};
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

std::string_view figure_unit(std::string_view series) {
  const MetricInfo* info = find_metric(series);
  const std::string_view unit = info != nullptr ? info->unit : std::string_view();
  if (unit == "bytes") return " B/s";
  if (unit == "seconds") return "%";  // seconds per second
  return "/s";
}

const std::vector<FigureDef>& port_figure_defs() {
  using C = FigureCombine;
  static const std::vector<FigureDef> kDefs = {
      figure("rx_bytes", "RX", {"rdma_bytes_total"}, "rx", C::sum),
      figure("tx_bytes", "TX", {"rdma_bytes_total"}, "tx", C::sum),
      // The worst priority's share of time paused is the port's (rules/builtin/pfc.yaml).
      figure("rx_pause", "RX PAUSE", {"rdma_pfc_pause_seconds_total"}, "rx", C::max),
      figure("tx_pause", "TX PAUSE", {"rdma_pfc_pause_seconds_total"}, "tx", C::max),
      figure("ecn", "ECN", {"rdma_ecn_marked_packets_total"}, "", C::sum),
      figure("cnp", "CNP", {"rdma_cnp_sent_total", "rdma_cnp_received_total"}, "", C::sum),
      figure("retransmits", "RETX", {"rdma_retransmits_total", "rdma_ack_timeouts_total"}, "",
             C::sum),
      figure("drops", "DROPS", {"rdma_port_discards_total", "rdma_out_of_buffer_total"}, "",
             C::sum),
  };
  return kDefs;
}

const std::vector<FigureDef>& priority_figure_defs() {
  using C = FigureCombine;
  static const std::vector<FigureDef> kDefs = {
      figure("rx_paused", "RX PAUSED", {"rdma_pfc_pause_seconds_total"}, "rx", C::sum),
      figure("tx_paused", "TX PAUSED", {"rdma_pfc_pause_seconds_total"}, "tx", C::sum),
      figure("rx_pause_frames", "RX PAUSE", {"rdma_pfc_pause_frames_total"}, "rx", C::sum),
      figure("tx_pause_frames", "TX PAUSE", {"rdma_pfc_pause_frames_total"}, "tx", C::sum),
      figure("xoff_to_xon", "XOFF->XON", {"rdma_pfc_pause_transitions_total"}, "rx", C::sum),
      figure("rx_bytes", "RX", {"rdma_priority_bytes_total"}, "rx", C::sum),
      figure("tx_bytes", "TX", {"rdma_priority_bytes_total"}, "tx", C::sum),
      figure("discards", "DISCARDS", {"rdma_priority_discards_total"}, "", C::sum),
      figure("ecn_marked", "ECN MARKED", {"rdma_priority_ecn_marked_packets_total"}, "", C::sum),
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

PortView PortView::none() {
  PortView view;
  view.figures.resize(port_figure_defs().size());
  return view;
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
  // The series are sorted by name: the table is asked once per name, not once per series.
  std::string_view slots_of;
  const FigureSlots* slots = nullptr;
  bool pfc_enabled = false;
  // One pass, in series order, so sums add in the same order as before.
  for (const SeriesWithRate& s : series) {
    if (slots_of.data() == nullptr || s.series.name != slots_of) {
      slots_of = s.series.name.str();
      pfc_enabled = slots_of == kPfcEnabled;
      const auto it = slots_by_series().find(slots_of);
      slots = it != slots_by_series().end() ? &it->second : nullptr;
    }
    if (!pfc_enabled && slots == nullptr) continue;
    const std::string& prio = label_value(s.series.labels, "priority");
    if (pfc_enabled) {
      if (prio.empty()) continue;
      Priority& p = priority(prio);
      p.enabled = s.series.value != 0;
      p.shown = p.shown || s.series.value != 0;
      continue;
    }
    const std::string& direction = label_value(s.series.labels, "direction");
    for (const std::size_t k : slots->port) {
      if (feeds(port_defs[k], s.series, direction)) port_rates[k].push_back(s.rate);
    }
    if (prio.empty() || slots->priority.empty()) continue;
    Priority& p = priority(prio);
    p.shown = p.shown || s.series.value != 0;
    for (const std::size_t k : slots->priority) {
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
