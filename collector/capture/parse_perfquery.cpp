// infiniband-diags `perfquery` (perfquery.8): the port's PMA counters, "Name:....value" under a
// header naming the LID and port:
//   # Port extended counters: Lid 10 port 1 (CapMask: 0x5300 CapMask2: 0x0000002)   (-x)
//   # Port counters: Lid 1 port 1 (CapMask: 0x1600)                                  (plain)
//   PortXmitData:....................0
// Each counter is filed under the port's counters/ file of the same PMA field, in the units
// sysfs gives it (drivers/infiniband/core/sysfs.c pma_attrs / pma_attrs_ext: port_xmit_data is
// PortXmitData, in 4-octet words, as perfquery prints it):
//   * the data and packet counters only from PortCountersExtended (-x): sysfs serves the 64-bit
//     extended ones where the port has them, plain perfquery's are the 32-bit PortCounters;
//   * the error counters from either, but only while they fit the PortCounters width sysfs
//     reads them at (PORT_PMA_ATTR widths, counter_table.h saturating_width_bits): an extended
//     64-bit error counter past it is a value sysfs would show saturated.
// The device is the one `-C DEV` names; without it the assembler places the counters on the
// one device the capture names (capture_host.cpp). A LID given on the command line may be any
// port of the fabric: such output is placed only where the capture shows that LID.
#include <array>
#include <string>

#include "collector/capture/capture_formats.h"
#include "collector/capture/capture_text.h"
#include "collector/normalize/counter_table.h"

namespace rdmatop::capture {
namespace {

struct PmaField {
  std::string_view pma;    // the PMA field perfquery prints (perfquery.c / libibmad fields.c)
  std::string_view sysfs;  // the counters/ file (sysfs.c)
  bool data;               // a data/packet counter: 64-bit in PortCountersExtended only
};

constexpr std::array<PmaField, 21> kPmaFields = {{
    {"SymbolErrorCounter", "symbol_error", false},
    {"LinkErrorRecoveryCounter", "link_error_recovery", false},
    {"LinkDownedCounter", "link_downed", false},
    {"PortRcvErrors", "port_rcv_errors", false},
    {"PortRcvRemotePhysicalErrors", "port_rcv_remote_physical_errors", false},
    {"PortRcvSwitchRelayErrors", "port_rcv_switch_relay_errors", false},
    {"PortXmitDiscards", "port_xmit_discards", false},
    {"PortXmitConstraintErrors", "port_xmit_constraint_errors", false},
    {"PortRcvConstraintErrors", "port_rcv_constraint_errors", false},
    {"LocalLinkIntegrityErrors", "local_link_integrity_errors", false},
    {"ExcessiveBufferOverrunErrors", "excessive_buffer_overrun_errors", false},
    {"VL15Dropped", "VL15_dropped", false},
    {"PortXmitWait", "port_xmit_wait", false},
    {"PortXmitData", "port_xmit_data", true},
    {"PortRcvData", "port_rcv_data", true},
    {"PortXmitPkts", "port_xmit_packets", true},
    {"PortRcvPkts", "port_rcv_packets", true},
    {"PortUnicastXmitPkts", "unicast_xmit_packets", true},
    {"PortUnicastRcvPkts", "unicast_rcv_packets", true},
    {"PortMulticastXmitPkts", "multicast_xmit_packets", true},
    {"PortMulticastRcvPkts", "multicast_rcv_packets", true},
}};

// "PortXmitData:....................0" -> (name, value text); the dots may be missing.
std::optional<std::pair<std::string_view, std::string_view>> pma_line(std::string_view line) {
  const std::string_view t = trim(line);
  const std::size_t colon = t.find(':');
  if (colon == std::string_view::npos || colon == 0) return std::nullopt;
  const std::string_view name = t.substr(0, colon);
  for (const char c : name) {
    if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))) {
      return std::nullopt;
    }
  }
  std::string_view value = t.substr(colon + 1);
  while (!value.empty() && value.front() == '.') value.remove_prefix(1);
  return std::make_pair(name, trim(value));
}

const PmaField* pma_field(std::string_view name) {
  for (const PmaField& f : kPmaFields) {
    if (f.pma == name) return &f;
  }
  return nullptr;
}

struct Header {
  bool extended = false;
  std::string lid;
  std::uint32_t port = 0;
};

