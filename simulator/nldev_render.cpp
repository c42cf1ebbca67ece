#include "simulator/nldev_render.h"

#include <libmnl/libmnl.h>
#include <rdma/rdma_netlink.h>

#include <algorithm>
#include <string>

#include "simulator/netlink_reply.h"
#include "simulator/tree_render.h"

namespace rdmatop::sim {

namespace {

// ib_core's objects on every device (ib_mad: the GSI QP, one CQ and the PD of its agent).
constexpr const char* kKernelUser = "ib_core";
// Objects per message before the dump starts a new one (the kernel does when the skb is full).
constexpr std::size_t kPerMessage = 32;
// enum ib_qp_type: IB_QPT_GSI 1, IB_QPT_RC 2; enum ib_qp_state: IB_QPS_RTS 3.
constexpr std::uint8_t kQpTypeGsi = 1;
constexpr std::uint8_t kQpTypeRc = 2;
constexpr std::uint8_t kQpStateRts = 3;
// User QP numbers start above the special ones (mlx5 hands out 24-bit QPNs from here on).
constexpr std::uint32_t kFirstUserQpn = 0x100;

std::uint16_t nldev_type(std::uint8_t cmd) {
  return static_cast<std::uint16_t>(RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, cmd));
}

/// nla_nest_start_noflag: nldev's nests carry no NLA_F_NESTED (see the captured fixtures).
nlattr* nest_start(nlmsghdr* nlh, std::uint16_t type) {
  nlattr* nest = mnl_attr_nest_start(nlh, type);
  nest->nla_type = type;
  return nest;
}

/// One object: its number within its kind on the device, and its owner.
struct Object {
  std::uint32_t number = 0;
  const SimProcess* owner = nullptr;  ///< nullptr: ib_core
};

/// fill_res_name_pid: a user object names its owner's PID, a kernel one the kernel user.
void put_owner(nlmsghdr* nlh, const Object& o) {
  if (o.owner == nullptr) {
    mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_RES_KERN_NAME, kKernelUser);
  } else {
    mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_RES_PID, o.owner->pid);
  }
}

/// fill_res_qp_entry: the GSI QP 1 of ib_core, RC QPs of the processes (in RTS).
void qp_entry(nlmsghdr* nlh, const Object& o) {
  mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_PORT_INDEX, 1);
  mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_RES_LQPN, o.number);
  if (o.owner != nullptr) {
    mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_RES_PDN, 1);
    put_owner(nlh, o);
    mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_RES_RQPN, o.number);
    mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_RES_RQ_PSN, 0);
  } else {
    put_owner(nlh, o);
  }
  mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_RES_SQ_PSN, 0);
  if (o.owner != nullptr) mnl_attr_put_u8(nlh, RDMA_NLDEV_ATTR_RES_PATH_MIG_STATE, 0);
  mnl_attr_put_u8(nlh, RDMA_NLDEV_ATTR_RES_TYPE, o.owner == nullptr ? kQpTypeGsi : kQpTypeRc);
  mnl_attr_put_u8(nlh, RDMA_NLDEV_ATTR_RES_STATE, kQpStateRts);
}

/// fill_res_cq_entry.
void cq_entry(nlmsghdr* nlh, const Object& o) {
  mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_RES_CQE, o.owner == nullptr ? 1023 : 511);
  mnl_attr_put_u64(nlh, RDMA_NLDEV_ATTR_RES_USECNT, 2);
  if (o.owner == nullptr)
    mnl_attr_put_u8(nlh, RDMA_NLDEV_ATTR_RES_POLL_CTX, 2);  // IB_POLL_WORKQUEUE
  mnl_attr_put_u8(nlh, RDMA_NLDEV_ATTR_RES_CTX, 0);
  mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_RES_CQN, o.number);
  if (o.owner != nullptr) mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_RES_CTXN, 0);
  put_owner(nlh, o);
}

