#include "collector/parse/procfs_process_parse.h"

#include "collector/parse/text_scan.h"

#include <cerrno>
#include <charconv>
#include <limits>
#include <string>
#include <vector>

#include "collector/parse/sysfs_parse.h"

namespace rdmatop {
namespace {

/// Calls `fn(line)` for every line of `text` until it returns false.
template <class Fn>
void for_each_line(std::string_view text, Fn fn) {
  while (!text.empty()) {
    const std::size_t nl = text.find('\n');
    const std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    if (!fn(line)) return;
  }
}

Error bad(const std::string& what, std::string_view value) {
  return Error{EPROTO, what + ": unexpected value " + escape_for_message(value)};
}

/// A limits value: "unlimited" -> nullopt; a decimal -> its value.
Result<std::optional<std::uint64_t>> limit_value(std::string_view field) {
  if (field == "unlimited") return std::optional<std::uint64_t>();
  if (auto v = parse_whole_number<std::uint64_t>(field)) return std::optional<std::uint64_t>(*v);
  return bad("/proc/<pid>/limits Max locked memory", field);
}

}  // namespace

Result<ResourceLimit> parse_proc_limits_memlock(std::string_view text) {
  constexpr std::string_view kRow = "Max locked memory";
  std::optional<std::string_view> row;
  for_each_line(text, [&](std::string_view line) {
    // The name column is padded to 25, so the row name is followed by a space.
    if (line.starts_with(kRow) && line.size() > kRow.size() &&
        kBlanks.find(line[kRow.size()]) != std::string_view::npos) {
      row = line.substr(kRow.size());
      return false;
    }
    return true;
  });
  if (!row) return Error{EPROTO, "/proc/<pid>/limits: no \"Max locked memory\" row"};
  std::vector<std::string_view> fields;
  std::string_view rest = *row;
  while (!(rest = trim_blanks(rest)).empty()) {
    const std::size_t end = rest.find_first_of(kBlanks);
    fields.push_back(rest.substr(0, end));
    rest = end == std::string_view::npos ? std::string_view() : rest.substr(end);
  }
  if (fields.size() != 3 || fields[2] != "bytes") {
    return bad("/proc/<pid>/limits Max locked memory", *row);
  }
  auto soft = limit_value(fields[0]);
  if (!soft) return soft.error();
  auto hard = limit_value(fields[1]);
  if (!hard) return hard.error();
  return ResourceLimit{*soft, *hard};
}

Result<std::vector<std::uint32_t>> parse_cpu_list(std::string_view text) {
  std::string_view list =
      trim_blanks(text.ends_with('\n') ? text.substr(0, text.size() - 1) : text);
  std::vector<std::uint32_t> cpus;
  while (!list.empty()) {
    const std::size_t comma = list.find(',');
    const std::string_view item = list.substr(0, comma);
    list = comma == std::string_view::npos ? std::string_view() : list.substr(comma + 1);
    const std::size_t dash = item.find('-');
    const auto first = parse_whole_number<std::uint32_t>(item.substr(0, dash));
    const auto last = dash == std::string_view::npos
                          ? first
                          : parse_whole_number<std::uint32_t>(item.substr(dash + 1));
    if (!first || !last || *last < *first || *last >= kMaxCpus ||
        (!cpus.empty() && *first <= cpus.back()) ||
        (comma != std::string_view::npos && list.empty())) {
      return bad("CPU list", text);
    }
    for (std::uint32_t cpu = *first; cpu <= *last; ++cpu) cpus.push_back(cpu);
  }
  return cpus;
}

Result<ProcStat> parse_proc_stat(std::string_view text) {
  const std::size_t close = text.rfind(')');
  if (text.find('(') == std::string_view::npos || close == std::string_view::npos) {
    return Error{EPROTO, "/proc/<pid>/stat: no (comm) field"};
  }
  // Fields after ")" are numbered from 3 (state) in proc(5).
  std::vector<std::string_view> fields;
  std::string_view rest = trim_blanks(text.substr(close + 1));
  while (!rest.empty()) {
    const std::size_t end = rest.find_first_of(" \n");
    fields.push_back(rest.substr(0, end));
    rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
  }
  constexpr std::size_t kFirst = 3;
  const auto field = [&](std::size_t index) -> std::optional<std::uint64_t> {
    if (index - kFirst >= fields.size()) return std::nullopt;
    return parse_whole_number<std::uint64_t>(fields[index - kFirst]);
  };
  constexpr std::size_t kUtime = 14, kStime = 15, kStart = 22, kVsize = 23, kRss = 24;
  const auto utime = field(kUtime), stime = field(kStime), start = field(kStart),
             vsize = field(kVsize), rss = field(kRss);
  if (!utime || !stime || !start || !vsize || !rss) {
    return Error{EPROTO, "/proc/<pid>/stat: fields 14, 15, 22-24 are not all numbers"};
  }
  return ProcStat{*utime, *stime, *start, *vsize, *rss};
}

Result<std::uint64_t> parse_proc_stat_boot_time(std::string_view text) {
  std::optional<std::uint64_t> btime;
  for_each_line(text, [&](std::string_view line) {
    constexpr std::string_view kKey = "btime ";
    if (!line.starts_with(kKey)) return true;
    btime = parse_whole_number<std::uint64_t>(trim_blanks(line.substr(kKey.size())));
    return false;
  });
  if (!btime) return Error{EPROTO, "/proc/stat: no btime line with a number"};
  return *btime;
}

Result<ProcStatus> parse_proc_status(std::string_view text) {
  ProcStatus status;
  bool named = false;
  std::optional<Error> error;
  for_each_line(text, [&](std::string_view line) {
    const std::size_t colon = line.find(':');
    if (colon == std::string_view::npos) return true;
    const std::string_view key = line.substr(0, colon);
    const std::string_view value = trim_blanks(line.substr(colon + 1));
    if (key == "Name") {
      named = true;
    } else if (key == "Tgid") {
      status.tgid = parse_whole_number<std::uint32_t>(value);
      if (!status.tgid) {
        error = bad("/proc/<pid>/status Tgid", value);
        return false;
      }
    } else if (key == "VmPin") {
      // "%8lu kB" (task_mmu.c task_mem); the kernel's kB are KiB.
      constexpr std::string_view kUnit = " kB";
      const auto kib = value.ends_with(kUnit) ? parse_whole_number<std::uint64_t>(trim_blanks(
                                                    value.substr(0, value.size() - kUnit.size())))
                                              : std::nullopt;
      constexpr std::uint64_t kKiB = 1024;
      if (!kib || *kib > std::numeric_limits<std::uint64_t>::max() / kKiB) {
        error = bad("/proc/<pid>/status VmPin", value);
        return false;
      }
      status.pinned_bytes = *kib * kKiB;
    } else if (key == "CapEff") {
      constexpr int kHex = 16;
      status.cap_effective = parse_whole_number<std::uint64_t>(value, kHex);
      if (!status.cap_effective) {
        error = bad("/proc/<pid>/status CapEff", value);
        return false;
      }
    } else if (key == "Cpus_allowed_list") {
      auto cpus = parse_cpu_list(value);
      if (!cpus) {
        error = cpus.error();
        return false;
      }
      status.cpus = std::move(cpus).value();
    }
    return true;
  });
  if (error) return *error;
  if (!named) return Error{EPROTO, "/proc/<pid>/status: no Name line"};
  return status;
}

}  // namespace rdmatop
