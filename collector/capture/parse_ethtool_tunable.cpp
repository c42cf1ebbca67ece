// `ethtool --get-tunable IF NAME...` (ethtool.8; ethtool.c do_gtunable / print_tunable): one
// "NAME: VALUE" line per tunable asked for, the names of net/ethtool/common.c tunable_strings:
//   rx-copybreak: 256
//   pfc-prevention-tout: 100
// pfc-prevention-tout (ETHTOOL_PFC_PREVENTION_TOUT, a u16 in ms; mlx5 en_ethtool.c: 0 is off,
// 65535 auto) is the netdev's PFC storm-prevention timeout, the value the live collector reads
// by ETHTOOL_GTUNABLE (NetdevSample::pfc_prevention_tout_ms). The copybreak tunables have no
// place in the host model. The command names the interface; without it nothing is attributed.
#include <array>
#include <string>

#include "collector/capture/capture_formats.h"
#include "collector/capture/capture_text.h"

namespace rdmatop::capture {
namespace {

constexpr std::array<std::string_view, 5> kTunables = {
    "rx-copybreak", "tx-copybreak", "pfc-prevention-tout", "tx-copybreak-buf-size",
    "tx-buf-size"};  // ethtool's own spelling of ETHTOOL_TX_COPYBREAK_BUF_SIZE

// "pfc-prevention-tout: 100" -> (name, value text); none for any other line.
std::optional<std::pair<std::string_view, std::string_view>> tunable_line(std::string_view line) {
  // print_tunable starts the line with the name: an indented line is some other tool's.
  if (line.empty() || line.front() == ' ' || line.front() == '\t') return std::nullopt;
  const std::string_view t = trim(line);
  const std::size_t colon = t.find(':');
  if (colon == std::string_view::npos) return std::nullopt;
  const std::string_view name = t.substr(0, colon);
  for (const std::string_view k : kTunables) {
    if (name == k) return std::make_pair(name, trim(t.substr(colon + 1)));
  }
  return std::nullopt;
}

bool is_tunable_command(std::string_view command) {
  if (!starts_with_word(command, "ethtool")) return false;
  for (const std::string_view w : split_words(command)) {
    if (w == "--get-tunable" || w == "--show-tunable") return true;
  }
  return false;
}

std::size_t detect_ethtool_tunable(const Section& s) {
  return with_command_bonus(score_lines(s, 100, [](std::string_view l) { return tunable_line(l); }),
                            is_tunable_command(s.command));
}

void parse_ethtool_tunable(const Section& s, Facts& facts, LineLog& log) {
  const std::string netdev = is_tunable_command(s.command)
                                 ? command_argument(s.command, {"--get-tunable", "--show-tunable"})
                                 : std::string();
  for (const Line& line : s.lines) {
    const auto kv = tunable_line(line.text);
    if (!kv) {
      ignore_line(log, line.text, "not ethtool --get-tunable output");
      continue;
    }
    if (netdev.empty()) {
      log.ignore("ethtool --get-tunable output that names no interface");
      continue;
    }
    if (kv->first != "pfc-prevention-tout") {
      log.ignore("copybreak tunable: the host model has no place for it");
      continue;
    }
    const auto ms = to_u64(kv->second);
    if (!ms || *ms > 65535) {
      log.ignore("ethtool --get-tunable line cut or malformed");
      continue;
    }
    facts.netdevs[netdev].pfc_prevention_tout_ms = static_cast<std::uint16_t>(*ms);
    log.use();
  }
}

}  // namespace

FormatParser ethtool_tunable_format() {
  return {"ethtool --get-tunable", detect_ethtool_tunable, parse_ethtool_tunable};
}

}  // namespace rdmatop::capture
