// `ls -l[R] /sys/class/infiniband`: "lrwxrwxrwx ... DEV -> ../../devices/.../infiniband/DEV".
// The link text places the device (its PCI path); nothing under it is listed.
#include <string>

#include "collector/capture/capture_formats.h"
#include "collector/capture/capture_text.h"

namespace rdmatop::capture {
namespace {

std::optional<std::pair<std::string_view, std::string_view>> class_link(std::string_view line) {
  const auto w = split_words(line);
  if (w.size() < 4 || !w[0].starts_with("l") || w[w.size() - 2] != "->") return std::nullopt;
  const std::string_view dev = w[w.size() - 3];
  const std::string_view target = w.back();
  if (!is_object_name(dev) || !target.starts_with("../../devices/")) return std::nullopt;
  if (!target.ends_with("/infiniband/" + std::string(dev))) return std::nullopt;
  return std::make_pair(dev, target);
}

std::size_t detect_ls_links(const Section& s) {
  return score_lines(s, 100, [](std::string_view l) { return class_link(l).has_value(); });
}

void parse_ls_links(const Section& s, Facts& facts, LineLog& log) {
  for (const Line& line : s.lines) {
    if (const auto link = class_link(line.text)) {
      facts.devices[std::string(link->first)].class_link = std::string(link->second);
      log.use();
      continue;
    }
    const std::string_view t = trim(line.text);
    log.ignore(t.empty()                                     ? "blank"
               : t.starts_with("total ") || t.ends_with(":") ? "ls header"
                                                             : "not a class link");
  }
}

}  // namespace

FormatParser ls_links_format() {
  return {"ls -l", detect_ls_links, parse_ls_links};
}

}  // namespace rdmatop::capture
