// `rdma statistic qp show` (iproute2 rdma/stat.c res_counter_line): one record per counter
// bound to QPs,
//   link DEV/PORT cntn N [qp-type T] [pid P] [comm C] NAME VALUE ...      (before iproute2 6.7)
//       LQPN: <Q,Q,...>
// (wrapped by terminals and mail archives, the rest at column 0 or indented)
// or, since 6.7 (and with -p), the counters one "NAME VALUE" an indented line before "LQPN:";
// with -j one object per counter {"ifname", "port", "cntn", "qp-type", "pid", "comm", NAME:
// VALUE ..., "lqpn": [Q, ...]}. "comm" is the process's name with "pid", else the kernel user's
// name, which the plain rendering prints in brackets (rdma/res.c print_comm).
//
// Facts: the port's BoundCounter list as RDMA netlink gives it live
// (collector/qp_counter_collector.cpp). A whole dump (the command line shown, naming no filter,
// no pipe) lists every counter the host has, so it also says which ports have none
// (Facts::qp_counters_listed), which the assembler needs to tell none from manual mode.
#include <array>
#include <string>

#include "collector/capture/capture_formats.h"
#include "collector/capture/capture_json.h"
#include "collector/capture/capture_text.h"

namespace rdmatop::capture {
namespace {

// enum ib_qp_type (include/rdma/ib_verbs.h) by the names rdma/res.c qp_types_to_str prints;
// index 7 prints "UNKNOWN", as does any type the tool has no name for, so it names none.
std::optional<std::uint8_t> qp_type_from_name(std::string_view name) {
  static constexpr std::array<std::string_view, 11> kNames = {
      "SMI",           "GSI", "RC",         "UC",      "UD",     "RAW_IPV6",
      "RAW_ETHERTYPE", "",    "RAW_PACKET", "XRC_INI", "XRC_TGT"};
  for (std::size_t i = 0; i < kNames.size(); ++i) {
    if (!kNames[i].empty() && name == kNames[i]) return static_cast<std::uint8_t>(i);
  }
  if (name == "DRIVER") return 0xFF;  // IB_QPT_DRIVER
  return std::nullopt;
}

// The counter's own mode (BoundCounter::mode), from what the kernel sent with it. nldev.c
// fill_stat_counter_mode sends RES_TYPE only for a counter in auto mode by QP type, and the
// owner (pid, or the kernel user's name) only for one in auto mode by PID; the first kernels
// with counters (2019, fill_res_counter_entry) sent every counter's owner. So a QP type means
// auto, and neither a type nor an owner means manual (auto mode always has a criterion). An
// owner alone tells neither: 0, not known, until the assembler knows the port is in auto mode.
std::uint32_t counter_mode(const BoundCounter& c, bool has_type_name) {
  if (has_type_name) return 1;                                    // RDMA_COUNTER_MODE_AUTO
  if (!c.pid && c.kern_name.empty() && c.comm.empty()) return 2;  // RDMA_COUNTER_MODE_MANUAL
  return 0;
}

// "<178,179>" (possibly split over words by a wrapped paste) -> the QP numbers, or none.
std::optional<std::vector<std::uint32_t>> parse_lqpn_list(std::string_view text) {
  if (text.size() < 2 || text.front() != '<' || text.back() != '>') return std::nullopt;
  text = text.substr(1, text.size() - 2);
  std::vector<std::uint32_t> out;
  while (!text.empty()) {
    const std::size_t comma = text.find(',');
    const auto n = to_u64(text.substr(0, comma));
    if (!n || *n > UINT32_MAX) return std::nullopt;
    out.push_back(static_cast<std::uint32_t>(*n));
    text = comma == std::string_view::npos ? std::string_view{} : text.substr(comma + 1);
  }
  return out;
}

bool is_counter_record_start(std::string_view line) {
  const auto words = split_words(line);
  return words.size() >= 4 && words[0] == "link" && words[2] == "cntn" &&
         parse_dev_port(words[1]) && is_decimal(words[3]);
}

// A line of "NAME VALUE" pairs only: the rest of a record a mail archive wrapped at column 0
// (iproute2 commit 5937552b's example), or one counter of the 6.7 rendering.
bool is_counter_pairs(std::string_view line) {
  const auto words = split_words(line);
  if (words.empty() || words.size() % 2 != 0 || words[0] == "link") return false;
  for (std::size_t i = 0; i < words.size(); i += 2) {
    if (!is_object_name(words[i]) || !is_decimal(words[i + 1])) return false;
  }
  return true;
}

struct ParsedCounter {
  std::string dev;
  std::uint32_t port = 0;
  BoundCounter counter;
};

// One plain record's words ("link", "DEV/PORT", "cntn", "N", ...), or none when any word is not
// what res_counter_line prints.
std::optional<ParsedCounter> parse_text_record(const std::vector<std::string_view>& words) {
  const auto dp = parse_dev_port(words[1]);
  const auto id = to_u64(words[3]);
  if (!dp || !is_object_name(dp->first) || !id || *id > UINT32_MAX) return std::nullopt;
  ParsedCounter out{dp->first, dp->second, {}};
  BoundCounter& c = out.counter;
  c.id = static_cast<std::uint32_t>(*id);
  bool has_type = false;
  bool has_lqpn = false;
  for (std::size_t i = 4; i < words.size(); i += 2) {
    const std::string_view key = words[i];
    if (key == "LQPN:") {
      std::string list;
      for (std::size_t j = i + 1; j < words.size(); ++j) list += words[j];
      auto qpns = parse_lqpn_list(list);
      if (!qpns) return std::nullopt;
      c.qpns = std::move(*qpns);
      has_lqpn = true;
      break;
    }
    if (i + 1 >= words.size()) return std::nullopt;
    const std::string_view value = words[i + 1];
    if (key == "qp-type") {
      c.qp_type = qp_type_from_name(value);
      has_type = true;
    } else if (key == "pid") {
      const auto pid = to_u64(value);
      if (!pid || *pid > UINT32_MAX) return std::nullopt;
      c.pid = static_cast<std::uint32_t>(*pid);
    } else if (key == "comm") {
      if (value.size() > 2 && value.front() == '[' && value.back() == ']') {
        c.kern_name = std::string(value.substr(1, value.size() - 2));
      } else {
        c.comm = std::string(value);
      }
    } else if (is_decimal(value) && is_object_name(key)) {
      c.hw_counters.insert_or_assign(std::string(key), *to_u64(value));
    } else {
      return std::nullopt;  // a comm with spaces, a cut value: not this record as printed
    }
  }
  if (!has_lqpn) return std::nullopt;  // cut before its QP list: the record is not whole
  c.mode = counter_mode(c, has_type);
  return out;
}

std::optional<ParsedCounter> parse_json_record(const nlohmann::json& object) {
  if (!object.is_object()) return std::nullopt;
  const std::string dev = json_text(object, "ifname");
  const auto port = json_port(object);
  const auto cntn = object.find("cntn");
  const auto lqpn = object.find("lqpn");
  if (!is_object_name(dev) || !port || cntn == object.end() || lqpn == object.end() ||
      !lqpn->is_array()) {
    return std::nullopt;
  }
  const auto id = json_u64(*cntn);
  if (!id || *id > UINT32_MAX) return std::nullopt;
  ParsedCounter out{dev, *port, {}};
  BoundCounter& c = out.counter;
  c.id = static_cast<std::uint32_t>(*id);
  for (const auto& q : *lqpn) {
    const auto n = json_u64(q);
    if (!n || *n > UINT32_MAX) return std::nullopt;
    c.qpns.push_back(static_cast<std::uint32_t>(*n));
  }
  bool has_type = false;
  for (const auto& [key, value] : object.items()) {
    if (key == "ifindex" || key == "ifname" || key == "port" || key == "cntn" || key == "lqpn") {
      continue;
    }
    if (key == "qp-type") {
      if (!value.is_string()) return std::nullopt;
      c.qp_type = qp_type_from_name(value.get<std::string>());
      has_type = true;
    } else if (key == "pid") {
      const auto pid = json_u64(value);
      if (!pid || *pid > UINT32_MAX) return std::nullopt;
      c.pid = static_cast<std::uint32_t>(*pid);
    } else if (key == "comm") {
      if (!value.is_string()) return std::nullopt;
    } else if (const auto v = json_u64(value); v && is_object_name(key)) {
      c.hw_counters.insert_or_assign(key, *v);
    } else {
      return std::nullopt;
    }
  }
  // Under -j print_comm prints the name bare, with or without a pid: the pid tells whose.
  const std::string comm = json_text(object, "comm");
  (c.pid ? c.comm : c.kern_name) = comm;
  c.mode = counter_mode(c, has_type);
  return out;
}

// `rdma statistic qp [show|list]` with no filter: rdma.c matches each word as a prefix of its
// command ("st" is statistic; "s" would be "system"), so the abbreviations count too.
bool is_whole_counter_dump(std::string_view command) {
  const auto rdma = parse_rdma_command(command);
  if (!rdma) return false;
  const auto& a = rdma->args;
  const auto prefix = [](std::string_view arg, std::string_view word, std::size_t min) {
    return arg.size() >= min && word.starts_with(arg);
  };
  if (a.size() < 2 || a.size() > 3 || !prefix(a[0], "statistic", 2) || !prefix(a[1], "qp", 1)) {
    return false;
  }
  return a.size() == 2 || prefix(a[2], "show", 1) || prefix(a[2], "list", 1);
}

std::size_t detect_rdma_qp_counters(const Section& s) {
  const std::size_t by_command = is_whole_counter_dump(s.command) ? 1 : 0;
  if (looks_like_json(s)) {
    if (count_json_key(s, "ifname") == 0) return by_command;
    return 100 * count_json_key(s, "cntn") + by_command;
  }
  return score_lines(s, 100, is_counter_record_start) + by_command;
}

void add_counter(Facts& facts, ParsedCounter&& parsed) {
  PortFacts& port = facts.devices[parsed.dev].ports[parsed.port];
  auto& list = port.bound_counters;
  const auto at =
      std::lower_bound(list.begin(), list.end(), parsed.counter.id,
                       [](const BoundCounter& c, std::uint32_t id) { return c.id < id; });
  if (at != list.end() && at->id == parsed.counter.id) {
    *at = std::move(parsed.counter);  // the same counter twice in one dump: the later line wins
  } else {
    list.insert(at, std::move(parsed.counter));
  }
}

constexpr std::string_view kBadRecord =
    "rdma statistic qp show record not as the tool prints it (cut, or a name with spaces): not "
    "used";

void parse_qp_counters_json(const Section& s, Facts& facts, LineLog& log) {
  const std::optional<nlohmann::json> doc = read_json_or_count(s, log, "rdma statistic qp show");
  if (!doc) return;
  bool all = true;
  std::vector<ParsedCounter> counters;
  const auto read = [&](const nlohmann::json& object) {
    if (auto c = parse_json_record(object)) {
      counters.push_back(std::move(*c));
    } else {
      all = false;
    }
  };
  if (doc->is_array()) {
    for (const nlohmann::json& object : *doc) read(object);
  } else {
    read(*doc);
  }
  // One bad object makes the document's counters unreliable as a whole: none is taken.
  const bool used = all;
  if (used) {
    for (ParsedCounter& c : counters) add_counter(facts, std::move(c));
    if (is_whole_counter_dump(s.command)) facts.qp_counters_listed = true;
  }
  count_json_lines(s, log, used, kBadRecord);
}

void parse_rdma_qp_counters(const Section& s, Facts& facts, LineLog& log) {
  if (looks_like_json(s)) {
    parse_qp_counters_json(s, facts, log);
    return;
  }
  // Records: the "link ... cntn" line and the indented lines after it.
  struct Record {
    std::vector<std::string_view> words;
    std::size_t lines = 0;
  };
  std::vector<Record> records;
  bool whole = is_whole_counter_dump(s.command);
  for (const Line& line : s.lines) {
    const bool indented =
        !line.text.empty() && (line.text.front() == ' ' || line.text.front() == '\t');
    if (is_counter_record_start(line.text)) {
      records.push_back(Record{split_words(line.text), 1});
    } else if (!records.empty() && !trim(line.text).empty() &&
               (indented || is_counter_pairs(line.text))) {
      for (const auto w : split_words(line.text)) records.back().words.push_back(w);
      ++records.back().lines;
    } else {
      if (!trim(line.text).empty()) whole = false;  // something else printed: not a clean dump
      ignore_line(log, line.text, "not rdma statistic qp show output");
    }
  }
  for (const Record& r : records) {
    auto parsed = parse_text_record(r.words);
    for (std::size_t i = 0; i < r.lines; ++i) count_line(log, parsed.has_value(), kBadRecord);
    if (parsed) {
      add_counter(facts, std::move(*parsed));
    } else {
      whole = false;
    }
  }
  if (whole) facts.qp_counters_listed = true;
}

}  // namespace

FormatParser rdma_qp_counters_format() {
  return {"rdma statistic qp show", detect_rdma_qp_counters, parse_rdma_qp_counters};
}

}  // namespace rdmatop::capture
