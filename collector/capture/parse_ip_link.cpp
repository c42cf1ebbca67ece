// `ip addr`, `ip link`, `ip -s link` (iproute2 ip/ipaddress.c print_linkinfo): "N: IF[@LINK]:
// <FLAGS> mtu M ... state S ...", "    link/ether MAC brd ...", and with -s the "RX:"/"TX:"
// header lines whose next line holds the values (print_link_stats64). operstate is printed
// upper-case from the kernel's IF_OPER_* names, which class/net/IF/operstate prints lower-case.
#include <string>
#include <vector>

#include "collector/capture/capture_formats.h"
#include "collector/capture/capture_text.h"

namespace rdmatop::capture {
namespace {

std::optional<std::string_view> ip_link_header(std::string_view line) {
  const auto w = split_words(line);
  if (w.size() < 4 || !w[0].ends_with(":") || !is_decimal(w[0].substr(0, w[0].size() - 1))) {
    return std::nullopt;
  }
  if (!w[1].ends_with(":") || !w[2].starts_with("<")) return std::nullopt;
  std::string_view name = w[1].substr(0, w[1].size() - 1);
  name = name.substr(0, name.find('@'));
  if (!is_object_name(name)) return std::nullopt;
  return name;
}

// The statistics names class/net/IF/statistics/ uses for the columns of `ip -s link`.
std::string stat_name(bool rx, std::string_view column) {
  const std::string side = rx ? "rx_" : "tx_";
  if (column == "bytes" || column == "packets" || column == "errors" || column == "dropped") {
    return side + std::string(column);
  }
  if (rx && column == "missed") return "rx_missed_errors";
  if (rx && column == "mcast") return "multicast";
  if (!rx && column == "carrier") return "tx_carrier_errors";
  if (!rx && column == "collsns") return "collisions";
  return {};
}

std::size_t detect_ip_link(const Section& s) {
  return score_lines(s, 100, [](std::string_view l) { return ip_link_header(l).has_value(); });
}

void parse_ip_link(const Section& s, Facts& facts, LineLog& log) {
  NetdevFacts* net = nullptr;
  for (std::size_t i = 0; i < s.lines.size(); ++i) {
    const std::string_view text = s.lines[i].text;
    if (const auto name = ip_link_header(text)) {
      net = &facts.netdevs[std::string(*name)];
      const auto w = split_words(text);
      for (std::size_t k = 3; k + 1 < w.size(); ++k) {
        if (w[k] == "mtu" && is_decimal(w[k + 1])) put(net->files, "mtu", std::string(w[k + 1]));
        if (w[k] == "state") {
          std::string state(w[k + 1]);
          for (char& c : state) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
          put(net->files, "operstate", state);
        }
      }
      log.use();
      continue;
    }
    const auto w = split_words(text);
    if (net != nullptr && w.size() >= 2 && w[0] == "link/ether") {
      put(net->files, "address", std::string(w[1]));
      log.use();
      continue;
    }
    if (net != nullptr && !w.empty() && (w[0] == "RX:" || w[0] == "TX:") &&
        i + 1 < s.lines.size()) {
      const auto values = split_words(s.lines[i + 1].text);
      if (values.size() + 1 == w.size()) {
        for (std::size_t k = 0; k < values.size(); ++k) {
          const std::string name = stat_name(w[0] == "RX:", w[k + 1]);
          if (!name.empty() && is_decimal(values[k])) {
            put(net->files, "statistics/" + name, std::string(values[k]));
          }
        }
        log.use();
        log.use();
        ++i;
        continue;
      }
    }
    ignore_line(log, text, "ip field rdmatop does not use");
  }
}

}  // namespace

FormatParser ip_link_format() {
  return {"ip link", detect_ip_link, parse_ip_link};
}

}  // namespace rdmatop::capture
