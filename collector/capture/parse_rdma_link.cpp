// `rdma link [show]` (iproute2 rdma/link.c link_one_show): "link DEV/PORT [subnet_prefix P lid
// L sm_lid S lmc M] state STATE physical_state PHYS [netdev IF [netdev_index N]]". The kernel
// sends the subnet prefix and LIDs only for InfiniBand ports (drivers/infiniband/core/nldev.c
// fill_port_info: `if (rdma_protocol_ib(device, port))`), so their presence says the link layer.
#include <map>
#include <string>

#include "collector/capture/capture_formats.h"
#include "collector/capture/capture_text.h"

namespace rdmatop::capture {
namespace {

bool is_rdma_link_record(std::string_view line) {
  const auto words = split_words(line);
  if (words.size() < 4 || words[0] != "link" || !parse_dev_port(words[1])) return false;
  for (std::size_t i = 2; i < words.size(); ++i) {
    if (words[i] == "state") return true;
  }
  return false;
}

std::size_t detect_rdma_link(const Section& s) {
  return score_lines(s, 100, is_rdma_link_record);
}

void parse_rdma_link(const Section& s, Facts& facts, LineLog& log) {
  for (const Line& line : s.lines) {
    if (!is_rdma_link_record(line.text)) {
      ignore_line(log, line.text, "not rdma link output");
      continue;
    }
    const auto words = split_words(line.text);
    const auto dp = parse_dev_port(words[1]);
    std::map<std::string_view, std::string_view> kv;
    for (std::size_t i = 2; i + 1 < words.size(); ++i) kv.emplace(words[i], words[i + 1]);
    PortFacts& port = facts.devices[dp->first].ports[dp->second];
    bool used = false;
    if (const auto it = kv.find("state"); it != kv.end()) {
      used = put_state(port.files, state_from_name(it->second));
    }
    if (const auto it = kv.find("physical_state"); it != kv.end()) {
      used = put_phys_state(port.files, phys_state_from_name(it->second)) || used;
    }
    if (const auto it = kv.find("netdev"); it != kv.end() && is_object_name(it->second)) {
      port.netdev = std::string(it->second);
      used = true;
    }
    if (kv.contains("subnet_prefix") || kv.contains("lid"))
      put(port.files, "link_layer", "InfiniBand");
    count_line(log, used, "rdma link line without a known state");
  }
}

}  // namespace

FormatParser rdma_link_format() {
  return {"rdma link", detect_rdma_link, parse_rdma_link};
}

}  // namespace rdmatop::capture
