// RDMA netlink (NETLINK_RDMA, the "nldev" client): building the requests rdmatop sends and
// parsing the kernel's replies. Not generic netlink: each message is an nlmsghdr with type
// RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, cmd) followed directly by attributes
// (docs/domain.md#rdma-netlink; kernel drivers/infiniband/core/nldev.c; iproute2 rdma/dev.c,
// link.c, stat.c, res.c).
// Pure functions over bytes; the socket lives in collector/source/rdma_netlink_source.cpp.
//
// A reply is every byte received for one request, datagrams concatenated: a dump ends with
// NLMSG_DONE, a request sent with NLM_F_ACK ends with the ACK. Parsers ignore unknown attributes,
// skip PAD, validate the types of known ones, and turn anything truncated into EPROTO.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "collector/model/result.h"
#include "collector/model/snapshot.h"

namespace rdmatop {

/// One RDMA device (RDMA_NLDEV_CMD_GET).
struct NldevDevice {
  std::uint32_t index = 0;
  std::string name;
  std::uint32_t port_count = 0;  ///< RDMA_NLDEV_ATTR_PORT_INDEX in a device reply = last port
  std::string fw_version;        ///< empty when the driver has none (rxe)
  std::optional<std::uint64_t> node_guid, sys_image_guid;
  std::optional<std::uint8_t> node_type;  ///< RDMA_NODE_* (1 = CA)
  std::string protocol;                   ///< "roce", "ib", "iw"; empty on older kernels
  std::string link_type;                  ///< "rxe", "siw" for software devices, else empty

  bool operator==(const NldevDevice&) const = default;
};

/// One RDMA port (RDMA_NLDEV_CMD_PORT_GET).
struct NldevPort {
  std::uint32_t dev_index = 0;
  std::string dev_name;
  std::uint32_t port = 0;
  std::optional<std::uint8_t> state;       ///< IB port state: 4 = ACTIVE
  std::optional<std::uint8_t> phys_state;  ///< 5 = LinkUp
  /// The netdev; both absent when it lives in another network namespace.
  std::optional<std::uint32_t> netdev_index;
  std::string netdev_name;

  bool operator==(const NldevPort&) const = default;
};

/// One hardware counter in RDMA_NLDEV_CMD_STAT_GET_STATUS.
struct NldevCounterStatus {
  std::string name;
  std::uint32_t index = 0;
  /// Present only for optional counters (IB_STAT_FLAG_OPTIONAL): whether it is enabled.
  std::optional<bool> enabled;

  bool operator==(const NldevCounterStatus&) const = default;
};

/// The resource summary of one device (RDMA_NLDEV_CMD_RES_GET): "qp", "cq", "mr", "pd",
/// "cm_id", "ctx", "srq" -> objects currently allocated.
struct NldevResources {
  std::uint32_t dev_index = 0;
  std::string dev_name;
  CounterMap counts;

  bool operator==(const NldevResources&) const = default;
};

/// The per-object resource dumps rdmatop reads (`rdma resource show qp|cq|mr|pd`).
enum class NldevResKind : std::uint8_t { qp, cq, mr, pd };

/// "qp", "cq", "mr", "pd": the names `rdma resource` and the RES_SUMMARY entries use.
const char* to_string(NldevResKind kind);

/// Who holds one object of a resource dump (RDMA_NLDEV_CMD_RES_{QP,CQ,MR,PD}_GET). The kernel
/// names a user-space owner by PID (in the PID namespace of the socket's opener: task_pid_vnr)
/// and a kernel owner by name (RES_KERN_NAME, e.g. "ib_core", "rdma_cm"); exactly one is set.
struct NldevResOwner {
  std::uint32_t dev_index = 0;
  std::string dev_name;
  std::optional<std::uint32_t> pid;  ///< RDMA_NLDEV_ATTR_RES_PID
  std::string kern_name;             ///< RDMA_NLDEV_ATTR_RES_KERN_NAME

  bool operator==(const NldevResOwner&) const = default;
};

/// One port's QP counter mode (RDMA_NLDEV_CMD_STAT_GET with STAT_RES = RES_QP and STAT_MODE).
struct NldevQpCounterMode {
  std::uint32_t dev_index = 0;
  std::string dev_name;
  std::uint32_t port = 0;
  QpCounterMode mode;

  bool operator==(const NldevQpCounterMode&) const = default;
};

/// One counter bound to QPs (a STAT_COUNTER_ENTRY of the STAT_GET dump with STAT_RES = RES_QP).
struct NldevBoundCounter {
  std::uint32_t dev_index = 0;
  std::string dev_name;
  std::uint32_t port = 0;
  BoundCounter counter;  ///< `comm` stays empty: the kernel names a PID, never a process

  bool operator==(const NldevBoundCounter&) const = default;
};

/// The kernel's answer to a QP counter bind (RDMA_NLDEV_CMD_STAT_SET, nldev.c
/// nldev_stat_set_mode_doit): the counter the QP is now bound to.
struct NldevQpCounterBinding {
  std::uint32_t dev_index = 0;
  std::string dev_name;
  std::uint32_t port = 0;
  std::uint32_t counter_id = 0;  ///< STAT_COUNTER_ID: the counter the kernel allocated
  std::uint32_t qpn = 0;         ///< RES_LQPN

