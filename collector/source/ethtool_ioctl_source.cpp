// The live EthtoolSource: SIOCETHTOOL ioctls (what `ethtool -S` / `-i` / `-a` use) and, for
// the standard pause statistics, the ethtool generic-netlink family (what `ethtool -I -a`
// uses, see ethtool_genl.h). Both sockets belong to the network namespace the source was
// created in.
//
// [src: ethtool ethtool.c get_stringset/do_gstats/do_gdrv/do_gpause; torvalds/linux
// net/ethtool/ioctl.c; include/uapi/linux/ethtool.h, ethtool_netlink.h]

#include <linux/ethtool.h>
#include <linux/netlink.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <utility>

#include "collector/source/ethtool_genl.h"
#include "collector/source/ethtool_source.h"
#include "collector/source/ethtool_stats_reader.h"
#include "collector/source/netdev_ioctl_socket.h"

namespace rdmatop {
namespace {

/// Upper bound on the string count we allocate for; the kernel's own bound is S32_MAX / 32
/// (ioctl.c), real NICs stay in the tens of thousands.
constexpr std::uint32_t kMaxStats = 1U << 20;

/// `size` writable bytes that end exactly where a PROT_NONE page begins. Kernels without commit
/// 7b07be1ff1cb write GSTRINGS/GSTATS replies for the count they have *now* (ioctl.c ignores
/// the count we pass), so if the set grew since we sized the buffer, their copy_to_user hits the
/// guard page and the ioctl fails with EFAULT rather than overwriting our heap. (Kernels with
/// that commit reply len/n_stats = 0 on a mismatch; see ethtool_stats_reader.h.)
class GuardedBuffer {
 public:
  static Result<GuardedBuffer> make(std::size_t size) {
    const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
    const std::size_t data_pages = (size + page - 1) / page;
    const std::size_t len = (data_pages + 1) * page;
    void* map = ::mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (map == MAP_FAILED) return errno_error(errno, "mmap ethtool buffer");
    auto* base = static_cast<std::uint8_t*>(map);
    if (::mprotect(base + data_pages * page, page, PROT_NONE) != 0) {
      const int err = errno;
      ::munmap(map, len);
      return errno_error(err, "mprotect ethtool buffer");
    }
    return GuardedBuffer(map, len, base + data_pages * page - size);
  }
  GuardedBuffer(GuardedBuffer&& other) noexcept
      : map_(std::exchange(other.map_, nullptr)), len_(other.len_), data_(other.data_) {}
  GuardedBuffer(const GuardedBuffer&) = delete;
  GuardedBuffer& operator=(const GuardedBuffer&) = delete;
  GuardedBuffer& operator=(GuardedBuffer&&) = delete;
  ~GuardedBuffer() {
    if (map_ != nullptr) ::munmap(map_, len_);
  }
  std::uint8_t* data() const { return data_; }

 private:
  GuardedBuffer(void* map, std::size_t len, std::uint8_t* data)
      : map_(map), len_(len), data_(data) {}
  void* map_;
  std::size_t len_;
  std::uint8_t* data_;
};

std::string fixed_string(const char* data, std::size_t max) {
  return std::string(data, ::strnlen(data, max));
}

/// The SIOCETHTOOL calls, one socket per object.
class IoctlCalls final : public EthtoolStatsCalls {
 public:
  Result<std::uint32_t> count(const std::string& ifname) override {
    // struct ethtool_sset_info with one trailing u32: one bit is set in the mask we send.
    std::array<std::uint64_t, (sizeof(ethtool_sset_info) + sizeof(std::uint32_t)) / 8 + 1> buf{};
    auto* info = reinterpret_cast<ethtool_sset_info*>(buf.data());
    info->cmd = ETHTOOL_GSSET_INFO;
    info->sset_mask = 1ULL << ETH_SS_STATS;
    const int err = call(ifname, info);
    if (err == 0) {
      // The kernel clears the bit for a set the driver does not have (ioctl.c
      // ethtool_get_sset_info); `ethtool -S` then says "no stats available".
      if ((info->sset_mask & (1ULL << ETH_SS_STATS)) == 0) {
        return errno_error(EOPNOTSUPP, "ethtool GSSET_INFO " + ifname);
      }
      return info->data[0];
    }
    if (err != EOPNOTSUPP) return errno_error(err, "ethtool GSSET_INFO " + ifname);
    // Kernels before GSSET_INFO (2.6.33): the count is in the driver info.
    auto drv = drvinfo(ifname);
    if (!drv) return drv.error();
    return drv->n_stats;
  }

  Result<std::vector<std::string>> names(const std::string& ifname,
                                         std::uint32_t expected) override {
    if (expected > kMaxStats) return errno_error(E2BIG, "ethtool GSTRINGS " + ifname);
    auto buf = GuardedBuffer::make(sizeof(ethtool_gstrings) + std::size_t{expected} * 32);
    if (!buf) return buf.error();
    auto* req = reinterpret_cast<ethtool_gstrings*>(buf->data());
    req->cmd = ETHTOOL_GSTRINGS;
    req->string_set = ETH_SS_STATS;
    req->len = expected;
    if (const int err = call(ifname, req); err != 0) {
      return errno_error(err, "ethtool GSTRINGS " + ifname);
    }
    if (req->len > expected) return errno_error(EFAULT, "ethtool GSTRINGS " + ifname);
    return decode_ethtool_strings(
        std::span<const std::uint8_t>(req->data, std::size_t{req->len} * ETH_GSTRING_LEN),
        req->len);
  }

