// `show_gids` (Mellanox OFED / mlnx-tools script): a header "DEV PORT INDEX GID IPv4 VER DEV",
// a dashes line, one line per populated GID "mlx5_0 1 3 0000:...:c0a8:0101 192.168.1.1 v2
// ens1f0", then "n_gids_found=N". It reads gids/N, gid_attrs/types/N ("RoCE v2" is "v2",
// "IB/RoCE v1" is "v1") and gid_attrs/ndevs/N, and lists only populated entries.
#include <string>

#include "collector/capture/capture_formats.h"
#include "collector/capture/capture_text.h"
#include "collector/parse/sysfs_parse.h"

namespace rdmatop::capture {
namespace {

struct GidLine {
  std::string_view dev;
  std::uint32_t port = 0;
  std::string_view index;
  std::string_view gid;
  std::string_view version;
  std::string_view netdev;
};

std::optional<GidLine> show_gids_line(std::string_view line) {
  const auto w = split_words(line);
  if (w.size() < 5 || w.size() > 7 || !is_object_name(w[0]) || !is_decimal(w[1]) ||
      !is_decimal(w[2]) || !parse_gid(w[3])) {
    return std::nullopt;
  }
  const auto port = to_u64(w[1]);
  if (!port || *port == 0 || *port > 255) return std::nullopt;
  // IPv4 is empty for IPv6 and link-local GIDs: 5 columns then, 6 with it (DEV may be empty).
  std::string_view version;
  std::string_view netdev;
  for (std::size_t i = 4; i < w.size(); ++i) {
    if (w[i] == "v1" || w[i] == "v2") {
      version = w[i];
      if (i + 1 < w.size()) netdev = w[i + 1];
    }
  }
  if (version.empty()) return std::nullopt;
  return GidLine{w[0], static_cast<std::uint32_t>(*port), w[2], w[3], version, netdev};
}

std::size_t detect_show_gids(const Section& s) {
  return score_lines(s, 100, [](std::string_view l) {
    return show_gids_line(l).has_value() || trim(l).starts_with("n_gids_found=");
  });
}

void parse_show_gids(const Section& s, Facts& facts, LineLog& log) {
  for (const Line& line : s.lines) {
    const auto g = show_gids_line(line.text);
    if (!g) {
      const std::string_view t = trim(line.text);
      log.ignore(t.empty()                                      ? "blank"
                 : t.starts_with("DEV") || t.starts_with("---") ? "table header"
                 : t.starts_with("n_gids_found=")               ? "summary line"
                                                                : "not show_gids output");
      continue;
    }
    log.use();
    PortFacts& port = facts.devices[std::string(g->dev)].ports[g->port];
    const std::string index(g->index);
    put(port.files, "gids/" + index, std::string(g->gid));
    put(port.files, "gid_attrs/types/" + index, g->version == "v2" ? "RoCE v2" : "IB/RoCE v1");
    if (!g->netdev.empty() && is_object_name(g->netdev)) {
      put(port.files, "gid_attrs/ndevs/" + index, std::string(g->netdev));
      if (port.netdev.empty()) port.netdev = std::string(g->netdev);
    }
  }
}

}  // namespace

FormatParser show_gids_format() {
  return {"show_gids", detect_show_gids, parse_show_gids};
}

}  // namespace rdmatop::capture
