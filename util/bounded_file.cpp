#include "util/bounded_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>

namespace rdmatop {
namespace {

const char* kind_of(mode_t mode) {
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  return "not a regular file";
}

Error too_large(const std::string& path, std::size_t max_bytes) {
  return Error{EFBIG, path + ": larger than " + std::to_string(max_bytes) + " bytes"};
}

}  // namespace

std::optional<Error> not_regular_file(const std::string& path, mode_t mode) {
  if (S_ISREG(mode)) return std::nullopt;
  if (S_ISDIR(mode)) return errno_error(EISDIR, path);
  return Error{EINVAL, path + ": " + kind_of(mode) + ", not a regular file"};
}

Result<int> open_regular_file(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return errno_error(errno, path);
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const int err = errno;
    ::close(fd);
    return errno_error(err, path);
  }
  auto problem = not_regular_file(path, st.st_mode);
  if (!problem) return fd;
  ::close(fd);
  return *std::move(problem);
}

Result<std::string> read_bounded_file(const std::string& path, std::size_t max_bytes) {
  auto opened = open_regular_file(path);
  if (!opened) return opened.error();
  const int fd = *opened;
  struct stat st {};
  if (::fstat(fd, &st) == 0 && static_cast<std::size_t>(st.st_size) > max_bytes) {
    ::close(fd);
    return too_large(path, max_bytes);
  }
  std::string data;
  data.reserve(static_cast<std::size_t>(st.st_size));
  std::array<char, 16384> buffer{};
  for (;;) {
    const ssize_t n = ::read(fd, buffer.data(), buffer.size());
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      ::close(fd);
      return errno_error(err, path);
    }
    if (data.size() + static_cast<std::size_t>(n) > max_bytes) {
      ::close(fd);
      return too_large(path, max_bytes);
    }
    data.append(buffer.data(), static_cast<std::size_t>(n));
  }
  ::close(fd);
  return data;
}

}  // namespace rdmatop
