// The simulated host's RDMA netlink: the rendered device and resource dumps are complete
// replies the collector's own parser accepts, laid out like the captured kernel replies (nests
// without NLA_F_NESTED), and they name the owners the model holds: ib_core's objects on every
// device plus each process's on its devices, split over several messages when there are many.
#include <libmnl/libmnl.h>
#include <linux/netlink.h>
#include <rdma/rdma_netlink.h>

#include <catch2/catch.hpp>
#include <map>

#include "simulator/nldev_render.h"
#include "simulator/sim_sources.h"

using namespace rdmatop;
using namespace rdmatop::sim;

namespace {

constexpr std::uint32_t kRenderSeq = 9;

HostModel host_with_processes(std::vector<SimProcess> processes) {
  HostModel host = make_host_model(default_host());
  host.processes = std::move(processes);
  return host;
}

SimProcess process(std::uint32_t pid, std::vector<std::string> devices, std::uint32_t qps) {
  SimProcess p;
  p.pid = pid;
  p.comm = "p" + std::to_string(pid);
  p.devices = std::move(devices);
  p.qps = qps;
  p.cqs = 2;
  p.mrs = 3;
  p.pds = 1;
  p.pinned_bytes = 3 * 4096;
  return p;
}

/// Objects per owner ("pid" or "[kernel name]") in a parsed dump.
std::map<std::string, int> owners(const std::vector<NldevResOwner>& list) {
  std::map<std::string, int> out;
  for (const auto& o : list) ++out[o.pid ? std::to_string(*o.pid) : "[" + o.kern_name + "]"];
  return out;
}

/// Number of messages of `type` and whether any top-level attribute carries NLA_F_NESTED.
std::pair<int, bool> messages(const std::vector<std::uint8_t>& bytes, std::uint16_t type) {
  int n = 0;
  bool flagged = false;
  std::size_t offset = 0;
  while (offset + sizeof(nlmsghdr) <= bytes.size()) {
    const auto* nlh = reinterpret_cast<const nlmsghdr*>(bytes.data() + offset);
    if (nlh->nlmsg_type == type) {
      ++n;
      const auto* end = reinterpret_cast<const std::uint8_t*>(nlh) + nlh->nlmsg_len;
      const auto* attr = static_cast<const nlattr*>(mnl_nlmsg_get_payload(nlh));
      while (
          mnl_attr_ok(attr, static_cast<int>(end - reinterpret_cast<const std::uint8_t*>(attr)))) {
        flagged = flagged || (attr->nla_type & NLA_F_NESTED) != 0;
        attr = mnl_attr_next(attr);
      }
    }
    offset += NLMSG_ALIGN(nlh->nlmsg_len);
  }
  return {n, flagged};
}

}  // namespace

TEST_CASE("Simulated nldev device dump: every device, in host order", "[simulator][nldev]") {
  const HostModel host = host_with_processes({});
  const auto devices =
      parse_dev_get_reply(render_nldev_devices_reply(host, kRenderSeq), kRenderSeq);
  REQUIRE(devices.ok());
  REQUIRE(devices->size() == host.ports.size());
  for (std::uint32_t i = 0; i < devices->size(); ++i) {
    CHECK((*devices)[i].index == i);
    CHECK((*devices)[i].name == host.ports[i].spec.device);
    CHECK((*devices)[i].fw_version == running_fw(host.ports[i]));
    CHECK((*devices)[i].protocol == "roce");
  }
  // A reply for another request is refused by the parser, not mistaken for this one.
  CHECK_FALSE(
      parse_dev_get_reply(render_nldev_devices_reply(host, kRenderSeq), kRenderSeq + 1).ok());
}

TEST_CASE("Simulated resource dumps name ib_core and the processes on their devices",
          "[simulator][nldev]") {
  const HostModel host =
      host_with_processes({process(100, {"mlx5_0", "mlx5_1"}, 3), process(200, {"mlx5_0"}, 1)});
  struct Row {
    NldevResKind kind;
    std::uint32_t dev;
    std::map<std::string, int> expected;
  };
  const Row rows[] = {
      {NldevResKind::qp, 0, {{"[ib_core]", 1}, {"100", 3}, {"200", 1}}},
      {NldevResKind::qp, 1, {{"[ib_core]", 1}, {"100", 3}}},
      {NldevResKind::qp, 2, {{"[ib_core]", 1}}},
      {NldevResKind::cq, 0, {{"[ib_core]", 1}, {"100", 2}, {"200", 2}}},
      {NldevResKind::mr, 0, {{"100", 3}, {"200", 3}}},  // ib_core registers no MR
      {NldevResKind::mr, 2, {}},
      {NldevResKind::pd, 1, {{"[ib_core]", 1}, {"100", 1}}},
  };
  for (const Row& row : rows) {
    INFO(to_string(row.kind) << " of device " << row.dev);
    const auto bytes = render_nldev_res_reply(host, row.kind, row.dev, kRenderSeq);
    const auto parsed = parse_res_dump_reply(row.kind, bytes, kRenderSeq);
    REQUIRE(parsed.ok());
    CHECK(owners(*parsed) == row.expected);
    for (const auto& o : *parsed) CHECK(o.dev_name == host.ports[row.dev].spec.device);
  }
}

