#include "collector/parse/netlink_parse.h"

#include <linux/genetlink.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <climits>
#include <cstring>
#include <optional>
#include <string>

namespace rdmatop {
namespace {

int attr_cb(const nlattr* attr, void* data) {
  auto* table = static_cast<AttrTable*>(data);
  const std::uint16_t type = mnl_attr_get_type(attr);
  // Newer kernels add attributes; ignoring what we don't know keeps the parsers working on
  // kernels they were not tested on [src: iproute2 rdma/utils.c rd_attr_cb].
  if (type >= table->policy.size() || table->policy[type].name == nullptr) return MNL_CB_OK;
  if (mnl_attr_validate(attr, table->policy[type].type) < 0) {
    table->error = std::string(table->policy[type].name) + ": invalid attribute (" +
                   std::strerror(errno) + ", payload " +
                   std::to_string(mnl_attr_get_payload_len(attr)) + " bytes)";
    return MNL_CB_ERROR;
  }
  table->tb[type] = attr;
  return MNL_CB_OK;
}

constexpr std::array<AttrSpec, NLMSGERR_ATTR_MSG + 1> kExtackPolicy = [] {
  std::array<AttrSpec, NLMSGERR_ATTR_MSG + 1> p{};
  p[NLMSGERR_ATTR_MSG] = {"NLMSGERR_ATTR_MSG", MNL_TYPE_NUL_STRING};
  return p;
}();

/// The errno a kernel error code stands for, or EPROTO for a code no kernel sends.
Error errno_from_kernel(int error) {
  if (error > 0 || error == INT_MIN) {
    return Error{EPROTO, "NLMSG_ERROR with invalid error code " + std::to_string(error)};
  }
  return Error{-error, std::strerror(-error)};
}

}  // namespace

AlignedBuffer aligned_copy(std::span<const std::uint8_t> bytes) {
  AlignedBuffer buf((bytes.size() + sizeof(std::uint64_t) - 1) / sizeof(std::uint64_t) + 1, 0);
  if (!bytes.empty()) std::memcpy(buf.data(), bytes.data(), bytes.size());
  return buf;
}

AlignedBuffer request_buffer(std::size_t payload_len) {
  // Headers, a few small attributes, and the payload with its NUL and padding.
  return AlignedBuffer((256 + payload_len) / sizeof(std::uint64_t) + 1, 0);
}

std::vector<std::uint8_t> message_bytes(const nlmsghdr* nlh) {
  const auto* p = reinterpret_cast<const std::uint8_t*>(nlh);
  return {p, p + nlh->nlmsg_len};
}

const nlmsghdr* as_nlmsg(const AlignedBuffer& buf) {
  return reinterpret_cast<const nlmsghdr*>(buf.data());
}

nlmsghdr* start_genl_request(AlignedBuffer& buf, std::uint16_t family_id, std::uint8_t cmd,
                             std::uint8_t version, std::uint16_t flags, std::uint32_t seq) {
  nlmsghdr* nlh = mnl_nlmsg_put_header(buf.data());
  nlh->nlmsg_type = family_id;
  nlh->nlmsg_flags = flags;
  nlh->nlmsg_seq = seq;
  auto* genl = static_cast<genlmsghdr*>(mnl_nlmsg_put_extra_header(nlh, sizeof(genlmsghdr)));
  genl->cmd = cmd;
  genl->version = version;
  return nlh;
}

Result<AttrTable> parse_attrs(const nlmsghdr* nlh, unsigned offset,
                              std::span<const AttrSpec> policy) {
  AttrTable table(policy);
  if (mnl_attr_parse(nlh, offset, attr_cb, &table) < 0) {
    if (table.error.empty()) table.error = "malformed attribute";
    return Error{EPROTO, table.error};
  }
  return table;
}

Result<AttrTable> parse_nested(const nlattr* nest, std::span<const AttrSpec> policy) {
  AttrTable table(policy);
  if (mnl_attr_parse_nested(nest, attr_cb, &table) < 0) {
    if (table.error.empty()) table.error = "malformed nested attribute";
    return Error{EPROTO, table.error};
  }
  return table;
}

Result<bool> for_each_nested(const nlattr* nest, std::uint16_t type,
                             const std::function<std::optional<Error>(const nlattr*)>& fn) {
  struct State {
    std::uint16_t type;
    const std::function<std::optional<Error>(const nlattr*)>* fn;
    std::optional<Error> error;
  } state{type, &fn, std::nullopt};
  const auto cb = [](const nlattr* attr, void* data) -> int {
    auto* s = static_cast<State*>(data);
    if (mnl_attr_get_type(attr) != s->type) return MNL_CB_OK;
    s->error = (*s->fn)(attr);
    return s->error ? MNL_CB_ERROR : MNL_CB_OK;
  };
  if (mnl_attr_parse_nested(nest, cb, &state) < 0) {
    return state.error ? *state.error : Error{EPROTO, "malformed nested attribute"};
  }
  return true;
}

Error kernel_error(const nlmsghdr* nlh) {
  if (nlh->nlmsg_len < NLMSG_HDRLEN + sizeof(nlmsgerr)) {
    return Error{EPROTO, "truncated NLMSG_ERROR message"};
  }
  const auto* err = static_cast<const nlmsgerr*>(mnl_nlmsg_get_payload(nlh));
  if (err->error == 0) return Error{0, "ack"};
  Error e = errno_from_kernel(err->error);
  if (e.code == EPROTO) return e;
  // Extended ack TLVs follow the nlmsgerr (and, unless the kernel capped it, the echoed request
  // payload) [src: include/uapi/linux/netlink.h, struct nlmsgerr].
  if ((nlh->nlmsg_flags & NLM_F_ACK_TLVS) != 0) {
    std::size_t offset = sizeof(nlmsgerr);
    const bool echoed_payload = (nlh->nlmsg_flags & NLM_F_CAPPED) == 0;
    if (echoed_payload && err->msg.nlmsg_len >= NLMSG_HDRLEN) {
      offset += err->msg.nlmsg_len - NLMSG_HDRLEN;
    }
    if (offset + NLMSG_HDRLEN <= nlh->nlmsg_len) {
      auto tlvs = parse_attrs(nlh, static_cast<unsigned>(offset), kExtackPolicy);
      if (tlvs.ok() && tlvs->tb[NLMSGERR_ATTR_MSG] != nullptr) {
        e.message += std::string(" (") + mnl_attr_get_str(tlvs->tb[NLMSGERR_ATTR_MSG]) + ")";
      }
    }
  }
  return e;
}

Result<WalkEnd> walk_each_message(
    std::span<const std::uint8_t> bytes,
    const std::function<Result<WalkStep>(const nlmsghdr*)>& on_message) {
  const AlignedBuffer buf = aligned_copy(bytes);
  const auto* base = reinterpret_cast<const std::uint8_t*>(buf.data());
  // Walked by hand: libmnl's mnl_nlmsg_ok compares `(int)nlmsg_len`, so a length >= 2^31 in
  // damaged input would pass its check and send mnl_nlmsg_next far outside the buffer.
  std::size_t offset = 0;
  std::size_t remaining = bytes.size();
  while (remaining > 0) {
    const auto* nlh = reinterpret_cast<const nlmsghdr*>(base + offset);
    if (remaining < NLMSG_HDRLEN || nlh->nlmsg_len < NLMSG_HDRLEN || nlh->nlmsg_len > remaining) {
      return Error{EPROTO, "truncated netlink message (" + std::to_string(remaining) +
                               " bytes do not form a message)"};
    }
    const std::size_t step = std::min<std::size_t>(NLMSG_ALIGN(nlh->nlmsg_len), remaining);
    offset += step;
    remaining -= step;
    if (nlh->nlmsg_type == NLMSG_NOOP) continue;
    auto step_result = on_message(nlh);
    if (!step_result) return step_result.error();
    if (*step_result == WalkStep::stop) return WalkEnd::stopped;
  }
  return WalkEnd::exhausted;
}

Result<WalkEnd> walk_messages(std::span<const std::uint8_t> bytes, std::uint32_t seq,
                              const std::function<Result<WalkStep>(const nlmsghdr*)>& on_message) {
  std::optional<WalkEnd> end;
  auto walked = walk_each_message(bytes, [&](const nlmsghdr* nlh) -> Result<WalkStep> {
    if (nlh->nlmsg_seq != seq) return WalkStep::next;
    if (nlh->nlmsg_type == NLMSG_ERROR) {
      Error e = kernel_error(nlh);
      if (e.code != 0) return e;
      end = WalkEnd::ack;
      return WalkStep::stop;
    }
    if (nlh->nlmsg_type == NLMSG_DONE) {
      // A dump that failed part-way ends with NLMSG_DONE carrying the negative errno
      // [src: net/netlink/af_netlink.c netlink_dump_done].
      if (nlh->nlmsg_len >= NLMSG_HDRLEN + sizeof(int)) {
        int error = 0;
        std::memcpy(&error, mnl_nlmsg_get_payload(nlh), sizeof(error));
        if (error != 0) return errno_from_kernel(error);
      }
      end = WalkEnd::done;
      return WalkStep::stop;
    }
    auto step_result = on_message(nlh);
    if (step_result && *step_result == WalkStep::stop) end = WalkEnd::stopped;
    return step_result;
  });
  if (!walked) return walked.error();
  return end.value_or(WalkEnd::exhausted);
}

std::string attr_string(const nlattr* a) {
  return a == nullptr ? std::string() : mnl_attr_get_str(a);
}

}  // namespace rdmatop
