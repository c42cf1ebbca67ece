// `devlink health [show]` (iproute2 devlink/devlink.c pr_out_health): per instance or port
//   pci/0000:b1:00.3:
//     reporter fw
//       state healthy error 0 recover 0 grace_period 500 auto_recover true auto_dump true
// ("name fw" before iproute2 5.4 named the reporter), and with -j / -p
// {"health": {"pci/0000:b1:00.3": [{"reporter": "fw", "state": "healthy", "error": 0, ...}]}}.
// The same DevlinkHealthReporter the live source fills (collector/parse/devlink_parse.cpp,
// DEVLINK_CMD_HEALTH_REPORTER_GET): state, error and recover counts, grace period, auto
// recover / dump. "last_dump_date D last_dump_time T" is the dump's time in the pasting host's
// local zone (pr_out_dump_reporter_format_logtime), not the kernel's milliseconds since boot, so
// last_dump_ts_ms stays absent. A port's reporters count as their instance's, as on a live host
// (collector/devlink_collector.cpp).
#include <string>

#include "collector/capture/capture_formats.h"
#include "collector/capture/capture_json.h"
#include "collector/capture/capture_text.h"
#include "collector/capture/devlink_facts.h"

namespace rdmatop::capture {
namespace {

bool is_reporter_line(std::string_view t) {
  const auto words = split_words(t);
  return words.size() >= 2 && (words[0] == "reporter" || words[0] == "name") &&
         is_object_name(words[1]);
}

bool is_state_line(std::string_view t) {
  const auto words = split_words(t);
  return words.size() >= 2 && words[0] == "state" && (words[1] == "healthy" || words[1] == "error");
}

std::size_t detect_devlink_health(const Section& s) {
  if (looks_like_json(s)) {
    if (count_json_key(s, "health") == 0) return 0;
    return 100 * (1 + count_json_key(s, "reporter") + count_json_key(s, "recover"));
  }
  bool handle = false;
  std::size_t states = 0;
  std::size_t reporters = 0;
  for (const Line& line : s.lines) {
    if (parse_devlink_handle_line(line.text)) {
      handle = true;
    } else if (handle && is_reporter_line(trim(line.text))) {
      ++reporters;
    } else if (handle && is_state_line(trim(line.text))) {
      ++states;
    }
  }
  return states == 0 ? 0 : 100 * (states + reporters);
}

DevlinkHealthReporter& reporter_of(Facts& facts, const std::string& handle,
                                   const std::string& name) {
  DevlinkInfo& info = devlink_facts(facts, handle);
  for (DevlinkHealthReporter& r : info.reporters) {
    if (r.name == name) return r;
  }
  info.reporters.push_back(DevlinkHealthReporter{});
  info.reporters.back().name = name;
  return info.reporters.back();
}

std::optional<bool> bool_word(std::string_view w) {
  if (w == "true") return true;
  if (w == "false") return false;
  return std::nullopt;
}

// One "key value" of a reporter (pr_out_health): true when it is one the model holds.
bool put_health_member(DevlinkHealthReporter& r, std::string_view key, std::string_view value) {
  if (key == "state") {
    if (value != "healthy" && value != "error") return false;
    r.state = std::string(value);
  } else if (key == "error" || key == "recover" || key == "grace_period") {
    const auto n = to_u64(value);  // "unlimited" (u64 -1, pr_out_u64) stays absent
    if (!n) return false;
    (key == "error" ? r.error_count : key == "recover" ? r.recover_count : r.grace_period_ms) = *n;
  } else if (key == "auto_recover" || key == "auto_dump") {
    const auto b = bool_word(value);
    if (!b) return false;
    (key == "auto_recover" ? r.auto_recover : r.auto_dump) = *b;
  } else {
    return false;
  }
  return true;
}

void parse_health_json(const Section& s, Facts& facts, LineLog& log) {
  const std::optional<nlohmann::json> doc = read_json_or_count(s, log, "devlink health");
  if (!doc) return;
  bool used = false;
  const auto health = doc->is_object() ? doc->find("health") : doc->end();
  if (health != doc->end() && health->is_object()) {
    for (const auto& [handle, reporters] : health->items()) {
      if (!parse_devlink_handle(handle) || !reporters.is_array()) continue;
      for (const nlohmann::json& object : reporters) {
        std::string name = json_text(object, "reporter");
        if (name.empty()) name = json_text(object, "name");
        if (!is_object_name(name)) continue;
        DevlinkHealthReporter& r = reporter_of(facts, handle, name);
        used = true;
        for (const auto& [key, value] : object.items()) {
          if (value.is_string()) {
            put_health_member(r, key, value.get<std::string>());
          } else if (value.is_boolean()) {
            put_health_member(r, key, value.get<bool>() ? "true" : "false");
          } else if (const auto n = json_u64(value)) {
            put_health_member(r, key, std::to_string(*n));
          }
        }
      }
    }
  }
  count_json_lines(s, log, used, "devlink health JSON without a reporter");
}

void parse_devlink_health(const Section& s, Facts& facts, LineLog& log) {
  if (looks_like_json(s)) {
    parse_health_json(s, facts, log);
    return;
  }
  std::string handle;
  std::string reporter;
  for (const Line& line : s.lines) {
    const std::string_view t = trim(line.text);
    if (auto h = parse_devlink_handle_line(t)) {
      handle = *h;
      reporter.clear();
      log.use();
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
    auto words = split_words(t);
    std::size_t first = 0;
    if (is_reporter_line(t)) {
      reporter = std::string(words[1]);
      reporter_of(facts, handle, reporter);
      first = 2;
    } else if (reporter.empty()) {
      log.ignore("devlink health line before its reporter");
      continue;
    }
    DevlinkHealthReporter& r = reporter_of(facts, handle, reporter);
    bool used = first == 2;
    // "key value" pairs; a value a cut paste lost leaves its key alone and unused.
    for (std::size_t i = first; i + 1 < words.size(); i += 2) {
      used = put_health_member(r, words[i], words[i + 1]) || used;
    }
    count_line(log, used, "devlink health line the host model has no place for");
  }
}

}  // namespace

FormatParser devlink_health_format() {
  return {"devlink health", detect_devlink_health, parse_devlink_health};
}

}  // namespace rdmatop::capture
