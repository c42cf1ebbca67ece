// Shared by the capture_<format> targets: one input as a pasted file, split into sections as
// the assembler splits it (and whole, as a ttar is read), each fed to one format's detect and
// parse (collector/capture/capture_formats.h). Only that format's code differs per target.
#pragma once

#include <cstddef>
#include <cstdint>

#include "collector/capture/capture_formats.h"
#include "collector/capture/capture_text.h"
#include "fuzz/fuzz_input.h"

namespace rdmatop::fuzz {

inline int run_capture_format(const capture::FormatParser& format, const std::uint8_t* data,
                              std::size_t size) {
  using namespace rdmatop::capture;
  const std::vector<Line> lines = clean_lines(as_text(data, size));
  LineLog log;
  std::vector<Section> sections = split_sections(lines, log);
  Section whole;
  whole.lines = lines;
  sections.push_back(std::move(whole));
  for (const Section& section : sections) {
    (void)format.detect(section);
    Facts facts;
    LineLog section_log;
    format.parse(section, facts, section_log);
    // Every line of the section is used or ignored, once (the sources section's accounting).
    if (section_log.used + section_log.ignored_total() != section.lines.size()) __builtin_trap();
  }
  return 0;
}

}  // namespace rdmatop::fuzz
