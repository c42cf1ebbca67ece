#include "collector/capture/capture_host.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <ctime>
#include <set>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "collector/capture/capture_text.h"
#include "collector/collect.h"
#include "collector/parse/sysfs_parse.h"
#include "collector/source/dcbnl_source.h"
#include "collector/source/ethtool_source.h"
#include "collector/source/file_source.h"

namespace rdmatop::capture {
namespace {

// ---------------------------------------------------------------- merging

template <class Map>
bool map_conflicts(const Map& known, const Map& incoming) {
  for (const auto& [key, value] : incoming) {
    const auto it = known.find(key);
    if (it != known.end() && !(it->second == value)) return true;
  }
  return false;
}

// `dcb pfc show` and `dcb ets show` fill different fields of one DcbInfo: only a field both
// give, with different values, is a second capture.
bool dcb_conflicts(const DcbInfo& a, const DcbInfo& b) {
  const auto opt = [](const auto& x, const auto& y) { return x && y && *x != *y; };
  const auto vec = [](const auto& x, const auto& y) {
    return !x.empty() && !y.empty() && !std::equal(x.begin(), x.end(), y.begin(), y.end());
  };
  return opt(a.pfc_enabled, b.pfc_enabled) || opt(a.pfc_cap, b.pfc_cap) ||
         opt(a.pfc_delay, b.pfc_delay) || vec(a.pfc_requests, b.pfc_requests) ||
         vec(a.pfc_indications, b.pfc_indications) || vec(a.ets_prio_tc, b.ets_prio_tc) ||
         vec(a.ets_tc_bw, b.ets_tc_bw) || vec(a.ets_tc_tsa, b.ets_tc_tsa) || vec(a.app, b.app) ||
         vec(a.trust, b.trust);
}

void merge_dcb(DcbInfo& into, const DcbInfo& from) {
  if (from.pfc_enabled) into.pfc_enabled = from.pfc_enabled;
  if (from.pfc_cap) into.pfc_cap = from.pfc_cap;
  if (from.pfc_delay) into.pfc_delay = from.pfc_delay;
  if (!from.pfc_requests.empty()) into.pfc_requests = from.pfc_requests;
  if (!from.pfc_indications.empty()) into.pfc_indications = from.pfc_indications;
  if (!from.ets_prio_tc.empty()) into.ets_prio_tc = from.ets_prio_tc;
  if (!from.ets_tc_bw.empty()) into.ets_tc_bw = from.ets_tc_bw;
  if (!from.ets_tc_tsa.empty()) into.ets_tc_tsa = from.ets_tc_tsa;
  if (!from.app.empty()) into.app = from.app;
  if (!from.trust.empty()) into.trust = from.trust;
}

// Two renderings of one value that differ: both known, and not equal.
template <class T>
bool both_differ(const T& a, const T& b) {
  return a && b && *a != *b;
}
bool text_differs(const std::string& a, const std::string& b) {
  return !a.empty() && !b.empty() && a != b;
}

// `devlink dev info` twice, or `devlink health` before and after a reporter counted an error:
// a field both say, with different values (a reporter's by its name).
bool devlink_conflicts(const DevlinkInfo& a, const DevlinkInfo& b) {
  if (text_differs(a.driver, b.driver) || text_differs(a.serial_number, b.serial_number) ||
      text_differs(a.board_serial_number, b.board_serial_number) ||
      map_conflicts(a.fixed, b.fixed) || map_conflicts(a.running, b.running) ||
      map_conflicts(a.stored, b.stored)) {
    return true;
  }
  for (const DevlinkHealthReporter& r : b.reporters) {
    for (const DevlinkHealthReporter& k : a.reporters) {
      if (k.name != r.name) continue;
      if (text_differs(k.state, r.state) || both_differ(k.error_count, r.error_count) ||
          both_differ(k.recover_count, r.recover_count) ||
          both_differ(k.grace_period_ms, r.grace_period_ms) ||
          both_differ(k.auto_recover, r.auto_recover) || both_differ(k.auto_dump, r.auto_dump)) {
        return true;
      }
    }
  }
  return false;
}

void merge_devlink(DevlinkInfo& into, const DevlinkInfo& from) {
  if (!from.bus_name.empty()) into.bus_name = from.bus_name;
  if (!from.dev_name.empty()) into.dev_name = from.dev_name;
  if (!from.driver.empty()) into.driver = from.driver;
  if (!from.serial_number.empty()) into.serial_number = from.serial_number;
  if (!from.board_serial_number.empty()) into.board_serial_number = from.board_serial_number;
  for (const auto& [k, v] : from.fixed) into.fixed.insert_or_assign(k, v);
  for (const auto& [k, v] : from.running) into.running.insert_or_assign(k, v);
  for (const auto& [k, v] : from.stored) into.stored.insert_or_assign(k, v);
  for (const DevlinkHealthReporter& r : from.reporters) {
    const auto it = std::find_if(into.reporters.begin(), into.reporters.end(),
                                 [&](const DevlinkHealthReporter& k) { return k.name == r.name; });
    if (it == into.reporters.end()) {
      into.reporters.push_back(r);
      continue;
    }
    if (!r.state.empty()) it->state = r.state;
    if (r.error_count) it->error_count = r.error_count;
    if (r.recover_count) it->recover_count = r.recover_count;
    if (r.last_dump_ts_ms) it->last_dump_ts_ms = r.last_dump_ts_ms;
    if (r.grace_period_ms) it->grace_period_ms = r.grace_period_ms;
    if (r.auto_recover) it->auto_recover = r.auto_recover;
    if (r.auto_dump) it->auto_dump = r.auto_dump;
  }
}

bool conflicts(const Facts& known, const Facts& incoming) {
  for (const auto& [handle, info] : incoming.devlink) {
    const auto it = known.devlink.find(handle);
    if (it != known.devlink.end() && devlink_conflicts(it->second, info)) return true;
  }
  for (const auto& [name, dev] : incoming.devices) {
    const auto it = known.devices.find(name);
    if (it == known.devices.end()) continue;
    if (map_conflicts(it->second.files, dev.files)) return true;
    if (map_conflicts(it->second.resources, dev.resources)) return true;
    if (!dev.class_link.empty() && !it->second.class_link.empty() &&
        dev.class_link != it->second.class_link) {
      return true;
    }
    for (const auto& [number, port] : dev.ports) {
      const auto p = it->second.ports.find(number);
      if (p == it->second.ports.end()) continue;
      if (map_conflicts(p->second.files, port.files)) return true;
      if (both_differ(p->second.qp_counter_mode, port.qp_counter_mode)) return true;
      if ((port.qp_counter_mode && p->second.qp_counter_not_auto) ||
          (port.qp_counter_not_auto && p->second.qp_counter_mode)) {
        return true;  // the mode changed between the two
      }
      if (!port.bound_counters.empty() && !p->second.bound_counters.empty() &&
          port.bound_counters != p->second.bound_counters) {
        return true;
      }
      if (!port.netdev.empty() && !p->second.netdev.empty() && port.netdev != p->second.netdev) {
        return true;
      }
    }
  }
  for (const auto& [name, net] : incoming.netdevs) {
    const auto it = known.netdevs.find(name);
    if (it == known.netdevs.end()) continue;
    if (map_conflicts(it->second.files, net.files)) return true;
    if (net.ethtool && it->second.ethtool && map_conflicts(*it->second.ethtool, *net.ethtool)) {
      return true;
    }
    if (net.driver && it->second.driver && !(*net.driver == *it->second.driver)) return true;
    if (net.pause && it->second.pause && !(*net.pause == *it->second.pause)) return true;
    if (net.dcb && it->second.dcb && dcb_conflicts(*it->second.dcb, *net.dcb)) return true;
    if (net.pfc_prevention_tout_ms && it->second.pfc_prevention_tout_ms &&
        *net.pfc_prevention_tout_ms != *it->second.pfc_prevention_tout_ms) {
      return true;
    }
  }
  return !incoming.proc_interrupts.empty() && !known.proc_interrupts.empty() &&
         incoming.proc_interrupts != known.proc_interrupts;
}

template <class Map>
void merge_map(Map& into, const Map& from) {
  for (const auto& [key, value] : from) into.insert_or_assign(key, value);
}

void merge(Facts& into, const Facts& from) {
  for (const auto& [name, dev] : from.devices) {
    DeviceFacts& d = into.devices[name];
    merge_map(d.files, dev.files);
    merge_map(d.resources, dev.resources);
    if (!dev.class_link.empty()) d.class_link = dev.class_link;
    for (const auto& [number, port] : dev.ports) {
      PortFacts& p = d.ports[number];
      merge_map(p.files, port.files);
      if (!port.netdev.empty()) p.netdev = port.netdev;
      if (port.qp_counter_mode) p.qp_counter_mode = port.qp_counter_mode;
      p.qp_counter_not_auto = p.qp_counter_not_auto || port.qp_counter_not_auto;
      if (!port.bound_counters.empty()) p.bound_counters = port.bound_counters;
    }
  }
  for (const auto& [handle, info] : from.devlink) merge_devlink(into.devlink[handle], info);
  for (const auto& [name, net] : from.netdevs) {
    NetdevFacts& n = into.netdevs[name];
    merge_map(n.files, net.files);
    if (net.ethtool) {
      if (!n.ethtool) n.ethtool.emplace();
      merge_map(*n.ethtool, *net.ethtool);
    }
    if (net.driver) n.driver = net.driver;
    if (net.pause) n.pause = net.pause;
    if (net.dcb) {
      if (!n.dcb) n.dcb.emplace();
      merge_dcb(*n.dcb, *net.dcb);
    }
    if (net.pfc_prevention_tout_ms) n.pfc_prevention_tout_ms = net.pfc_prevention_tout_ms;
  }
  if (!from.proc_interrupts.empty()) into.proc_interrupts = from.proc_interrupts;
  into.qp_counters_listed = into.qp_counters_listed || from.qp_counters_listed;
}

// The one netdev `known` names (by a port link or its own facts), or "". Stops at the second
// name, so a paste of many netdevs costs no more than two.
std::string single_netdev(const Facts& known) {
  std::string found;
  const auto see = [&found](const std::string& name) {
    if (found.empty()) found = name;
    return found == name;
  };
  for (const auto& [name, net] : known.netdevs) {
    if (!see(name)) return {};
  }
  for (const auto& [dname, dev] : known.devices) {
    for (const auto& [number, port] : dev.ports) {
      if (!port.netdev.empty() && !see(port.netdev)) return {};
    }
  }
  return found;
}

// The one RDMA device `a` and `b` name together, or "".
std::string single_device(const Facts& a, const Facts& b) {
  std::string found;
  for (const Facts* f : {&a, &b}) {
    for (const auto& [name, dev] : f->devices) {
      if (found.empty()) found = name;
      if (found != name) return {};
    }
  }
  return found;
}

// perfquery's counters on the device its -C names or, without one, the one device the files
// name; a LID the command asked for must be the LID the files show for that port (sysfs lid,
// "0x%x" in drivers/infiniband/core/sysfs.c lid_show), or it may be another host's port.
void place_pma(Facts& section, const Facts& known, FileReport& report) {
  for (UnplacedPma& pma : section.unplaced_pma) {
    const std::string device = pma.device.empty() ? single_device(section, known) : pma.device;
    std::string why;
    if (!pma.lid.empty()) {
      const auto lid = to_u64(pma.lid);
      char want[32] = {};
      std::snprintf(want, sizeof want, "0x%llx", static_cast<unsigned long long>(lid.value_or(0)));
      const auto shows = [&](const Facts& f) {
        const auto d = f.devices.find(device);
        if (d == f.devices.end()) return false;
        const auto p = d->second.ports.find(pma.port);
        if (p == d->second.ports.end()) return false;
        const auto l = p->second.files.find("lid");
        return l != p->second.files.end() && l->second == want;
      };
      if (device.empty() || !lid || !(shows(section) || shows(known))) {
        why = "perfquery output of LID " + pma.lid +
              ", which the files do not show as a port of this host";
      }
    } else if (device.empty()) {
      why = "perfquery output that names no device (-C DEV), and the files name no single device";
    }
    if (!why.empty()) {
      report.notes.push_back(why + ": not used");
      continue;
    }
    merge_map(section.devices[device].ports[pma.port].files, pma.files);
    if (pma.device.empty()) {
      report.notes.push_back("perfquery output that names no device taken as " + device + "/" +
                             std::to_string(pma.port) + "'s (the only device the files name)");
    }
  }
  section.unplaced_pma.clear();
}

// "ethtool -S | grep prio" pasted without its command line names no interface: it belongs to
// the one netdev the other pastes name, when there is exactly one.
bool attach_unnamed(Facts& section, const Facts& known, FileReport& report) {
  place_pma(section, known, report);
  if (!section.unnamed_ethtool && !section.unnamed_driver) return true;
  std::string netdev = single_netdev(section);
  if (netdev.empty()) netdev = single_netdev(known);
  if (netdev.empty()) {
    report.notes.push_back(
        "ethtool output that names no interface, and the other files name no single netdev: "
        "not used");
    section.unnamed_ethtool.reset();
    section.unnamed_driver.reset();
    return false;
  }
  NetdevFacts& net = section.netdevs[netdev];
  if (section.unnamed_ethtool) {
    if (!net.ethtool) net.ethtool.emplace();
    merge_map(*net.ethtool, *section.unnamed_ethtool);
    section.unnamed_ethtool.reset();
  }
  if (section.unnamed_driver) {
    if (!net.driver) net.driver = section.unnamed_driver;
    section.unnamed_driver.reset();
  }
  report.notes.push_back("ethtool output that names no interface taken as " + netdev +
                         "'s (the only netdev the files name)");
  return true;
}

// ---------------------------------------------------------------- reading one file

// `date` (coreutils, C locale): "Tue Dec  1 21:36:46 UTC 2026". Only UTC is read: another zone's
// abbreviation does not say its offset.
std::optional<std::chrono::system_clock::time_point> parse_date_line(std::string_view line) {
  const auto w = split_words(line);
  if (w.size() != 6 || w[4] != "UTC") return std::nullopt;
  static constexpr std::string_view months[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                                "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  int month = -1;
  for (int i = 0; i < 12; ++i) {
    if (w[1] == months[i]) month = i;
  }
  const auto day = to_u64(w[2]);
  const auto year = to_u64(w[5]);
  const auto hms = w[3];
  if (month < 0 || !day || !year || hms.size() != 8 || hms[2] != ':' || hms[5] != ':') {
    return std::nullopt;
  }
  const auto h = to_u64(hms.substr(0, 2));
  const auto m = to_u64(hms.substr(3, 2));
  const auto s = to_u64(hms.substr(6, 2));
  if (!h || !m || !s || *day < 1 || *day > 31 || *year < 1970 || *year > 9999 || *h > 23 ||
      *m > 59 || *s > 60) {
    return std::nullopt;
  }
  std::tm tm{};
  tm.tm_year = static_cast<int>(*year) - 1900;
  tm.tm_mon = month;
  tm.tm_mday = static_cast<int>(*day);
  tm.tm_hour = static_cast<int>(*h);
  tm.tm_min = static_cast<int>(*m);
  tm.tm_sec = static_cast<int>(*s);
  const std::time_t t = timegm(&tm);
  return std::chrono::system_clock::from_time_t(t);
}

// A file an operator labelled "Before ..." / "After ..." (byteps#179: "Before benchmarking:",
// "After:"): 0 before, 2 after, 1 otherwise.
int label_rank(std::string_view text) {
  for (const Line& line : clean_lines(text.substr(0, std::min<std::size_t>(text.size(), 4096)))) {
    std::string lower;
    for (const char c : trim(line.text)) {
      lower.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    }
    if (lower.starts_with("before") && (lower.size() == 6 || !std::isalpha(lower[6]))) return 0;
    if (lower.starts_with("after") && (lower.size() == 5 || !std::isalpha(lower[5]))) return 2;
  }
  return 1;
}

struct SectionFacts {
  Facts facts;
  std::string host;
  std::optional<std::chrono::system_clock::time_point> time;
};

void add_format(FileReport& report, std::string_view name) {
  if (std::find(report.formats.begin(), report.formats.end(), name) == report.formats.end()) {
    report.formats.emplace_back(name);
  }
}

// The file's sections, each parsed on its own.
std::vector<SectionFacts> parse_file(std::string_view text, FileReport& report,
                                     const std::string& command = {}) {
  const std::vector<Line> lines = clean_lines(text);
  report.lines = lines.size();
  std::vector<Section> sections;
  // A ttar archive is one document whose content lines may look like anything.
  Section whole;
  whole.lines = lines;
  if (find_format("ttar")->detect(whole) > 0) {
    sections.push_back(std::move(whole));
  } else {
    sections = split_sections(lines, report.log);
  }
  std::vector<SectionFacts> out;
  for (Section& section : sections) {
    // A bundle file's command, from its manifest: the output itself may name no interface.
    if (section.command.empty()) section.command = command;
    // A command that printed nothing can still say something: a whole dump with no rows.
    if (section.lines.empty() && section.command.empty()) continue;
    SectionFacts sf;
    sf.host = section.host;
    if (starts_with_word(section.command, "date")) {
      for (const Line& line : section.lines) {
        if (trim(line.text).empty()) {
          report.log.ignore("blank");
        } else if (auto t = parse_date_line(line.text); t && !sf.time) {
          sf.time = t;
          report.log.use();
          add_format(report, "date");
        } else {
          report.log.ignore("not a UTC date line");
        }
      }
      out.push_back(std::move(sf));
      continue;
    }
    const FormatParser* best = nullptr;
    std::size_t best_score = 0;
    for (const FormatParser& format : formats()) {
      const std::size_t score = format.detect(section);
      if (score > best_score) {
        best = &format;
        best_score = score;
      }
    }
    if (best == nullptr) {
      for (const Line& line : section.lines) {
        ignore_line(report.log, line.text, "no known format");
      }
      continue;
    }
    add_format(report, best->name);
    best->parse(section, sf.facts, report.log);
    if (!sf.facts.proc_interrupts.empty()) {
      // collector/readiness_collector.cpp: by the IRQ numbers, never by the action name.
      constexpr std::string_view kIrqNote =
          "/proc/interrupts: a device gets the IRQs its PCI function's msi_irqs/ lists (found "
          "by its device link), as on a live host; no IRQ is placed by its name";
      if (std::find(report.notes.begin(), report.notes.end(), kIrqNote) == report.notes.end()) {
        report.notes.emplace_back(kIrqNote);
      }
    }
    out.push_back(std::move(sf));
  }
  return out;
}

// An rdmatop recording (docs/recording.md): its first line is a JSON header whose "format" is
// "rdmatop.recording" (recording/recording_format.h).
bool is_recording(std::string_view text) {
  const std::string_view first = text.substr(0, std::min<std::size_t>(text.find('\n'), 4096));
  return first.starts_with("{") &&
         first.find("\"format\":\"rdmatop.recording\"") != std::string_view::npos;
}

// The manifest.json of an `rdmatop capture` bundle (collector/bundle/bundle.h): a JSON object
// whose second line is its "format" member, "rdmatop.capture-bundle".
bool is_bundle_manifest(std::string_view text) {
  const std::string_view head = text.substr(0, std::min<std::size_t>(text.size(), 256));
  return head.starts_with("{") &&
         head.find("\"format\": \"rdmatop.capture-bundle\"") != std::string_view::npos;
}

// The commands an `rdmatop capture` manifest gives its files (each entry's "path" and "argv",
// collector/bundle/bundle.cpp make_manifest), keyed by the name the file has as an input beside
// the manifest (same directory or archive). A bundle file holds the tool's output alone, and
// much of it names no interface ("NIC statistics:", "driver: mlx5_core"): its command does.
std::map<std::string, std::string> bundle_commands(const std::vector<CaptureInput>& inputs) {
  std::map<std::string, std::string> out;
  constexpr std::string_view kManifest = "manifest.json";
  for (const CaptureInput& input : inputs) {
    if (!input.error.empty() || !is_bundle_manifest(input.text)) continue;
    if (!input.name.ends_with(kManifest)) continue;
    const std::string dir = input.name.substr(0, input.name.size() - kManifest.size());
    const auto manifest = nlohmann::json::parse(input.text, nullptr, false);
    if (manifest.is_discarded() || !manifest.is_object()) continue;
    const auto files = manifest.find("files");
    if (files == manifest.end() || !files->is_array()) continue;
    for (const auto& file : *files) {
      if (!file.is_object()) continue;
      const auto path = file.find("path");
      const auto argv = file.find("argv");
      if (path == file.end() || !path->is_string() || argv == file.end() || !argv->is_array()) {
        continue;
      }
      std::string command;
      bool ok = !argv->empty();
      for (const auto& arg : *argv) {
        if (!arg.is_string()) {
          ok = false;
          break;
        }
        if (!command.empty()) command += ' ';
        command += arg.get<std::string>();
      }
      if (ok) out[dir + path->get<std::string>()] = std::move(command);
    }
  }
  return out;
}

// `diff -u A B` (GNU diffutils, "Unified Format"): "--- A" and "+++ B" headers, then hunks
// ("@@ -l,n +l,n @@") of " " lines both have, "-" lines only A has and "+" lines only B has.
// Returns what the diff shows of A and of B, or none when `text` is not a unified diff.
std::optional<std::pair<std::string, std::string>> split_unified_diff(std::string_view text) {
  const std::vector<Line> lines = clean_lines(text);
  bool in_hunk = false;
  bool seen_hunk = false;
  std::string before;
  std::string after;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string_view t = lines[i].text;
    if (t.starts_with("--- ") && i + 2 < lines.size() && lines[i + 1].text.starts_with("+++ ") &&
        lines[i + 2].text.starts_with("@@ ")) {
      in_hunk = false;
      ++i;  // the "+++" header
      continue;
    }
    if (t.starts_with("@@ ") && t.find(" @@") != std::string_view::npos) {
      in_hunk = true;
      seen_hunk = true;
      continue;
    }
    if (!in_hunk || t.empty()) continue;
    const std::string body(t.substr(1));
    if (t.front() == ' ' || t.front() == '-') before += body + "\n";
    if (t.front() == ' ' || t.front() == '+') after += body + "\n";
    if (t.front() != ' ' && t.front() != '-' && t.front() != '+' && t.front() != '\\') {
      in_hunk = false;  // the diff ended; what follows is not part of it
    }
  }
  if (!seen_hunk) return std::nullopt;
  return std::make_pair(std::move(before), std::move(after));
}

// ---------------------------------------------------------------- in-memory sources

std::string strip_slashes(std::string_view p) {
  while (!p.empty() && p.front() == '/') p.remove_prefix(1);
  while (!p.empty() && p.back() == '/') p.remove_suffix(1);
  return std::string(p);
}

/// The facts as the sysfs tree they were read from: class/infiniband/<dev>/..., class/net/<if>/.
class MemoryFileSource final : public FileSource {
 public:
  explicit MemoryFileSource(const Facts& facts) {
    for (const auto& [name, dev] : facts.devices) {
      const std::string base = "class/infiniband/" + name;
      add_dir(base);
      if (!dev.class_link.empty()) links_[base] = dev.class_link;
      for (const auto& [rel, value] : dev.files) add(base + "/" + rel, value);
      for (const auto& [number, port] : dev.ports) {
        const std::string pbase = base + "/ports/" + std::to_string(number);
        add_dir(pbase);
        for (const auto& [rel, value] : port.files) add(pbase + "/" + rel, value);
      }
    }
    for (const auto& [name, net] : facts.netdevs) {
      const std::string base = "class/net/" + name;
      add_dir(base);
      for (const auto& [rel, value] : net.files) add(base + "/" + rel, value);
    }
  }

