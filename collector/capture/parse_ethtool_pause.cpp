// `ethtool -a IF` / `ethtool -I -a IF` (ethtool.8): "Pause parameters for IF:", then
// "Autonegotiate:", "RX:", "TX:" on|off and, with -I, "Statistics:" tx/rx_pause_frames. The
// header names the interface; the lines are read by collector/parse/ethtool_text.h.
#include <string>

#include "collector/capture/capture_formats.h"
#include "collector/capture/capture_text.h"
#include "collector/parse/ethtool_text.h"

namespace rdmatop::capture {
namespace {

constexpr std::string_view kPauseHeader = "Pause parameters for ";

std::size_t detect_ethtool_pause(const Section& s) {
  for (const Line& line : s.lines) {
    const std::string_view t = trim(line.text);
    if (t.starts_with(kPauseHeader) && t.ends_with(":")) return 1000 + s.lines.size();
  }
  return 0;
}

void parse_ethtool_pause(const Section& s, Facts& facts, LineLog& log) {
  std::string netdev;
  std::string text;
  std::size_t taken = 0;
  for (const Line& line : s.lines) {
    const std::string_view t = trim(line.text);
    if (netdev.empty()) {
      if (t.starts_with(kPauseHeader) && t.ends_with(":")) {
        netdev = std::string(t.substr(kPauseHeader.size(), t.size() - kPauseHeader.size() - 1));
      } else {
        log.ignore(t.empty() ? "blank" : "before the ethtool -a header");
        continue;
      }
    }
    text += line.text;
    text += '\n';
    ++taken;
  }
  if (taken == 0) return;
  if (!is_object_name(netdev)) {
    for (std::size_t i = 0; i < taken; ++i) log.ignore("ethtool -a header names no interface");
    return;
  }
  auto parsed = parse_ethtool_pause_text(text);
  if (!parsed) {
    for (std::size_t i = 0; i < taken; ++i) log.ignore("ethtool -a: " + parsed.error().message);
    return;
  }
  for (std::size_t i = 0; i < taken; ++i) log.use();
  facts.netdevs[netdev].pause = std::move(parsed).value();
}

}  // namespace

FormatParser ethtool_pause_format() {
  return {"ethtool -a", detect_ethtool_pause, parse_ethtool_pause};
}

}  // namespace rdmatop::capture
