#include "collector/parse/link_stats_parse.h"

#include <libmnl/libmnl.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>

#include "collector/parse/netlink_parse.h"

namespace rdmatop {
namespace {

constexpr std::array<AttrSpec, IFLA_STATS_LINK_64 + 1> kStatsPolicy = [] {
  std::array<AttrSpec, IFLA_STATS_LINK_64 + 1> p{};
  p[IFLA_STATS_LINK_64] = {"IFLA_STATS_LINK_64", MNL_TYPE_BINARY};
  return p;
}();

Result<LinkStats> read_row(const nlmsghdr* nlh, std::uint32_t ifindex) {
  if (nlh->nlmsg_type != RTM_NEWSTATS) {
    return Error{EPROTO, "unexpected netlink message type " + std::to_string(nlh->nlmsg_type)};
  }
  if (nlh->nlmsg_len < NLMSG_HDRLEN + sizeof(if_stats_msg)) {
    return Error{EPROTO, "truncated if_stats_msg header"};
  }
  if_stats_msg ifsm{};
  std::memcpy(&ifsm, mnl_nlmsg_get_payload(nlh), sizeof ifsm);
  if (ifsm.ifindex != ifindex) {
    return Error{EPROTO, "answer for ifindex " + std::to_string(ifsm.ifindex) + ", asked " +
                             std::to_string(ifindex)};
  }
  auto attrs = parse_attrs(nlh, sizeof(if_stats_msg), kStatsPolicy);
  if (!attrs) return attrs.error();
  const nlattr* stats = attrs->tb[IFLA_STATS_LINK_64];
  if (stats == nullptr) return Error{EPROTO, "no IFLA_STATS_LINK_64"};
  const std::size_t bytes = mnl_attr_get_payload_len(stats);
  if (bytes % sizeof(std::uint64_t) != 0) {
    return Error{EPROTO,
                 "IFLA_STATS_LINK_64: " + std::to_string(bytes) + " bytes, not whole u64 fields"};
  }
  LinkStats row;
  row.ifindex = ifindex;
  row.count =
      static_cast<std::uint32_t>(std::min(bytes / sizeof(std::uint64_t), kLinkStatsFields.size()));
  std::memcpy(row.values.data(), mnl_attr_get_payload(stats), row.count * sizeof(std::uint64_t));
  return row;
}

}  // namespace

std::vector<std::uint8_t> build_link_stats_requests(std::span<const std::uint32_t> ifindexes,
                                                    std::uint32_t first_seq) {
  std::vector<std::uint8_t> bytes;
  AlignedBuffer buf = request_buffer(0);
  for (std::size_t i = 0; i < ifindexes.size(); ++i) {
    std::fill(buf.begin(), buf.end(), 0);
    nlmsghdr* nlh = mnl_nlmsg_put_header(buf.data());
    nlh->nlmsg_type = RTM_GETSTATS;
    // No ACK asked: each answer is one message, RTM_NEWSTATS or NLMSG_ERROR.
    nlh->nlmsg_flags = NLM_F_REQUEST;
    nlh->nlmsg_seq = first_seq + static_cast<std::uint32_t>(i);
    auto* ifsm = static_cast<if_stats_msg*>(mnl_nlmsg_put_extra_header(nlh, sizeof(if_stats_msg)));
    ifsm->family = AF_UNSPEC;
    ifsm->ifindex = ifindexes[i];
    ifsm->filter_mask = IFLA_STATS_FILTER_BIT(IFLA_STATS_LINK_64);
    const auto message = message_bytes(nlh);
    bytes.insert(bytes.end(), message.begin(), message.end());
  }
  return bytes;
}

bool link_stats_replies_complete(std::span<const std::uint8_t> bytes, std::uint32_t first_seq,
                                 std::size_t count) {
  if (count == 0) return true;
  const auto last = static_cast<std::uint32_t>(first_seq + count - 1);
  auto end = walk_each_message(bytes, [&](const nlmsghdr* nlh) -> Result<WalkStep> {
    return nlh->nlmsg_seq == last ? WalkStep::stop : WalkStep::next;
  });
  return !end || *end != WalkEnd::exhausted;
}

std::vector<Result<LinkStats>> parse_link_stats_replies(std::span<const std::uint8_t> reply,
                                                        std::span<const std::uint32_t> ifindexes,
                                                        std::uint32_t first_seq) {
  std::vector<Result<LinkStats>> rows(ifindexes.size(), Error{EPROTO, "no answer to the request"});
  std::vector<bool> answered(ifindexes.size(), false);
  auto walked = walk_each_message(reply, [&](const nlmsghdr* nlh) -> Result<WalkStep> {
    // Sequence numbers wrap: the distance from the first is the request's position.
    const std::uint32_t at = nlh->nlmsg_seq - first_seq;
    if (at >= ifindexes.size() || answered[at]) return WalkStep::next;  // not ours, or late
    answered[at] = true;
    if (nlh->nlmsg_type == NLMSG_ERROR) {
      Error e = kernel_error(nlh);
      rows[at] = e.code != 0 ? e : Error{EPROTO, "an acknowledgement without statistics"};
    } else {
      rows[at] = read_row(nlh, ifindexes[at]);
    }
    return WalkStep::next;
  });
  if (!walked) {
    for (std::size_t i = 0; i < rows.size(); ++i) {
      if (!answered[i]) rows[i] = walked.error();
    }
  }
  return rows;
}

}  // namespace rdmatop