/// fill_res_mr_entry: the process's pinned memory split evenly over its MRs (each
/// registration pins its pages: ib_umem_get).
void mr_entry(nlmsghdr* nlh, const Object& o) {
  const std::uint64_t length = o.owner->pinned_bytes / std::max<std::uint32_t>(1, o.owner->mrs);
  mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_RES_RKEY, 0x1000 + o.number);
  mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_RES_LKEY, 0x1000 + o.number);
  mnl_attr_put_u64(nlh, RDMA_NLDEV_ATTR_RES_MRLEN, length);
  mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_RES_MRN, o.number);
  mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_RES_PDN, 1);
  put_owner(nlh, o);
}

/// fill_res_pd_entry.
void pd_entry(nlmsghdr* nlh, const Object& o) {
  mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_RES_LOCAL_DMA_LKEY, o.owner == nullptr ? 0x107 : 0);
  mnl_attr_put_u64(nlh, RDMA_NLDEV_ATTR_RES_USECNT, 2);
  mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_RES_PDN, o.number);
  if (o.owner != nullptr) mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_RES_CTXN, 0);
  put_owner(nlh, o);
}

/// One per-object dump: its command, table and entry attributes (nldev.c res_get_table), the
/// entry's layout, and how many objects of the kind a process holds per device. Written out
/// here rather than borrowed from the parser, so that a mistake in either shows in the tests.
struct Dump {
  std::uint8_t cmd;
  std::uint16_t table, entry;
  void (*fill)(nlmsghdr*, const Object&);
  std::uint32_t SimProcess::*count;
};

Dump dump_of(NldevResKind kind) {
  switch (kind) {
    case NldevResKind::qp:
      return {RDMA_NLDEV_CMD_RES_QP_GET, RDMA_NLDEV_ATTR_RES_QP, RDMA_NLDEV_ATTR_RES_QP_ENTRY,
              qp_entry, &SimProcess::qps};
    case NldevResKind::cq:
      return {RDMA_NLDEV_CMD_RES_CQ_GET, RDMA_NLDEV_ATTR_RES_CQ, RDMA_NLDEV_ATTR_RES_CQ_ENTRY,
              cq_entry, &SimProcess::cqs};
    case NldevResKind::mr:
      return {RDMA_NLDEV_CMD_RES_MR_GET, RDMA_NLDEV_ATTR_RES_MR, RDMA_NLDEV_ATTR_RES_MR_ENTRY,
              mr_entry, &SimProcess::mrs};
    case NldevResKind::pd:
      break;
  }
  return {RDMA_NLDEV_CMD_RES_PD_GET, RDMA_NLDEV_ATTR_RES_PD, RDMA_NLDEV_ATTR_RES_PD_ENTRY, pd_entry,
          &SimProcess::pds};
}

/// The device's objects of `kind` in the kernel's (restrack id) order: ib_core's first (MRs:
/// ib_core registers none), then each process's.
std::vector<Object> objects(const HostModel& host, NldevResKind kind, const std::string& device) {
  std::vector<Object> out;
  std::uint32_t next = kind == NldevResKind::qp ? kFirstUserQpn : 0;
  if (kind == NldevResKind::qp) {
    out.push_back(Object{1, nullptr});  // the GSI QP is always QP 1
  } else if (kind != NldevResKind::mr) {
    out.push_back(Object{next++, nullptr});
  }
  for (const SimProcess& p : host.processes) {
    if (std::find(p.devices.begin(), p.devices.end(), device) == p.devices.end()) continue;
    for (std::uint32_t i = 0; i < p.*dump_of(kind).count; ++i) out.push_back(Object{next++, &p});
  }
  return out;
}

