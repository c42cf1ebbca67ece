// The real filesystem behind FileSource: a root directory (/sys, a fixture tree, the
// simulator's tree) and relative paths under it. Symbolic links are followed, because sysfs
// class directories are links into /sys/devices; only the relative path itself is confined.
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "collector/source/file_source.h"

namespace rdmatop {
namespace {

// sysfs attributes are at most PAGE_SIZE (fs/sysfs/file.c); the default 64 KiB
// (make_directory_file_source) leaves room for larger pages and fixture files while bounding
// what a misdirected root can make us read.

/// Closes a file descriptor on scope exit.
class FdGuard {
 public:
  explicit FdGuard(int fd) : fd_(fd) {}
  FdGuard(const FdGuard&) = delete;
  FdGuard& operator=(const FdGuard&) = delete;
  ~FdGuard() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }

 private:
  int fd_;
};

class DirectoryFileSource final : public FileSource {
 public:
  DirectoryFileSource(std::string root, std::size_t max_read_size)
      : root_(normalize_root(std::move(root))), max_read_size_(max_read_size) {}

  Result<std::string> read(std::string_view relpath) const override {
    auto path = resolve_under_root(root_, relpath);
    if (!path) return path.error();
    // O_NONBLOCK: never hang on a FIFO someone left in a fixture tree; no effect on sysfs.
    FdGuard fd(::open(path->c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
    if (fd.get() < 0) return errno_error(errno, std::string(relpath));
    std::string content;
    std::array<char, 4096> buf{};
    for (;;) {
      const ssize_t n = ::read(fd.get(), buf.data(), buf.size());
      if (n < 0) {
        if (errno == EINTR) continue;
        return errno_error(errno, std::string(relpath));
      }
      if (n == 0) break;
      if (content.size() + static_cast<std::size_t>(n) > max_read_size_) {
        return Error{EFBIG, std::string(relpath) + ": larger than " +
                                std::to_string(max_read_size_) + " bytes, not a sysfs attribute"};
      }
      content.append(buf.data(), static_cast<std::size_t>(n));
    }
    return content;
  }

  Result<std::vector<std::string>> list(std::string_view reldir) const override {
    auto path = resolve_under_root(root_, reldir);
    if (!path) return path.error();
    std::unique_ptr<DIR, int (*)(DIR*)> dir(::opendir(path->c_str()), &::closedir);
    if (!dir) return errno_error(errno, std::string(reldir));
    std::vector<std::string> names;
    for (;;) {
      errno = 0;
      const dirent* entry = ::readdir(dir.get());
      if (entry == nullptr) {
        if (errno != 0) return errno_error(errno, std::string(reldir));
        break;
      }
      const std::string_view name = entry->d_name;
      if (name != "." && name != "..") names.emplace_back(name);
    }
    std::sort(names.begin(), names.end());
    return names;
  }

  std::optional<Error> lookup_error(std::string_view relpath) const override {
    auto path = resolve_under_root(root_, relpath);
    if (!path) return path.error();
    struct stat status {};
    if (::stat(path->c_str(), &status) != 0) return errno_error(errno, std::string(relpath));
    return std::nullopt;
  }

  Result<std::string> read_link(std::string_view relpath) const override {
    auto path = resolve_under_root(root_, relpath);
    if (!path) return path.error();
    std::string target(256, '\0');
    for (;;) {
      const ssize_t n = ::readlink(path->c_str(), target.data(), target.size());
      if (n < 0) return errno_error(errno, std::string(relpath));
      if (static_cast<std::size_t>(n) < target.size()) {
        target.resize(static_cast<std::size_t>(n));
        return target;
      }
      if (target.size() >= max_read_size_) {  // PATH_MAX is 4096; this is not a real link
        return Error{ENAMETOOLONG, std::string(relpath) + ": link target too long"};
      }
      target.resize(target.size() * 2);  // possibly truncated: retry with more room
    }
  }

  std::string describe() const override { return root_; }

 private:
  std::string root_;
  std::size_t max_read_size_;
};

}  // namespace

void FileSource::read_polled_many(std::string_view reldir, const Listing& names,
                                  std::vector<Result<std::string>>& out) const {
  out.clear();
  out.reserve(names->size());
  ChildPaths paths(reldir);
  for (const std::string& name : *names) out.push_back(read_polled(paths.of(name)));
}

Result<std::string> resolve_under_root(const std::string& root, std::string_view relpath) {
  const auto reject = [&](const char* why) {
    std::string shown(relpath);
    std::replace(shown.begin(), shown.end(), '\0', '?');
    return Error{EINVAL, shown + ": " + why};
  };
  if (relpath.find('\0') != std::string_view::npos) return reject("path contains a NUL byte");
  if (!relpath.empty() && relpath.front() == '/') {
    return reject("absolute path, expected one relative to the source root");
  }
  std::string path = root;
  std::size_t pos = 0;
  while (pos <= relpath.size()) {
    const std::size_t slash = std::min(relpath.find('/', pos), relpath.size());
    const std::string_view part = relpath.substr(pos, slash - pos);
    if (part == "..") return reject("\"..\" would leave the source root");
    if (!part.empty() && part != ".") {
      if (path.back() != '/') path += '/';
      path += part;
    }
    pos = slash + 1;
  }
  return path;
}

std::string normalize_root(std::string root) {
  while (root.size() > 1 && root.back() == '/') root.pop_back();
  if (root.empty()) root = ".";
  return root;
}

std::unique_ptr<FileSource> make_directory_file_source(std::string root,
                                                       std::size_t max_read_size) {
  return std::make_unique<DirectoryFileSource>(std::move(root), max_read_size);
}

}  // namespace rdmatop
