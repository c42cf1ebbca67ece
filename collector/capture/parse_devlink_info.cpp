// `devlink dev info` (iproute2 devlink/devlink.c pr_out_info, pr_out_versions_single): per
// instance
//   pci/0000:08:00.0:
//     driver mlx5_core
//     serial_number e4397f872caeed218000846daa7d2f49
//     board.serial_number MT2314XZ00YA
//     versions:
//         fixed:
//           fw.psid MT_0000000894
//         running:
//           fw.version 28.41.1000
//         stored:
//           fw.version 28.41.1000
// and with -j / -p {"info": {"pci/0000:08:00.0": {"driver": ..., "versions": {"fixed": {...},
// "running": {...}, "stored": {...}}}}}. The same DevlinkInfo the live devlink source fills
// (collector/parse/devlink_parse.cpp, DEVLINK_CMD_INFO_GET): driver, serial numbers, versions by
// name. A version's value may hold blanks (ice's "fw.app.name ICE OS Default Package").
#include <string>

#include "collector/capture/capture_formats.h"
#include "collector/capture/capture_json.h"
#include "collector/capture/capture_text.h"
#include "collector/capture/devlink_facts.h"

namespace rdmatop::capture {

std::optional<DevlinkHandle> parse_devlink_handle(std::string_view handle) {
  const std::size_t slash = handle.find('/');
  if (slash == std::string_view::npos || slash == 0) return std::nullopt;
  DevlinkHandle h;
  h.bus = std::string(handle.substr(0, slash));
  std::string_view rest = handle.substr(slash + 1);
  for (const char c : h.bus) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return std::nullopt;
  }
  if (const std::size_t port = rest.find('/'); port != std::string_view::npos) {
    if (!is_decimal(rest.substr(port + 1))) return std::nullopt;
    rest = rest.substr(0, port);
    h.port = true;
  }
  if (rest.empty() || rest.size() > 64) return std::nullopt;
  for (const char c : rest) {
    if (c <= ' ' || c >= 0x7f || c == '"' || c == '\'') return std::nullopt;
  }
  h.dev = std::string(rest);
  return h;
}

std::optional<std::string> parse_devlink_handle_line(std::string_view line) {
  const std::string_view t = trim(line);
  if (t.size() < 4 || t.back() != ':' || t.find(' ') != std::string_view::npos) {
    return std::nullopt;
  }
  const std::string_view handle = t.substr(0, t.size() - 1);
  if (!parse_devlink_handle(handle)) return std::nullopt;
  return std::string(handle);
}

DevlinkInfo& devlink_facts(Facts& facts, std::string_view handle) {
  DevlinkInfo& info = facts.devlink[std::string(handle)];
  if (const auto h = parse_devlink_handle(handle)) {
    info.bus_name = h->bus;
    info.dev_name = h->dev;
  }
  return info;
}

namespace {

// Counts the lines only `devlink dev info` prints under a handle: "versions:" and its groups,
// "driver NAME".
std::size_t detect_devlink_info(const Section& s) {
  if (looks_like_json(s)) {
    if (count_json_key(s, "info") == 0) return 0;
    return 100 * (1 + count_json_key(s, "driver") + count_json_key(s, "versions"));
  }
  bool handle = false;
  std::size_t score = 0;
  for (const Line& line : s.lines) {
    if (parse_devlink_handle_line(line.text)) {
      handle = true;
      continue;
    }
    const std::string_view t = trim(line.text);
    if (!handle) continue;
    if (t == "versions:" || t == "fixed:" || t == "running:" || t == "stored:" ||
        (split_words(t).size() == 2 && starts_with_word(t, "driver"))) {
      score += 100;
    }
  }
  return score;
}

std::map<std::string, std::string, std::less<>>* version_group(DevlinkInfo& info,
                                                               std::string_view group) {
  if (group == "fixed") return &info.fixed;
  if (group == "running") return &info.running;
  if (group == "stored") return &info.stored;
  return nullptr;
}

// The instance members pr_out_info prints; false for a member the model has no place for.
bool put_info_member(DevlinkInfo& info, std::string_view name, std::string value) {
  if (name == "driver") {
    info.driver = std::move(value);
  } else if (name == "serial_number") {
    info.serial_number = std::move(value);
  } else if (name == "board.serial_number") {
    info.board_serial_number = std::move(value);
  } else {
    return false;
  }
  return true;
}

constexpr std::string_view kNoPlace =
    "devlink dev info member the host model has no place for (function.uid, ...)";

void parse_info_json(const Section& s, Facts& facts, LineLog& log) {
  const std::optional<nlohmann::json> doc = read_json_or_count(s, log, "devlink dev info");
  if (!doc) return;
  bool used = false;
  const auto info_it = doc->is_object() ? doc->find("info") : doc->end();
  if (info_it != doc->end() && info_it->is_object()) {
    for (const auto& [handle, object] : info_it->items()) {
      const auto h = parse_devlink_handle(handle);
      if (!h || h->port || !object.is_object()) continue;
      DevlinkInfo& info = devlink_facts(facts, handle);
      used = true;
      for (const auto& [name, value] : object.items()) {
        if (value.is_string()) put_info_member(info, name, value.get<std::string>());
      }
      const auto versions = object.find("versions");
      if (versions == object.end() || !versions->is_object()) continue;
      for (const auto& [group, entries] : versions->items()) {
        auto* map = version_group(info, group);
        if (map == nullptr || !entries.is_object()) continue;
        for (const auto& [name, value] : entries.items()) {
          if (value.is_string()) map->insert_or_assign(name, value.get<std::string>());
        }
      }
    }
  }
  count_json_lines(s, log, used, "devlink dev info JSON without an instance");
}

void parse_devlink_info(const Section& s, Facts& facts, LineLog& log) {
  if (looks_like_json(s)) {
    parse_info_json(s, facts, log);
    return;
  }
  std::string handle;
  bool in_versions = false;
  std::string_view group;
  for (const Line& line : s.lines) {
    const std::string_view t = trim(line.text);
    if (auto h = parse_devlink_handle_line(t)) {
      const auto parsed = parse_devlink_handle(*h);
      handle = parsed && !parsed->port ? *h : std::string();
      in_versions = false;
      group = {};
      if (handle.empty()) {
        log.ignore("devlink port handle in devlink dev info");
      } else {
        devlink_facts(facts, handle);
        log.use();
      }
      continue;
    }
    if (t.empty()) {
      log.ignore("blank");
      continue;
    }
    if (handle.empty()) {
      log.ignore("not under a devlink handle");
      continue;
    }
    if (t == "versions:") {
      in_versions = true;
      group = {};
      log.use();
      continue;
    }
    if (in_versions && (t == "fixed:" || t == "running:" || t == "stored:")) {
      group = t.substr(0, t.size() - 1);
      log.use();
      continue;
    }
    const std::size_t space = t.find_first_of(" \t");
    if (space == std::string_view::npos) {
      log.ignore("devlink dev info line without a value (cut)");
      continue;
    }
    const std::string_view name = t.substr(0, space);
    std::string value(trim(t.substr(space)));
    DevlinkInfo& info = devlink_facts(facts, handle);
    if (in_versions && !group.empty()) {
      version_group(info, group)->insert_or_assign(std::string(name), std::move(value));
      log.use();
    } else if (!in_versions && put_info_member(info, name, std::move(value))) {
      log.use();
    } else {
      log.ignore(kNoPlace);
    }
  }
}

}  // namespace

FormatParser devlink_info_format() {
  return {"devlink dev info", detect_devlink_info, parse_devlink_info};
}

}  // namespace rdmatop::capture
