// The terminal behind the TUI, as an interface: the ncurses back end (screen_ncurses.cpp, the
// only file that includes curses) implements it. Everything above it draws into a Frame.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>

#include "tui/canvas.h"
#include "tui/input.h"

namespace rdmatop::tui {

/// The smallest terminal the layout is designed for; smaller ones get a notice instead.
inline constexpr std::size_t kMinWidth = 80;
inline constexpr std::size_t kMinHeight = 24;

class Screen {
 public:
  virtual ~Screen() = default;
  virtual std::size_t width() const = 0;
  virtual std::size_t height() const = 0;
  virtual void draw(const Frame& frame) = 0;
  /// Waits up to `timeout_ms` for a key; nullopt on timeout or when a signal interrupts.
  virtual std::optional<Key> read_key(int timeout_ms) = 0;
};

/// Takes over the terminal (alternate screen, no echo, keypad). `color`: use colours if the
/// terminal has them (false for NO_COLOR). Null when the terminal cannot be initialised (no
/// TERM, not a tty). The terminal is restored when the Screen is destroyed and, should the
/// process exit() without unwinding, by an atexit handler.
std::unique_ptr<Screen> open_ncurses_screen(bool color);

}  // namespace rdmatop::tui
