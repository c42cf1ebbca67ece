#include "collector/capture/capture_json.h"

#include <utility>

#include "collector/capture/capture_text.h"

namespace rdmatop::capture {

namespace {

std::string section_text(const Section& s) {
  std::string text;
  for (const Line& line : s.lines) {
    text += line.text;
    text.push_back('\n');
  }
  return text;
}

}  // namespace

bool looks_like_json(const Section& s) {
  for (const Line& line : s.lines) {
    const std::string_view t = trim(line.text);
    if (t.empty()) continue;
    return t.front() == '[' || t.front() == '{';
  }
  return false;
}

JsonSection read_json(const Section& s) {
  JsonSection out;
  if (!looks_like_json(s)) {
    out.error = "not JSON";
    return out;
  }
  const std::string text = section_text(s);
  try {
    out.doc = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    // The parser reports the byte it stopped at; at the text's end the paste was cut short.
    std::size_t end = text.size();
    while (end > 0 && (text[end - 1] == '\n' || text[end - 1] == ' ' || text[end - 1] == '\t')) {
      --end;
    }
    out.error = e.byte >= end ? "JSON cut before its end"
                              : "JSON damaged at byte " + std::to_string(e.byte);
  } catch (const nlohmann::json::exception& e) {
    out.error = std::string("JSON not read: ") + e.what();
  }
  return out;
}

std::optional<nlohmann::json> read_json_or_count(const Section& s, LineLog& log,
                                                 std::string_view what) {
  JsonSection json = read_json(s);
  if (!json.doc)
    count_json_lines(s, log, false, std::string(what) + " " + json.error + ": not used");
  return std::move(json.doc);
}

std::size_t count_json_key(const Section& s, std::string_view key) {
  if (!looks_like_json(s)) return 0;
  const std::string quoted = "\"" + std::string(key) + "\"";
  std::size_t count = 0;
  for (const Line& line : s.lines) {
    const std::string_view t = line.text;
    for (std::size_t pos = t.find(quoted); pos != std::string_view::npos;
         pos = t.find(quoted, pos + quoted.size())) {
      std::size_t after = pos + quoted.size();
      while (after < t.size() && (t[after] == ' ' || t[after] == '\t')) ++after;
      if (after < t.size() && t[after] == ':') ++count;
    }
  }
  return count;
}

void count_json_lines(const Section& s, LineLog& log, bool used, std::string_view reason) {
  for (const Line& line : s.lines) {
    if (trim(line.text).empty()) {
      log.ignore("blank");
    } else if (used) {
      log.use();
    } else {
      log.ignore(reason);
    }
  }
}

std::optional<std::uint64_t> json_u64(const nlohmann::json& v) {
  if (v.is_number_unsigned()) return v.get<std::uint64_t>();
  if (v.is_number_integer()) {
    const auto i = v.get<std::int64_t>();
    if (i >= 0) return static_cast<std::uint64_t>(i);
  }
  return std::nullopt;
}

std::optional<std::uint32_t> json_port(const nlohmann::json& object) {
  if (!object.is_object()) return std::nullopt;
  const auto it = object.find("port");
  if (it == object.end()) return std::nullopt;
  const auto port = json_u64(*it);
  if (!port || *port == 0 || *port > 255) return std::nullopt;
  return static_cast<std::uint32_t>(*port);
}

std::string json_text(const nlohmann::json& object, std::string_view key) {
  if (!object.is_object()) return {};
  const auto it = object.find(key);
  if (it == object.end() || !it->is_string()) return {};
  return it->get<std::string>();
}

}  // namespace rdmatop::capture
