// `rdma dev [show]` (iproute2 rdma/dev.c dev_one_show): "IDX: DEV: node_type ca fw FW
// node_guid G sys_image_guid S [protocol P] [caps <...>]". node_type "ca" is the kernel's
// RDMA_NODE_IB_CA, which sysfs prints "1: CA" (drivers/infiniband/core/sysfs.c node_type_show).
#include <map>
#include <string>

#include "collector/capture/capture_formats.h"
#include "collector/capture/capture_text.h"

namespace rdmatop::capture {
namespace {

std::optional<std::pair<std::string_view, std::string_view>> rdma_dev_record(
    std::string_view line) {
  const std::string_view t = trim(line);
  const std::size_t first = t.find(": ");
  if (first == std::string_view::npos || !is_decimal(t.substr(0, first))) return std::nullopt;
  const std::string_view rest = t.substr(first + 2);
  const std::size_t second = rest.find(": ");
  if (second == std::string_view::npos) return std::nullopt;
  const std::string_view dev = rest.substr(0, second);
  if (!is_object_name(dev) || rest.substr(second + 2).find("node_type") == std::string_view::npos) {
    return std::nullopt;
  }
  return std::make_pair(dev, rest.substr(second + 2));
}

std::size_t detect_rdma_dev(const Section& s) {
  return score_lines(s, 100, [](std::string_view l) { return rdma_dev_record(l).has_value(); });
}

void parse_rdma_dev(const Section& s, Facts& facts, LineLog& log) {
  for (const Line& line : s.lines) {
    const auto record = rdma_dev_record(line.text);
    if (!record) {
      ignore_line(log, line.text, "not rdma dev output");
      continue;
    }
    log.use();
    const auto words = split_words(record->second);
    std::map<std::string_view, std::string_view> kv;
    for (std::size_t i = 0; i + 1 < words.size(); ++i) kv.emplace(words[i], words[i + 1]);
    DeviceFacts& dev = facts.devices[std::string(record->first)];
    if (const auto it = kv.find("node_type"); it != kv.end() && it->second == "ca") {
      put(dev.files, "node_type", "1: CA");
    }
    if (const auto it = kv.find("fw"); it != kv.end())
      put(dev.files, "fw_ver", std::string(it->second));
    for (const std::string_view key : {"node_guid", "sys_image_guid"}) {
      if (const auto it = kv.find(key); it != kv.end())
        put(dev.files, key, std::string(it->second));
    }
  }
}

}  // namespace

FormatParser rdma_dev_format() {
  return {"rdma dev", detect_rdma_dev, parse_rdma_dev};
}

}  // namespace rdmatop::capture
