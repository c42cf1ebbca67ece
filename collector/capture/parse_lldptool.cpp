// open-lldp `lldptool -t -i IF [-n] [-V PFC|ETS-CFG|APP]` and `lldptool -ti IF` (lldptool.8,
// lldptool-pfc.8, lldptool-ets.8, lldptool-app.8): the TLVs of the agent, one title line each
// and its fields below, as lldp_8021qaz_clif.c prints them:
//   IEEE 8021QAZ ETS Configuration TLV     Willing, CBS, MAX_TCS, PRIO_MAP: 0:0 ...,
//                                          TC Bandwidth: 12% ..., TSA_MAP: 0:ets ...
//   IEEE 8021QAZ PFC TLV                   Willing, MACsec Bypass Capable,
//                                          PFC capable traffic classes: 8, PFC enabled: 1 2 5 7
//   IEEE 8021QAZ APP TLV                   App#0: / Priority: 2 / Sel: 2 / {S}TCP Port: 3260
// Without -n these are the TLVs the local agent sends: what lldpad configured into the driver
// by dcbnl, read into the same DcbInfo fields as dcb and the live dcbnl fill. A TLV that says
// "Willing: yes" may be overridden by the peer's (IEEE 802.1Qaz symmetric attribute passing,
// lldptool-pfc.8 "Theory of Operations"), which the paste does not show: it is not used. With
// -n they are the peer's, for which the host model has no place. The ETS Recommendation TLV
// is what the port asks of its peer, not its own configuration. Other TLVs (Chassis ID, ...)
// have no place in the host model either.
#include <array>
#include <string>

#include "collector/capture/capture_formats.h"
#include "collector/capture/capture_text.h"