/// Each user process on `device` with the share of the port's error counters its bound counter
/// carries; empty when the port does not run auto mode (no process there has a share). The
/// processes without a share split what the others leave.
std::vector<std::pair<const SimProcess*, double>> bound_shares(const HostModel& host,
                                                               const std::string& device) {
  std::vector<std::pair<const SimProcess*, double>> out;
  double given = 0;
  std::size_t without = 0;
  for (const SimProcess& p : host.processes) {
    if (std::find(p.devices.begin(), p.devices.end(), device) == p.devices.end()) continue;
    out.emplace_back(&p, p.counter_share);
    given += p.counter_share;
    if (p.counter_share == 0) ++without;
  }
  if (given == 0) return {};
  for (auto& [p, share] : out) {
    if (share == 0) share = (1 - given) / static_cast<double>(without);
  }
  return out;
}

// mlx5 Q-counters a bound counter reports (mlx5/counters.c, the per-QP set), from the model
// counters tree_render.cpp prints them from for the port. 32-bit in hardware.
constexpr std::pair<const char*, const char*> kBoundCounters[] = {
    {"duplicate_request", "duplicate_requests"},
    {"implied_nak_seq_err", "implied_naks"},
    {"local_ack_timeout_err", "ack_timeouts"},
    {"out_of_sequence", "out_of_sequence"},
    {"packet_seq_err", "seq_err_naks"},
    {"req_transport_retries_exceeded", "retry_exceeded"},
    {"rnr_nak_retry_err", "rnr_naks_received"},
};
constexpr int kQCounterBits = 32;

}  // namespace

std::vector<std::uint8_t> render_nldev_devices_reply(const HostModel& host, std::uint32_t seq) {
  NetlinkReply reply(seq);
  for (std::uint32_t i = 0; i < host.ports.size(); ++i) {
    const PortState& port = host.ports[i];
    // fill_dev_info; the GUIDs and capability flags, which rdmatop reads from sysfs, are left
    // out.
    reply.message(nldev_type(RDMA_NLDEV_CMD_GET), [&](nlmsghdr* nlh) {
      mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_DEV_INDEX, i);
      mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_DEV_NAME, port.spec.device.c_str());
      mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_PORT_INDEX, port.spec.port);
      const std::string fw = port.spec.kind == NicKind::rxe ? "" : running_fw(port);
      if (!fw.empty()) mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_FW_VERSION, fw.c_str());
      mnl_attr_put_u8(nlh, RDMA_NLDEV_ATTR_DEV_NODE_TYPE, 1);  // RDMA_NODE_IB_CA
      mnl_attr_put_u8(nlh, RDMA_NLDEV_ATTR_DEV_DIM, 0);
      mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_DEV_PROTOCOL, "roce");
    });
  }
  return reply.done();
}

std::vector<std::uint8_t> render_nldev_res_reply(const HostModel& host, NldevResKind kind,
                                                 std::uint32_t dev_index, std::uint32_t seq) {
  const Dump dump = dump_of(kind);
  const std::string& device = host.ports.at(dev_index).spec.device;
  const std::vector<Object> all = objects(host, kind, device);
  NetlinkReply reply(seq);
  for (std::size_t first = 0; first < all.size(); first += kPerMessage) {
    reply.message(nldev_type(dump.cmd), [&](nlmsghdr* nlh) {
      mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_DEV_INDEX, dev_index);
      mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_DEV_NAME, device.c_str());
      nlattr* table = nest_start(nlh, dump.table);
      for (std::size_t i = first; i < std::min(all.size(), first + kPerMessage); ++i) {
        nlattr* entry = nest_start(nlh, dump.entry);
        dump.fill(nlh, all[i]);
        mnl_attr_nest_end(nlh, entry);
      }
      mnl_attr_nest_end(nlh, table);
    });
  }
  return reply.done();
}

std::vector<std::uint8_t> render_nldev_qp_counter_mode_reply(const HostModel& host,
                                                             std::uint32_t dev_index,
                                                             std::uint32_t seq) {
  const PortSpec& spec = host.ports.at(dev_index).spec;
  const bool by_pid = !bound_shares(host, spec.device).empty();
  NetlinkReply reply(seq);
  reply.message(nldev_type(RDMA_NLDEV_CMD_STAT_GET), [&](nlmsghdr* nlh) {
    mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_DEV_INDEX, dev_index);
    mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_DEV_NAME, spec.device.c_str());
    mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_PORT_INDEX, spec.port);
    mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_STAT_MODE,
                     by_pid ? RDMA_COUNTER_MODE_AUTO : RDMA_COUNTER_MODE_NONE);
    if (by_pid) mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_STAT_AUTO_MODE_MASK, RDMA_COUNTER_MASK_PID);
  });
  return reply.ack();
}

