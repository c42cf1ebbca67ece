#include "collector/capture/capture_reader.h"

#include <archive.h>
#include <archive_entry.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <memory>
#include <system_error>

#include "util/bounded_file.h"

namespace rdmatop::capture {
namespace {

namespace fs = std::filesystem;

struct Budget {
  std::size_t bytes = 0;
  std::size_t files = 0;
};

bool looks_like_archive(const std::string& bytes) {
  if (bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
      static_cast<unsigned char>(bytes[1]) == 0x8b) {
    return true;  // gzip (RFC 1952 ID1 ID2)
  }
  return bytes.size() >= 262 && bytes.compare(257, 5, "ustar") == 0;  // POSIX tar header magic
}

void add(std::vector<CaptureInput>& out, Budget& budget, CaptureInput input) {
  if (budget.files >= kMaxCaptureFiles) {
    if (budget.files == kMaxCaptureFiles) {
      out.push_back(CaptureInput{
          input.name,
          {},
          "more than " + std::to_string(kMaxCaptureFiles) + " files: the rest are not read"});
    }
    ++budget.files;
    return;
  }
  ++budget.files;
  if (input.error.empty() && budget.bytes + input.text.size() > kMaxCaptureTotalBytes) {
    input.error =
        "capture larger than " + std::to_string(kMaxCaptureTotalBytes) + " bytes in all: not read";
    input.text.clear();
  }
  budget.bytes += input.text.size();
  out.push_back(std::move(input));
}

void add_file(std::vector<CaptureInput>& out, Budget& budget, const std::string& path) {
  auto bytes = read_bounded_file(path, kMaxCaptureFileBytes);
  if (!bytes) {
    add(out, budget, CaptureInput{path, {}, bytes.error().message});
    return;
  }
  bool is_archive = false;
  auto members = read_archive(path, *bytes, is_archive);
  if (!is_archive) {
    add(out, budget, CaptureInput{path, std::move(bytes).value(), {}});
    return;
  }
  for (auto& member : members) add(out, budget, std::move(member));
}

}  // namespace

std::vector<CaptureInput> read_archive(const std::string& name, const std::string& bytes,
                                       bool& is_archive) {
  is_archive = false;
  std::vector<CaptureInput> out;
  if (!looks_like_archive(bytes)) return out;
  const std::unique_ptr<archive, decltype(&archive_read_free)> a(archive_read_new(),
                                                                 archive_read_free);
  // gzip or tar bytes are an archive, readable or not: never read as text.
  is_archive = true;
  if (!a) {
    out.push_back(CaptureInput{name, {}, "archive: out of memory"});
    return out;
  }
  archive_read_support_filter_gzip(a.get());
  archive_read_support_format_tar(a.get());
  archive_read_support_format_gnutar(a.get());
  if (archive_read_open_memory(a.get(), bytes.data(), bytes.size()) != ARCHIVE_OK) {
    const char* message = archive_error_string(a.get());
    out.push_back(CaptureInput{
        name, {}, std::string("archive unreadable: ") + (message != nullptr ? message : "?")});
    return out;
  }
  std::size_t total = 0;
  archive_entry* entry = nullptr;
  int rc = ARCHIVE_OK;
  while ((rc = archive_read_next_header(a.get(), &entry)) == ARCHIVE_OK) {
    if (archive_entry_filetype(entry) != AE_IFREG) continue;
    const char* path = archive_entry_pathname(entry);
    const std::string member = name + ":" + (path != nullptr ? path : "?");
    if (out.size() >= kMaxCaptureFiles) {
      out.push_back(CaptureInput{member, {}, "archive has too many files: the rest are not read"});
      break;
    }
    const la_int64_t size = archive_entry_size(entry);
    if (size < 0 || static_cast<std::size_t>(size) > kMaxCaptureFileBytes ||
        total + static_cast<std::size_t>(size) > kMaxCaptureTotalBytes) {
      out.push_back(CaptureInput{member, {}, "archive member too large: not read"});
      continue;
    }
    std::string text(static_cast<std::size_t>(size), '\0');
    const la_ssize_t got = archive_read_data(a.get(), text.data(), text.size());
    if (got < 0) {
      out.push_back(
          CaptureInput{member, {}, std::string("archive: ") + archive_error_string(a.get())});
      break;
    }
    text.resize(static_cast<std::size_t>(got));
    total += text.size();
    out.push_back(CaptureInput{member, std::move(text), {}});
  }
  if (rc != ARCHIVE_EOF && rc != ARCHIVE_OK) {
    const char* message = archive_error_string(a.get());
    out.push_back(CaptureInput{
        name,
        {},
        std::string("archive damaged: ") + (message != nullptr ? message : "unreadable")});
  }
  std::sort(out.begin(), out.end(),
            [](const CaptureInput& x, const CaptureInput& y) { return x.name < y.name; });
  return out;
}

std::vector<CaptureInput> read_capture_inputs(const std::vector<std::string>& paths) {
  std::vector<CaptureInput> out;
  Budget budget;
  for (const std::string& path : paths) {
    std::error_code ec;
    const auto status = fs::symlink_status(path, ec);
    if (!ec && fs::is_directory(status)) {
      std::vector<std::string> files;
      fs::recursive_directory_iterator it(path, fs::directory_options::skip_permission_denied, ec);
      for (; !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
        if (it->is_regular_file(ec) && !it->is_symlink(ec)) files.push_back(it->path().string());
        if (files.size() > kMaxCaptureFiles) break;
      }
      if (ec) out.push_back(CaptureInput{path, {}, path + ": " + ec.message()});
      std::sort(files.begin(), files.end());
      for (const std::string& file : files) add_file(out, budget, file);
      continue;
    }
    add_file(out, budget, path);
  }
  return out;
}

}  // namespace rdmatop::capture
