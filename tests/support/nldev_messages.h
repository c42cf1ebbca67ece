// Builds RDMA netlink replies the way the kernel lays them out (drivers/infiniband/core/nldev.c:
// fill_dev_info, fill_port_info, stat_get_doit_default_counter, fill_res_info), for the parser
// and collector tests. Every u64 is preceded by a zero-length PAD, as nla_put_u64_64bit does
// on platforms that need 8-byte alignment.
#pragma once

#include <libmnl/libmnl.h>
#include <linux/netlink.h>
#include <rdma/rdma_netlink.h>

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace rdmatop::testing {

constexpr std::uint16_t nldev_type(std::uint16_t cmd) {
  return static_cast<std::uint16_t>(RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, cmd));
}

inline void put_u64(nlmsghdr* nlh, std::uint16_t type, std::uint64_t value) {
  mnl_attr_put(nlh, RDMA_NLDEV_ATTR_PAD, 0, nullptr);
  mnl_attr_put_u64(nlh, type, value);
}

/// A reply: messages, then NLMSG_DONE or an ACK or an error.
class Reply {
 public:
  Reply& message(std::uint16_t cmd, std::uint32_t seq, const std::function<void(nlmsghdr*)>& fill) {
    nlmsghdr* nlh = start(nldev_type(cmd), seq);
    fill(nlh);
    return finish(nlh);
  }
  /// A message of any netlink type (generic netlink, rtnetlink): `fill` puts the family header
  /// and the attributes.
  Reply& raw(std::uint16_t type, std::uint32_t seq, const std::function<void(nlmsghdr*)>& fill) {
    nlmsghdr* nlh = start(type, seq);
    fill(nlh);
    return finish(nlh);
  }
  Reply& done(std::uint32_t seq, int error = 0) {
    nlmsghdr* nlh = start(NLMSG_DONE, seq);
    *static_cast<int*>(mnl_nlmsg_put_extra_header(nlh, sizeof(int))) = error;
    return finish(nlh);
  }
  /// NLMSG_ERROR: `error` 0 is an ACK; capped, with an optional extended-ack text.
  Reply& error(std::uint32_t seq, int error = 0, const char* extack = nullptr) {
    nlmsghdr* nlh = start(NLMSG_ERROR, seq);
    auto* err = static_cast<nlmsgerr*>(mnl_nlmsg_put_extra_header(nlh, sizeof(nlmsgerr)));
    err->error = error;
    err->msg.nlmsg_len = NLMSG_HDRLEN + 16;
    err->msg.nlmsg_seq = seq;
    nlh->nlmsg_flags |= NLM_F_CAPPED;
    if (extack != nullptr) {
      nlh->nlmsg_flags |= NLM_F_ACK_TLVS;
      mnl_attr_put_strz(nlh, NLMSGERR_ATTR_MSG, extack);
    }
    return finish(nlh);
  }
  Reply& ack(std::uint32_t seq) { return error(seq, 0); }
  std::vector<std::uint8_t> bytes() const { return bytes_; }

 private:
  nlmsghdr* start(std::uint16_t type, std::uint32_t seq) {
    scratch_.assign(scratch_.size(), 0);
    nlmsghdr* nlh = mnl_nlmsg_put_header(scratch_.data());
    nlh->nlmsg_type = type;
    nlh->nlmsg_seq = seq;
    nlh->nlmsg_pid = 4321;
    return nlh;
  }
  Reply& finish(nlmsghdr* nlh) {
    const auto* p = reinterpret_cast<const std::uint8_t*>(nlh);
    bytes_.insert(bytes_.end(), p, p + NLMSG_ALIGN(nlh->nlmsg_len));
    return *this;
  }
  std::vector<std::uint64_t> scratch_ = std::vector<std::uint64_t>(2048);
  std::vector<std::uint8_t> bytes_;
};

/// fill_dev_info for an rxe device.
inline std::function<void(nlmsghdr*)> device(std::uint32_t index, const std::string& name,
                                             std::uint32_t ports, std::uint64_t guid) {
  return [=](nlmsghdr* nlh) {
    mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_DEV_INDEX, index);
    mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_DEV_NAME, name.c_str());
    mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_PORT_INDEX, ports);
    put_u64(nlh, RDMA_NLDEV_ATTR_CAP_FLAGS, 0x1234);
    put_u64(nlh, RDMA_NLDEV_ATTR_NODE_GUID, guid);
    put_u64(nlh, RDMA_NLDEV_ATTR_SYS_IMAGE_GUID, guid);
    mnl_attr_put_u8(nlh, RDMA_NLDEV_ATTR_DEV_NODE_TYPE, 1);
    mnl_attr_put_u8(nlh, RDMA_NLDEV_ATTR_DEV_DIM, 0);
    mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_DEV_PROTOCOL, "roce");
  };
}

