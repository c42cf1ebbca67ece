// `rdma resource show qp|cq|mr|pd` (iproute2 rdma/res-qp.c res_qp_line, res-cq.c res_cq_line,
// res-mr.c res_mr_line, res-pd.c res_pd_line): one row per object,
//   link DEV/PORT lqpn N [rqpn N] type T state S ... [pid N] comm C    (a QP; "DEV/-": no port)
//   dev DEV cqn N cqe N users N ...                                    (a CQ; mrn, pdn alike)
// and with -j / -p one JSON object per row under the same names ("ifname", "lqpn", "cqn", ...).
//
// What the host model holds of them is what the live collector reads by RDMA netlink: the
// objects in use per device (DeviceSample::resources, the RES_SUMMARY of `rdma resource`). A row
// count is that number only for a whole dump: the command line must be shown and name no filter
// (`link`, `lqpn`, `pid`, `| grep` would leave rows out). The summary and the dump count alike
// (nldev.c: both skip objects outside the caller's PID namespace, and the driver's own QPs unless
// -dd asks, res_get_common_dumpit / fill_res_info). QP states, types, PSNs and owners have no
// place in the model: those rows are listed as used for nothing, with that reason.
#include <map>
#include <string>

#include "collector/capture/capture_formats.h"
#include "collector/capture/capture_json.h"
#include "collector/capture/capture_text.h"

namespace rdmatop::capture {
namespace {

// The object a row describes, by the number it names: the summary's name for it.
std::string_view res_row_kind(std::string_view line, std::string_view* dev) {
  const auto words = split_words(line);
  if (words.size() < 4 || !is_decimal(words[3])) return {};
  if (words[0] == "link" && words[2] == "lqpn") {
    const std::string_view link = words[1];
    const std::size_t slash = link.find('/');
    if (slash == std::string_view::npos || slash == 0) return {};
    const std::string_view port = link.substr(slash + 1);
    if (port != "-" && !is_decimal(port)) return {};
    *dev = link.substr(0, slash);
    return is_object_name(*dev) ? "qp" : std::string_view{};
  }
  if (words[0] != "dev" || !is_object_name(words[1])) return {};
  *dev = words[1];
  if (words[2] == "cqn") return "cq";
  if (words[2] == "mrn") return "mr";
  if (words[2] == "pdn") return "pd";
  return {};
}

bool is_res_row(std::string_view line) {
  std::string_view dev;
  return !res_row_kind(line, &dev).empty();
}

// A JSON row: the number only that object's row prints first ("pdn" also appears in QP and MR
// rows). A QP counter of `rdma statistic qp show -j` lists its QPs as "lqpn" too: "cntn" tells.
std::string_view res_json_kind(const nlohmann::json& object) {
  if (!object.is_object() || object.contains("cntn")) return {};
  if (object.contains("lqpn")) return "qp";
  if (object.contains("cqn")) return "cq";
  if (object.contains("mrn")) return "mr";
  if (object.contains("pdn")) return "pd";
  return {};
}

std::size_t detect_rdma_res_objects(const Section& s) {
  if (looks_like_json(s)) {
    if (count_json_key(s, "ifname") == 0 || count_json_key(s, "cntn") > 0) return 0;
    return 200 * (count_json_key(s, "lqpn") + count_json_key(s, "cqn") + count_json_key(s, "mrn"));
  }
  // 200 a row: a QP row also has the "state" word rdma link's rows are recognised by.
  return score_lines(s, 200, is_res_row);
}

// The kind a command line dumps whole ("rdma -j res show qp", "rdma resource show cq -d"), or
// "" when it filters (any further word, a pipe) or is not such a dump.
std::string_view whole_dump_kind(std::string_view command) {
  const auto rdma = parse_rdma_command(command);
  if (!rdma || rdma->details > 1) return {};
  const std::vector<std::string_view>& args = rdma->args;
  if (args.empty() || (args[0] != "res" && args[0] != "resource")) return {};
  std::size_t next = 1;
  if (next < args.size() && args[next] == "show") ++next;
  if (next + 1 != args.size()) return {};
  const std::string_view kind = args[next];
  if (kind == "qp" || kind == "cq" || kind == "mr" || kind == "pd") return kind;
  return {};
}

void count_rows(Facts& facts, const std::map<std::string, std::uint64_t>& rows,
                std::string_view kind) {
  for (const auto& [dev, n] : rows) {
    facts.devices[dev].resources.insert_or_assign(std::string(kind), n);
  }
}

std::string not_counted_reason(std::string_view kind) {
  return "rdma resource " + std::string(kind) +
         " row of a dump whose command line is not shown or filters: not counted (the host "
         "model holds per-device totals, no per-object rows or states)";
}

void parse_res_json(const Section& s, Facts& facts, LineLog& log) {
  const std::optional<nlohmann::json> doc = read_json_or_count(s, log, "rdma resource dump");
  if (!doc) return;
  const std::string_view whole = whole_dump_kind(s.command);
  std::map<std::string, std::uint64_t> rows;
  std::string_view seen;
  bool mixed = false;
  const auto read_row = [&](const nlohmann::json& object) {
    const std::string_view kind = res_json_kind(object);
    const std::string dev = json_text(object, "ifname");
    if (kind.empty() || !is_object_name(dev)) return;
    if (!seen.empty() && seen != kind) mixed = true;
    seen = kind;
    ++rows[dev];
  };
  if (doc->is_array()) {
    for (const nlohmann::json& object : *doc) read_row(object);
  } else {
    read_row(*doc);
  }
  const bool counted = !rows.empty() && !mixed && seen == whole;
  if (counted) count_rows(facts, rows, seen);
  count_json_lines(s, log, counted,
                   seen.empty() ? std::string("rdma resource dump JSON without rows")
                                : not_counted_reason(seen));
}

void parse_rdma_res_objects(const Section& s, Facts& facts, LineLog& log) {
  if (looks_like_json(s)) {
    parse_res_json(s, facts, log);
    return;
  }
  const std::string_view whole = whole_dump_kind(s.command);
  std::map<std::string, std::uint64_t> rows;
  std::vector<std::string_view> kinds;  // per line, "" for a line that is no row
  for (const Line& line : s.lines) {
    std::string_view dev;
    const std::string_view kind = res_row_kind(line.text, &dev);
    kinds.push_back(kind);
    if (!kind.empty() && kind == whole) ++rows[std::string(dev)];
  }
  if (!rows.empty()) count_rows(facts, rows, whole);
  for (std::size_t i = 0; i < s.lines.size(); ++i) {
    if (kinds[i].empty()) {
      ignore_line(log, s.lines[i].text, "not rdma resource output");
    } else if (kinds[i] == whole) {
      log.use();
    } else {
      log.ignore(not_counted_reason(kinds[i]));
    }
  }
}

}  // namespace

FormatParser rdma_res_objects_format() {
  return {"rdma resource qp|cq|mr", detect_rdma_res_objects, parse_rdma_res_objects};
}

}  // namespace rdmatop::capture