  Result<std::string> read(std::string_view relpath) const override {
    const std::string p = strip_slashes(relpath);
    if (const auto it = files_.find(p); it != files_.end()) return it->second;
    if (dirs_.contains(p)) return errno_error(EISDIR, p);
    return absent(p);
  }

  Result<std::vector<std::string>> list(std::string_view reldir) const override {
    const std::string p = strip_slashes(reldir);
    if (files_.contains(p)) return errno_error(ENOTDIR, p);
    if (!dirs_.contains(p)) return absent(p);
    const std::string prefix = p.empty() ? std::string() : p + "/";
    std::set<std::string> names;
    const auto collect = [&](const auto& container) {
      for (auto it = container.lower_bound(prefix); it != container.end(); ++it) {
        const std::string& path = key_of(*it);
        if (!path.starts_with(prefix)) break;
        const std::string rest = path.substr(prefix.size());
        if (rest.empty()) continue;
        names.insert(rest.substr(0, rest.find('/')));
      }
    };
    collect(files_);
    collect(dirs_);
    return std::vector<std::string>(names.begin(), names.end());
  }

  Result<std::string> read_link(std::string_view relpath) const override {
    const std::string p = strip_slashes(relpath);
    if (const auto it = links_.find(p); it != links_.end()) return it->second;
    if (files_.contains(p) || dirs_.contains(p)) return errno_error(EINVAL, p);
    return absent(p);
  }

