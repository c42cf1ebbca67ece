// `ibv_devinfo [-v]` (rdma-core libibverbs/examples/devinfo.c): "hca_id: DEV", device fields
// (fw_ver, node_guid, sys_image_guid as sysfs prints them, board_id), "port: N", then port
// fields: "state: PORT_ACTIVE (4)", with -v "phys_state: LINK_UP (5)", "link_layer:".
#include <string>

#include "collector/capture/capture_formats.h"
#include "collector/capture/capture_text.h"

namespace rdmatop::capture {
namespace {

std::optional<std::pair<std::string_view, std::string_view>> devinfo_field(std::string_view line) {
  const std::string_view t = trim(line);
  const std::size_t colon = t.find(':');
  if (colon == std::string_view::npos || colon == 0) return std::nullopt;
  const std::string_view key = t.substr(0, colon);
  for (const char c : key) {
    if (!((c >= 'a' && c <= 'z') || c == '_' || (c >= '0' && c <= '9'))) return std::nullopt;
  }
  return std::make_pair(key, trim(t.substr(colon + 1)));
}

// "PORT_ACTIVE (4)" / "LINK_UP (5)": the number in parentheses is the kernel's enum value.
std::optional<std::uint32_t> enum_in_parens(std::string_view value) {
  const std::size_t open = value.rfind('(');
  if (open == std::string_view::npos || !value.ends_with(")")) return std::nullopt;
  const auto n = to_u64(value.substr(open + 1, value.size() - open - 2));
  if (!n || *n > 255) return std::nullopt;
  return static_cast<std::uint32_t>(*n);
}

std::size_t detect_ibv_devinfo(const Section& s) {
  std::size_t score = 0;
  for (const Line& line : s.lines) {
    const auto f = devinfo_field(line.text);
    if (!f) continue;
    if (f->first == "hca_id") score += 100;
    if (f->first == "phys_port_cnt" || f->first == "vendor_part_id") score += 10;
  }
  return score >= 100 ? score : 0;
}

void parse_ibv_devinfo(const Section& s, Facts& facts, LineLog& log) {
  DeviceFacts* dev = nullptr;
  PortFacts* port = nullptr;
  for (const Line& line : s.lines) {
    const auto f = devinfo_field(line.text);
    if (!f) {
      ignore_line(log, line.text, "not ibv_devinfo output");
      continue;
    }
    const auto [key, value] = *f;
    if (key == "hca_id" && is_object_name(value)) {
      dev = &facts.devices[std::string(value)];
      port = nullptr;
      log.use();
      continue;
    }
    if (dev == nullptr) {
      log.ignore("not ibv_devinfo output");
      continue;
    }
    if (key == "port") {
      const auto n = to_u64(value);
      if (n && *n > 0 && *n < 256) {
        port = &dev->ports[static_cast<std::uint32_t>(*n)];
        log.use();
        continue;
      }
    }
    bool used = true;
    if (port == nullptr) {
      if (key == "fw_ver" || key == "node_guid" || key == "sys_image_guid" || key == "board_id") {
        put(dev->files, key, std::string(value));
      } else {
        used = false;
      }
    } else if (key == "state") {
      used = put_state(port->files, enum_in_parens(value));
    } else if (key == "phys_state") {
      used = put_phys_state(port->files, enum_in_parens(value));
    } else if (key == "link_layer") {
      put(port->files, "link_layer", std::string(value));
    } else {
      used = false;
    }
    count_line(log, used, "ibv_devinfo field with no sysfs rendering");
  }
}

}  // namespace

FormatParser ibv_devinfo_format() {
  return {"ibv_devinfo", detect_ibv_devinfo, parse_ibv_devinfo};
}

}  // namespace rdmatop::capture
