// `rdma statistic qp mode` (iproute2 rdma/stat.c qp_link_get_mode_parse_cb): per port
//   link DEV/PORT mode qp auto CRITERIA on [optional-counters on|off]     (iproute2 >= 5.4)
//   IDX/PORT: DEV/PORT: qp auto CRITERIA on                               (the first, 2019)
// and with -j / -p {"ifname": DEV, "port": N, "mode": "qp auto ..."}. CRITERIA is "type",
// "pid" or "type,pid" (prepare_auto_mode_str: RDMA_COUNTER_MASK_QP_TYPE 1, _PID 2). The tool
// prints "qp auto off" for every mode but auto (none and manual alike), so that line says only
// "not auto" (PortFacts::qp_counter_not_auto); the assembler tells none from manual by the
// port's bound counters when a whole `rdma statistic qp show` dump is in the capture too.
#include <string>

#include "collector/capture/capture_formats.h"
#include "collector/capture/capture_json.h"
#include "collector/capture/capture_text.h"

namespace rdmatop::capture {
namespace {

struct QpModeRecord {
  std::string_view dev;
  std::uint32_t port = 0;
  std::vector<std::string_view> mode;  ///< the words from "qp" on
};

std::optional<QpModeRecord> qp_mode_record(std::string_view line) {
  const auto words = split_words(line);
  std::size_t first = 0;
  std::string_view link;
  if (words.size() >= 5 && words[0] == "link" && words[2] == "mode") {
    link = words[1];
    first = 3;
  } else if (words.size() >= 4 && words[0].ends_with(":") && words[1].ends_with(":")) {
    link = words[1].substr(0, words[1].size() - 1);
    first = 2;
  } else {
    return std::nullopt;
  }
  if (words[first] != "qp" || first + 1 >= words.size() || words[first + 1] != "auto") {
    return std::nullopt;
  }
  const auto dp = parse_dev_port(link);
  if (!dp) return std::nullopt;
  QpModeRecord r;
  r.dev = link.substr(0, link.find('/'));
  r.port = dp->second;
  r.mode.assign(words.begin() + static_cast<std::ptrdiff_t>(first), words.end());
  return r;
}

// "qp auto off": not auto (none or manual).
bool is_not_auto(const std::vector<std::string_view>& mode) {
  return mode.size() >= 3 && mode[0] == "qp" && mode[1] == "auto" && mode[2] == "off";
}

// "qp auto type,pid on ...": the auto mode with its criteria; none for "qp auto off" (not auto:
// none or manual) and for anything else.
std::optional<QpCounterMode> auto_mode(const std::vector<std::string_view>& mode) {
  if (mode.size() < 4 || mode[0] != "qp" || mode[1] != "auto" || mode[3] != "on") {
    return std::nullopt;
  }
  QpCounterMode m;
  m.mode = 1;  // RDMA_COUNTER_MODE_AUTO
  std::string_view criteria = mode[2];
  while (!criteria.empty()) {
    const std::size_t comma = criteria.find(',');
    const std::string_view c = criteria.substr(0, comma);
    if (c == "type") {
      m.auto_mask |= 1;  // RDMA_COUNTER_MASK_QP_TYPE
    } else if (c == "pid") {
      m.auto_mask |= 2;  // RDMA_COUNTER_MASK_PID
    } else {
      return std::nullopt;
    }
    criteria = comma == std::string_view::npos ? std::string_view{} : criteria.substr(comma + 1);
  }
  if (m.auto_mask == 0) return std::nullopt;
  return m;
}

constexpr std::string_view kNotAuto =
    "QP counter mode neither `qp auto CRITERIA on` nor `qp auto off`, or cut: mode not known";

std::size_t detect_rdma_qp_mode(const Section& s) {
  if (looks_like_json(s)) {
    // "mode" with "ifname": rdma statistic qp mode -j; `rdma statistic mode -j` lists optional
    // counters, never "qp auto".
    const std::size_t modes = count_json_key(s, "mode");
    if (modes == 0 || count_json_key(s, "ifname") == 0) return 0;
    for (const Line& line : s.lines) {
      if (line.text.find("\"qp auto") != std::string::npos) return 100 * modes;
    }
    return 0;
  }
  return score_lines(s, 100, [](std::string_view l) { return qp_mode_record(l).has_value(); });
}

void parse_qp_mode_json(const Section& s, Facts& facts, LineLog& log) {
  const std::optional<nlohmann::json> doc = read_json_or_count(s, log, "rdma statistic qp mode");
  if (!doc) return;
  bool used = false;
  bool unknown_mode = false;
  const auto read_port = [&](const nlohmann::json& object) {
    const std::string dev = json_text(object, "ifname");
    const std::string mode = json_text(object, "mode");
    const auto port = json_port(object);
    if (!is_object_name(dev) || !port || mode.empty()) return;
    const auto words = split_words(mode);
    if (const auto m = auto_mode(words)) {
      facts.devices[dev].ports[*port].qp_counter_mode = *m;
      used = true;
    } else if (is_not_auto(words)) {
      facts.devices[dev].ports[*port].qp_counter_not_auto = true;
      used = true;
    } else {
      unknown_mode = true;
    }
  };
  if (doc->is_array()) {
    for (const nlohmann::json& object : *doc) read_port(object);
  } else {
    read_port(*doc);
  }
  count_json_lines(
      s, log, used,
      unknown_mode ? kNotAuto : std::string_view("rdma statistic qp mode JSON without a port"));
}

void parse_rdma_qp_mode(const Section& s, Facts& facts, LineLog& log) {
  if (looks_like_json(s)) {
    parse_qp_mode_json(s, facts, log);
    return;
  }
  for (const Line& line : s.lines) {
    const auto record = qp_mode_record(line.text);
    if (!record) {
      ignore_line(log, line.text, "not rdma statistic qp mode output");
      continue;
    }
    const auto m = auto_mode(record->mode);
    if (!m && !is_not_auto(record->mode)) {
      log.ignore(kNotAuto);  // a cut or unknown mode line says nothing, not even the port
      continue;
    }
    PortFacts& port = facts.devices[std::string(record->dev)].ports[record->port];
    if (m) {
      port.qp_counter_mode = *m;
    } else {
      port.qp_counter_not_auto = true;
    }
    log.use();
  }
}

}  // namespace

FormatParser rdma_qp_mode_format() {
  return {"rdma statistic qp mode", detect_rdma_qp_mode, parse_rdma_qp_mode};
}

}  // namespace rdmatop::capture
