// The attribute-file cache (collector/source/cached_file_source.h) on a temporary tree: held
// descriptors re-read with pread, files rewritten in place, replaced, removed, a descriptor
// failing like a removed kernfs node, static values served from memory with their age, and a
// whole collection pass of the mlx5 fixture costing one pread per value the second time.
#include <linux/magic.h>
#include <sys/resource.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "collector/collect.h"
#include "collector/source/cached_file_source.h"
#include "collector/source/ethtool_source.h"

namespace rdmatop {
namespace {

namespace fs = std::filesystem;

class CacheTree {
 public:
  CacheTree() {
    std::string tmpl = (fs::temp_directory_path() / "rdmatop-cache-XXXXXX").string();
    REQUIRE(::mkdtemp(tmpl.data()) != nullptr);
    dir_ = tmpl;
  }
  CacheTree(const CacheTree&) = delete;
  CacheTree& operator=(const CacheTree&) = delete;
  ~CacheTree() {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  const fs::path& root() const { return dir_; }
  /// Rewrites in place (truncate + write), as sysfs values and the simulator's tree change.
  void write(const std::string& rel, const std::string& content) const {
    fs::create_directories((dir_ / rel).parent_path());
    std::ofstream(dir_ / rel, std::ios::binary | std::ios::trunc) << content;
  }
  /// Replaces by rename: a new inode under the old name.
  void replace(const std::string& rel, const std::string& content) const {
    write(rel + ".new", content);
    fs::rename(dir_ / (rel + ".new"), dir_ / rel);
  }
  void remove(const std::string& rel) const { fs::remove_all(dir_ / rel); }

 private:
  fs::path dir_;
};

TEST_CASE("a polled file is opened once and re-read with one pread", "[cached_file_source]") {
  CacheTree tree;
  tree.write("class/net/eth0/statistics/rx_bytes", "100\n");
  const auto src = make_cached_file_source(tree.root().string());
  src->begin_pass();
  REQUIRE(src->read_polled("class/net/eth0/statistics/rx_bytes").value() == "100\n");
  const FileCacheStats first = src->stats();
  CHECK(first.opens == 1);
  CHECK(first.held == 1);

  tree.write("class/net/eth0/statistics/rx_bytes", "250\n");  // in place: same inode
  src->begin_pass();
  REQUIRE(src->read_polled("class/net/eth0/statistics/rx_bytes").value() == "250\n");
  const FileCacheStats second = src->stats();
  CHECK(second.opens == 1);                  // no open in the second pass
  CHECK(second.preads == first.preads + 1);  // one system call for the value
}

TEST_CASE("the cache holds at most a quarter of the descriptor limit", "[cached_file_source]") {
  CacheTree tree;
  for (int i = 0; i < 40; ++i) tree.write("dev/counters/c" + std::to_string(i), "1\n");
  rlimit saved{};
  REQUIRE(::getrlimit(RLIMIT_NOFILE, &saved) == 0);
  rlimit low = saved;
  low.rlim_cur = 64;  // the process keeps fewer than 64 open here (Catch2, the tree, stdio)
  REQUIRE(::setrlimit(RLIMIT_NOFILE, &low) == 0);
  const auto src = make_cached_file_source(tree.root().string());
  REQUIRE(::setrlimit(RLIMIT_NOFILE, &saved) == 0);
  src->begin_pass();
  for (int i = 0; i < 40; ++i) {
    CHECK(src->read_polled("dev/counters/c" + std::to_string(i)).value() == "1\n");
  }
  CHECK(src->stats().held == 16);  // 64 / 4; the other 24 files are opened, read and closed
  CHECK(src->stats().opens == 40);
}

TEST_CASE("a file replaced or removed between passes is not read through the old descriptor",
          "[cached_file_source]") {
  CacheTree tree;
  tree.write("dev/ports/1/counters/port_rcv_data", "7\n");
  const auto src = make_cached_file_source(tree.root().string());
  src->begin_pass();
  REQUIRE(src->read_polled("dev/ports/1/counters/port_rcv_data").value() == "7\n");

  tree.replace("dev/ports/1/counters/port_rcv_data", "8\n");
  src->begin_pass();  // the rename is reported by inotify: the descriptor is dropped
  CHECK(src->read_polled("dev/ports/1/counters/port_rcv_data").value() == "8\n");
  CHECK(src->stats().opens == 2);

  tree.remove("dev/ports/1/counters/port_rcv_data");
  src->begin_pass();
  const auto gone = src->read_polled("dev/ports/1/counters/port_rcv_data");
  REQUIRE_FALSE(gone.ok());
  CHECK(gone.error().code == ENOENT);
  CHECK(src->stats().held == 0);

  tree.write("dev/ports/1/counters/port_rcv_data", "9\n");  // the device came back
  src->begin_pass();
  CHECK(src->read_polled("dev/ports/1/counters/port_rcv_data").value() == "9\n");
}

TEST_CASE("a held descriptor failing like a removed kernfs node is closed and reopened",
          "[cached_file_source]") {
  CacheTree tree;
  tree.write("class/infiniband/mlx5_0/ports/1/hw_counters/out_of_buffer", "3\n");
  tree.write("class/infiniband/mlx5_0/ports/1/hw_counters/rx_write_requests", "4\n");
  bool unplugged = false;
  FileCacheOptions options;
  options.pread = [&](int fd, void* buf, std::size_t n, off_t off) -> ssize_t {
    if (unplugged) {
      errno = ENODEV;  // fs/kernfs/file.c: kernfs_get_active fails once the node is removed
      return -1;
    }
    return ::pread(fd, buf, n, off);
  };
  const auto src = make_cached_file_source(tree.root().string(), options);
  const std::string dir = "class/infiniband/mlx5_0/ports/1/hw_counters";
  src->begin_pass();
  REQUIRE(src->list_static(dir).value().size() == 2);
  REQUIRE(src->read_polled(dir + "/out_of_buffer").ok());
  REQUIRE(src->read_polled(dir + "/rx_write_requests").ok());
  REQUIRE(src->stats().held == 2);

  unplugged = true;  // the device vanishes mid-pass
  const auto failed = src->read_polled(dir + "/out_of_buffer");
  REQUIRE_FALSE(failed.ok());
  CHECK(failed.error().code == ENODEV);
  CHECK(src->stats().held == 0);  // every descriptor of that directory is closed
  const std::uint64_t listings = src->stats().listings;
  unplugged = false;

  src->begin_pass();  // next discovery: listed and opened again
  REQUIRE(src->list_static(dir).value().size() == 2);
  CHECK(src->stats().listings == listings + 1);
  CHECK(src->read_polled(dir + "/out_of_buffer").value() == "3\n");
  CHECK(src->stats().held == 1);
}

TEST_CASE("a static value is served from memory with its age until it changes",
          "[cached_file_source]") {
  CacheTree tree;
  tree.write("class/infiniband/mlx5_0/fw_ver", "22.31.1014\n");
  auto now = std::chrono::steady_clock::time_point{} + std::chrono::hours(1);
  FileCacheOptions options;
  options.clock = [&] { return now; };
  options.refresh_period = std::chrono::seconds(60);
  const auto src = make_cached_file_source(tree.root().string(), options);
  std::chrono::nanoseconds age{-1};
  src->begin_pass();
  REQUIRE(src->read_static("class/infiniband/mlx5_0/fw_ver", &age).value() == "22.31.1014\n");
  CHECK(age == std::chrono::nanoseconds{0});
  CHECK(src->stats().opens == 1);

  now += std::chrono::seconds(5);
  src->begin_pass();
  REQUIRE(src->read_static("class/infiniband/mlx5_0/fw_ver", &age).value() == "22.31.1014\n");
  CHECK(age == std::chrono::seconds(5));  // stale is not current: the age says how stale
  CHECK(src->stats().opens == 1);
  CHECK(src->stats().static_hits == 1);

  tree.write("class/infiniband/mlx5_0/fw_ver", "22.36.1010\n");  // firmware updated in place
  src->begin_pass();
  CHECK(src->read_static("class/infiniband/mlx5_0/fw_ver", &age).value() == "22.36.1010\n");
  CHECK(age == std::chrono::nanoseconds{0});

  now += std::chrono::seconds(61);  // the refresh period ends: read again though unchanged
  src->begin_pass();
  CHECK(src->read_static("class/infiniband/mlx5_0/fw_ver", &age).value() == "22.36.1010\n");
  CHECK(age == std::chrono::nanoseconds{0});
  CHECK(src->stats().opens == 3);

  src->invalidate("class/infiniband/mlx5_0");  // a notification the cache cannot see itself
  CHECK(src->read_static("class/infiniband/mlx5_0/fw_ver").ok());
  CHECK(src->stats().opens == 4);
}

/// Counts what a collection asks of its sysfs source, forwarding to the real one.
class CountingFileSource final : public FileSource {
 public:
  explicit CountingFileSource(const FileSource& inner) : inner_(inner) {}
  Result<std::string> read(std::string_view p) const override { return inner_.read(p); }
  Result<std::vector<std::string>> list(std::string_view p) const override {
    return inner_.list(p);
  }
  Result<std::string> read_link(std::string_view p) const override { return inner_.read_link(p); }
  std::string describe() const override { return inner_.describe(); }
  Result<std::string> read_polled(std::string_view p) const override {
    ++polled;
    return inner_.read_polled(p);
  }
  Result<std::string> read_static(std::string_view p,
                                  std::chrono::nanoseconds* age) const override {
    return inner_.read_static(p, age);
  }
  Result<std::vector<std::string>> list_static(std::string_view p) const override {
    return inner_.list_static(p);
  }
  Result<std::string> read_link_static(std::string_view p) const override {
    return inner_.read_link_static(p);
  }
  Result<std::vector<std::string>> list_current(std::string_view p) const override {
    return inner_.list_current(p);
  }
  void begin_pass() const override { inner_.begin_pass(); }
  mutable std::uint64_t polled = 0;

