// The terminal UI's cost at 1 Hz on a 64-port host: per frame, the Monitor tick (normalize,
// rules, report with rates) and the frame build + render to text (the work the interactive UI
// does besides the terminal writes). Printed as CPU time and as a share of one core at 1 Hz:
// the target is that rdmatop never shows up in its own host's top list.
//
//   rdmatop_bench_tui [--ports 64] [--frames 30] [--growth all|traffic]
//
// --growth all (the default) grows every counter, errors and pauses too, so most rules fire on
// every port (the worst case, an incident on all 64 ports at once); --growth traffic grows only
// the bytes and packets counters, a healthy host, where an operator keeps the TUI open.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "bench/synthetic_host.h"
#include "pipeline/monitor.h"
#include "rules/rule_set.h"
#include "tui/screens.h"

using namespace rdmatop;

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  int ports = 64;
  int frames = 30;
  bench::Growth growth = bench::Growth::every_counter;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--ports") ports = std::atoi(argv[i + 1]);
    if (flag == "--frames") frames = std::atoi(argv[i + 1]);
    if (flag == "--growth") {
      const std::string mode = argv[i + 1];
      if (mode != "all" && mode != "traffic") {
        std::fprintf(stderr, "--growth takes all or traffic, not %s\n", mode.c_str());
        return 2;
      }
      growth = mode == "all" ? bench::Growth::every_counter : bench::Growth::traffic_only;
    }
  }
  const bench::FixturePort port = bench::load_fixture_port();
  RuleSetLoad rules = load_rule_set({}, true);
  // The snapshots are made before the clock starts: building them (copies of the fixture's
  // counter maps) is this bench's stand-in for collection, whose cost the collection bench
  // (poll_cost_vs_node_exporter.sh) measures against node_exporter on real files.
  std::vector<Snapshot> snapshots;
  for (int f = 0; f < frames; ++f) {
    snapshots.push_back(bench::synthetic_host(port, ports, f + 1, growth));  // 1 s ticks
  }
  Monitor monitor(
      [&](std::uint64_t seq) -> std::optional<Snapshot> {
        return std::move(snapshots[static_cast<std::size_t>(seq - 1)]);
      },
      std::move(rules.groups));
  tui::History history;
  tui::UiState state;
  tui::FrameContext ctx;
  ctx.source_label = "bench";
  ctx.width = 120;
  ctx.height = 40;
  std::vector<double> tick_ms, frame_ms;
  std::size_t bytes = 0;
  for (int f = 0; f < frames; ++f) {
    const double t0 = bench::thread_cpu_ms();
    history.push(monitor.step());
    const double t1 = bench::thread_cpu_ms();
    const tui::Frame frame = tui::render_frame(history, state, ctx);
    bytes = tui::frame_text(frame, ctx.width).size();
    const double t2 = bench::thread_cpu_ms();
    if (f > 0) {  // the first tick has no rates yet
      tick_ms.push_back(t1 - t0);
      frame_ms.push_back(t2 - t1);
    }
  }
  std::sort(tick_ms.begin(), tick_ms.end());
  std::sort(frame_ms.begin(), frame_ms.end());
  const double tick = tick_ms[tick_ms.size() / 2];
  const double frame = frame_ms[frame_ms.size() / 2];
  std::printf("tui bench: %d ports, %d frames at 1 Hz, 120x40 (%zu bytes of text), %s\n", ports,
              frames, bytes,
              growth == bench::Growth::every_counter ? "every counter grows, errors too"
                                                     : "traffic counters grow (healthy host)");
  std::printf("monitor tick (CPU):  median %.2f ms\n", tick);
  std::printf("frame build+render:  median %.2f ms, max %.2f ms\n", frame, frame_ms.back());
  std::printf("share of one core:   %.2f%% at 1 Hz (tick %.2f%% + frame %.2f%%)\n",
              (tick + frame) / 10.0, tick / 10.0, frame / 10.0);
  return 0;
}
