#include "simulator/tree_writer.h"

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <system_error>

namespace rdmatop::sim {

namespace {

namespace fs = std::filesystem;

Error fs_error(const std::error_code& ec, const std::string& what) {
  return Error{ec.value(), what + ": " + ec.message()};
}

class TempTreeWriter final : public TreeWriter {
 public:
  explicit TempTreeWriter(std::string root) : root_(std::move(root)) {}
  ~TempTreeWriter() override {
    std::error_code ec;
    fs::remove_all(root_, ec);  // best effort: nothing useful to do on failure at exit
  }
  TempTreeWriter(const TempTreeWriter&) = delete;
  TempTreeWriter& operator=(const TempTreeWriter&) = delete;

  Result<bool> apply(const TreeImage& image) override {
    for (const auto& [path, _] : written_.files) {
      if (!image.files.contains(path)) {
        if (auto r = remove(path); !r) return r;
      }
    }
    for (const auto& [path, _] : written_.links) {
      if (!image.links.contains(path)) {
        if (auto r = remove(path); !r) return r;
      }
    }
    for (const auto& [path, content] : image.files) {
      const auto it = written_.files.find(path);
      if (it != written_.files.end() && it->second == content) continue;
      if (auto r = write(path, content); !r) return r;
    }
    for (const auto& [path, target] : image.links) {
      const auto it = written_.links.find(path);
      if (it != written_.links.end() && it->second == target) continue;
      if (auto r = link(path, target); !r) return r;
    }
    written_ = image;
    return true;
  }

  const std::string& root() const override { return root_; }

 private:
  std::string full(const std::string& rel) const { return root_ + "/" + rel; }

  Result<bool> remove(const std::string& rel) {
    std::error_code ec;
    fs::remove(full(rel), ec);
    if (ec) return fs_error(ec, full(rel));
    return true;
  }

  Result<bool> parent(const std::string& path) {
    std::error_code ec;
    fs::create_directories(fs::path(path).parent_path(), ec);
    if (ec) return fs_error(ec, path);
    return true;
  }

  // Rewritten in place (truncate + one write), like a sysfs attribute that changes value: the
  // collectors read after apply() returns, never concurrently.
  Result<bool> write(const std::string& rel, const std::string& content) {
    const std::string path = full(rel);
    if (auto r = parent(path); !r) return r;
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return errno_error(errno, path);
    std::size_t done = 0;
    while (done < content.size()) {
      const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
      if (n < 0) {
        if (errno == EINTR) continue;
        const int err = errno;
        ::close(fd);
        return errno_error(err, path);
      }
      done += static_cast<std::size_t>(n);
    }
    if (::close(fd) != 0) return errno_error(errno, path);
    return true;
  }

  Result<bool> link(const std::string& rel, const std::string& target) {
    const std::string path = full(rel);
    if (auto r = parent(path); !r) return r;
    std::error_code ec;
    fs::remove(path, ec);
    fs::create_symlink(target, path, ec);
    if (ec) return fs_error(ec, path);
    return true;
  }

  std::string root_;
  TreeImage written_;
};

}  // namespace

Result<std::unique_ptr<TreeWriter>> make_temp_tree_writer() {
  const char* tmp = std::getenv("TMPDIR");
  std::string templ =
      std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/rdmatop-sim-XXXXXX";
  if (::mkdtemp(templ.data()) == nullptr) return errno_error(errno, "mkdtemp " + templ);
  return std::unique_ptr<TreeWriter>(std::make_unique<TempTreeWriter>(templ));
}

}  // namespace rdmatop::sim