/// The STAT_HWCOUNTERS nest of a STAT_GET reply.
inline std::function<void(nlmsghdr*)> hwcounters(
    std::uint32_t dev, std::uint32_t port,
    const std::vector<std::pair<std::string, std::uint64_t>>& counters) {
  return [=](nlmsghdr* nlh) {
    mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_DEV_INDEX, dev);
    mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_DEV_NAME, "rxe0");
    mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_PORT_INDEX, port);
    nlattr* table = mnl_attr_nest_start(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTERS);
    for (const auto& [name, value] : counters) {
      nlattr* entry = mnl_attr_nest_start(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY);
      mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME, name.c_str());
      put_u64(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_VALUE, value);
      mnl_attr_nest_end(nlh, entry);
    }
    mnl_attr_nest_end(nlh, table);
  };
}

struct StatusEntry {
  std::string name;
  std::uint32_t index;
  int dynamic;  ///< -1: not optional (no DYNAMIC attribute)
};

inline std::function<void(nlmsghdr*)> counter_status(std::uint32_t dev, std::uint32_t port,
                                                     const std::vector<StatusEntry>& entries) {
  return [=](nlmsghdr* nlh) {
    mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_DEV_INDEX, dev);
    mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_PORT_INDEX, port);
    nlattr* table = mnl_attr_nest_start(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTERS);
    for (const auto& e : entries) {
      nlattr* entry = mnl_attr_nest_start(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY);
      mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME, e.name.c_str());
      mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_INDEX, e.index);
      if (e.dynamic >= 0) {
        mnl_attr_put_u8(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_DYNAMIC,
                        static_cast<std::uint8_t>(e.dynamic));
      }
      mnl_attr_nest_end(nlh, entry);
    }
    mnl_attr_nest_end(nlh, table);
  };
}

inline std::function<void(nlmsghdr*)> resources(
    std::uint32_t dev, const std::string& name,
    const std::vector<std::pair<std::string, std::uint64_t>>& counts) {
  return [=](nlmsghdr* nlh) {
    mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_DEV_INDEX, dev);
    mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_DEV_NAME, name.c_str());
    nlattr* summary = mnl_attr_nest_start(nlh, RDMA_NLDEV_ATTR_RES_SUMMARY);
    for (const auto& [res, curr] : counts) {
      nlattr* entry = mnl_attr_nest_start(nlh, RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY);
      mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY_NAME, res.c_str());
      put_u64(nlh, RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY_CURR, curr);
      mnl_attr_nest_end(nlh, entry);
    }
    mnl_attr_nest_end(nlh, summary);
  };
}

/// One object of a resource dump: its owner (a PID, or a kernel user's name when pid is 0).
struct ResObject {
  std::uint32_t id;  ///< LQPN, CQN, MRN or PDN
  std::uint32_t pid;
  std::string kern_name;
};

/// A per-object resource dump message (nldev.c res_get_common_dumpit): the device handle, then
/// the `table` nest of `entry` nests laid out like fill_res_{qp,cq,mr,pd}_entry: the object's
/// number, a u64 use count or length, a u8 type/state, then fill_res_name_pid.
inline std::function<void(nlmsghdr*)> res_objects(std::uint16_t table, std::uint16_t entry,
                                                  std::uint16_t id_attr, std::uint32_t dev,
                                                  const std::string& name,
                                                  const std::vector<ResObject>& objects) {
  return [=](nlmsghdr* nlh) {
    mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_DEV_INDEX, dev);
    mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_DEV_NAME, name.c_str());
    nlattr* t = mnl_attr_nest_start(nlh, table);
    for (const auto& o : objects) {
      nlattr* e = mnl_attr_nest_start(nlh, entry);
      mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_PORT_INDEX, 1);
      mnl_attr_put_u32(nlh, id_attr, o.id);
      put_u64(nlh, RDMA_NLDEV_ATTR_RES_USECNT, 1);
      mnl_attr_put_u8(nlh, RDMA_NLDEV_ATTR_RES_TYPE, 2);
      if (o.kern_name.empty()) {
        mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_RES_PID, o.pid);
      } else {
        mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_RES_KERN_NAME, o.kern_name.c_str());
      }
      mnl_attr_nest_end(nlh, e);
    }
    mnl_attr_nest_end(nlh, t);
  };
}

