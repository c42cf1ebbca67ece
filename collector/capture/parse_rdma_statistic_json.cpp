// `rdma statistic [show] -j` and `-p` (iproute2 rdma/stat.c stat_show_parse_cb under
// json_writer, lib/json_print.c): an array with one object per port, {"ifname": DEV, "port": N,
// then every hardware counter as "name": value} (res_print_u64). The same facts as the plain
// rendering (rdma_statistic_facts.h). A document cut before its end does not parse: its lines
// are reported, nothing is taken from it.
#include <string>

#include "collector/capture/capture_formats.h"
#include "collector/capture/capture_json.h"
#include "collector/capture/capture_text.h"
#include "collector/capture/rdma_statistic_facts.h"

namespace rdmatop::capture {
namespace {

// The keys of a port object that are not counters: print_link's (ifindex, ifname, port).
bool is_link_key(std::string_view key) {
  return key == "ifindex" || key == "ifname" || key == "port";
}

// Every `rdma` JSON object names its device by "ifname"; the default counters' objects also
// have "port" and none of the names the other `rdma` objects print: rdma link's "state",
// rdma dev's "node_type", a QP counter's "cntn", the QP mode's "mode", the resource dumps'
// "lqpn", "cqn", "mrn", a resource summary's "qp".
std::size_t detect_rdma_statistic_json(const Section& s) {
  const std::size_t ports = count_json_key(s, "ifname");
  if (ports == 0 || count_json_key(s, "port") == 0) return 0;
  for (const std::string_view other :
       {"state", "node_type", "cntn", "mode", "lqpn", "cqn", "mrn", "qp"}) {
    if (count_json_key(s, other) > 0) return 0;
  }
  return 100 * ports;
}

void parse_rdma_statistic_json(const Section& s, Facts& facts, LineLog& log) {
  const std::optional<nlohmann::json> doc = read_json_or_count(s, log, "rdma statistic");
  if (!doc) return;
  bool used = false;
  const auto read_port = [&](const nlohmann::json& object) {
    const std::string dev = json_text(object, "ifname");
    const auto port = json_port(object);
    if (dev.empty() || !port) return;
    for (const auto& [name, value] : object.items()) {
      if (is_link_key(name)) continue;
      const auto counter = json_u64(value);
      if (!counter) continue;
      used = put_rdma_hw_counter(facts, dev, *port, name, std::to_string(*counter)) || used;
    }
  };
  if (doc->is_array()) {
    for (const nlohmann::json& object : *doc) read_port(object);
  } else {
    read_port(*doc);
  }
  count_json_lines(s, log, used, "rdma statistic JSON without a port's counters");
}

}  // namespace

FormatParser rdma_statistic_json_format() {
  return {"rdma statistic -j", detect_rdma_statistic_json, parse_rdma_statistic_json};
}

}  // namespace rdmatop::capture
