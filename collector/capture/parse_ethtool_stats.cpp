// `ethtool -S IF` (ethtool.8: "NIC statistics:" then one "     name: value" line per
// ETH_SS_STATS string), whole or filtered by grep. The name is opaque and may hold ": " itself;
// the value is the text after the last ": " (as collector/parse/ethtool_text.h reads it).
#include <string>

#include "collector/capture/capture_formats.h"
#include "collector/capture/capture_text.h"

namespace rdmatop::capture {
namespace {

struct StatLine {
  std::string_view name;
  std::string_view value;  // empty: the line ends after "name:" (wrapped or cut)
};

std::optional<StatLine> ethtool_stat_line(std::string_view line) {
  if (line.empty() || (line.front() != ' ' && line.front() != '\t')) return std::nullopt;
  const std::string_view body = trim(line);
  if (body.ends_with(":")) return StatLine{body.substr(0, body.size() - 1), {}};
  const std::size_t cut = body.rfind(": ");
  if (cut == std::string_view::npos || cut == 0) return std::nullopt;
  return StatLine{trim(body.substr(0, cut)), trim(body.substr(cut + 2))};
}

// sos report (sos_commands/networking/) keeps `ethtool -S IF` as "ethtool_-S_IF":
// "grep pause sos_commands/networking/ethtool_-S_eth1" (ryran/xsos#112) names eth1.
std::string sos_report_netdev(std::string_view command) {
  constexpr std::string_view marker = "ethtool_-S_";
  for (const std::string_view word : split_words(command)) {
    const std::size_t at = word.rfind(marker);
    if (at == std::string_view::npos) continue;
    const std::string_view name = word.substr(at + marker.size());
    if (is_object_name(name)) return std::string(name);
  }
  return {};
}

bool is_ethtool_stats_command(std::string_view command) {
  return starts_with_word(command, "ethtool") &&
         (command.find(" -S") != std::string_view::npos ||
          command.find("--statistics") != std::string_view::npos);
}

std::size_t detect_ethtool_stats(const Section& s) {
  std::size_t score = 0;
  for (const Line& line : s.lines) {
    if (trim(line.text) == "NIC statistics:") score += 100;
    const auto stat = ethtool_stat_line(line.text);
    if (stat && is_decimal(stat->value)) ++score;
  }
  return with_command_bonus(
      score, is_ethtool_stats_command(s.command) || !sos_report_netdev(s.command).empty());
}

void parse_ethtool_stats(const Section& s, Facts& facts, LineLog& log) {
  CounterMap stats;
  for (std::size_t i = 0; i < s.lines.size(); ++i) {
    const std::string_view text = s.lines[i].text;
    if (trim(text).empty()) {
      log.ignore("blank");
      continue;
    }
    if (trim(text) == "NIC statistics:") {
      log.use();
      continue;
    }
    const auto stat = ethtool_stat_line(text);
    if (!stat) {
      // "     tx" (a line the paste cut before its value) or prose around the paste.
      log.ignore(!text.empty() && (text.front() == ' ' || text.front() == '\t')
                     ? "no value (line cut)"
                     : "not ethtool -S output");
      continue;
    }
    std::string_view value = stat->value;
    if (value.empty() && i + 1 < s.lines.size() && is_decimal(trim(s.lines[i + 1].text))) {
      // "name:" with the value wrapped onto the next line.
      value = trim(s.lines[++i].text);
      log.use();
    }
    const auto number = to_u64(value);
    if (!number) {
      log.ignore(value.empty() ? "no value (line cut)" : "value not a counter");
      continue;
    }
    stats.insert_or_assign(std::string(stat->name), *number);
    log.use();
  }
  if (stats.empty()) return;
  std::string netdev = command_argument(s.command, {"-S", "--statistics"});
  if (netdev.empty()) netdev = sos_report_netdev(s.command);
  std::optional<CounterMap>& into =
      netdev.empty() ? facts.unnamed_ethtool : facts.netdevs[netdev].ethtool;
  if (!into) into.emplace();
  for (const auto& [name, value] : stats) into->insert_or_assign(name, value);
}

}  // namespace

FormatParser ethtool_stats_format() {
  return {"ethtool -S", detect_ethtool_stats, parse_ethtool_stats};
}

}  // namespace rdmatop::capture
