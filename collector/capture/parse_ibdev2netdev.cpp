// `ibdev2netdev` (Mellanox OFED / mlnx-tools script): "DEV port N ==> IF (Up|Down)", also
// through `| column -t` and with a poster's trailing "# comment". The script prints "(Up)" when
// /sys/class/net/IF/operstate reads "up" and "(Down)" otherwise.
#include <string>

#include "collector/capture/capture_formats.h"
#include "collector/capture/capture_text.h"

namespace rdmatop::capture {
namespace {

struct Mapping {
  std::string_view dev;
  std::uint32_t port = 0;
  std::string_view netdev;
  std::string_view state;  // "Up" / "Down"
};

std::optional<Mapping> ibdev2netdev_line(std::string_view line) {
  std::string_view t = trim(line);
  if (const std::size_t hash = t.find(" #"); hash != std::string_view::npos)
    t = trim(t.substr(0, hash));
  const auto w = split_words(t);
  if (w.size() != 6 || w[1] != "port" || w[3] != "==>") return std::nullopt;
  const auto port = to_u64(w[2]);
  if (!port || *port == 0 || *port > 255 || !is_object_name(w[0]) || !is_object_name(w[4])) {
    return std::nullopt;
  }
  if (w[5] != "(Up)" && w[5] != "(Down)") return std::nullopt;
  return Mapping{w[0], static_cast<std::uint32_t>(*port), w[4], w[5].substr(1, w[5].size() - 2)};
}

std::size_t detect_ibdev2netdev(const Section& s) {
  return score_lines(s, 100, [](std::string_view l) { return ibdev2netdev_line(l).has_value(); });
}

void parse_ibdev2netdev(const Section& s, Facts& facts, LineLog& log) {
  for (const Line& line : s.lines) {
    const auto m = ibdev2netdev_line(line.text);
    if (!m) {
      ignore_line(log, line.text, "not ibdev2netdev output");
      continue;
    }
    log.use();
    facts.devices[std::string(m->dev)].ports[m->port].netdev = std::string(m->netdev);
    put(facts.netdevs[std::string(m->netdev)].files, "operstate", m->state == "Up" ? "up" : "down");
  }
}

}  // namespace

FormatParser ibdev2netdev_format() {
  return {"ibdev2netdev", detect_ibdev2netdev, parse_ibdev2netdev};
}

}  // namespace rdmatop::capture