TEST_CASE("A large dump spans several messages, nests unflagged as nldev sends them",
          "[simulator][nldev]") {
  const HostModel host = host_with_processes({process(300, {"bnxt_re0"}, 70)});
  const auto bytes = render_nldev_res_reply(host, NldevResKind::qp, 2, kRenderSeq);
  const auto [count, flagged] = messages(bytes, static_cast<std::uint16_t>(RDMA_NL_GET_TYPE(
                                                    RDMA_NL_NLDEV, RDMA_NLDEV_CMD_RES_QP_GET)));
  CHECK(count == 3);  // 71 objects, 32 per message
  CHECK_FALSE(flagged);
  const auto parsed = parse_res_dump_reply(NldevResKind::qp, bytes, kRenderSeq);
  REQUIRE(parsed.ok());
  CHECK(owners(*parsed) == std::map<std::string, int>{{"[ib_core]", 1}, {"300", 70}});
}

TEST_CASE("The simulated RDMA netlink source answers through the live client's code",
          "[simulator][nldev]") {
  const HostModel host = host_with_processes({process(400, {"mlx5_1"}, 2)});
  auto source = make_simulated_rdma_netlink_source(host);
  const auto devices = source->devices();
  REQUIRE(devices.ok());
  REQUIRE(devices->size() == 3);
  const auto qps = source->resource_owners(NldevResKind::qp, 1);
  REQUIRE(qps.ok());
  CHECK(owners(*qps) == std::map<std::string, int>{{"[ib_core]", 1}, {"400", 2}});
  // What the simulated kernel does not serve fails clearly rather than answering wrong.
  CHECK_FALSE(source->resource_owners(NldevResKind::qp, 7).ok());
  CHECK_FALSE(source->port_counters(0, 1).ok());
}

TEST_CASE("Simulated QP counters: auto mode by PID where a process has a share, its QPs bound",
          "[simulator][nldev][qp_counters]") {
  SimProcess heavy = process(500, {"mlx5_1"}, 3);
  heavy.counter_share = 0.75;
  HostModel host =
      host_with_processes({heavy, process(501, {"mlx5_1"}, 1), process(502, {"mlx5_0"}, 2)});
  host.ports[1].counters["ack_timeouts"] = 1000;
  host.ports[1].counters["out_of_sequence"] = 400;

  const auto mode = parse_qp_counter_mode_reply(
      render_nldev_qp_counter_mode_reply(host, 1, kRenderSeq), kRenderSeq);
  REQUIRE(mode.ok());
  CHECK(mode->dev_name == "mlx5_1");
  CHECK(mode->mode == QpCounterMode{1, 2});
  const auto none = parse_qp_counter_mode_reply(
      render_nldev_qp_counter_mode_reply(host, 0, kRenderSeq), kRenderSeq);
  REQUIRE(none.ok());
  CHECK(none->mode == QpCounterMode{0, 0});

  const auto bytes = render_nldev_bound_counters_reply(host, 1, kRenderSeq);
  // The table and its entries without NLA_F_NESTED (res_get_common_dumpit).
  const auto [count, flagged] = messages(
      bytes, static_cast<std::uint16_t>(RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_STAT_GET)));
  CHECK(count == 1);
  CHECK_FALSE(flagged);
  const auto bound = parse_bound_counters_reply(bytes, kRenderSeq);
  REQUIRE(bound.ok());
  REQUIRE(bound->size() == 2);
  const BoundCounter& a = (*bound)[0].counter;
  const BoundCounter& b = (*bound)[1].counter;
  CHECK(a.pid == 500u);
  CHECK(b.pid == 501u);
  // The QP numbers are the QP dump's: the processes' QPs after ib_core's QP 1.
  CHECK(a.qpns == std::vector<std::uint32_t>{0x100, 0x101, 0x102});
  CHECK(b.qpns == std::vector<std::uint32_t>{0x103});
  CHECK(a.hw_counters.at("local_ack_timeout_err") == 750);
  CHECK(b.hw_counters.at("local_ack_timeout_err") == 250);  // the rest, for the one without
  CHECK(a.hw_counters.at("out_of_sequence") == 300);
  // A port without auto mode has nothing bound: NLMSG_DONE alone.
  const auto empty = parse_bound_counters_reply(
      render_nldev_bound_counters_reply(host, 0, kRenderSeq), kRenderSeq);
  REQUIRE(empty.ok());
  CHECK(empty->empty());
}