namespace rdmatop::capture {
namespace {

enum class Tlv { none, ets_cfg, ets_rec, pfc, app, other };

// A TLV title: an unindented line ending in " TLV" (lldptool's print_tlv prints "%s\n\t").
std::optional<Tlv> tlv_title(std::string_view line) {
  if (line.empty() || line.front() == ' ' || line.front() == '\t') return std::nullopt;
  const std::string_view t = trim(line);
  if (t == "IEEE 8021QAZ ETS Configuration TLV") return Tlv::ets_cfg;
  if (t == "IEEE 8021QAZ ETS Recommendation TLV") return Tlv::ets_rec;
  if (t == "IEEE 8021QAZ PFC TLV") return Tlv::pfc;
  if (t == "IEEE 8021QAZ APP TLV") return Tlv::app;
  // lldpad's other TLV names (lldp/tlv names of lldptool -t): a few words ending in TLV.
  if ((t.ends_with(" TLV") || t == "End of LLDPDU TLV") && t.size() < 64 &&
      split_words(t).size() <= 6) {
    return Tlv::other;
  }
  return std::nullopt;
}

constexpr std::array<std::string_view, 13> kDcbFields = {"Willing:",
                                                         "CBS:",
                                                         "MAX_TCS:",
                                                         "PRIO_MAP:",
                                                         "TC Bandwidth:",
                                                         "TSA_MAP:",
                                                         "MACsec Bypass Capable:",
                                                         "PFC capable traffic classes:",
                                                         "PFC enabled:",
                                                         "Priority:",
                                                         "Sel:",
                                                         "App#",
                                                         "Ethertype:"};

bool is_lldptool_line(std::string_view line) {
  if (const auto tlv = tlv_title(line)) return *tlv != Tlv::other;
  const std::string_view t = trim(line);
  for (const std::string_view f : kDcbFields) {
    if (t.starts_with(f)) return line.front() == '\t' || line.front() == ' ';
  }
  return false;
}

std::size_t detect_lldptool(const Section& s) {
  return with_command_bonus(score_lines(s, 100, is_lldptool_line),
                            starts_with_word(s.command, "lldptool"));
}

// The interface of "-i IF" / "-ti IF" / "-tni IF", and whether -n (the peer's TLVs) is given.
struct LldptoolArgs {
  std::string netdev;
  bool peer = false;
};
LldptoolArgs lldptool_args(std::string_view command) {
  LldptoolArgs out;
  const auto w = split_words(command);
  for (std::size_t i = 1; i < w.size(); ++i) {
    const std::string_view a = w[i];
    if (a.size() < 2 || a[0] != '-' || a[1] == '-') continue;
    const std::string_view flags = a.substr(1);
    if (flags.find_first_not_of("tTnirgcdVhvqkS") != std::string_view::npos) continue;
    if (flags.find('n') != std::string_view::npos) out.peer = true;
    if (flags.back() == 'i' && i + 1 < w.size() && is_object_name(w[i + 1]) &&
        w[i + 1].front() != '-') {
      out.netdev = std::string(w[i + 1]);
    }
  }
  return out;
}

// "0:0 1:1 ..." / "0:ets 1:strict ..." -> eight values in key order; none unless 0..7 each once.
template <class Convert>
std::optional<std::vector<std::uint8_t>> indexed8(const std::vector<std::string_view>& words,
                                                  Convert convert) {
  if (words.size() != 8) return std::nullopt;
  std::vector<std::uint8_t> out(8, 0);
  for (std::size_t i = 0; i < 8; ++i) {
    const std::size_t colon = words[i].find(':');
    if (colon == std::string_view::npos || words[i].substr(0, colon) != std::to_string(i)) {
      return std::nullopt;
    }
    const auto v = convert(words[i].substr(colon + 1));
    if (!v) return std::nullopt;
    out[i] = *v;
  }
  return out;
}

std::optional<std::uint8_t> small_number(std::string_view s, std::uint64_t max) {
  const auto n = to_u64(s);
  if (!n || *n > max) return std::nullopt;
  return static_cast<std::uint8_t>(*n);
}

// The fields of one TLV, as read so far.
struct TlvFields {
  std::optional<bool> willing;
  std::vector<std::uint8_t> prio_tc, tc_bw, tc_tsa;
  std::optional<std::uint8_t> pfc_cap, pfc_enabled;
  std::size_t lines = 0;  // the lines read into these fields (used or not, decided at the end)
};

void parse_lldptool(const Section& s, Facts& facts, LineLog& log) {
  const LldptoolArgs args = lldptool_args(s.command);
  DcbInfo info;
  bool any = false;
  Tlv tlv = Tlv::none;
  TlvFields fields;
  // The entry's priority and selector so far; -1: not read (ints: GCC 12 warns
  // maybe-uninitialized on optional<uint8_t> here).
  int app_prio = -1;
  int app_sel = -1;
  std::vector<DcbAppEntry> app;
  std::size_t app_lines = 0;
  // Decides a finished TLV: its lines are used when its values go into the model.
  const auto close = [&] {
    const char* why = nullptr;
    if (tlv == Tlv::ets_cfg || tlv == Tlv::pfc) {
      if (args.netdev.empty()) {
        why = "lldptool output that names no interface (lldptool -t -i IF)";
      } else if (args.peer) {
        why = "peer TLV (lldptool -n): the host model has no place for the link partner's DCB";
      } else if (!fields.willing) {
        why = "lldptool TLV without its Willing line (cut)";
      } else if (*fields.willing) {
        why = "willing TLV: the driver may run the peer's values, which the paste does not show";
      }
    }
    if (tlv == Tlv::ets_cfg && why == nullptr) {
      const bool used = !fields.prio_tc.empty() || !fields.tc_bw.empty() || !fields.tc_tsa.empty();
      if (!fields.prio_tc.empty()) info.ets_prio_tc = fields.prio_tc;
      if (!fields.tc_bw.empty()) info.ets_tc_bw = fields.tc_bw;
      if (!fields.tc_tsa.empty()) info.ets_tc_tsa = fields.tc_tsa;
      any = any || used;
      if (!used) why = "lldptool line cut or malformed";
    }
    if (tlv == Tlv::pfc && why == nullptr) {
      if (fields.pfc_cap) info.pfc_cap = fields.pfc_cap;
      if (fields.pfc_enabled) info.pfc_enabled = fields.pfc_enabled;
      any = any || fields.pfc_cap || fields.pfc_enabled;
      if (!fields.pfc_cap && !fields.pfc_enabled) why = "lldptool line cut or malformed";
    }
    if (tlv == Tlv::ets_cfg || tlv == Tlv::pfc) {
      for (std::size_t i = 0; i < fields.lines; ++i) {
        if (why == nullptr) {
          log.use();
        } else {
          log.ignore(why);
        }
      }
    }
    fields = TlvFields{};
  };
  const auto close_app_entry = [&] {
    app_prio = -1;
    app_sel = -1;
  };
  for (const Line& line : s.lines) {
    if (const auto title = tlv_title(line.text)) {
      close();
      close_app_entry();
      tlv = *title;
      if (tlv == Tlv::ets_cfg || tlv == Tlv::pfc) {
        ++fields.lines;
      } else if (tlv == Tlv::app) {
        ++app_lines;
      } else if (tlv == Tlv::ets_rec) {
        log.ignore("ETS Recommendation TLV: what the port recommends, not its configuration");
      } else {
        log.ignore("LLDP TLV with no place in the host model");
      }
      continue;
    }
    const std::string_view t = trim(line.text);
    if (t.empty()) {
      log.ignore("blank");
      continue;
    }
    const std::size_t colon = t.find(':');
    const std::string_view key = colon == std::string_view::npos ? t : t.substr(0, colon);
    const std::string_view value =
        colon == std::string_view::npos ? std::string_view() : trim(t.substr(colon + 1));
    const auto words = split_words(value);
    if (tlv == Tlv::ets_cfg || tlv == Tlv::pfc) {
      ++fields.lines;
      if (key == "Willing" && (value == "yes" || value == "no")) {
        fields.willing = value == "yes";
      } else if (tlv == Tlv::ets_cfg && key == "PRIO_MAP") {
        if (auto v = indexed8(words, [](std::string_view x) { return small_number(x, 7); })) {
          fields.prio_tc = *v;
        }
      } else if (tlv == Tlv::ets_cfg && key == "TC Bandwidth" && words.size() == 8) {
        std::vector<std::uint8_t> bw;
        for (const std::string_view x : words) {
          if (!x.ends_with('%')) break;
          const auto n = small_number(x.substr(0, x.size() - 1), 100);
          if (!n) break;
          bw.push_back(*n);
        }
        if (bw.size() == 8) fields.tc_bw = bw;
      } else if (tlv == Tlv::ets_cfg && key == "TSA_MAP") {
        if (auto v = indexed8(words, tsa_from_name)) fields.tc_tsa = *v;
      } else if (tlv == Tlv::pfc && key == "PFC capable traffic classes") {
        fields.pfc_cap = small_number(value, 15);
      } else if (tlv == Tlv::pfc && key == "PFC enabled") {
        // The enabled priorities, or "none" (ieee8021qaz_print_pfc_tlv).
        std::uint8_t mask = 0;
        bool ok = !words.empty();
        for (const std::string_view x : words) {
          const auto p = small_number(x, 7);
          if (x == "none" && words.size() == 1) continue;
          if (!p) ok = false;
          if (p) mask = static_cast<std::uint8_t>(mask | (1U << *p));
        }
        if (ok) fields.pfc_enabled = mask;
      }
      // CBS, MAX_TCS, MACsec Bypass Capable: no place in DcbInfo; counted with the TLV.
      continue;
    }
    if (tlv == Tlv::app) {
      if (t.starts_with("App#")) {
        close_app_entry();
        ++app_lines;
      } else if (key == "Priority") {
        const auto n = small_number(value, 7);
        app_prio = n ? int{*n} : -1;
        ++app_lines;
      } else if (key == "Sel") {
        const auto n = small_number(value, 7);
        app_sel = n ? int{*n} : -1;
        ++app_lines;
      } else if (app_prio >= 0 && app_sel >= 0 && colon != std::string_view::npos) {
        // The protocol line: "Ethertype: 0x8906" (Sel 1), "{S}TCP Port: 3260" (2), "UDP or
        // DCCP Port" (3), "TCP/STCP/UDP/DCCP Port" (4), "Reserved Port: 26" (5 and up: the
        // DSCP selector of 802.1Qaz-2014, which this print predates).
        std::optional<std::uint64_t> proto;
        if (value.starts_with("0x") && value.size() > 2 && value.size() <= 6) {
          std::uint64_t v = 0;
          bool hex = true;
          for (const char c : value.substr(2)) {
            const int d = (c >= '0' && c <= '9')   ? c - '0'
                          : (c >= 'a' && c <= 'f') ? c - 'a' + 10
                          : (c >= 'A' && c <= 'F') ? c - 'A' + 10
                                                   : -1;
            if (d < 0) hex = false;
            v = v * 16 + static_cast<std::uint64_t>(d < 0 ? 0 : d);
          }
          if (hex) proto = v;
        } else {
          proto = to_u64(value);
        }
        ++app_lines;
        if (proto && *proto <= 65535 && (app_sel != 5 || *proto < 64)) {
          app.push_back(DcbAppEntry{static_cast<std::uint8_t>(app_sel),
                                    static_cast<std::uint16_t>(*proto),
                                    static_cast<std::uint8_t>(app_prio)});
        }
        close_app_entry();
      } else {
        log.ignore("not lldptool output");
      }
      continue;
    }
    log.ignore(tlv == Tlv::other || tlv == Tlv::ets_rec ? "LLDP TLV with no place in the host model"
                                                        : "not lldptool output");
  }
  close();
  const char* app_why = nullptr;
  if (args.netdev.empty()) {
    app_why = "lldptool output that names no interface (lldptool -t -i IF)";
  } else if (args.peer) {
    app_why = "peer TLV (lldptool -n): the host model has no place for the link partner's DCB";
  } else if (app.empty()) {
    app_why = "lldptool line cut or malformed";
  }
  for (std::size_t i = 0; i < app_lines; ++i) {
    if (app_why == nullptr) {
      log.use();
    } else {
      log.ignore(app_why);
    }
  }
  if (app_why == nullptr) {
    info.app = std::move(app);
    any = true;
  }
  if (any) facts.netdevs[args.netdev].dcb = std::move(info);
}

}  // namespace

FormatParser lldptool_format() {
  return {"lldptool", detect_lldptool, parse_lldptool};
}

}  // namespace rdmatop::capture
