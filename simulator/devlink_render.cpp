#include "simulator/devlink_render.h"

#include <libmnl/libmnl.h>
#include <linux/devlink.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

#include <cmath>
#include <functional>
#include <string>

#include "simulator/netlink_reply.h"

namespace rdmatop::sim {

namespace {

// enum devlink_health_reporter_state (include/net/devlink.h): 0 healthy, 1 error.
constexpr std::uint8_t kHealthy = 0;
constexpr std::uint8_t kError = 1;
// mlx5 fw reporter grace period (MLX5_REPORTER_FW_GRACEFUL_PERIOD, 1200 s, mlx5/core/health.c,
// RECALLED); fw_fatal and bnxt_en's fw use the same order of magnitude.
constexpr std::uint64_t kGracePeriodMs = 1200000;

/// A devlink dump: generic netlink messages with command `cmd` in the devlink family.
class Reply {
 public:
  Reply(std::uint16_t family, std::uint32_t seq) : family_(family), reply_(seq) {}

  /// One generic netlink message of the dump with command `cmd`; `fill` puts the attributes.
  void message(std::uint8_t cmd, const std::function<void(nlmsghdr*)>& fill) {
    reply_.message(family_, [&](nlmsghdr* nlh) {
      auto* genl = static_cast<genlmsghdr*>(mnl_nlmsg_put_extra_header(nlh, sizeof(genlmsghdr)));
      genl->cmd = cmd;
      genl->version = DEVLINK_GENL_VERSION;
      fill(nlh);
    });
  }
  std::vector<std::uint8_t> done() { return reply_.done(); }

