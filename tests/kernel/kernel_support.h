// Helpers for the real-kernel suite: a private network namespace for the whole test process,
// and running the reference commands (`ip`, `ethtool`) inside it.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace rdmatop::kernel_test {

struct CommandResult {
  int exit_code = -1;  ///< the command's exit status; 128 + signal if it was killed
  std::string out;     ///< stdout
  std::string err;     ///< stderr
};

/// Absolute path of `name` from PATH, /usr/sbin or /sbin (root tools are often not on a
/// non-root PATH); nullopt if absent.
std::optional<std::string> find_tool(const std::string& name);

/// Runs argv (argv[0] looked up with find_tool) without a shell, in this process's netns.
CommandResult run(const std::vector<std::string>& argv);

/// run(), throwing std::runtime_error (with the command and its stderr) on a non-zero exit.
CommandResult must_run(const std::vector<std::string>& argv);

/// Moves this process into a new, empty network namespace (it disappears with the process, so
/// every exit path cleans up) and brings `lo` up; then, in a private mount namespace, mounts
/// that namespace's sysfs on /sys (see private_sysfs_problem). Must be called before any thread
/// starts. Returns the reason when the namespace is impossible here (not root, no unshare,
/// tools missing).
std::optional<std::string> enter_private_netns();

/// Why /sys is not the private namespace's sysfs (nullopt when it is): tests that read sysfs
/// then skip, saying so.
const std::optional<std::string>& private_sysfs_problem();

}  // namespace rdmatop::kernel_test
