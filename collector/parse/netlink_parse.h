// Building blocks shared by every netlink parser (ethtool genl, RDMA nldev): aligned copies of
// received bytes, policy-table attribute parsing in the iproute2 style (unknown attributes and
// PAD ignored, the types of known ones validated), kernel errors with their extended ack, and a
// bounds-checked walk over the messages answering one request. Pure functions over bytes.
#pragma once

#include <linux/netlink.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <libmnl/libmnl.h>

#include "collector/model/result.h"

namespace rdmatop {

// libmnl reads the buffer through nlmsghdr/nlattr pointers, so every message is parsed from
// (and built in) 8-byte aligned storage, whatever the alignment of the caller's bytes.
using AlignedBuffer = std::vector<std::uint64_t>;

/// `bytes` in 8-byte aligned storage, with at least one zero word after them.
AlignedBuffer aligned_copy(std::span<const std::uint8_t> bytes);
/// A zeroed buffer for building a request of up to `payload_len` attribute bytes.
AlignedBuffer request_buffer(std::size_t payload_len);
/// The `nlmsg_len` bytes of `nlh`.
std::vector<std::uint8_t> message_bytes(const nlmsghdr* nlh);
const nlmsghdr* as_nlmsg(const AlignedBuffer& buf);
/// Starts a generic-netlink request in `buf`: nlmsghdr (type `family_id`, `flags`, `seq`) and
/// genlmsghdr (`cmd`, `version`); attributes follow.
nlmsghdr* start_genl_request(AlignedBuffer& buf, std::uint16_t family_id, std::uint8_t cmd,
                             std::uint8_t version, std::uint16_t flags, std::uint32_t seq);

// --- attribute policy tables (iproute2 `rd_attr_cb` style) -----------------------------------

struct AttrSpec {
  const char* name = nullptr;  ///< nullptr: not interpreted (PAD, unknown): skipped
  mnl_attr_data_type type = MNL_TYPE_UNSPEC;
};

/// The attributes of one message or nest, indexed by type; nullptr = absent.
struct AttrTable {
  std::span<const AttrSpec> policy;
  std::vector<const nlattr*> tb;
  std::string error;

  explicit AttrTable(std::span<const AttrSpec> p) : policy(p), tb(p.size(), nullptr) {}
};

/// The attributes after `offset` payload bytes of `nlh`. EPROTO names the first bad attribute.
Result<AttrTable> parse_attrs(const nlmsghdr* nlh, unsigned offset,
                              std::span<const AttrSpec> policy);
/// The attributes inside `nest`.
Result<AttrTable> parse_nested(const nlattr* nest, std::span<const AttrSpec> policy);

/// Calls `fn` for every attribute directly inside `nest` whose type is `type` (e.g. the entries
/// of a list nest); other types (PAD, unknown) are skipped. Stops at the first error.
Result<bool> for_each_nested(const nlattr* nest, std::uint16_t type,
                             const std::function<std::optional<Error>(const nlattr*)>& fn);

/// The string attribute `a`; empty when absent.
std::string attr_string(const nlattr* a);

/// A dump with an ACK, as iproute2 asks (rd_prepare_msg, devlink.c mnlu_gen_socket_cmd_prepare):
/// even an empty answer then has a definite end.
constexpr std::uint16_t kNetlinkDumpFlags = NLM_F_REQUEST | NLM_F_ACK | NLM_F_DUMP;

// --- message walking --------------------------------------------------------------------------

/// NLMSG_ERROR with error != 0 → the kernel's errno plus the extended-ack text if any.
/// Returns an Error with code 0 for a plain ACK (error == 0).
Error kernel_error(const nlmsghdr* nlh);

enum class WalkStep : std::uint8_t { next, stop };
enum class WalkEnd : std::uint8_t {
  stopped,    ///< the callback asked to stop
  done,       ///< NLMSG_DONE: the end of a dump
  ack,        ///< NLMSG_ERROR with error 0: the end of an acknowledged request
  exhausted,  ///< the bytes ended with neither: more may follow in the next datagram
};

/// Calls `on_message` for every message of `bytes` in order, whatever its sequence number or type
/// (NLMSG_NOOP skipped), until it says stop (WalkEnd::stopped) or the bytes end
/// (WalkEnd::exhausted). Bytes that do not form whole messages are EPROTO. For answers to
/// several requests at once; walk_messages is this for one request.
Result<WalkEnd> walk_each_message(
    std::span<const std::uint8_t> bytes,
    const std::function<Result<WalkStep>(const nlmsghdr*)>& on_message);

/// Calls `on_message` for every data message answering request `seq`, in order. Messages of
/// other sequence numbers (late answers to earlier requests) and NLMSG_NOOP are skipped. Ends at
/// NLMSG_DONE or an ACK; a kernel error (NLMSG_ERROR, or NLMSG_DONE carrying an errno) is
/// returned as that errno. Bytes that do not form whole messages are EPROTO.
Result<WalkEnd> walk_messages(std::span<const std::uint8_t> bytes, std::uint32_t seq,
                              const std::function<Result<WalkStep>(const nlmsghdr*)>& on_message);

}  // namespace rdmatop
