#include "collector/parse/procfs_parse.h"

#include "collector/parse/text_scan.h"

#include <cerrno>
#include <charconv>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace rdmatop {
namespace {

std::vector<std::string_view> split_ws(std::string_view line) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    const std::size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t') ++i;
    if (i > start) out.push_back(line.substr(start, i - start));
  }
  return out;
}

Error bad(std::size_t line_no, const std::string& why) {
  return Error{EPROTO, "/proc/interrupts line " + std::to_string(line_no) + ": " + why};
}

}  // namespace

Result<std::map<std::uint32_t, IrqSample>> parse_proc_interrupts(std::string_view text) {
  std::map<std::uint32_t, IrqSample> out;
  std::size_t cpus = 0;
  std::size_t line_no = 0;
  while (!text.empty()) {
    const std::size_t nl = text.find('\n');
    const std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    ++line_no;
    const auto fields = split_ws(line);
    if (line_no == 1) {
      for (const auto f : fields) cpus += f.starts_with("CPU") ? 1 : 0;
      if (cpus == 0 || cpus != fields.size()) return bad(1, "expected a header of CPU columns");
      continue;
    }
    if (fields.empty() || !fields[0].ends_with(':')) continue;
    const auto irq = parse_whole_number<std::uint32_t>(fields[0].substr(0, fields[0].size() - 1));
    if (!irq) continue;  // NMI, LOC, ERR, ...: not device interrupts
    IrqSample sample;
    sample.irq = *irq;
    std::size_t i = 1;
    for (; i < fields.size() && i <= cpus; ++i) {
      const auto count = parse_whole_number<std::uint64_t>(fields[i]);
      if (!count) break;
      if (sample.count > std::numeric_limits<std::uint64_t>::max() - *count) {
        return bad(line_no, "count overflows");
      }
      sample.count += *count;
    }
    if (i != cpus + 1) return bad(line_no, "expected " + std::to_string(cpus) + " CPU counts");
    // Then the chip name, the hardware IRQ and trigger type, and the action names.
    for (std::size_t f = i + 2; f < fields.size(); ++f) {
      if (!sample.name.empty()) sample.name += ' ';
      sample.name += fields[f];
    }
    if (!out.emplace(sample.irq, std::move(sample)).second) {
      return bad(line_no, "duplicate IRQ " + std::to_string(*irq));
    }
  }
  if (cpus == 0) return Error{EPROTO, "/proc/interrupts: empty"};
  return out;
}

Result<std::optional<std::int32_t>> parse_numa_node(std::string_view text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.remove_suffix(1);
  const auto v = parse_whole_number<std::int32_t>(text);
  if (!v || *v < -1) {
    return Error{EINVAL, "numa_node: expected an integer >= -1, got \"" + std::string(text) + "\""};
  }
  if (*v == -1) return std::optional<std::int32_t>();
  return std::optional<std::int32_t>(*v);
}

}  // namespace rdmatop
