#include "collector/capture/sysfs_path.h"

#include "collector/capture/capture_text.h"

namespace rdmatop::capture {

bool put_sysfs_value(std::string_view path, std::string value, Facts& facts) {
  const auto component = [](std::string_view rest) {
    const std::size_t slash = rest.find('/');
    return slash == std::string_view::npos
               ? std::make_pair(rest, std::string_view{})
               : std::make_pair(rest.substr(0, slash), rest.substr(slash + 1));
  };
  if (const std::size_t at = path.rfind("infiniband/");
      at != std::string_view::npos && (at == 0 || path[at - 1] == '/')) {
    const auto [dev, rel] = component(path.substr(at + 11));
    if (!is_object_name(dev) || (rel.empty() && !path.ends_with("/"))) return false;
    DeviceFacts& device = facts.devices[std::string(dev)];
    if (rel.empty()) return true;  // the device's own directory
    if (rel.starts_with("ports/")) {
      const auto [number, port_rel] = component(rel.substr(6));
      const auto port = to_u64(number);
      if (!port || *port == 0 || *port > 255) return false;
      PortFacts& p = device.ports[static_cast<std::uint32_t>(*port)];
      if (!port_rel.empty()) put(p.files, port_rel, std::move(value));
      return true;
    }
    put(device.files, rel, std::move(value));
    return true;
  }
  if (const std::size_t at = path.rfind("net/");
      at != std::string_view::npos && (at == 0 || path[at - 1] == '/')) {
    const auto [netdev, rel] = component(path.substr(at + 4));
    if (!is_object_name(netdev) || (rel.empty() && !path.ends_with("/"))) return false;
    NetdevFacts& net = facts.netdevs[std::string(netdev)];
    if (!rel.empty()) put(net.files, rel, std::move(value));
    return true;
  }
  return false;
}

}  // namespace rdmatop::capture