  bool operator==(const NldevQpCounterBinding&) const = default;
};

// --- requests ------------------------------------------------------------------------------

std::vector<std::uint8_t> build_dev_get_request(std::uint32_t seq);
/// The kernel's port dump needs the device (nldev_port_get_dumpit rejects a request without).
std::vector<std::uint8_t> build_port_get_request(std::uint32_t dev_index, std::uint32_t seq);
/// What `rdma statistic show link DEV/PORT` sends: STAT_GET doit for the port's default counter.
std::vector<std::uint8_t> build_stat_get_request(std::uint32_t dev_index, std::uint32_t port,
                                                 std::uint32_t seq);
std::vector<std::uint8_t> build_stat_get_status_request(std::uint32_t dev_index, std::uint32_t port,
                                                        std::uint32_t seq);
std::vector<std::uint8_t> build_res_get_request(std::uint32_t seq);
/// The per-object dump of one device: the kernel requires DEV_INDEX (nldev.c
/// res_get_common_dumpit answers EINVAL without it).
std::vector<std::uint8_t> build_res_dump_request(NldevResKind kind, std::uint32_t dev_index,
                                                 std::uint32_t seq);

/// What `rdma statistic qp mode link DEV/PORT` sends: STAT_GET doit with STAT_RES = RES_QP and a
/// STAT_MODE, whose presence asks for the mode instead of a counter (nldev.c stat_get_doit_qp
/// answers EINVAL without it; iproute2 rdma/stat.c stat_one_qp_link_get_mode).
std::vector<std::uint8_t> build_qp_counter_mode_request(std::uint32_t dev_index, std::uint32_t port,
                                                        std::uint32_t seq);
/// What `rdma statistic qp show link DEV/PORT` sends: the STAT_GET dump with STAT_RES = RES_QP
/// (nldev.c nldev_stat_get_dumpit -> the RDMA_RESTRACK_COUNTER dump of the port).
std::vector<std::uint8_t> build_bound_counters_request(std::uint32_t dev_index, std::uint32_t port,
                                                       std::uint32_t seq);

/// What `rdma statistic qp bind link DEV/PORT lqpn N` sends (iproute2 rdma/stat.c
/// stat_one_qp_bind): STAT_SET with STAT_MODE = MANUAL, STAT_RES = RES_QP and RES_LQPN, and no
/// STAT_COUNTER_ID, so the kernel allocates a counter for the QP alone
/// (core/counters.c rdma_counter_bind_qpn_alloc) and answers with its id. Needs CAP_NET_ADMIN
/// (RDMA_NL_ADMIN_PERM).
std::vector<std::uint8_t> build_qp_counter_bind_request(std::uint32_t dev_index, std::uint32_t port,
                                                        std::uint32_t qpn, std::uint32_t seq);

// --- replies ---------------------------------------------------------------------------------

/// Whether `reply` holds the whole answer to `seq` (NLMSG_DONE, an ACK or a kernel error), so
/// a receiver knows when to stop reading datagrams. Malformed bytes also end the reply.
bool nldev_reply_complete(std::span<const std::uint8_t> reply, std::uint32_t seq);

/// Errors of every parser: the kernel's errno (EOPNOTSUPP, EPERM, ENODEV, EINVAL, ...) with its
/// extended-ack text; EPROTO for malformed, truncated or incomplete replies.
Result<std::vector<NldevDevice>> parse_dev_get_reply(std::span<const std::uint8_t> reply,
                                                     std::uint32_t seq);
Result<std::vector<NldevPort>> parse_port_get_reply(std::span<const std::uint8_t> reply,
                                                    std::uint32_t seq);
/// The STAT_HWCOUNTERS nest by raw counter name (the names sysfs hw_counters/ uses). Counters
/// disabled as optional are not in the reply, hence absent.
Result<CounterMap> parse_stat_get_reply(std::span<const std::uint8_t> reply, std::uint32_t seq);
Result<std::vector<NldevCounterStatus>> parse_stat_get_status_reply(
    std::span<const std::uint8_t> reply, std::uint32_t seq);
Result<std::vector<NldevResources>> parse_res_get_reply(std::span<const std::uint8_t> reply,
                                                        std::uint32_t seq);

/// One owner per object, in dump order. The dump may span several messages per device (the
/// kernel starts a new one when a datagram is full), each with its own table nest; a device
/// without objects answers NLMSG_DONE alone.
Result<std::vector<NldevResOwner>> parse_res_dump_reply(NldevResKind kind,
                                                        std::span<const std::uint8_t> reply,
                                                        std::uint32_t seq);

/// STAT_MODE, and AUTO_MODE_MASK which the kernel adds in auto mode (required then, as in
/// iproute2 qp_link_get_mode_parse_cb).
Result<NldevQpCounterMode> parse_qp_counter_mode_reply(std::span<const std::uint8_t> reply,
                                                       std::uint32_t seq);
/// Every bound counter in dump order; a port without any answers NLMSG_DONE alone. Each entry
/// needs its id, port, mode, QP table and hw-counter table; the owner (RES_PID or
/// RES_KERN_NAME) and RES_TYPE come only in auto mode by PID or QP type (fill_stat_counter_mode).
Result<std::vector<NldevBoundCounter>> parse_bound_counters_reply(
    std::span<const std::uint8_t> reply, std::uint32_t seq);

/// The one STAT_SET message (DEV_INDEX, PORT_INDEX, STAT_COUNTER_ID and RES_LQPN required),
/// then the ACK. A refusal is the kernel's errno: EPERM without CAP_NET_ADMIN, ENOMEM when the
/// driver cannot allocate a per-QP counter (rxe), EINVAL in auto mode, ENOENT for an unknown QP.
Result<NldevQpCounterBinding> parse_qp_counter_bind_reply(std::span<const std::uint8_t> reply,
                                                          std::uint32_t seq);

/// A GUID as sysfs and `rdma dev` print it: "0011:2233:4455:6677".
std::string format_guid(std::uint64_t guid);

}  // namespace rdmatop