 private:
  std::uint16_t family_;
  NetlinkReply reply_;
};

/// nla_put_u64_64bit: a zero-length PAD first where u64 attributes need 8-byte alignment.
void put_u64(nlmsghdr* nlh, std::uint16_t type, std::uint64_t value) {
  mnl_attr_put(nlh, DEVLINK_ATTR_PAD, 0, nullptr);
  mnl_attr_put_u64(nlh, type, value);
}

/// devlink_info_version_put: one {NAME, VALUE} nest per version, repeated at the top level.
void put_version(nlmsghdr* nlh, std::uint16_t kind, const std::string& name,
                 const std::string& value) {
  nlattr* nest = mnl_attr_nest_start(nlh, kind);
  mnl_attr_put_strz(nlh, DEVLINK_ATTR_INFO_VERSION_NAME, name.c_str());
  mnl_attr_put_strz(nlh, DEVLINK_ATTR_INFO_VERSION_VALUE, value.c_str());
  mnl_attr_nest_end(nlh, nest);
}

void put_handle(nlmsghdr* nlh, const PortSpec& spec) {
  mnl_attr_put_strz(nlh, DEVLINK_ATTR_BUS_NAME, "pci");
  mnl_attr_put_strz(nlh, DEVLINK_ATTR_DEV_NAME, spec.pci.c_str());
}

std::uint64_t count(const PortState& port, const char* counter) {
  const auto it = port.counters.find(counter);
  return it == port.counters.end() || !(it->second > 0)
             ? 0
             : static_cast<std::uint64_t>(std::floor(it->second));
}

/// mlx5 (mlx5/core/devlink.c mlx5_devlink_info_get; devlink/mlx5.rst): the PSID as
/// a fixed version, fw.version (and its generic alias "fw") running and stored.
void mlx5_info(nlmsghdr* nlh, const PortState& port) {
  const std::string running = running_fw(port);
  const std::string stored = stored_fw(port);
  put_handle(nlh, port.spec);
  mnl_attr_put_strz(nlh, DEVLINK_ATTR_INFO_DRIVER_NAME, "mlx5_core");
  mnl_attr_put_strz(nlh, DEVLINK_ATTR_INFO_SERIAL_NUMBER, port.spec.serial.c_str());
  mnl_attr_put_strz(nlh, DEVLINK_ATTR_INFO_BOARD_SERIAL_NUMBER, port.spec.serial.c_str());
  put_version(nlh, DEVLINK_ATTR_INFO_VERSION_FIXED, "fw.psid", port.spec.psid);
  put_version(nlh, DEVLINK_ATTR_INFO_VERSION_RUNNING, "fw.version", running);
  put_version(nlh, DEVLINK_ATTR_INFO_VERSION_RUNNING, "fw", running);
  put_version(nlh, DEVLINK_ATTR_INFO_VERSION_STORED, "fw.version", stored);
  put_version(nlh, DEVLINK_ATTR_INFO_VERSION_STORED, "fw", stored);
}

/// bnxt_en (bnxt_devlink.c bnxt_dl_info_get, RECALLED): the board part number as fixed
/// board.id, the firmware package as the generic "fw" running and stored.
void bnxt_info(nlmsghdr* nlh, const PortState& port) {
  put_handle(nlh, port.spec);
  mnl_attr_put_strz(nlh, DEVLINK_ATTR_INFO_DRIVER_NAME, "bnxt_en");
  mnl_attr_put_strz(nlh, DEVLINK_ATTR_INFO_SERIAL_NUMBER, port.spec.serial.c_str());
  put_version(nlh, DEVLINK_ATTR_INFO_VERSION_FIXED, "board.id", "BCM957508-P2100G");
  put_version(nlh, DEVLINK_ATTR_INFO_VERSION_RUNNING, "fw", running_fw(port));
  put_version(nlh, DEVLINK_ATTR_INFO_VERSION_STORED, "fw", stored_fw(port));
}

/// One reporter that recovers (fw, fw_fatal): errors, recovers, the state they imply.
void put_reporter(nlmsghdr* nlh, const PortState& port, const char* name, const char* errors,
                  const char* recovers) {
  put_handle(nlh, port.spec);
  const std::uint64_t err = count(port, errors);
  const std::uint64_t rec = count(port, recovers);
  nlattr* nest = mnl_attr_nest_start(nlh, DEVLINK_ATTR_HEALTH_REPORTER);
  mnl_attr_put_strz(nlh, DEVLINK_ATTR_HEALTH_REPORTER_NAME, name);
  // A report puts the reporter in error; only a successful recovery makes it healthy again.
  mnl_attr_put_u8(nlh, DEVLINK_ATTR_HEALTH_REPORTER_STATE, err > rec ? kError : kHealthy);
  put_u64(nlh, DEVLINK_ATTR_HEALTH_REPORTER_ERR_COUNT, err);
  put_u64(nlh, DEVLINK_ATTR_HEALTH_REPORTER_RECOVER_COUNT, rec);
  put_u64(nlh, DEVLINK_ATTR_HEALTH_REPORTER_GRACEFUL_PERIOD, kGracePeriodMs);
  mnl_attr_put_u8(nlh, DEVLINK_ATTR_HEALTH_REPORTER_AUTO_RECOVER,
                  port.conditions.health_recovers ? 1 : 0);
  mnl_attr_put_u8(nlh, DEVLINK_ATTR_HEALTH_REPORTER_AUTO_DUMP, 1);
  mnl_attr_nest_end(nlh, nest);
}

}  // namespace

std::vector<std::uint8_t> render_devlink_info_reply(const HostModel& host, std::uint16_t family,
                                                    std::uint32_t seq) {
  Reply reply(family, seq);
  for (const PortState& port : host.ports) {
    if (!port.conditions.devlink) continue;  // no devlink instance shown for this device
    switch (port.spec.kind) {
      case NicKind::mlx5:
        reply.message(DEVLINK_CMD_INFO_GET, [&](nlmsghdr* nlh) { mlx5_info(nlh, port); });
        break;
      case NicKind::bnxt_re:
        reply.message(DEVLINK_CMD_INFO_GET, [&](nlmsghdr* nlh) { bnxt_info(nlh, port); });
        break;
      case NicKind::rxe:  // a virtual device: no devlink instance
        break;
    }
  }
  return reply.done();
}

std::vector<std::uint8_t> render_devlink_health_reply(const HostModel& host, std::uint16_t family,
                                                      std::uint32_t seq) {
  Reply reply(family, seq);
  constexpr std::uint8_t kCmd = DEVLINK_CMD_HEALTH_REPORTER_GET;
  for (const PortState& port : host.ports) {
    if (port.spec.kind == NicKind::rxe || !port.conditions.devlink) continue;
    // bnxt_en registers one "fw" reporter; mlx5 core "fw" and "fw_fatal" (docs/domain.md#devlink).
    reply.message(
        kCmd, [&](nlmsghdr* nlh) { put_reporter(nlh, port, "fw", "fw_errors", "fw_recovers"); });
    if (port.spec.kind == NicKind::mlx5) {
      reply.message(kCmd, [&](nlmsghdr* nlh) {
        put_reporter(nlh, port, "fw_fatal", "fw_fatal_errors", "fw_fatal_recovers");
      });
    }
  }
  return reply.done();
}

}  // namespace rdmatop::sim
