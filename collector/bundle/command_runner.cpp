#include "collector/bundle/command_runner.h"

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <string_view>

namespace rdmatop::bundle {
namespace {

bool executable(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

/// Closes a descriptor once.
void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

/// Appends what `fd` has to `out` up to `cap` bytes; returns false at end of file. Bytes past
/// the cap are read and dropped, and `over` is set.
bool drain(int fd, std::string& out, std::size_t cap, bool& over) {
  std::array<char, 65536> buf{};
  const ssize_t n = ::read(fd, buf.data(), buf.size());
  if (n < 0) return errno == EINTR || errno == EAGAIN;
  if (n == 0) return false;
  const auto got = static_cast<std::size_t>(n);
  const std::size_t room = out.size() < cap ? cap - out.size() : 0;
  out.append(buf.data(), std::min(room, got));
  if (got > room) over = true;
  return true;
}

}  // namespace

std::string find_program(const std::string& name) {
  if (name.empty()) return {};
  if (name.find('/') != std::string::npos) return executable(name) ? name : std::string{};
  std::string_view dirs = kCommandPath;
  while (!dirs.empty()) {
    const std::size_t colon = dirs.find(':');
    const std::string candidate = std::string(dirs.substr(0, colon)) + "/" + name;
    if (executable(candidate)) return candidate;
    dirs = colon == std::string_view::npos ? std::string_view{} : dirs.substr(colon + 1);
  }
  return {};
}

CommandResult run_command(const std::vector<std::string>& argv, const CommandLimits& limits) {
  CommandResult result;
  result.argv = argv;
  const auto start = std::chrono::steady_clock::now();
  const std::string program = argv.empty() ? std::string{} : find_program(argv.front());
  if (program.empty()) {
    result.error = "not installed";
    return result;
  }
  std::array<int, 2> out_pipe{-1, -1};
  std::array<int, 2> err_pipe{-1, -1};
  if (::pipe2(out_pipe.data(), O_CLOEXEC) != 0 || ::pipe2(err_pipe.data(), O_CLOEXEC) != 0) {
    result.error = std::string("pipe: ") + std::strerror(errno);
    for (int& fd : out_pipe) close_fd(fd);
    return result;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out_pipe[1], 1);
  posix_spawn_file_actions_adddup2(&actions, err_pipe[1], 2);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attr, 0);
  std::vector<char*> args;
  args.reserve(argv.size() + 1);
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  // The whole environment of a captured command: a fixed PATH and the C locale, so the output
  // is the tools' untranslated text and no variable of the caller (tokens, keys) reaches it.
  std::string path_var = std::string("PATH=") + kCommandPath;
  std::array<char*, 3> env{path_var.data(), const_cast<char*>("LC_ALL=C"), nullptr};
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, program.c_str(), &actions, &attr, args.data(), env.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  close_fd(out_pipe[1]);
  close_fd(err_pipe[1]);
  if (rc != 0) {
    result.error = rc == ENOENT ? "not installed" : std::string(std::strerror(rc));
    close_fd(out_pipe[0]);
    close_fd(err_pipe[0]);
    return result;
  }
  result.started = true;
  const auto deadline = start + limits.timeout;
  bool err_over = false;
  bool killed = false;
  while (out_pipe[0] >= 0 || err_pipe[0] >= 0) {
    const auto now = std::chrono::steady_clock::now();
    if (now >= deadline) {
      result.timed_out = true;
      break;
    }
    std::array<pollfd, 2> fds{pollfd{out_pipe[0], POLLIN, 0}, pollfd{err_pipe[0], POLLIN, 0}};
    const auto wait_ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now).count() + 1;
    const int ready = ::poll(fds.data(), fds.size(), static_cast<int>(wait_ms));
    if (ready < 0 && errno != EINTR) break;
    if (ready <= 0) continue;
    if (fds[0].revents != 0 &&
        !drain(out_pipe[0], result.output, limits.max_output_bytes, result.truncated)) {
      close_fd(out_pipe[0]);
    }
    if (fds[1].revents != 0 &&
        !drain(err_pipe[0], result.stderr_text, limits.max_stderr_bytes, err_over)) {
      close_fd(err_pipe[0]);
    }
    if (result.truncated) break;  // enough: the rest would be dropped anyway
  }
  int status = 0;
  bool reaped = false;
  // Both pipes closed does not mean the command ended: wait for it up to the same deadline.
  while (!result.timed_out && !result.truncated && !reaped) {
    const pid_t got = ::waitpid(pid, &status, WNOHANG);
    if (got == pid || (got < 0 && errno != EINTR)) {
      reaped = true;
    } else if (std::chrono::steady_clock::now() >= deadline) {
      result.timed_out = true;
    } else if (got == 0) {
      ::usleep(10000);
    }
  }
  if (result.timed_out || result.truncated) {
    // The child's own process group (POSIX_SPAWN_SETPGROUP above): the command and whatever
    // it started, nothing else.
    ::kill(-pid, SIGKILL);
    killed = true;
  }
  close_fd(out_pipe[0]);
  close_fd(err_pipe[0]);
  while (!reaped && ::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status)) result.exit_status = WEXITSTATUS(status);
  if (WIFSIGNALED(status) && !killed) result.signal = WTERMSIG(status);
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (result.timed_out) {
    result.error =
        "timeout after " + std::to_string(static_cast<long long>(limits.timeout.count())) + " ms";
  } else if (result.truncated) {
    result.error.clear();  // a truncated output is kept; the manifest says it is truncated
  } else if (result.signal != 0) {
    result.error = std::string("killed by signal ") + strsignal(result.signal);
  } else if (result.exit_status != 0) {
    result.error = "exit status " + std::to_string(result.exit_status);
    // The tool's own words (EACCES, "Operation not supported") say why.
    std::string first = result.stderr_text.substr(0, result.stderr_text.find('\n'));
    if (!first.empty()) result.error += ": " + first;
  }
  return result;
}

}  // namespace rdmatop::bundle