  std::string describe() const override { return "capture"; }

 private:
  // ENOENT, as a sysfs tree answers for a file it lacks, said as what it is here.
  static Error absent(const std::string& path) {
    return Error{ENOENT, path + ": no capture file says it"};
  }

  static const std::string& key_of(const std::pair<const std::string, std::string>& kv) {
    return kv.first;
  }
  static const std::string& key_of(const std::string& k) { return k; }

  void add_dir(const std::string& path) {
    std::string p = strip_slashes(path);
    while (true) {
      dirs_.insert(p);
      const std::size_t slash = p.rfind('/');
      if (slash == std::string::npos) break;
      p.resize(slash);
    }
    dirs_.insert("");
  }

  // A relpath ending in "/" is a directory the paste shows (a ttar "Directory:").
  void add(const std::string& path, const std::string& value) {
    const std::string p = strip_slashes(path);
    if (path.ends_with("/")) {
      add_dir(p);
      return;
    }
    if (dirs_.contains(p)) return;  // a name that is already a directory stays one
    const std::size_t slash = p.rfind('/');
    if (slash != std::string::npos) add_dir(p.substr(0, slash));
    files_[p] = value + "\n";  // sysfs attributes end in a newline
  }

  std::map<std::string, std::string> files_;
  std::set<std::string> dirs_;
  std::map<std::string, std::string> links_;
};

/// `ethtool -S/-i/-a` as pasted. What no file shows answers EOPNOTSUPP, as the dump source does
/// for a missing dump (collector/source/ethtool_dump_source.cpp), so the collectors treat "not
/// pasted" like "not supported".
class MemoryEthtoolSource final : public EthtoolSource {
 public:
  explicit MemoryEthtoolSource(const Facts& facts) : facts_(facts) {}

