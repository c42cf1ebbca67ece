// `mlnx_qos -i IF` (mlnx-tools python/mlnx_qos, pretty_print): the netdev's DCB state as that
// script reads it through rtnetlink dcbnl (python/dcbnetlink.py) or the MLNX_OFED sysfs files
// qos/trust and qos/dscp2prio:
//   DCBX mode: OS controlled                    (DCB_CMD_GDCBX: not in the host model)
//   Priority trust state: dscp                  -> DcbInfo::trust
//   dscp2prio mapping:                          (printed only when trust is dscp)
//           prio:0 dscp:07,06,05,04,03,02,01,00,   -> APP entries, selector DSCP
//   Receive buffer size (bytes): 130944,...     (DCB_ATTR_DCB_BUFFER: not in the host model)
//   Cable len: 7                                -> DcbInfo::pfc_delay (ieee_pfc.delay; mlx5
//                                                  en_dcbnl.c keeps the cable length there)
//   PFC configuration:
//           priority    0   1   2   3   4   5   6   7
//           enabled     0   0   0   1   0   0   0   0   -> DcbInfo::pfc_enabled
//           buffer      0   0   0   1   0   0   0   0   (prio2buffer: not in the host model)
//   tc: 3 ratelimit: unlimited, tsa: ets, bw: 64%       -> ets_tc_tsa / ets_tc_bw
//            priority:  3                               -> ets_prio_tc
// The same fields the dcb parser (parse_dcb.cpp) and the live dcbnl read fill, so the DCB
// rules see one host whichever tool was pasted. mlnx_qos prints only the TCs that have a
// priority (unless -a) and a bandwidth only for ETS TCs: a per-TC vector is filled only when
// the paste shows all eight, never padded.
#include <algorithm>
#include <array>
#include <string>

#include "collector/capture/capture_formats.h"
#include "collector/capture/capture_text.h"

