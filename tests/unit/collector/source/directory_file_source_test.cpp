#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "collector/source/file_source.h"

namespace rdmatop {
namespace {

namespace fs = std::filesystem;
using namespace std::string_literals;

/// A fresh temporary directory holding `root/` (the source root) and `outside/` (what an
/// escaping path would reach), removed at the end of the test.
class TempTree {
 public:
  TempTree() {
    std::string tmpl = (fs::temp_directory_path() / "rdmatop-dfs-XXXXXX").string();
    REQUIRE(::mkdtemp(tmpl.data()) != nullptr);
    dir_ = tmpl;
    fs::create_directories(dir_ / "root");
    write("outside/secret", "secret\n");
  }
  TempTree(const TempTree&) = delete;
  TempTree& operator=(const TempTree&) = delete;
  ~TempTree() {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  fs::path root() const { return dir_ / "root"; }

  void write(const std::string& rel, const std::string& content) const {
    const fs::path p = dir_ / rel;
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << content;
  }
  void write_root(const std::string& rel, const std::string& content) const {
    write("root/" + rel, content);
  }
  void symlink_root(const std::string& target, const std::string& rel) const {
    const fs::path p = root() / rel;
    fs::create_directories(p.parent_path());
    fs::create_symlink(target, p);
  }

 private:
  fs::path dir_;
};

TEST_CASE("directory source reads files whole", "[directory_file_source]") {
  TempTree tree;
  tree.write_root("class/net/eth0/mtu", "1500\n");
  const std::string binary = "\x01\xff\0tail"s;
  tree.write_root("bin", binary);
  auto src = make_directory_file_source(tree.root().string());

  const auto mtu = src->read("class/net/eth0/mtu");
  REQUIRE(mtu.ok());
  CHECK(*mtu == "1500\n");
  const auto bin = src->read("bin");
  REQUIRE(bin.ok());
  CHECK(*bin == binary);  // bytes are passed through untouched; parsers judge them

  // A redundant "./" or "//" does not change the meaning.
  const auto again = src->read("./class//net/eth0/mtu");
  REQUIRE(again.ok());
  CHECK(*again == "1500\n");
  CHECK(src->describe() == tree.root().string());
}

TEST_CASE("directory source reports errno with the relative path", "[directory_file_source]") {
  TempTree tree;
  tree.write_root("class/infiniband/mlx5_0/ports/1/state", "4: ACTIVE\n");
  auto src = make_directory_file_source(tree.root().string());

  const auto missing = src->read("class/infiniband/mlx5_0/fw_ver");
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().code == ENOENT);
  CHECK(missing.error().message.rfind("class/infiniband/mlx5_0/fw_ver: ", 0) == 0);
  // The root is not part of the message: statuses name objects, not host paths.
  CHECK(missing.error().message.find(tree.root().string()) == std::string::npos);

  const auto dir = src->read("class/infiniband/mlx5_0/ports");
  REQUIRE_FALSE(dir.ok());
  CHECK(dir.error().code == EISDIR);

  const auto not_dir = src->list("class/infiniband/mlx5_0/ports/1/state");
  REQUIRE_FALSE(not_dir.ok());
  CHECK(not_dir.error().code == ENOTDIR);

