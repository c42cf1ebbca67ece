// `cat /proc/interrupts` (proc(5); kernel/irq/proc.c show_interrupts): a header of CPU columns,
// then one row per IRQ: "NN:", a count per CPU, the chip, the hardware IRQ and trigger, and the
// action names ("mlx5_comp3@pci:0000:3b:00.0"). The rows that parse as the live reader parses
// them (collector/parse/procfs_parse.h parse_proc_interrupts, fed the header and the row) are
// kept as the capture's /proc/interrupts, which the readiness collector reads as on a live host:
// it counts a device's IRQs by the numbers in its PCI function's msi_irqs/, so they reach a
// device only where a paste also shows that directory. NMI, LOC, ... are not device IRQs; a row
// cut before its last CPU count is not used.
#include <set>
#include <string>

#include "collector/capture/capture_formats.h"
#include "collector/capture/capture_text.h"
#include "collector/parse/procfs_parse.h"

namespace rdmatop::capture {
namespace {

// "           CPU0       CPU1 ..." (seq_printf "CPU%-8d" per online CPU).
bool is_cpu_header(std::string_view line) {
  const auto w = split_words(line);
  if (w.empty()) return false;
  for (const std::string_view word : w) {
    if (!word.starts_with("CPU") || !is_decimal(word.substr(3))) return false;
  }
  return true;
}

// "  42:" / "NMI:": the row's first word.
std::optional<bool> row_kind(std::string_view line) {
  const auto w = split_words(line);
  if (w.empty() || !w[0].ends_with(':') || w[0].size() < 2) return std::nullopt;
  return is_decimal(w[0].substr(0, w[0].size() - 1));  // true: a numbered IRQ
}

std::size_t detect_proc_interrupts(const Section& s) {
  // The rows under a CPU header; a line before it (an unrecognised prompt) does not count.
  bool header = false;
  std::size_t score = 0;
  for (const Line& line : s.lines) {
    if (!header) {
      header = is_cpu_header(line.text);
      score += header ? 100 : 0;
    } else if (row_kind(line.text).value_or(false)) {
      score += 100;
    }
  }
  return with_command_bonus(score, s.command.find("/proc/interrupts") != std::string::npos);
}

void parse_proc_interrupts_section(const Section& s, Facts& facts, LineLog& log) {
  std::string header;
  std::string text;
  std::set<std::uint64_t> seen;  // the live parser refuses a table that lists an IRQ twice
  for (const Line& line : s.lines) {
    if (trim(line.text).empty()) {
      log.ignore("blank");
      continue;
    }
    if (header.empty()) {
      if (is_cpu_header(line.text)) {
        header = line.text;
        log.use();
      } else {
        log.ignore("/proc/interrupts row under no CPU header");
      }
      continue;
    }
    const auto kind = row_kind(line.text);
    if (!kind) {
      log.ignore("not /proc/interrupts output");
    } else if (!*kind) {
      log.ignore("not a device interrupt (NMI, LOC, ...)");
    } else if (!rdmatop::parse_proc_interrupts(header + "\n" + line.text).ok()) {
      log.ignore("/proc/interrupts row cut or malformed");
    } else if (!seen.insert(*to_u64(split_words(line.text)[0].substr(
                                0, split_words(line.text)[0].size() - 1)))
                    .second) {
      log.ignore("/proc/interrupts row of an IRQ listed before");
    } else {
      text += line.text + "\n";
      log.use();
    }
  }
  if (!text.empty()) facts.proc_interrupts = header + "\n" + text;
}

}  // namespace

FormatParser proc_interrupts_format() {
  return {"/proc/interrupts", detect_proc_interrupts, parse_proc_interrupts_section};
}

}  // namespace rdmatop::capture
