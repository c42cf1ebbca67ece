// `ethtool -i IF` (ethtool.8, ETHTOOL_GDRVINFO): "driver:", "version:", "firmware-version:",
// "expansion-rom-version:", "bus-info:", "supports-*:" lines.
#include <array>
#include <string>

#include "collector/capture/capture_formats.h"
#include "collector/capture/capture_text.h"

namespace rdmatop::capture {
namespace {

constexpr std::array<std::string_view, 10> kInfoKeys = {"driver",
                                                        "version",
                                                        "firmware-version",
                                                        "expansion-rom-version",
                                                        "bus-info",
                                                        "supports-statistics",
                                                        "supports-test",
                                                        "supports-eeprom-access",
                                                        "supports-register-dump",
                                                        "supports-priv-flags"};

std::optional<std::pair<std::string_view, std::string_view>> info_line(std::string_view line) {
  const std::string_view t = trim(line);
  const std::size_t colon = t.find(':');
  if (colon == std::string_view::npos) return std::nullopt;
  const std::string_view key = t.substr(0, colon);
  for (const std::string_view k : kInfoKeys) {
    if (key == k) return std::make_pair(key, trim(t.substr(colon + 1)));
  }
  return std::nullopt;
}

std::size_t detect_ethtool_info(const Section& s) {
  std::size_t score = 0;
  bool driver = false;
  for (const Line& line : s.lines) {
    const auto kv = info_line(line.text);
    if (!kv) continue;
    score += 10;
    driver = driver || kv->first == "driver";
  }
  return driver ? score : 0;
}

void parse_ethtool_info(const Section& s, Facts& facts, LineLog& log) {
  DriverInfo info;
  bool any = false;
  for (const Line& line : s.lines) {
    const auto kv = info_line(line.text);
    if (!kv) {
      ignore_line(log, line.text, "not ethtool -i output");
      continue;
    }
    log.use();
    any = true;
    if (kv->first == "driver") info.driver = std::string(kv->second);
    if (kv->first == "version") info.version = std::string(kv->second);
    if (kv->first == "firmware-version") info.fw_version = std::string(kv->second);
    if (kv->first == "bus-info") info.bus_info = std::string(kv->second);
  }
  if (!any) return;
  const std::string netdev = command_argument(s.command, {"-i", "--driver"});
  if (netdev.empty()) {
    facts.unnamed_driver = info;
  } else {
    facts.netdevs[netdev].driver = info;
  }
}

}  // namespace

FormatParser ethtool_info_format() {
  return {"ethtool -i", detect_ethtool_info, parse_ethtool_info};
}

}  // namespace rdmatop::capture
