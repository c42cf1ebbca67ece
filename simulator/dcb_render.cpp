#include "simulator/dcb_render.h"

#include <libmnl/libmnl.h>
#include <linux/dcbnl.h>
#include <linux/rtnetlink.h>

#include "simulator/netlink_reply.h"

namespace rdmatop::sim {

namespace {

constexpr int kDscpValues = 64;  // MLX5E_MAX_DSCP
constexpr std::uint16_t kRoceEthertype = 0x8915;
constexpr std::uint16_t kRoceV2UdpPort = 4791;

const PortState* port_of(const HostModel& host, const std::string& ifname) {
  for (const PortState& port : host.ports) {
    if (port.spec.netdev == ifname) return &port;
  }
  return nullptr;
}

void put_app(nlmsghdr* nlh, std::uint8_t selector, std::uint16_t protocol, std::uint8_t priority) {
  dcb_app app{};
  app.selector = selector;
  app.protocol = protocol;
  app.priority = priority;
  mnl_attr_put(nlh, DCB_ATTR_IEEE_APP, sizeof(app), &app);
}

void fill_ieee(nlmsghdr* nlh, const PortState& port) {
  const bool mlx5 = port.spec.kind == NicKind::mlx5;
  nlattr* ieee = mnl_attr_nest_start(nlh, DCB_ATTR_IEEE);
  // ETS as mlx5e_ets_init leaves it: priority 0 on TC 1, priority 1 on TC 0, p on TC p.
  ieee_ets ets{};
  ets.ets_cap = IEEE_8021QAZ_MAX_TCS;
  for (int p = 0; p < IEEE_8021QAZ_MAX_TCS; ++p) {
    ets.prio_tc[p] = static_cast<std::uint8_t>(p == 0 ? 1 : (p == 1 ? 0 : p));
    ets.tc_tsa[p] = mlx5 ? IEEE_8021QAZ_TSA_VENDOR : IEEE_8021QAZ_TSA_ETS;
    ets.tc_tx_bw[p] = mlx5 ? 100 : static_cast<std::uint8_t>(p == 0 ? 16 : 12);
  }
  mnl_attr_put(nlh, DCB_ATTR_IEEE_ETS, sizeof(ets), &ets);
  // PFC on the RoCE priority; requests / indications are the pause frames sent / received.
  ieee_pfc pfc{};
  pfc.pfc_cap = IEEE_8021QAZ_MAX_TCS;
  pfc.pfc_en = port.conditions.pfc ? static_cast<std::uint8_t>(1U << kRocePriority) : 0;
  const auto frames = [&](const char* name) {
    const auto it = port.counters.find(name);
    return it == port.counters.end() ? std::uint64_t{0} : static_cast<std::uint64_t>(it->second);
  };
  pfc.requests[kRocePriority] = frames("tx_pause_frames");
  pfc.indications[kRocePriority] = frames("rx_pause_frames");
  mnl_attr_put(nlh, DCB_ATTR_IEEE_PFC, sizeof(pfc), &pfc);
  nlattr* table = mnl_attr_nest_start(nlh, DCB_ATTR_IEEE_APP_TABLE);
  if (mlx5) {
    for (int dscp = 0; dscp < kDscpValues; ++dscp) {
      put_app(nlh, IEEE_8021QAZ_APP_SEL_DSCP, static_cast<std::uint16_t>(dscp),
              static_cast<std::uint8_t>(dscp >> 3));
    }
  } else {
    put_app(nlh, IEEE_8021QAZ_APP_SEL_ETHERTYPE, kRoceEthertype, kRocePriority);
    put_app(nlh, IEEE_8021QAZ_APP_SEL_DGRAM, kRoceV2UdpPort, kRocePriority);
  }
  mnl_attr_nest_end(nlh, table);
  mnl_attr_nest_end(nlh, ieee);
  mnl_attr_put_u8(nlh, DCB_ATTR_DCBX, DCB_CAP_DCBX_HOST | DCB_CAP_DCBX_VER_IEEE);
}

}  // namespace

std::optional<std::vector<std::uint8_t>> render_dcb_ieee_reply(const HostModel& host,
                                                               const std::string& ifname,
                                                               std::uint32_t seq) {
  const PortState* port = port_of(host, ifname);
  if (port == nullptr || port->spec.kind == NicKind::rxe) return std::nullopt;
  NetlinkReply reply(seq);
  reply.message(RTM_GETDCB, [&](nlmsghdr* nlh) {
    nlh->nlmsg_flags = 0;  // a doit's reply (rtnl_unicast), not part of a dump
    auto* dcb = static_cast<dcbmsg*>(mnl_nlmsg_put_extra_header(nlh, sizeof(dcbmsg)));
    dcb->dcb_family = AF_UNSPEC;
    dcb->cmd = DCB_CMD_IEEE_GET;
    mnl_attr_put_strz(nlh, DCB_ATTR_IFNAME, ifname.c_str());
    fill_ieee(nlh, *port);
  });
  return reply.ack();
}

}  // namespace rdmatop::sim
