#include "collector/normalize/qp_counter_series.h"

#include <algorithm>
#include <utility>

#include "collector/normalize/driver_family.h"

namespace rdmatop {
std::optional<bool> binds_qp_counters(std::string_view rdma_driver) {
  switch (driver_families(rdma_driver, nullptr).rdma) {
    case DriverFamily::mlx5:
      return true;
    case DriverFamily::bnxt_re:
    case DriverFamily::irdma:
    case DriverFamily::rxe:
      return false;
    case DriverFamily::any:
      break;
  }
  return std::nullopt;
}

std::string_view canonical_series_of(DriverFamily family, std::string_view raw) {
  const auto rows = counter_rows();
  const auto it = std::find_if(rows.begin(), rows.end(), [&](const CounterRow& r) {
    return r.source == RawSource::port_hw_counters && r.driver == family && r.raw == raw &&
           r.label.name.empty() && r.combine == Combine::first_present;
  });
  return it == rows.end() ? std::string_view() : it->series;
}

std::string bound_counter_owner(const BoundCounter& counter) {
  if (!counter.kern_name.empty()) return "[" + counter.kern_name + "]";
  return counter.comm;
}

void add_qp_counter_series(const Snapshot& snapshot, std::vector<Series>& out) {
  for (const DeviceSample& device : snapshot.devices) {
    for (const PortSample& port : device.ports) {
      if (!port.qp_counter_mode) continue;
      const Labels base{{"device", device.name}, {"port", std::to_string(port.port)}};
      add_series(out, "rdma_port_qp_counter_mode", base, SeriesKind::gauge,
                 port.qp_counter_mode->mode, "netlink/stat_qp_mode");
      add_series(out, "rdma_port_qp_counter_auto_mask", base, SeriesKind::gauge,
                 port.qp_counter_mode->auto_mask, "netlink/stat_qp_mode");
      add_series(out, "rdma_port_bound_counters", base, SeriesKind::gauge,
                 static_cast<double>(port.bound_counters.size()), "netlink/stat_qp");
      for (const BoundCounter& c : port.bound_counters) {
        Labels labels = base;
        labels.emplace_back("counter_id", std::to_string(c.id));
        labels.emplace_back("pid", c.pid ? std::to_string(*c.pid) : "");
        labels.emplace_back("comm", bound_counter_owner(c));
        add_series(out, "rdma_bound_counter_qps", labels, SeriesKind::gauge,
                   static_cast<double>(c.qpns.size()), "netlink/stat_qp");
        for (const auto& [name, value] : c.hw_counters) {
          Labels hw = labels;
          hw.emplace_back("hw_counter", name);
          add_series(out, "rdma_bound_counter_hw_total", std::move(hw), SeriesKind::counter,
                     static_cast<double>(value), "netlink/stat_qp");
        }
      }
    }
  }
}

}  // namespace rdmatop