 private:
  const FileSource& inner_;
};

TEST_CASE("the second collection of the mlx5 fixture costs one pread per polled value",
          "[cached_file_source]") {
  CacheTree tree;
  fs::copy(fs::path(RDMATOP_SOURCE_DIR) / "tests/fixtures/hosts/mlx5/sys", tree.root() / "sys",
           fs::copy_options::recursive | fs::copy_options::copy_symlinks);
  const auto plain = make_directory_file_source((tree.root() / "sys").string());
  const auto cached = make_cached_file_source((tree.root() / "sys").string());
  const CountingFileSource counting(*cached);
  auto ethtool = make_dump_ethtool_source((tree.root() / "no-ethtool").string());
  const CollectContext plain_ctx{*plain, *ethtool, DeviceFilter{}};
  const CollectContext cached_ctx{counting, *ethtool, DeviceFilter{}};

  const Snapshot reference = collect_snapshot(plain_ctx, 1);
  Snapshot first = collect_snapshot(cached_ctx, 1);
  const FileCacheStats after_first = cached->stats();
  const std::uint64_t polled_first = counting.polled;
  Snapshot second = collect_snapshot(cached_ctx, 2);
  const FileCacheStats after_second = cached->stats();

  REQUIRE(!reference.devices.empty());
  // The same values as the plain source (clocks, durations and ages aside).
  const auto comparable = [](Snapshot s) {
    s.seq = 0;
    s.taken = {};
    s.wall = {};
    for (auto& st : s.sources) st.duration = {};
    for (auto& d : s.devices) {
      d.static_age = {};
      for (auto& p : d.ports) p.gid_table_age = {};
    }
    for (auto& n : s.netdevs) n.static_age = {};
    return s;
  };
  CHECK(comparable(first) == comparable(reference));
  CHECK(comparable(second) == comparable(reference));
  // Second pass: nothing opened, one pread per polled value.
  const std::uint64_t polled_second = counting.polled - polled_first;
  CHECK(after_second.opens == after_first.opens);
  CHECK(after_second.preads - after_first.preads == polled_second);
  // Nothing is listed again, not class/infiniband (inotify would tell of a new device), not even
  // what is absent (the fixture's two PCI functions have no
  // msi_irqs/): its absence is kept, watched through its parent.
  CHECK(after_second.listings == after_first.listings);
  CHECK(after_second.static_hits > after_first.static_hits);
  CHECK(polled_second == polled_first);
}

TEST_CASE("an absent directory is kept as absent until it is created", "[cached_file_source]") {
  CacheTree tree;
  tree.write("device/vendor", "0x15b3\n");
  const auto src = make_cached_file_source(tree.root().string());
  src->begin_pass();
  CHECK(src->list_static("device/msi_irqs").error().code == ENOENT);
  const std::uint64_t listed = src->stats().listings;
  src->begin_pass();
  CHECK(src->list_static("device/msi_irqs").error().code == ENOENT);
  CHECK(src->stats().listings == listed);  // from memory

  tree.write("device/msi_irqs/42", "msix\n");
  src->begin_pass();
  const auto names = src->list_static("device/msi_irqs");
  REQUIRE(names.ok());
  CHECK(*names == std::vector<std::string>{"42"});
  CHECK(src->stats().listings == listed + 1);

  // And absent again once removed.
  tree.remove("device/msi_irqs");
  src->begin_pass();
  CHECK(src->list_static("device/msi_irqs").error().code == ENOENT);
}

TEST_CASE("a discovery listing is served from memory only while inotify reports its changes",
          "[cached_file_source]") {
  CacheTree tree;
  tree.write("class/infiniband/mlx5_0/fw_ver", "16.35.2000\n");
  const auto src = make_cached_file_source(tree.root().string());
  src->begin_pass();
  CHECK(src->list_current("class/infiniband").value() == std::vector<std::string>{"mlx5_0"});
  const std::uint64_t listed = src->stats().listings;
  src->begin_pass();
  CHECK(src->list_current("class/infiniband").value() == std::vector<std::string>{"mlx5_0"});
  CHECK(src->stats().listings == listed);  // from memory: the tree is watched

  tree.write("class/infiniband/mlx5_1/fw_ver", "16.35.2000\n");  // a device registered
  src->begin_pass();
  CHECK(src->list_current("class/infiniband").value() ==
        std::vector<std::string>{"mlx5_0", "mlx5_1"});
  CHECK(src->stats().listings == listed + 1);

  tree.remove("class/infiniband/mlx5_0");  // and one unregistered
  src->begin_pass();
  CHECK(src->list_current("class/infiniband").value() == std::vector<std::string>{"mlx5_1"});
}

TEST_CASE("a discovery listing on sysfs is read again every pass", "[cached_file_source]") {
  // sysfs sends no inotify events for kernfs directories: a listing there is never served from
  // memory, so a device registered between two ticks is seen at the next one.
  struct statfs st {};
  if (::statfs("/sys/class/net", &st) != 0 || st.f_type != SYSFS_MAGIC) {
    WARN("SKIPPED: /sys/class/net is not sysfs here; the sysfs listing path is not checked");
    return;
  }
  const auto src = make_cached_file_source("/sys");
  src->begin_pass();
  REQUIRE(src->list_current("class/net").ok());
  const std::uint64_t listed = src->stats().listings;
  src->begin_pass();
  REQUIRE(src->list_current("class/net").ok());
  CHECK(src->stats().listings == listed + 1);
}

}  // namespace
}  // namespace rdmatop