  Result<CounterMap> stats(const std::string& ifname) override {
    const NetdevFacts* net = find(ifname);
    if (net == nullptr || !net->ethtool) return missing("ethtool -S", ifname);
    return *net->ethtool;
  }
  Result<DriverInfo> driver_info(const std::string& ifname) override {
    const NetdevFacts* net = find(ifname);
    if (net == nullptr || !net->driver) return missing("ethtool -i", ifname);
    return *net->driver;
  }
  Result<PauseInfo> pause(const std::string& ifname) override {
    const NetdevFacts* net = find(ifname);
    if (net == nullptr || !net->pause) return missing("ethtool -a", ifname);
    return *net->pause;
  }
  Result<std::uint16_t> pfc_prevention_tout(const std::string& ifname) override {
    const NetdevFacts* net = find(ifname);
    if (net == nullptr || !net->pfc_prevention_tout_ms) {
      return missing("ethtool --get-tunable pfc-prevention-tout", ifname);
    }
    return *net->pfc_prevention_tout_ms;
  }
  std::string describe() const override { return "capture"; }

 private:
  const NetdevFacts* find(const std::string& ifname) const {
    const auto it = facts_.netdevs.find(ifname);
    return it == facts_.netdevs.end() ? nullptr : &it->second;
  }
  static Error missing(std::string_view what, const std::string& ifname) {
    return Error{EOPNOTSUPP,
                 "no " + std::string(what) + " output for " + ifname + " in the capture"};
  }

