// report --capture's inputs: a file, a directory (recursive, in name order), a .tar.gz (read
// with libarchive, recognised by its bytes), and what cannot be read (listed, never fatal,
// never blocking).
#include <archive.h>
#include <archive_entry.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "collector/capture/capture_reader.h"

using namespace rdmatop::capture;
namespace fs = std::filesystem;

namespace {

struct TempDir {
  fs::path path;
  TempDir() {
    std::string templ = (fs::temp_directory_path() / "rdmatop-capture-XXXXXX").string();
    path = mkdtemp(templ.data());
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

void write_file(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << text;
}

// A .tar.gz of `files` (name, content), written with libarchive (ustar, gzip).
std::string make_tar_gz(const std::vector<std::pair<std::string, std::string>>& files) {
  std::vector<char> buffer(1 << 20);
  std::size_t used = 0;
  archive* a = archive_write_new();
  archive_write_add_filter_gzip(a);
  archive_write_set_format_ustar(a);
  REQUIRE(archive_write_open_memory(a, buffer.data(), buffer.size(), &used) == ARCHIVE_OK);
  for (const auto& [name, text] : files) {
    archive_entry* e = archive_entry_new();
    archive_entry_set_pathname(e, name.c_str());
    archive_entry_set_size(e, static_cast<la_int64_t>(text.size()));
    archive_entry_set_filetype(e, AE_IFREG);
    archive_entry_set_perm(e, 0644);
    archive_write_header(a, e);
    archive_write_data(a, text.data(), text.size());
    archive_entry_free(e);
  }
  archive_write_close(a);
  archive_write_free(a);
  return std::string(buffer.data(), used);
}

}  // namespace

TEST_CASE("capture inputs: file, directory, archive, unreadable", "[capture]") {
  TempDir dir;
  // ucx#11048's rdma link line, and a notes file nothing recognises.
  write_file(dir.path / "set/b/rdma-link.txt",
             "link bnxt_re0/1 state ACTIVE physical_state LINK_UP netdev enp194s0f0np0\n");
  write_file(dir.path / "set/a-notes.txt", "pasted from the ticket\n");
  const std::string tgz = make_tar_gz(
      {{"commands/ibstat.txt", "CA 'mlx5_7'\n"}, {"manifest.json", "{\"host\": \"x\"}\n"}});
  write_file(dir.path / "bundle.tar.gz", tgz);
  REQUIRE(mkfifo((dir.path / "fifo").c_str(), 0600) == 0);

  const auto inputs =
      read_capture_inputs({(dir.path / "set").string(), (dir.path / "bundle.tar.gz").string(),
                           (dir.path / "fifo").string(), (dir.path / "missing.txt").string()});
  REQUIRE(inputs.size() == 6);
  CHECK(inputs[0].name == (dir.path / "set/a-notes.txt").string());
  CHECK(inputs[1].name == (dir.path / "set/b/rdma-link.txt").string());
  CHECK(inputs[1].text.starts_with("link bnxt_re0/1"));
  CHECK(inputs[2].name == (dir.path / "bundle.tar.gz").string() + ":commands/ibstat.txt");
  CHECK(inputs[2].text == "CA 'mlx5_7'\n");
  CHECK(inputs[3].name == (dir.path / "bundle.tar.gz").string() + ":manifest.json");
  // A FIFO is refused at once (bounded_file.h), not waited on; a missing file is listed.
  CHECK_FALSE(inputs[4].error.empty());
  CHECK(inputs[4].text.empty());
  CHECK(inputs[5].error.find("No such file") != std::string::npos);

  const auto set = assemble(inputs);
  REQUIRE(set.captures.size() == 1);
  CHECK(set.captures[0].devices.contains("bnxt_re0"));
  CHECK(set.captures[0].devices.contains("mlx5_7"));
  CHECK(set.files.size() == 6);
  CHECK(describe(set.files[0]).starts_with("no known format"));
}

TEST_CASE("capture inputs: a damaged archive is listed, not fatal", "[capture]") {
  std::string tgz = make_tar_gz({{"ibstat.txt", std::string(4096, 'x')}});
  tgz.resize(tgz.size() / 2);  // cut in the middle of the gzip stream
  bool is_archive = false;
  const auto members = read_archive("cut.tar.gz", tgz, is_archive);
  CHECK(is_archive);
  bool listed = false;
  for (const auto& m : members) listed = listed || !m.error.empty();
  CHECK(listed);
  // Text that is not an archive is not taken for one.
  const auto none = read_archive("x.txt", "CA 'mlx5_0'\n", is_archive);
  CHECK_FALSE(is_archive);
  CHECK(none.empty());
}