  const auto no_dir = src->list("class/net");
  REQUIRE_FALSE(no_dir.ok());
  CHECK(no_dir.error().code == ENOENT);
}

TEST_CASE("directory source lists sorted names without dot entries", "[directory_file_source]") {
  TempTree tree;
  for (const char* name : {"rxe0", "mlx5_1", "mlx5_0", "bnxt_re0", ".hidden"}) {
    tree.write_root(std::string("class/infiniband/") + name + "/node_type", "1: CA\n");
  }
  auto src = make_directory_file_source(tree.root().string());
  const auto names = src->list("class/infiniband");
  REQUIRE(names.ok());
  CHECK(*names == std::vector<std::string>{".hidden", "bnxt_re0", "mlx5_0", "mlx5_1", "rxe0"});

  for (const char* root_name : {"", "."}) {
    const auto top = src->list(root_name);
    REQUIRE(top.ok());
    CHECK(*top == std::vector<std::string>{"class"});
  }
  // A trailing slash on the root is harmless.
  auto slashed = make_directory_file_source(tree.root().string() + "/");
  CHECK(slashed->list("class/infiniband").ok());
}

TEST_CASE("directory source follows symlinks like sysfs class links", "[directory_file_source]") {
  TempTree tree;
  tree.write_root("devices/pci0000:00/0000:3b:00.0/infiniband/mlx5_0/fw_ver", "16.35.2000\n");
  tree.write_root("bus/pci/drivers/mlx5_core/.keep", "");
  tree.symlink_root("../../devices/pci0000:00/0000:3b:00.0/infiniband/mlx5_0",
                    "class/infiniband/mlx5_0");
  tree.symlink_root("../../../0000:3b:00.0",
                    "devices/pci0000:00/0000:3b:00.0/infiniband/mlx5_0/device");
  tree.symlink_root("../../../bus/pci/drivers/mlx5_core", "devices/pci0000:00/0000:3b:00.0/driver");
  auto src = make_directory_file_source(tree.root().string());

  const auto fw = src->read("class/infiniband/mlx5_0/fw_ver");
  REQUIRE(fw.ok());
  CHECK(*fw == "16.35.2000\n");
  const auto names = src->list("class/infiniband/mlx5_0");
  REQUIRE(names.ok());
  CHECK(*names == std::vector<std::string>{"device", "fw_ver"});

  const auto link = src->read_link("class/infiniband/mlx5_0/device");
  REQUIRE(link.ok());
  CHECK(*link == "../../../0000:3b:00.0");  // as stored, not resolved
  const auto driver = src->read_link("class/infiniband/mlx5_0/device/driver");
  REQUIRE(driver.ok());
  CHECK(*driver == "../../../bus/pci/drivers/mlx5_core");

  const auto not_link = src->read_link("class/infiniband/mlx5_0/fw_ver");
  REQUIRE_FALSE(not_link.ok());
  CHECK(not_link.error().code == EINVAL);
  const auto no_link = src->read_link("class/infiniband/rxe0/device");
  REQUIRE_FALSE(no_link.ok());
  CHECK(no_link.error().code == ENOENT);

  // A long link target is returned whole (the first readlink buffer is smaller).
  const std::string long_target = std::string(300, 'a') + "/" + std::string(200, 'b');
  tree.symlink_root(long_target, "long");
  const auto long_link = src->read_link("long");
  REQUIRE(long_link.ok());
  CHECK(*long_link == long_target);
}

// The "did the owner vanish" check: a directory, a file or a link to one is there; what is not
// (or stopped being) gives ENOENT, as the listing it replaces did.
TEST_CASE("directory source looks a path up without listing it", "[directory_file_source]") {
  TempTree tree;
  tree.write_root("devices/mlx5_0/ports/1/state", "4: ACTIVE\n");
  tree.symlink_root("../../devices/mlx5_0", "class/infiniband/mlx5_0");
  auto src = make_directory_file_source(tree.root().string());
  CHECK_FALSE(src->lookup_error("class/infiniband/mlx5_0").has_value());
  CHECK_FALSE(src->lookup_error("class/infiniband/mlx5_0/ports/1").has_value());
  CHECK_FALSE(src->lookup_error("class/infiniband/mlx5_0/ports/1/state").has_value());
  const auto missing = src->lookup_error("class/infiniband/mlx5_0/ports/1/counters");
  REQUIRE(missing.has_value());
  CHECK(missing->code == ENOENT);
  CHECK(missing->message.find("ports/1/counters") != std::string::npos);
  fs::remove_all(tree.root() / "devices/mlx5_0");
  const auto gone = src->lookup_error("class/infiniband/mlx5_0");
  REQUIRE(gone.has_value());
  CHECK(gone->code == ENOENT);
}

TEST_CASE("directory source rejects paths that escape the root", "[directory_file_source]") {
  TempTree tree;
  tree.write_root("a/file", "x\n");
  auto src = make_directory_file_source(tree.root().string());
  // "../outside/secret" exists relative to the root: only the path check keeps it out.
  for (const std::string& bad : {"../outside/secret"s, "a/../../outside/secret"s, ".."s, "a/.."s,
                                 "/etc/passwd"s, "a/file\0/x"s}) {
    INFO(bad);
    for (int op = 0; op < 4; ++op) {
      const Error err = op == 0   ? src->read(bad).error()
                        : op == 1 ? src->list(bad).error()
                        : op == 2 ? src->read_link(bad).error()
                                  : src->lookup_error(bad).value_or(Error{});
      CHECK(err.code == EINVAL);
      CHECK(err.message.find("secret\n") == std::string::npos);
    }
  }
  // A name that merely contains dots is fine.
  tree.write_root("a/..b", "ok\n");
  CHECK(src->read("a/..b").ok());
}

TEST_CASE("directory source caps reads at 64 KiB", "[directory_file_source]") {
  TempTree tree;
  tree.write_root("exact", std::string(64 * 1024, 'x'));
  tree.write_root("big", std::string(64 * 1024 + 1, 'x'));
  auto src = make_directory_file_source(tree.root().string());
  const auto exact = src->read("exact");
  REQUIRE(exact.ok());
  CHECK(exact->size() == 64 * 1024);
  const auto big = src->read("big");
  REQUIRE_FALSE(big.ok());
  CHECK(big.error().code == EFBIG);
  CHECK_THAT(big.error().message, Catch::StartsWith("big: "));
}

TEST_CASE("directory source does not block on a FIFO", "[directory_file_source]") {
  TempTree tree;
  const std::string fifo = (tree.root() / "fifo").string();
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  auto src = make_directory_file_source(tree.root().string());
  const auto r = src->read("fifo");  // no writer: an empty read, not a hang
  REQUIRE(r.ok());
  CHECK(r->empty());
}

TEST_CASE("directory source passes EACCES through", "[directory_file_source]") {
  TempTree tree;
  tree.write_root("hw_counters/secret", "1\n");
  const std::string path = (tree.root() / "hw_counters/secret").string();
  REQUIRE(::chmod(path.c_str(), 0) == 0);
  auto src = make_directory_file_source(tree.root().string());
  const auto r = src->read("hw_counters/secret");
  if (::geteuid() == 0) {
    // root bypasses file modes, so EACCES cannot be produced here; the collector tests cover
    // the EACCES policy with the fake source.
    WARN("running as root: EACCES not observable, checked only that the read succeeds");
    CHECK(r.ok());
  } else {
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == EACCES);
    CHECK(r.error().message == "hw_counters/secret: Permission denied");
  }
}

}  // namespace
}  // namespace rdmatop
