// Netlink replies as the kernel would send them: RDMA netlink (nldev), devlink, DCB (dcbnl),
// rtnetlink link statistics and notifications, and ethtool netlink, each parser on the same
// bytes. Sequence number 1 and generic-netlink family 0x14, as in tests/fixtures/netlink, so the
// fixtures are valid seeds. One target for the five families because they share the message walker
// (collector/parse/netlink_parse.cpp) where most of the bounds checks live.
#include <iterator>

#include "collector/parse/dcbnl_parse.h"
#include "collector/parse/devlink_parse.h"
#include "collector/parse/ethtool_netlink_parse.h"
#include "collector/parse/link_stats_parse.h"
#include "collector/parse/nldev_parse.h"
#include "collector/parse/route_events_parse.h"
#include "fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace rdmatop;
  const auto reply = fuzz::as_bytes(data, size);
  constexpr std::uint32_t seq = 1;
  constexpr std::uint16_t family = 0x14;
  (void)nldev_reply_complete(reply, seq);
  (void)parse_dev_get_reply(reply, seq);
  (void)parse_port_get_reply(reply, seq);
  (void)parse_stat_get_reply(reply, seq);
  (void)parse_stat_get_status_reply(reply, seq);
  (void)parse_res_get_reply(reply, seq);
  for (const NldevResKind kind :
       {NldevResKind::qp, NldevResKind::cq, NldevResKind::mr, NldevResKind::pd}) {
    (void)parse_res_dump_reply(kind, reply, seq);
  }
  (void)parse_qp_counter_mode_reply(reply, seq);
  (void)parse_bound_counters_reply(reply, seq);
  (void)parse_qp_counter_bind_reply(reply, seq);
  (void)devlink_reply_complete(reply, seq);
  (void)parse_devlink_info_reply(reply, family, seq);
  (void)parse_devlink_health_reply(reply, family, seq);
  (void)dcb_reply_complete(reply, seq);
  (void)parse_dcb_ieee_reply(reply, seq);
  // The captured answer's requests: ifindexes 3, 1, 9, 2 from sequence number 1.
  constexpr std::uint32_t kAsked[] = {3, 1, 9, 2};
  (void)link_stats_replies_complete(reply, seq, std::size(kAsked));
  const auto rows = parse_link_stats_replies(reply, kAsked, seq);
  if (rows.size() != std::size(kAsked)) __builtin_trap();
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (rows[i] && (rows[i]->ifindex != kAsked[i] || rows[i]->count > kLinkStatsFields.size())) {
      __builtin_trap();  // a row for another netdev, or beyond the known fields
    }
  }
  // rtnetlink notifications: twice over the same memory of netdevs, as a feed drains datagrams.
  KnownLinks known;
  (void)gid_events_in(reply, known);
  if (const auto again = gid_events_in(reply, known); again.ok() && known.size() > size) {
    __builtin_trap();  // more netdevs known than messages could name
  }
  (void)parse_genl_family_reply(reply, seq);
  (void)parse_pause_reply(reply, family, seq);
  return 0;
}
