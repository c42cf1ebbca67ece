#include "exporters/report/fast_path_section.h"

#include <fmt/format.h>

namespace rdmatop {

namespace {

std::string measure_text(const fast::FastPathPort& port) {
  switch (port.measure) {
    case fast::PauseMeasure::duration:
      return "pause duration counters";
    case fast::PauseMeasure::frames:
      return "pause frames x quanta (an estimate)";
    case fast::PauseMeasure::none:
      break;
  }
  return "cannot run: " + port.reason;
}

}  // namespace

std::string render_fast_path_text(const PublishedTick& report) {
  if (!(report.fast_interval_seconds > 0)) return "";
  std::string out =
      fmt::format("  polls every {:g} ms (--fast-interval)\n", report.fast_interval_seconds * 1e3);
  for (const fast::FastPathPort& port : report.fast_path) {
    const std::string counters =
        port.measure == fast::PauseMeasure::none ? "" : fmt::format(", {} counters", port.counters);
    out += fmt::format("  {}/{} {}: {}{}\n", port.device, port.port,
                       port.netdev.empty() ? "-" : port.netdev, measure_text(port), counters);
  }
  return out;
}

nlohmann::ordered_json render_fast_path_json(const PublishedTick& report) {
  if (!(report.fast_interval_seconds > 0)) return nullptr;
  nlohmann::ordered_json ports = nlohmann::ordered_json::array();
  for (const fast::FastPathPort& port : report.fast_path) {
    ports.push_back({{"device", port.device},
                     {"port", port.port},
                     {"netdev", port.netdev},
                     {"measure", fast::to_string(port.measure)},
                     {"counters", port.counters},
                     {"reason", port.reason}});
  }
  return {{"interval_seconds", report.fast_interval_seconds}, {"ports", std::move(ports)}};
}

}  // namespace rdmatop
