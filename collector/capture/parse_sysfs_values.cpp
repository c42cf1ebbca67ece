// Sysfs attribute values as operators dump them:
//   grep "" /sys/class/infiniband/mlx5_0/ports/1/hw_counters/*   "path:value" (grep(1) prefixes
//                                                                  each line with its file name)
//   for f in ...; do echo "=== $f ==="; cat "$f"; done             a banner, then the value
//   tail -n +1 /sys/.../counters/*                                 "==> path <==", then the value
//   cd .../hw_counters; for i in *; do printf "%-20.20s  %s\n" "$i" "$(<$i)"; done
//                                                                  "name  value" under the `cd`
// Relative names are resolved against the directory the prompt or a `cd` names.
#include <string>

#include "collector/capture/capture_formats.h"
#include "collector/capture/capture_text.h"
#include "collector/capture/sysfs_path.h"

namespace rdmatop::capture {
namespace {

bool is_sysfs_object_path(std::string_view path) {
  return path.find("infiniband/") != std::string_view::npos ||
         path.find("/class/net/") != std::string_view::npos || path.starts_with("class/net/");
}

std::string join(std::string_view dir, std::string_view name) {
  std::string out(dir);
  if (!out.empty() && out.back() != '/') out.push_back('/');
  out += name;
  return out;
}

// "path:value" with a sysfs object path (grep prints the name, ':', the line).
std::optional<std::pair<std::string, std::string_view>> grep_line(const Section& s,
                                                                  std::string_view line) {
  const std::size_t colon = line.find(':');
  if (colon == std::string_view::npos || colon == 0) return std::nullopt;
  const std::string_view name = line.substr(0, colon);
  if (name.find(' ') != std::string_view::npos) return std::nullopt;
  std::string path(name);
  if (!is_sysfs_object_path(path)) {
    // `grep . *` in a sysfs directory: a bare file name under the prompt's directory.
    if (!is_sysfs_object_path(s.cwd) || name.find('/') != std::string_view::npos) {
      return std::nullopt;
    }
    path = join(s.cwd, name);
  }
  return std::make_pair(path, line.substr(colon + 1));
}

// "name   value" of a printf loop in a sysfs directory (netdata/netdata#9091).
std::optional<std::pair<std::string_view, std::string_view>> loop_line(std::string_view line) {
  const auto words = split_words(line);
  if (words.size() != 2 || !is_decimal(words[1]) || !is_object_name(words[0])) return std::nullopt;
  return std::make_pair(words[0], words[1]);
}

bool in_loop(const Section& s) {
  return is_sysfs_object_path(s.cwd) && s.banner.empty() && starts_with_word(s.command, "for");
}

std::size_t detect_sysfs_values(const Section& s) {
  if (!s.banner.empty() && is_sysfs_object_path(s.banner)) {
    for (const Line& line : s.lines) {
      if (!trim(line.text).empty()) return 1000;
    }
    return 0;
  }
  std::size_t score = 0;
  for (const Line& line : s.lines) {
    if (grep_line(s, line.text)) score += 10;
  }
  if (score == 0 && in_loop(s)) {
    for (const Line& line : s.lines) {
      if (loop_line(line.text)) score += 10;
    }
  }
  return score;
}

void parse_sysfs_values(const Section& s, Facts& facts, LineLog& log) {
  if (!s.banner.empty() && is_sysfs_object_path(s.banner)) {
    // The banner's file holds the lines up to the next banner; sysfs attributes are one line,
    // and the blank line the loop's `echo` adds is not part of the value.
    std::string value;
    std::size_t taken = 0;
    for (const Line& line : s.lines) {
      if (trim(line.text).empty()) {
        log.ignore("blank");
        continue;
      }
      value += line.text;
      value += '\n';
      ++taken;
    }
    if (taken == 0) return;
    if (put_sysfs_value(s.banner, value.substr(0, value.size() - 1), facts)) {
      for (std::size_t i = 0; i < taken; ++i) log.use();
    } else {
      for (std::size_t i = 0; i < taken; ++i)
        log.ignore("banner names no RDMA device or netdev file");
    }
    return;
  }
  const bool loop = in_loop(s);
  for (const Line& line : s.lines) {
    if (trim(line.text).empty()) {
      log.ignore("blank");
      continue;
    }
    if (const auto g = grep_line(s, line.text)) {
      if (put_sysfs_value(g->first, std::string(g->second), facts)) {
        log.use();
      } else {
        log.ignore("path names no RDMA device or netdev file");
      }
      continue;
    }
    if (loop) {
      if (const auto l = loop_line(line.text)) {
        if (put_sysfs_value(join(s.cwd, l->first), std::string(l->second), facts)) {
          log.use();
        } else {
          log.ignore("directory names no RDMA device or netdev");
        }
        continue;
      }
      if (split_words(line.text).size() == 1) {
        log.ignore("no value (line cut)");
        continue;
      }
    }
    log.ignore("not a sysfs value");
  }
}

}  // namespace

FormatParser sysfs_values_format() {
  return {"sysfs values", detect_sysfs_values, parse_sysfs_values};
}

}  // namespace rdmatop::capture
