// `rdmatop capture`: the incident bundle of this host (docs/capture.md "rdmatop capture"):
// the raw outputs of the diagnostic commands under commands/, an N-second rdmatop recording
// and manifest.json, in one .tar.gz that `report --capture` reads back.
#include <sys/utsname.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <memory>
#include <thread>

#include "cli/build_info.h"
#include "cli/commands.h"
#include "cli/common_options.h"
#include "collector/bundle/bundle.h"
#include "collector/bundle/capture_plan.h"
#include "pipeline/monitor.h"
#include "pipeline/tick.h"
#include "recording/recording_writer.h"
#include "util/bounded_file.h"

namespace rdmatop {

namespace {

/// Exit code when the bundle cannot be written (as `rdmatop record`'s, docs/recording.md).
constexpr int kCaptureIoError = 5;
/// The recording stays under the reader's per-file cap (collector/capture/capture_reader.h).
constexpr std::uint64_t kRecordingMaxBytes = 15U << 20U;

struct CaptureOptions {
  std::string output;
  double seconds = 10;
  double interval = 1;
  double command_timeout = 5;
  double total_timeout = 120;
  std::size_t max_output_bytes = 4U << 20U;
  std::size_t max_total_bytes = 128U << 20U;
  std::string sysfs_root = "/sys";
  std::string procfs_root = "/proc";
};

std::string utc_time(std::time_t t, const char* format) {
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, format, &tm);
  return buf;
}

/// The N-second recording, through the same writer as `rdmatop record`.
bundle::BundleEntry record_host(const CaptureOptions& options, const std::string& tmp_dir) {
  bundle::BundleEntry entry;
  entry.path = "recording.jsonl";
  // Not a fallback: the manifest lists it with its bytes and, if it failed, why.
  SourceOptions source_options;
  source_options.sysfs_root = options.sysfs_root;
  const HostSources sources(source_options);
  const CollectContext ctx = sources.context();  // the provider keeps a reference to it
  const SnapshotProvider provider = live_provider(ctx);
  const std::string file = tmp_dir + "/recording.jsonl";
  RecordingWriter writer(
      RecordingWriterOptions{file, /*gzip=*/false, kRecordingMaxBytes, 0, options.interval});
  const auto interval = std::chrono::duration_cast<std::chrono::steady_clock::duration>(
      std::chrono::duration<double>(options.interval));
  const auto start = std::chrono::steady_clock::now();
  const auto end = start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                               std::chrono::duration<double>(options.seconds));
  for (std::uint64_t seq = 1;; ++seq) {
    const std::optional<Snapshot> snapshot = provider(seq);
    if (!snapshot) break;
    const auto written = writer.write(*snapshot);
    if (!written) {
      entry.error = written.error().message;
      break;
    }
    if (!*written) {
      entry.truncated = true;
      break;
    }
    const auto next = start + static_cast<long>(seq) * interval;
    if (next > end) break;
    std::this_thread::sleep_until(next);
  }
  if (auto err = writer.close(); err && entry.error.empty()) entry.error = err->message;
  if (!entry.error.empty()) return entry;
  auto bytes = read_bounded_file(file, kRecordingMaxBytes + (1U << 20U));
  if (!bytes) {
    entry.error = bytes.error().message;
  } else {
    entry.bytes = std::move(bytes).value();
  }
  return entry;
}

