// The one file that talks to ncurses (ncursesw: UTF-8 block elements for sparklines).
#include <curses.h>

#include <algorithm>
#include <cstdlib>
#include <string>

#include "tui/screen.h"

namespace rdmatop::tui {

namespace {

// True while curses owns the terminal; the atexit handler restores it only then.
bool g_curses_active = false;

void restore_terminal_at_exit() {
  if (g_curses_active) {
    endwin();
    g_curses_active = false;
  }
}

enum Pair : short { kOk = 1, kWarn, kCrit, kHeading };

class NcursesScreen final : public Screen {
 public:
  NcursesScreen(SCREEN* screen, bool color) : screen_(screen) {
    g_curses_active = true;
    static const bool registered = std::atexit(restore_terminal_at_exit) == 0;
    (void)registered;
    cbreak();  // not raw(): Ctrl-C still raises SIGINT, which run_tui turns into a clean quit
    noecho();
    nonl();
    keypad(stdscr, TRUE);
    curs_set(0);
    set_escdelay(25);  // Esc closes views; don't wait a whole second for an escape sequence
    color_ = color && has_colors();
    if (color_) {
      start_color();
      use_default_colors();
      init_pair(kOk, COLOR_GREEN, -1);
      init_pair(kWarn, COLOR_YELLOW, -1);
      init_pair(kCrit, COLOR_RED, -1);
      init_pair(kHeading, COLOR_CYAN, -1);
    }
  }
  ~NcursesScreen() override {
    if (g_curses_active) {
      endwin();
      g_curses_active = false;
    }
    delscreen(screen_);
  }
  NcursesScreen(const NcursesScreen&) = delete;
  NcursesScreen& operator=(const NcursesScreen&) = delete;

  std::size_t width() const override { return static_cast<std::size_t>(std::max(COLS, 0)); }
  std::size_t height() const override { return static_cast<std::size_t>(std::max(LINES, 0)); }

  void draw(const Frame& frame) override {
    erase();
    const std::size_t w = width();
    for (std::size_t y = 0; y < frame.size() && y < height(); ++y) {
      const Line& line = frame[y];
      move(static_cast<int>(y), 0);
      std::size_t used = 0;
      for (const Span& span : line.spans) {
        if (used >= w) break;
        const std::string text = truncate_display(span.text, w - used);
        const attr_t attr = attribute(span.tone) | (line.selected ? A_REVERSE : A_NORMAL);
        attron(attr);
        addstr(text.c_str());
        attroff(attr);
        used += display_width(text);
      }
      if (line.selected && used < w) {
        attron(A_REVERSE);
        addstr(std::string(w - used, ' ').c_str());
        attroff(A_REVERSE);
      }
    }
    refresh();
  }

  std::optional<Key> read_key(int timeout_ms) override {
    timeout(timeout_ms);
    const int ch = getch();
    using KeyKind = Key::Kind;
    switch (ch) {
      case ERR:
        return std::nullopt;
      case KEY_UP:
        return Key{KeyKind::up, 0};
      case KEY_DOWN:
        return Key{KeyKind::down, 0};
      case KEY_PPAGE:
        return Key{KeyKind::page_up, 0};
      case KEY_NPAGE:
        return Key{KeyKind::page_down, 0};
      case KEY_HOME:
        return Key{KeyKind::home, 0};
      case KEY_END:
        return Key{KeyKind::end, 0};
      case KEY_ENTER:
      case '\n':
      case '\r':
        return Key{KeyKind::enter, 0};
      case 27:
        return Key{KeyKind::escape, 0};
      case '\t':
        return Key{KeyKind::tab, 0};
      case KEY_BACKSPACE:
      case 127:
      case 8:
        return Key{KeyKind::backspace, 0};
      case KEY_RESIZE:
        return Key{KeyKind::resize, 0};
      default:
        break;
    }
    if (ch == KEY_F(1)) return Key{KeyKind::f1, 0};
    if (ch == KEY_F(6)) return Key{KeyKind::f6, 0};
    if (ch == KEY_F(10)) return Key{KeyKind::f10, 0};
    if (ch >= ' ' && ch <= '~') return Key{KeyKind::character, static_cast<char>(ch)};
    return std::nullopt;
  }

 private:
  attr_t attribute(Tone tone) const {
    // Without colour the classes stay apart by attribute: bold for trouble and headings, dim
    // for "no number yet".
    switch (tone) {
      case Tone::ok:
        return color_ ? COLOR_PAIR(kOk) : A_NORMAL;
      case Tone::warn:
        return color_ ? COLOR_PAIR(kWarn) | A_BOLD : A_BOLD;
      case Tone::crit:
        return color_ ? COLOR_PAIR(kCrit) | A_BOLD : A_BOLD | A_UNDERLINE;
      case Tone::dim:
        return A_DIM;
      case Tone::heading:
        return color_ ? COLOR_PAIR(kHeading) | A_BOLD : A_BOLD;
      case Tone::normal:
        break;
    }
    return A_NORMAL;
  }

  SCREEN* screen_;
  bool color_ = false;
};

}  // namespace

std::unique_ptr<Screen> open_ncurses_screen(bool color) {
  // newterm (unlike initscr) returns null instead of exiting when TERM is unusable.
  SCREEN* screen = newterm(nullptr, stdout, stdin);
  if (screen == nullptr) return nullptr;
  set_term(screen);
  // A terminal that cannot move the cursor (TERM=dumb, an editor's shell buffer) would get a
  // stream of garbage: refuse it, so the caller can say "use batch mode".
  const char* cup = tigetstr("cup");
  if (cup == nullptr || cup == reinterpret_cast<const char*>(-1)) {
    endwin();
    delscreen(screen);
    return nullptr;
  }
  return std::make_unique<NcursesScreen>(screen, color);
}

}  // namespace rdmatop::tui