  const Facts& facts_;
};

/// `dcb ... show dev IF` as pasted; EOPNOTSUPP (no DCB support, as dcbnl says for a netdev
/// without dcbnl_ops) for a netdev no paste shows.
class MemoryDcbSource final : public DcbSource {
 public:
  explicit MemoryDcbSource(const Facts& facts) : facts_(facts) {}
  Result<DcbInfo> ieee(const std::string& ifname) override {
    const auto it = facts_.netdevs.find(ifname);
    if (it == facts_.netdevs.end() || !it->second.dcb) {
      return Error{EOPNOTSUPP, "no dcb output for " + ifname + " in the capture"};
    }
    return *it->second.dcb;
  }

 private:
  const Facts& facts_;
};

// The port's QP counter mode from `rdma statistic qp mode`: auto as printed; "qp auto off" is
// none or manual, and core/counters.c keeps a port that is not in auto mode in manual mode
// exactly while it has bound counters (rdma_counter_set_auto_mode: "num_counters ? MANUAL :
// NONE"; rdma_counter_free: back to NONE with the last one), so with a whole `rdma statistic qp
// show` dump the port's bound counters tell which. Without that dump: not known.
std::optional<QpCounterMode> qp_counter_mode_of(const PortFacts& port, bool counters_listed) {
  if (port.qp_counter_mode) return port.qp_counter_mode;
  if (!port.qp_counter_not_auto || !counters_listed) return std::nullopt;
  QpCounterMode m;
  m.mode = port.bound_counters.empty() ? 0 : 2;  // RDMA_COUNTER_MODE_NONE, _MANUAL
  return m;
}

// What the live host reads by RDMA netlink and a capture has from `rdma resource`,
// `rdma statistic qp mode` and `rdma statistic qp show`: set on the devices and ports the sysfs
// walk found, as collect_rdma_sysfs (resources) and collect_qp_counters (the mode and the bound
// counters) set them there.
void put_rdma_netlink_facts(const Facts& facts, Snapshot& snap) {
  for (DeviceSample& dev : snap.devices) {
    const auto d = facts.devices.find(dev.name);
    if (d == facts.devices.end()) continue;
    if (!d->second.resources.empty()) dev.resources = d->second.resources;
    for (PortSample& port : dev.ports) {
      const auto p = d->second.ports.find(port.port);
      if (p == d->second.ports.end()) continue;
      port.qp_counter_mode = qp_counter_mode_of(p->second, facts.qp_counters_listed);
      port.bound_counters = p->second.bound_counters;
      // In auto mode every counter is an auto one (counters.c: binding by hand is refused).
      if (port.qp_counter_mode && port.qp_counter_mode->mode == 1) {
        for (BoundCounter& c : port.bound_counters) c.mode = 1;
      }
    }
  }
}

// The PCI function of an RDMA device as the files place it, for matching its devlink instance
// (devlink names a PCI instance by that address, collector/devlink_collector.cpp): the sysfs
// walk's, else the last PCI address of the class link `ls -l /sys/class/infiniband` printed (as
// the sysfs collector reads an auxiliary parent's), else the `ethtool -i` bus-info of a port's
// netdev: the RDMA device and its netdev are functions of one PCI device for the hardware
// drivers, never for the software ones (rxe, siw run over any netdev, drivers/infiniband/sw).
std::string capture_pci_address(const Facts& facts, const Snapshot& snap, const DeviceSample& dev) {
  if (!dev.pci_address.empty()) return dev.pci_address;
  if (const auto d = facts.devices.find(dev.name); d != facts.devices.end()) {
    std::string_view path = d->second.class_link;
    std::string found;
    while (!path.empty()) {
      const std::size_t slash = path.find('/');
      const std::string_view part = path.substr(0, slash);
      if (is_pci_address(part)) found = std::string(part);
      path = slash == std::string_view::npos ? std::string_view{} : path.substr(slash + 1);
    }
    if (!found.empty()) return found;
  }
  if (dev.driver == "rxe" || dev.driver == "siw") return {};
  for (const PortSample& port : dev.ports) {
    const NetdevSample* net = find_netdev(snap, port.netdev);
    if (net != nullptr && net->driver && is_pci_address(net->driver->bus_info)) {
      return net->driver->bus_info;
    }
  }
  return {};
}

// `devlink dev info` / `devlink health` as the live collect_devlink joins them: the instance
// whose PCI address is the device's, with its own and its ports' reporters; one "devlink"
// status per RDMA device, as there.
void put_devlink_facts(const Facts& facts, Snapshot& snap) {
  if (facts.devlink.empty()) return;
  for (DeviceSample& dev : snap.devices) {
    StatusTimer timer("devlink", dev.name);
    const std::string pci = capture_pci_address(facts, snap, dev);
    std::optional<DevlinkInfo> joined;
    if (!pci.empty()) {
      // The instance's members and reporters, then its ports' ("pci/ADDR/N").
      const std::string instance = "pci/" + pci;
      if (const auto it = facts.devlink.find(instance); it != facts.devlink.end()) {
        joined = it->second;
      }
      for (const auto& [handle, info] : facts.devlink) {
        if (handle == instance || info.bus_name != "pci" || info.dev_name != pci) continue;
        if (!joined) {
          joined.emplace();
          joined->bus_name = "pci";
          joined->dev_name = pci;
        }
        joined->reporters.insert(joined->reporters.end(), info.reporters.begin(),
                                 info.reporters.end());
      }
    }
    if (!joined) {
      snap.sources.push_back(timer.finish(
          SourceState::no_data,
          pci.empty() ? "no PCI address in the files (`ls -l /sys/class/infiniband`, `ethtool -i` "
                        "bus-info) to match a devlink instance by"
                      : "no devlink instance pci/" + pci + " in the files"));
      continue;
    }
    dev.devlink = std::move(joined);
    snap.sources.push_back(timer.finish(SourceState::ok));
  }
}
/// The pasted `/proc/interrupts` as the procfs file "interrupts"; nothing else of /proc.
class MemoryProcfsSource final : public FileSource {
 public:
  explicit MemoryProcfsSource(const Facts& facts) : facts_(facts) {}
  Result<std::string> read(std::string_view relpath) const override {
    if (strip_slashes(relpath) == "interrupts") return facts_.proc_interrupts;
    return absent(relpath);
  }
  Result<std::vector<std::string>> list(std::string_view reldir) const override {
    return absent(reldir);
  }
  Result<std::string> read_link(std::string_view relpath) const override { return absent(relpath); }
  std::string describe() const override { return "capture"; }

