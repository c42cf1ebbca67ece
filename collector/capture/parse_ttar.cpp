// ttar, the text archive prometheus/procfs and node_exporter keep their sysfs fixtures in
// (procfs ttar script): "Path: P", "Lines: N", N lines of content, "Mode: M"; "Directory: D";
// "# ttar - - -" separators; content ending in "EOF" has no final newline.
#include <string>

#include "collector/capture/capture_formats.h"
#include "collector/capture/capture_text.h"
#include "collector/capture/sysfs_path.h"

namespace rdmatop::capture {
namespace {

std::size_t detect_ttar(const Section& s) {
  std::size_t score = 0;
  for (std::size_t i = 0; i + 1 < s.lines.size(); ++i) {
    if (s.lines[i].text.starts_with("Path: ") && s.lines[i + 1].text.starts_with("Lines: ")) {
      score += 1000;
    }
  }
  return score;
}

void parse_ttar(const Section& s, Facts& facts, LineLog& log) {
  const auto& lines = s.lines;
  std::size_t i = 0;
  while (i < lines.size()) {
    const std::string_view t = lines[i].text;
    if (t.starts_with("Path: ") && i + 1 < lines.size() &&
        lines[i + 1].text.starts_with("Lines: ")) {
      const auto count = to_u64(trim(std::string_view(lines[i + 1].text).substr(7)));
      if (!count || *count > lines.size() - i - 2) {
        log.ignore("ttar entry cut (fewer lines than it declares)");
        i += 1;
        continue;
      }
      std::string content;
      for (std::size_t k = 0; k < *count; ++k) {
        content += lines[i + 2 + k].text;
        content += '\n';
      }
      if (content.ends_with("EOF\n")) content.resize(content.size() - 4);  // no final newline
      if (!content.empty() && content.back() == '\n') content.pop_back();
      const std::size_t n = 2 + static_cast<std::size_t>(*count);
      if (put_sysfs_value(trim(t.substr(6)), std::move(content), facts)) {
        for (std::size_t k = 0; k < n; ++k) log.use();
      } else {
        for (std::size_t k = 0; k < n; ++k) log.ignore("ttar path names no RDMA device or netdev");
      }
      i += n;
      continue;
    }
    if (t.starts_with("Directory: ")) {
      std::string dir(trim(t.substr(11)));
      if (put_sysfs_value(dir + "/", std::string(), facts)) {
        log.use();
      } else {
        log.ignore("ttar path names no RDMA device or netdev");
      }
    } else if (t.starts_with("Mode: ") || t.starts_with("# ttar")) {
      log.use();
    } else {
      ignore_line(log, t, "not a ttar line");
    }
    ++i;
  }
}

}  // namespace

FormatParser ttar_format() {
  return {"ttar", detect_ttar, parse_ttar};
}

}  // namespace rdmatop::capture