int run_capture(const CaptureOptions& options, const std::vector<std::string>& argv) {
  const auto started = std::chrono::steady_clock::now();
  const std::time_t now = std::time(nullptr);
  struct utsname uts {};
  ::uname(&uts);
  bundle::ManifestHost host;
  host.hostname = uts.nodename;
  host.kernel = uts.release;
  host.machine = uts.machine;
  host.time_utc = utc_time(now, "%Y-%m-%dT%H:%M:%SZ");
  host.rdmatop_version = std::string(build_info().version) + " (" + build_info().describe + ")";
  host.argv = argv;
  const std::string stem = "rdmatop-capture-" + bundle::bundle_file_name({host.hostname}) + "-" +
                           utc_time(now, "%Y%m%dT%H%M%SZ");
  const std::string output = options.output.empty() ? stem + ".tar.gz" : options.output;

  const bundle::HostNames names = bundle::discover_host(options.sysfs_root);
  std::vector<bundle::BundleEntry> entries;
  std::size_t total = 0;
  const auto deadline = started + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                      std::chrono::duration<double>(options.total_timeout));
  for (const bundle::PlannedCommand& planned :
       bundle::plan_commands(names, options.sysfs_root, options.procfs_root)) {
    bundle::BundleEntry entry;
    entry.path = planned.path;
    const auto left = deadline - std::chrono::steady_clock::now();
    if (left <= std::chrono::steady_clock::duration::zero()) {
      entry.error = "not run: the capture's time budget (--total-timeout) was spent";
      entries.push_back(std::move(entry));
      continue;
    }
    const bool installed = !planned.argv.empty() && !bundle::find_program(planned.argv[0]).empty();
    if (installed || !planned.own_read) {
      bundle::CommandLimits limits;
      limits.timeout = std::min(std::chrono::duration_cast<std::chrono::milliseconds>(
                                    std::chrono::duration<double>(options.command_timeout)),
                                std::chrono::duration_cast<std::chrono::milliseconds>(left));
      limits.max_output_bytes = options.max_output_bytes;
      bundle::CommandResult result = bundle::run_command(planned.argv, limits);
      entry.bytes = std::move(result.output);
      result.output.clear();
      entry.truncated = result.truncated;
      // A failed command's stdout is kept when it printed some (a partial dump still says
      // something); the manifest says why it failed.
      if (!result.ok() && !result.truncated && entry.bytes.empty()) entry.error = result.error;
      entry.command = std::move(result);
    } else {
      entry.bytes = planned.own_read();
      entry.fallback = planned.own_read_name;
      if (!planned.argv.empty()) entry.fallback += " (" + planned.argv[0] + " is not installed)";
      if (entry.bytes.size() > options.max_output_bytes) {
        entry.bytes.resize(options.max_output_bytes);
        entry.truncated = true;
      }
    }
    if (entry.error.empty() && total + entry.bytes.size() > options.max_total_bytes) {
      entry.error = "not kept: the bundle's size budget (--max-total-bytes) was spent";
      entry.bytes.clear();
    }
    total += entry.bytes.size();
    entries.push_back(std::move(entry));
  }

  if (options.seconds > 0) {
    std::error_code ec;
    const std::filesystem::path base = std::filesystem::temp_directory_path(ec);
    std::string tmpl = (ec ? std::string("/tmp") : base.string()) + "/rdmatop-capture.XXXXXX";
    if (::mkdtemp(tmpl.data()) == nullptr) {
      std::cerr << "rdmatop capture: " << tmpl << ": " << std::strerror(errno) << "\n";
      return kCaptureIoError;
    }
    std::cerr << "rdmatop capture: recording " << options.seconds << " s\n";
    entries.push_back(record_host(options, tmpl));
    std::filesystem::remove_all(tmpl, ec);
  }

  host.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  const auto manifest = bundle::make_manifest(host, entries);
  auto written =
      bundle::write_bundle(output, stem, entries, manifest, static_cast<std::int64_t>(now));
  if (!written) {
    std::cerr << "rdmatop capture: " << written.error().message << "\n";
    return kCaptureIoError;
  }
  std::size_t failed = 0;
  for (const auto& e : entries) failed += e.error.empty() ? 0 : 1;
  std::cerr << "rdmatop capture: " << (entries.size() - failed) << " files (" << *written
            << " bytes) written to " << output << "; " << failed
            << " commands failed or were not installed (manifest.json says why)\n";
  return 0;
}

}  // namespace

void register_capture_command(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<CaptureOptions>();
  CLI::App* cmd = app.add_subcommand(
      "capture",
      "Write this host's incident bundle: the diagnostic commands' raw outputs, an N-second "
      "recording and a manifest, in one .tar.gz (docs/capture.md)");
  cmd->add_option("-o,--output", options->output,
                  "Bundle file (default rdmatop-capture-HOST-TIME.tar.gz here)");
  cmd->add_option("--seconds", options->seconds, "Seconds of rdmatop recording (0: none)")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 3600.0));
  cmd->add_option("--interval", options->interval, "Seconds between the recording's snapshots")
      ->capture_default_str()
      ->check(CLI::Range(0.1, 3600.0));
  cmd->add_option("--command-timeout", options->command_timeout,
                  "Seconds one command may run before it is killed")
      ->capture_default_str()
      ->check(CLI::Range(0.1, 600.0));
  cmd->add_option("--total-timeout", options->total_timeout,
                  "Seconds all commands together may run (the recording comes on top)")
      ->capture_default_str()
      ->check(CLI::Range(1.0, 3600.0));
  cmd->add_option("--max-output-bytes", options->max_output_bytes,
                  "Bytes of one command's output kept (the command is then killed)")
      ->capture_default_str()
      ->check(CLI::Range(std::size_t{4096}, std::size_t{16U << 20U}));
  cmd->add_option("--max-total-bytes", options->max_total_bytes,
                  "Bytes of all command outputs kept")
      ->capture_default_str()
      ->check(CLI::Range(std::size_t{1U << 20U}, std::size_t{200U << 20U}));
  cmd->add_option("--sysfs-root", options->sysfs_root, "Where sysfs is mounted")
      ->capture_default_str();
  cmd->callback([options, cmd, &exit_code] {
    std::vector<std::string> argv{"rdmatop", "capture"};
    for (const CLI::Option* opt : cmd->get_options()) {
      if (opt->count() == 0 || opt->get_name() == "--help") continue;
      argv.push_back(opt->get_name());
      for (const std::string& r : opt->results()) argv.push_back(r);
    }
    exit_code = run_capture(*options, argv);
  });
}

}  // namespace rdmatop
