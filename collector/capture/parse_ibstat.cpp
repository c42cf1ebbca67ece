// `ibstat` (rdma-core infiniband-diags ibstat.c, from libibumad's sysfs reads): "CA 'DEV'",
// "CA type:" (hca_type), "Firmware version:" (fw_ver), "Hardware version:" (hw_rev), "Node
// GUID: 0x..." / "System image GUID:" (node_guid, sys_image_guid as 0x%016llx), "Port N:",
// "State:" (Down/Initializing/Armed/Active), "Physical state:", "Link layer:". "Rate: 100"
// lacks the width sysfs prints with it, so it is not a rendering of the rate file; a GUID a
// poster elided ("Node GUID: ...") stays absent.
#include <string>

#include "collector/capture/capture_formats.h"
#include "collector/capture/capture_text.h"

namespace rdmatop::capture {
namespace {

std::optional<std::string_view> ibstat_ca(std::string_view line) {
  const std::string_view t = trim(line);
  if (t.size() < 6 || !t.starts_with("CA '") || t.back() != '\'') return std::nullopt;
  const std::string_view dev = t.substr(4, t.size() - 5);
  if (!is_object_name(dev)) return std::nullopt;
  return dev;
}

std::size_t detect_ibstat(const Section& s) {
  std::size_t score = 0;
  for (const Line& line : s.lines) {
    if (ibstat_ca(line.text)) score += 100;
    const std::string_view t = trim(line.text);
    if (t.starts_with("CA type:") || t.starts_with("Physical state:") ||
        t.starts_with("Base lid:")) {
      score += 10;
    }
  }
  return score;
}

void parse_ibstat(const Section& s, Facts& facts, LineLog& log) {
  DeviceFacts* dev = nullptr;
  PortFacts* port = nullptr;
  for (const Line& line : s.lines) {
    const std::string_view t = trim(line.text);
    if (const auto ca = ibstat_ca(line.text)) {
      dev = &facts.devices[std::string(*ca)];
      port = nullptr;
      log.use();
      continue;
    }
    if (dev != nullptr && t.starts_with("Port ") && t.ends_with(":")) {
      if (const auto n = to_u64(t.substr(5, t.size() - 6)); n && *n > 0 && *n < 256) {
        port = &dev->ports[static_cast<std::uint32_t>(*n)];
        log.use();
        continue;
      }
    }
    const std::size_t colon = t.find(": ");
    if (dev == nullptr || colon == std::string_view::npos) {
      ignore_line(log, t, "not ibstat output");
      continue;
    }
    const std::string_view key = t.substr(0, colon);
    const std::string_view value = trim(t.substr(colon + 2));
    bool used = true;
    if (port == nullptr) {
      if (key == "CA type") {
        put(dev->files, "hca_type", std::string(value));
      } else if (key == "Firmware version") {
        put(dev->files, "fw_ver", std::string(value));
      } else if (key == "Hardware version") {
        put(dev->files, "hw_rev", std::string(value));
      } else if (key == "Node GUID" || key == "System image GUID") {
        const auto guid = guid_from_hex(value);
        if (guid) put(dev->files, key == "Node GUID" ? "node_guid" : "sys_image_guid", *guid);
        used = guid.has_value();
      } else {
        used = key == "Number of ports";
      }
    } else {
      if (key == "State") {
        used = put_state(port->files, state_from_name(value));
      } else if (key == "Physical state") {
        used = put_phys_state(port->files, phys_state_from_name(value));
      } else if (key == "Link layer") {
        put(port->files, "link_layer", std::string(value));
      } else {
        used = false;
      }
    }
    count_line(
        log, used,
        value == "..." ? "value elided by the poster" : "ibstat field with no sysfs rendering");
  }
}

}  // namespace

FormatParser ibstat_format() {
  return {"ibstat", detect_ibstat, parse_ibstat};
}

}  // namespace rdmatop::capture
