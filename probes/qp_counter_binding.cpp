#include "probes/qp_counter_binding.h"

#include <rdma/rdma_netlink.h>

#include <cerrno>
#include <cstring>

namespace rdmatop::probes {
namespace {

/// "ENOMEM": the errno's name, which the kernel source and `rdma` users search for.
std::string errno_name(int code) {
  const char* name = ::strerrorname_np(code);
  return name != nullptr ? name : "errno " + std::to_string(code);
}

/// The refusal in words. The causes per errno are those of the kernel's bind path (nldev.c
/// nldev_stat_set_doit, counters.c rdma_counter_bind_qpn_alloc and alloc_and_bind; netlink.c
/// rdma_nl_rcv_msg for the permission).
std::string refusal(const std::string& where, std::uint32_t qpn, const Error& e,
                    const std::optional<QpCounterMode>& mode) {
  const std::string code = errno_name(e.code);
  switch (e.code) {
    case EPERM:
      // STAT_SET is RDMA_NL_ADMIN_PERM: netlink_capable(CAP_NET_ADMIN) in the initial user ns.
      return where + ": binding QP counters not permitted (needs CAP_NET_ADMIN)";
    case ENOMEM:
      // alloc_and_bind gives NULL when the driver has no counter_alloc_stats/counter_dealloc
      // (rxe, siw: every driver but mlx5), or when the driver's counter_bind_qp fails.
      return where + ": driver cannot bind QP counters or has none left (ENOMEM)";
    case EOPNOTSUPP:
      return where + ": no hardware counters on this port (EOPNOTSUPP)";
    case ENOENT:
      return where + ": the kernel does not know QP " + std::to_string(qpn) + " (ENOENT)";
    case EINVAL:
      if (mode && mode->mode == RDMA_COUNTER_MODE_AUTO) {
        return where + ": port in auto mode, the kernel binds QPs itself (EINVAL)";
      }
      break;
    default:
      break;
  }
  return where + ": bind refused (" + code + ": " + e.message + ")";
}

}  // namespace

QpCounterBinding bind_qp_counter(RdmaNetlinkSource& netlink, const std::string& device,
                                 std::uint32_t port, std::uint32_t qpn) {
  const std::string where = device + "/" + std::to_string(port);
  auto devices = netlink.devices();
  if (!devices)
    return {std::nullopt, where + ": cannot list RDMA devices: " + devices.error().message};
  const NldevDevice* found = nullptr;
  for (const NldevDevice& d : *devices) {
    if (d.name == device) found = &d;
  }
  if (found == nullptr) return {std::nullopt, where + ": device not in the RDMA netlink list"};
  auto bound = netlink.bind_qp_counter(found->index, port, qpn);
  if (bound) return {bound->counter_id, ""};
  std::optional<QpCounterMode> mode;
  if (bound.error().code == EINVAL) {
    if (auto m = netlink.qp_counter_mode(found->index, port)) mode = m->mode;
  }
  return {std::nullopt, refusal(where, qpn, bound.error(), mode)};
}

QpCounterBinder netlink_qp_counter_binder() {
  return [](const std::string& device, std::uint32_t port, std::uint32_t qpn) {
    const auto netlink = make_live_rdma_netlink_source();
    return bind_qp_counter(*netlink, device, port, qpn);
  };
}

}  // namespace rdmatop::probes
