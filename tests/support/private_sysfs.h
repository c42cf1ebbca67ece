// A mount namespace of this process with a sysfs of its network namespace on /sys, for the
// real-kernel tests and the benches that make netdevs in a private network namespace.
#pragma once

#include <sched.h>
#include <sys/mount.h>

#include <cerrno>
#include <cstring>
#include <optional>
#include <string>

namespace rdmatop::testing {

/// Enters a new mount namespace, makes every mount in it private and mounts sysfs on /sys:
/// sysfs shows the netdevs of the network namespace that mounts it (the host's /sys would list
/// the host's). Call after entering the network namespace. Why it failed, or nothing.
inline std::optional<std::string> mount_private_sysfs() {
  if (::unshare(CLONE_NEWNS) != 0) {
    return std::string("unshare(CLONE_NEWNS) failed: ") + std::strerror(errno);
  }
  // Private first, so the new mount never propagates back to the host's namespace.
  if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) {
    return std::string("making / private failed: ") + std::strerror(errno);
  }
  if (::mount("sysfs", "/sys", "sysfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, nullptr) != 0) {
    return std::string("mounting sysfs failed: ") + std::strerror(errno);
  }
  return std::nullopt;
}

}  // namespace rdmatop::testing