 private:
  static Error absent(std::string_view path) {
    return Error{ENOENT, "/proc/" + std::string(path) + ": no capture file says it"};
  }
  const Facts& facts_;
};

bool has_dcb(const Facts& facts) {
  for (const auto& [name, net] : facts.netdevs) {
    if (net.dcb) return true;
  }
  return false;
}

}  // namespace

void read_text(std::string_view text, Facts& facts, FileReport& report) {
  for (SectionFacts& sf : parse_file(text, report)) {
    attach_unnamed(sf.facts, facts, report);
    merge(facts, sf.facts);
  }
}

CaptureSet assemble(const std::vector<CaptureInput>& given) {
  CaptureSet out;
  // A `diff -u` of two dumps is the two dumps, before then after.
  std::vector<CaptureInput> inputs;
  for (const CaptureInput& input : given) {
    if (auto sides = split_unified_diff(input.text); sides && input.error.empty()) {
      inputs.push_back(CaptureInput{input.name + " (diff: before)", std::move(sides->first), {}});
      inputs.push_back(CaptureInput{input.name + " (diff: after)", std::move(sides->second), {}});
    } else {
      inputs.push_back(input);
    }
  }
  std::vector<std::size_t> order(inputs.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return label_rank(inputs[a].text) < label_rank(inputs[b].text);
  });
  out.files.resize(inputs.size());
  const std::map<std::string, std::string> commands = bundle_commands(inputs);
  Facts current;
  bool have_current = false;
  // True once `current` is in out.captures and nothing was merged into it since: a `date` line
  // closed it, and the next section opens the next capture (which keeps what was known).
  bool flushed = false;
  std::optional<std::chrono::system_clock::time_point> current_time;
  const auto flush = [&] {
    if (!have_current || flushed) return;
    out.captures.push_back(current);
    out.times.push_back(current_time);
    flushed = true;
  };
  for (const std::size_t index : order) {
    const CaptureInput& input = inputs[index];
    FileReport& report = out.files[index];
    report.name = input.name;
    if (!input.error.empty()) {
      report.error = input.error;
      continue;
    }
    if (is_recording(input.text)) {
      // An incident bundle's rdmatop recording: snapshots, not pasted output.
      report.formats.emplace_back("rdmatop recording");
      report.lines = 0;
      report.notes.push_back("diagnose it with `rdmatop report --from FILE` (docs/recording.md)");
      continue;
    }
    if (is_bundle_manifest(input.text)) {
      // What `rdmatop capture` ran and what failed: about the bundle, not about the host.
      report.formats.emplace_back("rdmatop capture manifest");
      report.lines = 0;
      report.notes.push_back("what was run and what failed (docs/capture.md \"rdmatop capture\")");
      continue;
    }
    std::vector<std::string> other_hosts;
    const auto command = commands.find(input.name);
    const std::string implicit = command == commands.end() ? std::string() : command->second;
    for (SectionFacts& sf : parse_file(input.text, report, implicit)) {
      if (!sf.host.empty()) {
        if (out.host.empty()) out.host = sf.host;
        if (sf.host != out.host) {
          // Two hosts' outputs are never merged into one host.
          if (std::find(other_hosts.begin(), other_hosts.end(), sf.host) == other_hosts.end()) {
            other_hosts.push_back(sf.host);
            report.notes.push_back("output of a second host (" + sf.host + ", not " + out.host +
                                   "): not used");
          }
          continue;
        }
      }
      if (sf.time) {
        // A `date` line closes the capture read so far and stamps the next one.
        if (have_current && !flushed && current_time != sf.time) flush();
        current_time = sf.time;
        continue;
      }
      attach_unnamed(sf.facts, current, report);
      if (sf.facts == Facts{}) continue;
      if (have_current && !flushed && conflicts(current, sf.facts)) {
        flush();
        current_time.reset();
      }
      merge(current, sf.facts);
      have_current = true;
      flushed = false;
    }
  }
  flush();
  return out;
}

