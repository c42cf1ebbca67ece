// Runs one diagnostic command for `rdmatop capture` (docs/capture.md): found on a fixed PATH,
// started with a minimal environment (never the caller's), stdout kept up to a byte cap,
// stderr up to a small cap, killed at a time limit.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>
#include <vector>

namespace rdmatop::bundle {

/// The only PATH a captured command sees; the caller's PATH and every other variable stay out.
inline constexpr const char* kCommandPath =
    "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

struct CommandLimits {
  std::chrono::milliseconds timeout{5000};
  std::size_t max_output_bytes = 4U << 20U;  ///< stdout kept; the rest is discarded
  std::size_t max_stderr_bytes = 4096;
};

struct CommandResult {
  std::vector<std::string> argv;
  std::string output;       ///< stdout exactly as printed, up to the cap
  std::string stderr_text;  ///< stderr, up to its cap
  bool started = false;     ///< false: not installed or could not be started (see error)
  int exit_status = -1;     ///< the exit status when the command exited
  int signal = 0;           ///< the signal that ended it, when one did
  bool timed_out = false;   ///< killed at the time limit
  bool truncated = false;   ///< stdout reached the cap (the command was then killed)
  std::string error;        ///< why it failed: "not installed", "timeout after 5 s", ...
  double seconds = 0;       ///< wall time
  bool ok() const { return started && !timed_out && signal == 0 && exit_status == 0; }
};

/// The absolute path of `name` on kCommandPath (a name holding '/' is taken as is), or "".
std::string find_program(const std::string& name);

/// Runs argv[0] (looked up by find_program) with `args`, stdin from /dev/null, in its own
/// process group so a timeout kills its children too.
CommandResult run_command(const std::vector<std::string>& argv, const CommandLimits& limits);

}  // namespace rdmatop::bundle