namespace rdmatop::capture {
namespace {

constexpr std::string_view kNoInterface =
    "mlnx_qos output that names no interface (mlnx_qos -i IF)";

// "tc: 3 ratelimit: unlimited, tsa: ets, bw: 64%" -> (3, tsa, bw or none); none if cut.
struct QosTc {
  std::uint8_t tc = 0;
  std::uint8_t tsa = 0;
  std::optional<std::uint8_t> bw;
};
std::optional<QosTc> qos_tc_line(std::string_view t) {
  if (!t.starts_with("tc: ")) return std::nullopt;
  const auto w = split_words(t);
  if (w.size() < 6 || w[2] != "ratelimit:") return std::nullopt;
  const auto tc = to_u64(w[1]);
  if (!tc || *tc > 7) return std::nullopt;
  // The rate is "unlimited," or "N.N Gbps,": the word after the comma-ended one is "tsa:".
  std::size_t i = 3;
  while (i < w.size() && !w[i].ends_with(',')) ++i;
  if (i + 2 >= w.size() || w[i + 1] != "tsa:") return std::nullopt;
  std::string_view tsa_name = w[i + 2];
  const bool more = tsa_name.ends_with(',');
  if (more) tsa_name.remove_suffix(1);
  const auto tsa = tsa_from_name(tsa_name);
  if (!tsa) return std::nullopt;
  QosTc out{static_cast<std::uint8_t>(*tc), *tsa, std::nullopt};
  if (more) {
    // ", bw: 64%": a line cut inside it is not a bandwidth.
    if (i + 5 != w.size() || w[i + 3] != "bw:" || !w[i + 4].ends_with('%')) return std::nullopt;
    const auto bw = to_u64(w[i + 4].substr(0, w[i + 4].size() - 1));
    if (!bw || *bw > 100) return std::nullopt;
    out.bw = static_cast<std::uint8_t>(*bw);
  } else if (i + 3 != w.size() || *tsa == 2) {
    return std::nullopt;  // an ETS TC always prints its bandwidth: this line was cut
  }
  return out;
}

// "prio:0 dscp:07,06,05,04,03,02,01,00," -> (prio, dscps). print_dscp2prio_sysfs prints each
// code point as "%02d,", so a line not ending in "," was cut and is not used.
std::optional<std::pair<std::uint8_t, std::vector<std::uint16_t>>> dscp2prio_line(
    std::string_view t) {
  const auto w = split_words(t);
  if (w.size() != 2 || !w[0].starts_with("prio:") || !w[1].starts_with("dscp:")) {
    return std::nullopt;
  }
  const auto prio = to_u64(w[0].substr(5));
  std::string_view list = w[1].substr(5);
  if (!prio || *prio > 7 || list.empty() || !list.ends_with(',')) return std::nullopt;
  std::vector<std::uint16_t> dscps;
  while (!list.empty()) {
    const std::size_t comma = list.find(',');
    const auto dscp = to_u64(list.substr(0, comma));
    if (comma != 2 || !dscp || *dscp > 63) return std::nullopt;
    dscps.push_back(static_cast<std::uint16_t>(*dscp));
    list.remove_prefix(comma + 1);
  }
  return std::make_pair(static_cast<std::uint8_t>(*prio), std::move(dscps));
}

// "enabled     0   0   0   1   0   0   0   0" -> the eight 0/1 values, or none (cut).
std::optional<std::uint8_t> pfc_enabled_line(std::string_view t) {
  const auto w = split_words(t);
  if (w.size() != 9 || w[0] != "enabled") return std::nullopt;
  std::uint8_t mask = 0;
  for (std::size_t p = 0; p < 8; ++p) {
    if (w[p + 1] == "1") {
      mask = static_cast<std::uint8_t>(mask | (1U << p));
    } else if (w[p + 1] != "0") {
      return std::nullopt;
    }
  }
  return mask;
}

// " priority:  3" (the priorities of the TC above).
std::optional<std::uint8_t> tc_priority_line(std::string_view t) {
  const auto w = split_words(t);
  if (w.size() != 2 || w[0] != "priority:") return std::nullopt;
  const auto p = to_u64(w[1]);
  if (!p || *p > 7) return std::nullopt;
  return static_cast<std::uint8_t>(*p);
}

// Lines only mlnx_qos prints.
bool is_mlnx_qos_line(std::string_view line) {
  const std::string_view t = trim(line);
  return t.starts_with("DCBX mode: ") || t.starts_with("Priority trust state: ") ||
         t == "dscp2prio mapping:" || t == "PFC configuration:" ||
         t.starts_with("Receive buffer size (bytes): ") || t.starts_with("Cable len: ") ||
         qos_tc_line(t).has_value() || dscp2prio_line(t).has_value();
}

std::size_t detect_mlnx_qos(const Section& s) {
  return with_command_bonus(score_lines(s, 100, is_mlnx_qos_line),
                            starts_with_word(s.command, "mlnx_qos"));
}

void parse_mlnx_qos(const Section& s, Facts& facts, LineLog& log) {
  const std::string netdev = command_argument(s.command, {"-i", "--interface"});
  if (!is_object_name(netdev)) {
    for (const Line& line : s.lines) {
      ignore_line(log, line.text,
                  is_mlnx_qos_line(line.text) ? kNoInterface : "not mlnx_qos output");
    }
    return;
  }
  DcbInfo info;
  bool any = false;
  bool in_pfc = false;  // after "PFC configuration:", where "priority"/"enabled" rows are
  int current_tc = -1;  // the TC whose " priority:" lines follow; -1: none (an int, not an
                        // optional: GCC 12 warns maybe-uninitialized on optional<uint8_t>)
  std::array<std::optional<std::uint8_t>, 8> prio_tc{};
  std::array<std::optional<QosTc>, 8> tcs{};
  std::vector<DcbAppEntry> app;
  for (const Line& line : s.lines) {
    const std::string_view t = trim(line.text);
    if (t.empty()) {
      log.ignore("blank");
      continue;
    }
    if (t.starts_with("DCBX mode: ")) {
      log.ignore("DCBX mode: the host model has no place for it (DCB_CMD_GDCBX is not read)");
    } else if (t.starts_with("Priority trust state: ")) {
      const std::string_view v = trim(t.substr(22));
      // "none": mlnx_qos could not read it ("Priority trust state is not supported").
      if (v == "dscp" || v == "pcp") {
        info.trust = std::string(v);
        any = true;
        log.use();
      } else {
        log.ignore("trust state mlnx_qos could not read");
      }
    } else if (t == "dscp2prio mapping:" || t == "PFC configuration:") {
      in_pfc = t == "PFC configuration:";
      current_tc = -1;
      log.use();
    } else if (const auto d = dscp2prio_line(t)) {
      // IEEE_8021QAZ_APP_SEL_DSCP (5): protocol is the DSCP value.
      for (const std::uint16_t dscp : d->second) app.push_back(DcbAppEntry{5, dscp, d->first});
      log.use();
    } else if (t == "default priority:") {
      log.ignore("default priority: the host model has no place for it");
    } else if (t.starts_with("Receive buffer size (bytes): ")) {
      log.ignore("receive buffers: the host model has no place for them");
    } else if (t.starts_with("Cable len: ")) {
      const auto n = to_u64(trim(t.substr(11)));
      if (n && *n <= 65535) {
        info.pfc_delay = static_cast<std::uint16_t>(*n);
        any = true;
        log.use();
      } else {
        log.ignore("mlnx_qos line cut or malformed");
      }
    } else if (in_pfc && t.starts_with("priority ")) {
      log.use();  // the column header of the PFC table
    } else if (in_pfc && starts_with_word(t, "enabled")) {
      if (const auto mask = pfc_enabled_line(t)) {
        info.pfc_enabled = *mask;
        any = true;
        log.use();
      } else {
        log.ignore("mlnx_qos line cut or malformed");
      }
    } else if (in_pfc && starts_with_word(t, "buffer")) {
      log.ignore("prio2buffer: the host model has no place for it");
    } else if (const auto tc = qos_tc_line(t)) {
      in_pfc = false;
      current_tc = tc->tc;
      tcs[tc->tc] = *tc;
      log.use();
    } else if (const auto p = tc_priority_line(t); p && current_tc >= 0) {
      prio_tc[*p] = static_cast<std::uint8_t>(current_tc);
      log.use();
    } else if (t.starts_with("tc: ")) {
      current_tc = -1;  // a cut TC line: its priorities are not known to be its
      log.ignore("mlnx_qos line cut or malformed");
    } else if (t.starts_with("*") || t.ends_with("not supported on your system")) {
      log.ignore("mlnx_qos warning");
    } else {
      log.ignore("not mlnx_qos output");
    }
  }
  if (std::all_of(prio_tc.begin(), prio_tc.end(), [](const auto& v) { return v.has_value(); })) {
    for (const auto& v : prio_tc) info.ets_prio_tc.push_back(*v);
  }
  if (std::all_of(tcs.begin(), tcs.end(), [](const auto& v) { return v.has_value(); })) {
    for (const auto& v : tcs) info.ets_tc_tsa.push_back(v->tsa);
    if (std::all_of(tcs.begin(), tcs.end(), [](const auto& v) { return v->bw.has_value(); })) {
      for (const auto& v : tcs) info.ets_tc_bw.push_back(*v->bw);
    }
  }
  // dcb app show and the kernel list DSCP entries by code point; mlnx_qos groups them by
  // priority.
  std::sort(app.begin(), app.end(),
            [](const DcbAppEntry& a, const DcbAppEntry& b) { return a.protocol < b.protocol; });
  info.app = std::move(app);
  any = any || !info.app.empty() || !info.ets_prio_tc.empty() || !info.ets_tc_tsa.empty();
  if (any) facts.netdevs[netdev].dcb = std::move(info);
}

}  // namespace

FormatParser mlnx_qos_format() {
  return {"mlnx_qos", detect_mlnx_qos, parse_mlnx_qos};
}

}  // namespace rdmatop::capture