std::vector<std::uint8_t> render_nldev_bound_counters_reply(const HostModel& host,
                                                            std::uint32_t dev_index,
                                                            std::uint32_t seq) {
  const PortState& port = host.ports.at(dev_index);
  const std::string& device = port.spec.device;
  const auto shares = bound_shares(host, device);
  NetlinkReply reply(seq);
  if (!shares.empty()) {
    const std::vector<Object> qps = objects(host, NldevResKind::qp, device);
    reply.message(nldev_type(RDMA_NLDEV_CMD_STAT_GET), [&](nlmsghdr* nlh) {
      mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_DEV_INDEX, dev_index);
      mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_DEV_NAME, device.c_str());
      // Counter and entry nests without NLA_F_NESTED (res_get_common_dumpit), the QP and
      // hw-counter tables inside with it (nla_nest_start in fill_stat_counter_*).
      nlattr* table = nest_start(nlh, RDMA_NLDEV_ATTR_STAT_COUNTER);
      std::uint32_t id = 0;
      for (const auto& [process, share] : shares) {
        nlattr* entry = nest_start(nlh, RDMA_NLDEV_ATTR_STAT_COUNTER_ENTRY);
        mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_PORT_INDEX, port.spec.port);
        mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_STAT_COUNTER_ID, ++id);
        mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_STAT_MODE, RDMA_COUNTER_MODE_AUTO);
        mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_RES_PID, process->pid);
        nlattr* qp_table = mnl_attr_nest_start(nlh, RDMA_NLDEV_ATTR_RES_QP);
        for (const Object& qp : qps) {
          if (qp.owner != process) continue;
          nlattr* qp_entry = mnl_attr_nest_start(nlh, RDMA_NLDEV_ATTR_RES_QP_ENTRY);
          mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_RES_LQPN, qp.number);
          mnl_attr_nest_end(nlh, qp_entry);
        }
        mnl_attr_nest_end(nlh, qp_table);
        nlattr* hw = mnl_attr_nest_start(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTERS);
        for (const auto& [name, model] : kBoundCounters) {
          const auto it = port.counters.find(model);
          const double total = it == port.counters.end() ? 0 : it->second * share;
          nlattr* c = mnl_attr_nest_start(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY);
          mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME, name);
          mnl_attr_put_u64(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_VALUE,
                           printed_value(total, kQCounterBits));
          mnl_attr_nest_end(nlh, c);
        }
        mnl_attr_nest_end(nlh, hw);
        mnl_attr_nest_end(nlh, entry);
      }
      mnl_attr_nest_end(nlh, table);
    });
  }
  return reply.done();
}

NetlinkRecording simulated_nldev_recording(const HostModel& host) {
  NetlinkRecording recording;
  recording[build_dev_get_request(0)] = render_nldev_devices_reply(host, 0);
  for (std::uint32_t i = 0; i < host.ports.size(); ++i) {
    for (const NldevResKind kind :
         {NldevResKind::qp, NldevResKind::cq, NldevResKind::mr, NldevResKind::pd}) {
      recording[build_res_dump_request(kind, i, 0)] = render_nldev_res_reply(host, kind, i, 0);
    }
    const std::uint32_t port = host.ports[i].spec.port;
    recording[build_qp_counter_mode_request(i, port, 0)] =
        render_nldev_qp_counter_mode_reply(host, i, 0);
    recording[build_bound_counters_request(i, port, 0)] =
        render_nldev_bound_counters_reply(host, i, 0);
  }
  return recording;
}

}  // namespace rdmatop::sim