/// res_objects for a QP dump.
inline std::function<void(nlmsghdr*)> qp_objects(std::uint32_t dev, const std::string& name,
                                                 const std::vector<ResObject>& objects) {
  return res_objects(RDMA_NLDEV_ATTR_RES_QP, RDMA_NLDEV_ATTR_RES_QP_ENTRY, RDMA_NLDEV_ATTR_RES_LQPN,
                     dev, name, objects);
}

/// stat_get_doit_qp: the port's QP counter mode; AUTO_MODE_MASK when `mask` >= 0.
inline std::function<void(nlmsghdr*)> qp_counter_mode(std::uint32_t dev, std::uint32_t port,
                                                      std::uint32_t mode, long mask) {
  return [=](nlmsghdr* nlh) {
    mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_DEV_INDEX, dev);
    mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_DEV_NAME, "mlx5_0");
    mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_PORT_INDEX, port);
    mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_STAT_MODE, mode);
    if (mask >= 0) {
      mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_STAT_AUTO_MODE_MASK, static_cast<std::uint32_t>(mask));
    }
  };
}

/// One bound counter as fill_res_counter_entry lays it out.
struct CounterEntry {
  std::uint32_t port = 1;
  std::uint32_t id = 0;
  std::uint32_t mode = 2;  ///< RDMA_COUNTER_MODE_MANUAL
  int qp_type = -1;        ///< -1: no RES_TYPE (not auto mode by type)
  std::uint32_t pid = 0;   ///< 0: no RES_PID
  std::string kern_name;   ///< empty: no RES_KERN_NAME
  std::vector<std::uint32_t> qpns;
  std::vector<std::pair<std::string, std::uint64_t>> counters;
};

/// The STAT_GET dump with STAT_RES = RES_QP (res_get_common_dumpit for RDMA_RESTRACK_COUNTER):
/// the device handle, then the STAT_COUNTER table of STAT_COUNTER_ENTRY nests, each with the
/// port, id, mode (fill_stat_counter_mode), the RES_QP table of RES_QP_ENTRY{RES_LQPN}
/// (fill_stat_counter_qps) and STAT_HWCOUNTERS (fill_stat_counter_hwcounters).
inline std::function<void(nlmsghdr*)> bound_counters(std::uint32_t dev, const std::string& name,
                                                     const std::vector<CounterEntry>& entries) {
  return [=](nlmsghdr* nlh) {
    mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_DEV_INDEX, dev);
    mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_DEV_NAME, name.c_str());
    nlattr* table = mnl_attr_nest_start(nlh, RDMA_NLDEV_ATTR_STAT_COUNTER);
    for (const auto& e : entries) {
      nlattr* entry = mnl_attr_nest_start(nlh, RDMA_NLDEV_ATTR_STAT_COUNTER_ENTRY);
      mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_PORT_INDEX, e.port);
      mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_STAT_COUNTER_ID, e.id);
      mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_STAT_MODE, e.mode);
      if (e.qp_type >= 0) {
        mnl_attr_put_u8(nlh, RDMA_NLDEV_ATTR_RES_TYPE, static_cast<std::uint8_t>(e.qp_type));
      }
      if (e.pid != 0) mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_RES_PID, e.pid);
      if (!e.kern_name.empty()) {
        mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_RES_KERN_NAME, e.kern_name.c_str());
      }
      nlattr* qps = mnl_attr_nest_start(nlh, RDMA_NLDEV_ATTR_RES_QP);
      for (const std::uint32_t qpn : e.qpns) {
        nlattr* qp = mnl_attr_nest_start(nlh, RDMA_NLDEV_ATTR_RES_QP_ENTRY);
        mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_RES_LQPN, qpn);
        mnl_attr_nest_end(nlh, qp);
      }
      mnl_attr_nest_end(nlh, qps);
      nlattr* hw = mnl_attr_nest_start(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTERS);
      for (const auto& [counter, value] : e.counters) {
        nlattr* c = mnl_attr_nest_start(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY);
        mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME, counter.c_str());
        put_u64(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_VALUE, value);
        mnl_attr_nest_end(nlh, c);
      }
      mnl_attr_nest_end(nlh, hw);
      mnl_attr_nest_end(nlh, entry);
    }
    mnl_attr_nest_end(nlh, table);
  };
}

}  // namespace rdmatop::testing