  Result<std::vector<std::uint64_t>> values(const std::string& ifname,
                                            std::uint32_t expected) override {
    if (expected > kMaxStats) return errno_error(E2BIG, "ethtool GSTATS " + ifname);
    auto buf = GuardedBuffer::make(sizeof(ethtool_stats) + std::size_t{expected} * 8);
    if (!buf) return buf.error();
    auto* req = reinterpret_cast<ethtool_stats*>(buf->data());
    req->cmd = ETHTOOL_GSTATS;
    req->n_stats = expected;
    if (const int err = call(ifname, req); err != 0) {
      return errno_error(err, "ethtool GSTATS " + ifname);
    }
    if (req->n_stats > expected) return errno_error(EFAULT, "ethtool GSTATS " + ifname);
    return std::vector<std::uint64_t>(req->data, req->data + req->n_stats);
  }

  Result<ethtool_drvinfo> drvinfo(const std::string& ifname) {
    ethtool_drvinfo info{};
    info.cmd = ETHTOOL_GDRVINFO;
    if (const int err = call(ifname, &info); err != 0) {
      return errno_error(err, "ethtool GDRVINFO " + ifname);
    }
    return info;
  }

  Result<std::uint16_t> tunable_u16(const std::string& ifname, std::uint32_t id) {
    // struct ethtool_tunable ends in a flexible array: the u16 value follows the header.
    std::array<std::uint64_t, (sizeof(ethtool_tunable) + sizeof(std::uint16_t)) / 8 + 1> buf{};
    auto* tuna = reinterpret_cast<ethtool_tunable*>(buf.data());
    tuna->cmd = ETHTOOL_GTUNABLE;
    tuna->id = id;
    tuna->type_id = ETHTOOL_TUNABLE_U16;
    tuna->len = sizeof(std::uint16_t);
    if (const int err = call(ifname, tuna); err != 0) {
      return errno_error(err, "ethtool GTUNABLE " + ifname);
    }
    std::uint16_t value = 0;
    std::memcpy(&value, reinterpret_cast<const std::uint8_t*>(tuna) + sizeof(ethtool_tunable),
                sizeof(value));
    return value;
  }

  Result<ethtool_pauseparam> pauseparam(const std::string& ifname) {
    ethtool_pauseparam param{};
    param.cmd = ETHTOOL_GPAUSEPARAM;
    if (const int err = call(ifname, &param); err != 0) {
      return errno_error(err, "ethtool GPAUSEPARAM " + ifname);
    }
    return param;
  }

 private:
  /// One SIOCETHTOOL; returns 0 or the errno.
  int call(const std::string& ifname, void* data) const {
    ifreq ifr{};
    ifr.ifr_data = static_cast<char*>(data);
    return socket_.call(ifname, SIOCETHTOOL, ifr);
  }

  NetdevIoctlSocket socket_;
};

class IoctlEthtoolSource final : public EthtoolSource {
 public:
  IoctlEthtoolSource() : reader_(calls_) {}

  Result<CounterMap> stats(const std::string& ifname) override { return reader_.read(ifname); }
  Result<CounterMap> stats_subset(const std::string& ifname,
                                  const std::vector<std::string>& names) override {
    return reader_.read(ifname, names);
  }

  Result<DriverInfo> driver_info(const std::string& ifname) override {
    auto info = calls_.drvinfo(ifname);
    if (!info) return info.error();
    return DriverInfo{fixed_string(info->driver, sizeof(info->driver)),
                      fixed_string(info->version, sizeof(info->version)),
                      fixed_string(info->fw_version, sizeof(info->fw_version)),
                      fixed_string(info->bus_info, sizeof(info->bus_info))};
  }

  Result<PauseInfo> pause(const std::string& ifname) override {
    auto param = calls_.pauseparam(ifname);
    if (!param) return param.error();
    PauseInfo info;
    info.autoneg = param->autoneg != 0;
    info.rx = param->rx_pause != 0;
    info.tx = param->tx_pause != 0;
    // The statistics are optional: kernels before 5.12 (or drivers without get_pause_stats)
    // have none, which leaves them absent rather than failing the settings just read.
    if (auto nl = genl_.pause(ifname); nl.ok()) {
      info.rx_frames = nl->rx_frames;
      info.tx_frames = nl->tx_frames;
    }
    return info;
  }

  Result<std::uint16_t> pfc_prevention_tout(const std::string& ifname) override {
    // The kernel checks id/type/len first (ethtool_tunable_valid: u16), then EOPNOTSUPP for a
    // driver without get_tunable or without this tunable (mlx5 also needs the PFC stall
    // capabilities, docs/domain.md#storm-prevention) [src: net/ethtool/ioctl.c get_tunable].
    return calls_.tunable_u16(ifname, ETHTOOL_PFC_PREVENTION_TOUT);
  }

  std::string describe() const override { return "ioctl"; }

 private:
  IoctlCalls calls_;
  EthtoolStatsReader reader_;
  EthtoolGenl genl_;
};

}  // namespace

std::unique_ptr<EthtoolStatsCalls> make_ioctl_ethtool_stats_calls() {
  return std::make_unique<IoctlCalls>();
}

std::unique_ptr<EthtoolSource> make_ioctl_ethtool_source() {
  return std::make_unique<IoctlEthtoolSource>();
}

}  // namespace rdmatop
