#include "tests/kernel/kernel_support.h"

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <stdexcept>

#include "tests/support/private_sysfs.h"

namespace rdmatop::kernel_test {
namespace {

std::optional<std::string> sysfs_problem = std::string("the private namespace was not entered");

bool is_executable(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

std::string describe(const std::vector<std::string>& argv) {
  std::string s;
  for (const auto& a : argv) s += (s.empty() ? "" : " ") + a;
  return s;
}

}  // namespace

std::optional<std::string> find_tool(const std::string& name) {
  std::string dirs = "/usr/sbin:/sbin";
  if (const char* path = std::getenv("PATH")) dirs = std::string(path) + ":" + dirs;
  std::istringstream in(dirs);
  for (std::string dir; std::getline(in, dir, ':');) {
    if (dir.empty()) continue;
    const std::string candidate = dir + "/" + name;
    if (is_executable(candidate)) return candidate;
  }
  return std::nullopt;
}

CommandResult run(const std::vector<std::string>& argv) {
  if (argv.empty()) throw std::invalid_argument("run: empty argv");
  const std::optional<std::string> exe = find_tool(argv[0]);
  if (!exe) throw std::runtime_error("command not found: " + argv[0]);

  int out_pipe[2], err_pipe[2];
  if (::pipe2(out_pipe, O_CLOEXEC) != 0 || ::pipe2(err_pipe, O_CLOEXEC) != 0) {
    throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  }
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);

  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    ::dup2(out_pipe[1], STDOUT_FILENO);
    ::dup2(err_pipe[1], STDERR_FILENO);
    // The C locale keeps the reference output in the format the parsers expect.
    const char* env[] = {"LC_ALL=C", "PATH=/usr/sbin:/usr/bin:/sbin:/bin", nullptr};
    ::execve(exe->c_str(), args.data(), const_cast<char* const*>(env));
    ::_exit(127);
  }
  ::close(out_pipe[1]);
  ::close(err_pipe[1]);

  CommandResult result;
  std::array<pollfd, 2> fds{{{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}}};
  std::array<std::string*, 2> sinks{&result.out, &result.err};
  int open_fds = 2;
  while (open_fds > 0) {
    if (::poll(fds.data(), fds.size(), -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (std::size_t i = 0; i < fds.size(); ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      std::array<char, 4096> buf{};
      const ssize_t n = ::read(fds[i].fd, buf.data(), buf.size());
      if (n > 0) {
        sinks[i]->append(buf.data(), static_cast<std::size_t>(n));
      } else if (n == 0 || errno != EINTR) {
        ::close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
      }
    }
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return result;
}

CommandResult must_run(const std::vector<std::string>& argv) {
  CommandResult r = run(argv);
  if (r.exit_code != 0) {
    throw std::runtime_error("`" + describe(argv) + "` exited " + std::to_string(r.exit_code) +
                             ": " + r.err);
  }
  return r;
}

std::optional<std::string> enter_private_netns() {
  for (const char* tool : {"ip", "ethtool"}) {
    if (!find_tool(tool)) return std::string("the `") + tool + "` command is not installed";
  }
  if (::unshare(CLONE_NEWNET) != 0) {
    return std::string("unshare(CLONE_NEWNET) failed: ") + std::strerror(errno) +
           " (needs root or CAP_SYS_ADMIN)";
  }
  // Creating links needs CAP_NET_ADMIN in the new namespace; `lo up` is the cheapest probe.
  const CommandResult lo = run({"ip", "link", "set", "lo", "up"});
  if (lo.exit_code != 0)
    return "cannot configure the private namespace (no CAP_NET_ADMIN?): " + lo.err;
  sysfs_problem = testing::mount_private_sysfs();
  return std::nullopt;
}

const std::optional<std::string>& private_sysfs_problem() {
  return sysfs_problem;
}

}  // namespace rdmatop::kernel_test