// "# Port extended counters: Lid 10 port 1 (CapMask: ...)" / "# Port counters: Lid 1 port 1".
std::optional<Header> header_line(std::string_view line) {
  const std::string_view t = trim(line);
  Header h;
  std::string_view rest;
  if (t.starts_with("# Port extended counters: ")) {
    h.extended = true;
    rest = t.substr(26);
  } else if (t.starts_with("# Port counters: ")) {
    rest = t.substr(17);
  } else {
    return std::nullopt;
  }
  const auto w = split_words(rest);
  if (w.size() < 4 || w[0] != "Lid" || w[2] != "port") return std::nullopt;
  const auto port = to_u64(w[3]);
  if (!port || *port > 255 || !is_decimal(w[1])) return std::nullopt;
  h.lid = std::string(w[1]);
  h.port = static_cast<std::uint32_t>(*port);
  return h;
}

bool is_perfquery_line(std::string_view line) {
  if (header_line(line)) return true;
  const auto kv = pma_line(line);
  return kv && (pma_field(kv->first) != nullptr || kv->first == "PortSelect" ||
                kv->first == "CounterSelect" || kv->first == "CounterSelect2");
}

std::size_t detect_perfquery(const Section& s) {
  // "PortXmitData:....0" alone could be a sysfs-values "path:value" only if the path had no
  // slash; the dotted padding is perfquery's own.
  return with_command_bonus(score_lines(s, 100, is_perfquery_line),
                            starts_with_word(s.command, "perfquery"));
}

// The command's device (-C/--Ca) and whether it names a LID (a positional argument).
struct PerfqueryArgs {
  std::string device;
  bool lid = false;
};
PerfqueryArgs perfquery_args(std::string_view command) {
  PerfqueryArgs out;
  const auto w = split_words(command);
  for (std::size_t i = 1; i < w.size(); ++i) {
    if (w[i] == "|" || w[i].front() == '|' || w[i].front() == '>') break;
    if (w[i] == "-C" || w[i] == "--Ca") {
      if (i + 1 < w.size() && is_object_name(w[i + 1])) out.device = std::string(w[i + 1]);
      ++i;
    } else if (w[i] == "-P" || w[i] == "--Port" || w[i] == "-t" || w[i] == "--timeout" ||
               w[i] == "-y" || w[i] == "--m_key" || w[i] == "--config") {
      ++i;  // an option's argument
    } else if (w[i].front() != '-') {
      out.lid = true;
    }
  }
  return out;
}

void parse_perfquery(const Section& s, Facts& facts, LineLog& log) {
  const PerfqueryArgs args = perfquery_args(s.command);
  std::optional<Header> header;
  UnplacedPma current;
  const auto flush = [&] {
    if (!header || current.files.empty()) return;
    if (!args.device.empty() && !args.lid) {
      Attrs& files = facts.devices[args.device].ports[header->port].files;
      for (auto& [k, v] : current.files) put(files, k, std::move(v));
    } else {
      current.device = args.device;
      current.port = header->port;
      current.lid = args.lid ? header->lid : std::string();
      facts.unplaced_pma.push_back(std::move(current));
    }
    current = UnplacedPma{};
  };
  for (const Line& line : s.lines) {
    if (const auto h = header_line(line.text)) {
      flush();
      header = h;
      // perfquery -a sums all ports into port 255 (perfquery.c ALL_PORTS): no one port's files.
      if (h->port == 255 || h->port == 0) header.reset();
      log.use();
      continue;
    }
    const auto kv = pma_line(line.text);
    if (!kv) {
      ignore_line(log, line.text, "not perfquery output");
      continue;
    }
    const PmaField* f = pma_field(kv->first);
    if (f == nullptr) {
      log.ignore(kv->first.starts_with("PortSelect") || kv->first.starts_with("CounterSelect")
                     ? "perfquery selector field"
                     : "PMA counter with no counters/ file (QP1Dropped, ...)");
      continue;
    }
    const auto value = to_u64(kv->second);
    if (!value) {
      log.ignore("no value (line cut)");
      continue;
    }
    if (!header) {
      log.ignore("perfquery counter under no \"# Port ... counters: Lid L port P\" header");
      continue;
    }
    if (f->data && !header->extended) {
      log.ignore("32-bit PortCounters data counter (sysfs has the extended one: perfquery -x)");
      continue;
    }
    const std::uint8_t width = saturating_width_bits(RawSource::pma_counters, f->sysfs);
    if (width != 0 && width < 64 && *value > (std::uint64_t{1} << width) - 1) {
      log.ignore("extended error counter past the PortCounters width sysfs reads");
      continue;
    }
    put(current.files, "counters/" + std::string(f->sysfs), std::to_string(*value));
    log.use();
  }
  flush();
}

}  // namespace

FormatParser perfquery_format() {
  return {"perfquery", detect_perfquery, parse_perfquery};
}

}  // namespace rdmatop::capture