std::string describe(const FileReport& file) {
  if (!file.error.empty()) return file.error;
  std::string out;
  for (const std::string& f : file.formats) out += (out.empty() ? "" : ", ") + f;
  if (out.empty()) out = "no known format";
  out += ": " + std::to_string(file.log.used) + " of " + std::to_string(file.lines) + " lines used";
  if (const std::size_t ignored = file.log.ignored_total(); ignored > 0) {
    out += ", " + std::to_string(ignored) + " ignored (";
    bool first = true;
    for (const auto& [reason, count] : file.log.ignored) {
      out += (first ? "" : ", ") + std::to_string(count) + " " + reason;
      first = false;
    }
    out += ")";
  }
  for (const std::string& note : file.notes) out += "; " + note;
  return out;
}

Snapshot build_snapshot(const Facts& facts, const std::vector<FileReport>& files,
                        const std::string& host, std::uint64_t seq, const DeviceFilter& filter) {
  Snapshot snap;
  snap.seq = seq;
  snap.taken = std::chrono::steady_clock::now();
  snap.wall = std::chrono::system_clock::now();
  snap.hostname = host;
  for (const FileReport& file : files) {
    SourceState state = SourceState::ok;
    if (!file.error.empty()) {
      state = SourceState::error;
    } else if (file.log.used == 0) {
      state = SourceState::no_data;
    }
    snap.sources.push_back(SourceStatus{"capture", file.name, state, describe(file), {}});
  }
  const MemoryFileSource sysfs(facts);
  MemoryEthtoolSource ethtool(facts);
  MemoryDcbSource dcb(facts);
  const MemoryProcfsSource procfs(facts);
  // DCB is read only when a paste shows some, as a sysfs tree has none: no file, no status.
  const CollectContext ctx{sysfs,
                           ethtool,
                           filter,
                           nullptr,
                           CounterSource::sysfs,
                           nullptr,
                           has_dcb(facts) ? &dcb : nullptr,
                           facts.proc_interrupts.empty() ? nullptr : &procfs};
  // As collect_snapshot (collect.cpp) runs them for a sysfs tree, with the links the tools
  // print between a port and its netdev set where the sysfs walk found none.
  collect_all(ctx, snap, [&facts](Snapshot& walked) {
    for (DeviceSample& dev : walked.devices) {
      const auto d = facts.devices.find(dev.name);
      if (d == facts.devices.end()) continue;
      for (PortSample& port : dev.ports) {
        const auto p = d->second.ports.find(port.port);
        if (port.netdev.empty() && p != d->second.ports.end()) port.netdev = p->second.netdev;
      }
    }
  });
  put_rdma_netlink_facts(facts, snap);
  put_devlink_facts(facts, snap);
  return snap;
}

}  // namespace rdmatop::capture
