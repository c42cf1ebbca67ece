// `rdmatop record`: the live collectors in a timed loop, every snapshot streamed into a
// recording file (docs/recording.md) until --duration, the size cap, or SIGINT/SIGTERM.
#include <csignal>
#include <iostream>
#include <memory>
#include <optional>
#include <thread>

#include "cli/commands.h"
#include "cli/common_options.h"
#include "pipeline/monitor.h"
#include "pipeline/tick.h"
#include "recording/recording_time.h"
#include "recording/recording_writer.h"

namespace rdmatop {

namespace {

/// Exit codes of `rdmatop record` besides 0 (done) and 3 (usage), see docs/recording.md.
constexpr int kRecordIoError = 5;

struct RecordOptions {
  SourceOptions sources;
  std::string output;
  double interval_seconds = 5.0;
  std::string duration;  ///< empty: until a signal
  std::uint64_t max_bytes = 0;
  unsigned rotate = 0;
  bool gzip = false;
  ProbeWiringOptions probes;
  std::string demo_scenario;  ///< non-empty: record the fabric simulator instead of this host
};

volatile std::sig_atomic_t g_stop_requested = 0;

void request_stop(int /*signal*/) {
  g_stop_requested = 1;
}

/// SIGINT/SIGTERM end the recording after the current line; the previous handlers come back
/// when the recording ends.
class StopSignals {
 public:
  StopSignals() {
    g_stop_requested = 0;
    struct sigaction action {};
    action.sa_handler = request_stop;
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, &action, &old_int_);
    sigaction(SIGTERM, &action, &old_term_);
  }
  ~StopSignals() {
    sigaction(SIGINT, &old_int_, nullptr);
    sigaction(SIGTERM, &old_term_, nullptr);
  }
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;
  static bool requested() { return g_stop_requested != 0; }

 private:
  struct sigaction old_int_ {};
  struct sigaction old_term_ {};
};

/// Sleeps until `deadline` in short slices, so a signal ends the wait promptly.
void sleep_until(std::chrono::steady_clock::time_point deadline) {
  constexpr auto kSlice = std::chrono::milliseconds(100);
  while (!StopSignals::requested()) {
    const auto now = std::chrono::steady_clock::now();
    if (now >= deadline) return;
    std::this_thread::sleep_for(
        std::min<std::chrono::steady_clock::duration>(deadline - now, kSlice));
  }
}

int run_record(const RecordOptions& options) {
  std::optional<std::chrono::nanoseconds> duration;
  if (!options.duration.empty()) {
    auto parsed = parse_duration(options.duration);
    if (!parsed) {
      std::cerr << "rdmatop record: --duration " << parsed.error().message << "\n";
      return static_cast<int>(ReportExit::usage);
    }
    duration = *parsed;
  }
  const HostSources sources(options.sources);
  const CollectContext ctx = sources.context();
  auto probed = with_probe_options(live_provider(ctx), options.probes, "rdmatop record");
  if (!probed) {
    std::cerr << "rdmatop record: " << probed.error().message << "\n";
    return static_cast<int>(ReportExit::usage);
  }
  SnapshotProvider provider = std::move(probed).value();
  // --demo: one simulated tick per --interval until the scenario's timeline ends; the snapshots
  // carry simulated time, so the recording replays like the demo played.
  std::unique_ptr<sim::Simulator> simulator;
  if (!options.demo_scenario.empty()) {
    auto created = open_demo(options.demo_scenario, /*loop=*/false);
    if (!created) {
      std::cerr << "rdmatop record: " << created.error().message << "\n";
      return static_cast<int>(ReportExit::usage);
    }
    simulator = std::move(created).value();
    provider = sim::simulator_provider(*simulator);
  }
  RecordingWriter writer(RecordingWriterOptions{options.output, options.gzip, options.max_bytes,
                                                options.rotate, options.interval_seconds});
  const StopSignals signals;
  const auto interval = std::chrono::duration_cast<std::chrono::steady_clock::duration>(
      std::chrono::duration<double>(options.interval_seconds));
  const auto start = std::chrono::steady_clock::now();
  auto next_tick = start;
  const char* why = "stopped by signal";
  for (std::uint64_t seq = 1; !StopSignals::requested(); ++seq) {
    const std::optional<Snapshot> snapshot = provider(seq);
    if (!snapshot) {
      why = "the demo scenario ended";
      break;
    }
    const auto written = writer.write(*snapshot);
    if (!written) {
      std::cerr << "rdmatop record: " << written.error().message << "\n";
      writer.close();
      return kRecordIoError;
    }
    if (!*written) {
      why = "size cap reached (--max-bytes without --rotate)";
      break;
    }
    // A slow tick delays the next one instead of bunching ticks up to catch up.
    next_tick = std::max(next_tick + interval, std::chrono::steady_clock::now());
    if (duration && next_tick - start > *duration) {
      why = "duration reached";
      break;
    }
    sleep_until(next_tick);
  }
  if (auto err = writer.close()) {
    std::cerr << "rdmatop record: " << err->message << "\n";
    return kRecordIoError;
  }
  std::cerr << "rdmatop record: " << writer.snapshots_written() << " snapshots written to "
            << options.output << " (" << why << ")\n";
  return 0;
}

}  // namespace

void register_record_command(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<RecordOptions>();
  CLI::App* cmd = app.add_subcommand(
      "record", "Record every snapshot to a file for later replay (docs/recording.md)");
  add_source_options(*cmd, options->sources);
  add_probe_options(*cmd, options->probes);
  cmd->add_option("-o,--output", options->output, "Recording file (FILE.1 ... when rotating)")
      ->required();
  cmd->add_option("--interval", options->interval_seconds, "Seconds between snapshots")
      ->capture_default_str()
      ->check(CLI::Range(0.01, 86400.0));
  cmd->add_option("--duration", options->duration,
                  "Stop after this long: 90, 90s, 30m, 12h, 3d (default: until SIGINT/SIGTERM)");
  CLI::Option* max_bytes =
      cmd->add_option("--max-bytes", options->max_bytes,
                      "Cap on one file's size before compression (0: no cap); without --rotate "
                      "the recording stops there")
          ->capture_default_str();
  cmd->add_option("--rotate", options->rotate,
                  "At the cap, move FILE to FILE.1 (FILE.1 to FILE.2 ...) and keep K old files")
      ->needs(max_bytes)
      ->check(CLI::Range(1u, 1000u));
  cmd->add_flag("--gzip", options->gzip, "Compress the file with gzip (zlib)");
  cmd->add_option("--demo", options->demo_scenario,
                  "Record the fabric simulator playing this scenario instead of the host (see "
                  "`rdmatop demo --list`): one simulated tick per --interval, until it ends");
  cmd->callback([options, &exit_code] { exit_code = run_record(*options); });
}

}  // namespace rdmatop
