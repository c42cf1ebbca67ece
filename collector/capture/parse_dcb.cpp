// iproute2 `dcb` (dcb-pfc.8, dcb-ets.8, dcb-app.8), one "key value..." line per attribute:
//   dcb pfc show dev IF   "pfc-cap 8 macsec-bypass off delay 4096", "prio-pfc 0:off ... 7:on",
//                         "requests 0:N ...", "indications 0:N ..."
//   dcb ets show dev IF   "prio-tc 0:0 ...", "tc-bw 0:33 ...", "tc-tsa 0:ets ... 7:strict"
//   dcb app show dev IF   "dscp-prio 0:0 24:3 48:6" (or, without -N, "CS3:3")
// The command names the interface ("dev IF"); the values fill the fields rtnetlink dcbnl
// gives (DCB_CMD_IEEE_GET, include/uapi/linux/dcbnl.h).
#include <array>
#include <string>

#include "collector/capture/capture_formats.h"
#include "collector/capture/capture_text.h"

namespace rdmatop::capture {
namespace {

constexpr std::array<std::string_view, 9> kDcbKeys = {"pfc-cap",     "prio-pfc",  "requests",
                                                      "indications", "prio-tc",   "tc-bw",
                                                      "tc-tsa",      "dscp-prio", "willing"};

bool is_dcb_line(std::string_view line) {
  const auto w = split_words(line);
  if (w.size() < 2) return false;
  for (const std::string_view k : kDcbKeys) {
    if (w[0] == k)
      return w.size() >= 2 &&
             (w[1].find(':') != std::string_view::npos || k == "pfc-cap" || k == "willing");
  }
  return false;
}

// "3:on" -> (3, "on").
std::optional<std::pair<std::uint64_t, std::string_view>> index_value(std::string_view word) {
  const std::size_t colon = word.find(':');
  if (colon == std::string_view::npos) return std::nullopt;
  const auto index = to_u64(word.substr(0, colon));
  if (!index) return std::nullopt;
  return std::make_pair(*index, word.substr(colon + 1));
}

// DSCP code point names dcb prints without -N (dcb_app.c, RFC 2474 / 2597 / 3246): CSn, AFxy, EF.
std::optional<std::uint64_t> dscp_value(std::string_view name) {
  if (const auto n = to_u64(name)) return n;
  if (name.size() == 3 && name.starts_with("CS") && name[2] >= '0' && name[2] <= '7') {
    return static_cast<std::uint64_t>(name[2] - '0') * 8;
  }
  if (name.size() == 4 && name.starts_with("AF") && name[2] >= '1' && name[2] <= '4' &&
      name[3] >= '1' && name[3] <= '3') {
    return static_cast<std::uint64_t>(name[2] - '0') * 8 +
           static_cast<std::uint64_t>(name[3] - '0') * 2;
  }
  if (name == "EF") return 46;
  return std::nullopt;
}

std::size_t detect_dcb(const Section& s) {
  return with_command_bonus(score_lines(s, 100, is_dcb_line), starts_with_word(s.command, "dcb"));
}

// Fills an 8-entry per-priority vector from "i:v" words; false on anything else.
template <class Convert>
bool per_priority(const std::vector<std::string_view>& w, std::vector<std::uint8_t>& out,
                  Convert convert) {
  std::vector<std::uint8_t> values(8, 0);
  std::array<bool, 8> seen{};
  for (std::size_t i = 1; i < w.size(); ++i) {
    const auto iv = index_value(w[i]);
    if (!iv || iv->first > 7) return false;
    const auto v = convert(iv->second);
    if (!v) return false;
    values[iv->first] = *v;
    seen[iv->first] = true;
  }
  for (const bool s : seen) {
    if (!s) return false;  // a cut line: the vector is all eight or absent
  }
  out = std::move(values);
  return true;
}

void parse_dcb(const Section& s, Facts& facts, LineLog& log) {
  const std::string netdev = command_argument(s.command, {"dev"});
  if (!is_object_name(netdev)) {
    for (const Line& line : s.lines) {
      ignore_line(log, line.text,
                  is_dcb_line(line.text) ? "dcb output that names no device (dcb ... show dev IF)"
                                         : "not dcb output");
    }
    return;
  }
  DcbInfo info;
  std::size_t used = 0;
  for (const Line& line : s.lines) {
    if (!is_dcb_line(line.text)) {
      ignore_line(log, line.text, "not dcb output");
      continue;
    }
    const auto w = split_words(line.text);
    bool ok = true;
    if (w[0] == "pfc-cap" || w[0] == "willing") {
      for (std::size_t i = 0; i + 1 < w.size(); i += 2) {
        const auto n = to_u64(w[i + 1]);
        if (w[i] == "pfc-cap" && n && *n <= 255) info.pfc_cap = static_cast<std::uint8_t>(*n);
        if (w[i] == "delay" && n && *n <= 65535) info.pfc_delay = static_cast<std::uint16_t>(*n);
      }
    } else if (w[0] == "prio-pfc") {
      std::vector<std::uint8_t> on;
      ok = per_priority(w, on, [](std::string_view v) -> std::optional<std::uint8_t> {
        if (v == "on") return 1;
        if (v == "off") return 0;
        return std::nullopt;
      });
      if (ok) {
        std::uint8_t mask = 0;
        for (std::size_t p = 0; p < 8; ++p) mask = static_cast<std::uint8_t>(mask | (on[p] << p));
        info.pfc_enabled = mask;
      }
    } else if (w[0] == "requests" || w[0] == "indications") {
      std::vector<std::uint64_t> values(8, 0);
      std::size_t n = 0;
      for (std::size_t i = 1; i < w.size(); ++i) {
        const auto iv = index_value(w[i]);
        const auto v = iv ? to_u64(iv->second) : std::nullopt;
        if (!iv || iv->first > 7 || !v) {
          ok = false;
          break;
        }
        values[iv->first] = *v;
        ++n;
      }
      ok = ok && n == 8;
      if (ok) (w[0] == "requests" ? info.pfc_requests : info.pfc_indications) = values;
    } else if (w[0] == "prio-tc" || w[0] == "tc-bw") {
      ok = per_priority(w, w[0] == "prio-tc" ? info.ets_prio_tc : info.ets_tc_bw,
                        [](std::string_view v) -> std::optional<std::uint8_t> {
                          const auto n = to_u64(v);
                          if (!n || *n > 255) return std::nullopt;
                          return static_cast<std::uint8_t>(*n);
                        });
    } else if (w[0] == "tc-tsa") {
      ok = per_priority(w, info.ets_tc_tsa, tsa_from_name);
    } else if (w[0] == "dscp-prio") {
      for (std::size_t i = 1; i < w.size() && ok; ++i) {
        const std::size_t colon = w[i].find(':');
        const auto dscp =
            colon == std::string_view::npos ? std::nullopt : dscp_value(w[i].substr(0, colon));
        const auto prio =
            colon == std::string_view::npos ? std::nullopt : to_u64(w[i].substr(colon + 1));
        ok = dscp && prio && *dscp < 64 && *prio < 8;
        // IEEE_8021QAZ_APP_SEL_DSCP (5): protocol is the DSCP value.
        if (ok) {
          info.app.push_back(
              DcbAppEntry{5, static_cast<std::uint16_t>(*dscp), static_cast<std::uint8_t>(*prio)});
        }
      }
    }
    if (ok) {
      log.use();
      ++used;
    } else {
      log.ignore("dcb line cut or malformed");
    }
  }
  if (used > 0) facts.netdevs[netdev].dcb = std::move(info);
}

}  // namespace

FormatParser dcb_format() {
  return {"dcb", detect_dcb, parse_dcb};
}

}  // namespace rdmatop::capture
