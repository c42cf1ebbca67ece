// run_tui: the refresh loop on top of Monitor (collect on schedule, render, read keys), the
// signal handling that makes every exit restore the terminal, and batch mode.
#include "tui/tui.h"

#include <langinfo.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <clocale>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <limits>
#include <thread>

#include "tui/screen.h"
#include "tui/screens.h"

namespace rdmatop {

namespace {

using Clock = std::chrono::steady_clock;

volatile std::sig_atomic_t g_stop = 0;

extern "C" void on_stop_signal(int /*signo*/) {
  g_stop = 1;
}

/// SIGINT/SIGTERM/SIGHUP only set a flag (async-signal-safe); the loop sees it, unwinds and the
/// Screen's destructor restores the terminal. The previous handlers come back on scope exit.
class StopSignals {
 public:
  StopSignals() {
    g_stop = 0;
    struct sigaction action {};
    action.sa_handler = on_stop_signal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = 0;  // no SA_RESTART: a blocking getch() returns at once
    for (std::size_t i = 0; i < kSignals.size(); ++i) sigaction(kSignals[i], &action, &old_[i]);
  }
  ~StopSignals() {
    for (std::size_t i = 0; i < kSignals.size(); ++i) sigaction(kSignals[i], &old_[i], nullptr);
  }
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

 private:
  static constexpr std::array<int, 3> kSignals = {SIGINT, SIGTERM, SIGHUP};
  std::array<struct sigaction, 3> old_{};
};

bool utf8_locale() {
  const char* codeset = nl_langinfo(CODESET);
  return codeset != nullptr && std::strcmp(codeset, "UTF-8") == 0;
}

/// https://no-color.org: any non-empty NO_COLOR turns colour off.
bool colour_wanted() {
  const char* no_color = std::getenv("NO_COLOR");
  return no_color == nullptr || no_color[0] == '\0';
}

void sleep_unless_stopped(double seconds) {
  const auto until = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                        std::chrono::duration<double>(seconds));
  while (g_stop == 0 && Clock::now() < until) {
    std::this_thread::sleep_for(
        std::min<Clock::duration>(until - Clock::now(), std::chrono::milliseconds(50)));
  }
}

int run_batch(Monitor& monitor, const TuiOptions& options, tui::History& history) {
  tui::UiState state;
  state.interval_seconds = options.interval_seconds;
  tui::FrameContext ctx{
      options.source_label, options.replay, false, std::numeric_limits<std::size_t>::max(), 0,
      utf8_locale()};
  const int frames = std::max(*options.batch_frames, 1);
  for (int i = 0; i < frames && g_stop == 0; ++i) {
    if (i > 0) {
      sleep_unless_stopped(options.interval_seconds);
      if (g_stop != 0) break;
      auto report = monitor.step();
      if (!report) break;  // the recording or scenario ended
      history.push(std::move(report));
      std::cout << "\n";
    }
    std::cout << tui::frame_text(tui::render_frame(history, state, ctx), ctx.width);
    std::cout.flush();
  }
  return 0;
}

tui::Frame too_small(std::size_t width, std::size_t height) {
  tui::Frame frame;
  tui::Line line;
  line.spans.push_back(tui::Span{"rdmatop needs at least 80x24; this terminal is " +
                                     std::to_string(width) + "x" + std::to_string(height),
                                 tui::Tone::warn});
  frame.push_back(line);
  frame.push_back(tui::Line{{tui::Span{"resize it, or press q to quit", tui::Tone::normal}}});
  return frame;
}

int run_interactive(Monitor& monitor, const TuiOptions& options, tui::History& history) {
  auto screen = tui::open_ncurses_screen(colour_wanted());
  if (!screen) {
    std::cerr << "rdmatop: cannot initialise the terminal (check TERM); use -n N for batch mode\n";
    return 1;
  }
  tui::UiState state;
  state.interval_seconds = options.interval_seconds;
  tui::FrameContext ctx{options.source_label, options.replay, false, 0, 0, utf8_locale()};
  auto next_tick = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                      std::chrono::duration<double>(state.interval_seconds));
  while (g_stop == 0) {
    ctx.width = screen->width();
    ctx.height = screen->height();
    const bool fits = ctx.width >= tui::kMinWidth && ctx.height >= tui::kMinHeight;
    screen->draw(fits ? tui::render_frame(history, state, ctx) : too_small(ctx.width, ctx.height));
    const auto wait =
        std::chrono::duration_cast<std::chrono::milliseconds>(next_tick - Clock::now());
    // With the fast path on, wake at its pace so that a finding it republishes shows at once.
    const long max_wait_ms = monitor.fast_path_enabled() ? 100 : 1000;
    const int timeout_ms = static_cast<int>(std::clamp<long>(wait.count(), 0, max_wait_ms));
    if (auto key = screen->read_key(timeout_ms)) {
      const tui::Counts counts = tui::counts_for(*history.latest(), state, ctx);
      const tui::Action action = tui::apply_key(state, *key, counts);
      if (action == tui::Action::quit) break;
      if (action == tui::Action::interval_changed) {
        next_tick = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                       std::chrono::duration<double>(state.interval_seconds));
      }
    }
    if (auto republished = monitor.latest();
        republished && republished != history.latest() && !state.paused) {
      history.replace_latest(std::move(republished));
    }
    if (Clock::now() >= next_tick) {
      if (!state.paused && !ctx.ended) {
        if (auto report = monitor.step()) {
          history.push(std::move(report));
        } else {
          ctx.ended = true;  // keep showing the last tick until the user quits
        }
      }
      next_tick = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                     std::chrono::duration<double>(state.interval_seconds));
    }
  }
  return 0;
}

}  // namespace

int run_tui(Monitor& monitor, const TuiOptions& options) {
  const StopSignals signals;
  // The user's locale decides whether sparklines may use UTF-8 block elements (and lets
  // ncursesw draw them); numbers keep the C locale's decimal point for any strtod/printf.
  std::setlocale(LC_ALL, "");
  std::setlocale(LC_NUMERIC, "C");
  tui::History history;
  try {
    auto first = monitor.step();
    if (!first) {
      std::cerr << "rdmatop: the source produced no data\n";
      return 4;  // ReportExit::no_data
    }
    history.push(std::move(first));
    if (options.batch_frames) return run_batch(monitor, options, history);
    return run_interactive(monitor, options, history);
  } catch (const std::exception& e) {
    // The Screen was destroyed while unwinding, so this lands on a normal terminal.
    std::cerr << "rdmatop: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace rdmatop
