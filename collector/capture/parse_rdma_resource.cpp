// `rdma resource [show]` / `rdma res` (iproute2 rdma/res.c res_no_args_parse_cb): per device
// "IDX: DEV: pd N cq N qp N cm_id N mr N ctx N srq N", the RES_SUMMARY entries under the names
// drivers/infiniband/core/nldev.c fill_res_info gives them; with -j / -p one object per device,
// {"ifindex": IDX, "ifname": DEV, "pd": N, ...}. The same counts RDMA netlink gives the live
// collector (DeviceSample::resources): objects in use, not the maximum.
#include <array>
#include <string>

#include "collector/capture/capture_formats.h"
#include "collector/capture/capture_json.h"
#include "collector/capture/capture_text.h"

namespace rdmatop::capture {
namespace {

// nldev.c fill_res_info: the restrack types RES_SUMMARY names.
constexpr std::array<std::string_view, 7> kSummaryNames = {"pd", "cq",  "qp", "cm_id",
                                                           "mr", "ctx", "srq"};

bool is_summary_name(std::string_view name) {
  for (const std::string_view n : kSummaryNames) {
    if (n == name) return true;
  }
  return false;
}

struct SummaryRecord {
  std::string_view dev;
  std::vector<std::pair<std::string_view, std::string_view>> counts;
};

// "0: mlx5_0: pd 2 cq 3 qp 1 cm_id 0 mr 0 ctx 1 srq 2": name/value pairs only, at least one
// summary name (rdma dev's "IDX: DEV: node_type ca ..." has none, and words, not counts).
std::optional<SummaryRecord> summary_record(std::string_view line) {
  const auto words = split_words(line);
  if (words.size() < 4 || words.size() % 2 != 0) return std::nullopt;
  if (words[0].size() < 2 || words[0].back() != ':' ||
      !is_decimal(words[0].substr(0, words[0].size() - 1))) {
    return std::nullopt;
  }
  if (words[1].size() < 2 || words[1].back() != ':') return std::nullopt;
  SummaryRecord r{words[1].substr(0, words[1].size() - 1), {}};
  if (!is_object_name(r.dev)) return std::nullopt;
  bool known = false;
  for (std::size_t i = 2; i + 1 < words.size(); i += 2) {
    if (!is_object_name(words[i]) || !to_u64(words[i + 1])) return std::nullopt;
    known = known || is_summary_name(words[i]);
    r.counts.emplace_back(words[i], words[i + 1]);
  }
  if (!known) return std::nullopt;
  return r;
}

// The JSON objects: "ifname" with summary names and no "port" (the per-port objects of rdma
// statistic and rdma link have one; rdma dev's have "node_type").
std::size_t detect_resource_json(const Section& s) {
  const std::size_t devices = count_json_key(s, "ifname");
  if (devices == 0 || count_json_key(s, "port") > 0 || count_json_key(s, "node_type") > 0) {
    return 0;
  }
  if (count_json_key(s, "qp") == 0 && count_json_key(s, "cq") == 0 &&
      count_json_key(s, "pd") == 0) {
    return 0;
  }
  return 100 * devices;
}

std::size_t detect_rdma_resource(const Section& s) {
  if (looks_like_json(s)) return detect_resource_json(s);
  return score_lines(s, 100, [](std::string_view l) { return summary_record(l).has_value(); });
}

void put_resource_count(Facts& facts, std::string_view dev, std::string_view name,
                        std::uint64_t value) {
  facts.devices[std::string(dev)].resources.insert_or_assign(std::string(name), value);
}

void parse_resource_json(const Section& s, Facts& facts, LineLog& log) {
  const std::optional<nlohmann::json> doc = read_json_or_count(s, log, "rdma resource");
  if (!doc) return;
  bool used = false;
  const auto read_device = [&](const nlohmann::json& object) {
    const std::string dev = json_text(object, "ifname");
    if (!is_object_name(dev)) return;
    for (const auto& [name, value] : object.items()) {
      if (name == "ifindex" || name == "ifname" || !is_object_name(name)) continue;
      if (const auto n = json_u64(value)) {
        put_resource_count(facts, dev, name, *n);
        used = true;
      }
    }
  };
  if (doc->is_array()) {
    for (const nlohmann::json& object : *doc) read_device(object);
  } else {
    read_device(*doc);
  }
  count_json_lines(s, log, used, "rdma resource JSON without a device's counts");
}

void parse_rdma_resource(const Section& s, Facts& facts, LineLog& log) {
  if (looks_like_json(s)) {
    parse_resource_json(s, facts, log);
    return;
  }
  for (const Line& line : s.lines) {
    const auto record = summary_record(line.text);
    if (!record) {
      ignore_line(log, line.text, "not rdma resource output");
      continue;
    }
    for (const auto& [name, value] : record->counts) {
      put_resource_count(facts, record->dev, name, *to_u64(value));
    }
    log.use();
  }
}

}  // namespace

FormatParser rdma_resource_format() {
  return {"rdma resource", detect_rdma_resource, parse_rdma_resource};
}

}  // namespace rdmatop::capture
