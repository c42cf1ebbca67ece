#include "cli/commands.h"

#include <iostream>

#include "cli/build_info.h"
#include "cli/suggest.h"
#include "pipeline/tick.h"

namespace rdmatop {

int run_cli(int argc, char** argv) {
  // Named explicitly: CLI11 would take argv[0] ("build/bin/rdmatop"), and the usage lines
  // are what the man pages print.
  CLI::App app{"rdmatop: RoCEv2 network health monitoring and diagnostics", "rdmatop"};
  // help2man reads the first line ("rdmatop VERSION") as the program's name and version.
  app.set_version_flag("--version", version_text(), "Print the version, git commit and build date");
  app.require_subcommand(0, 1);
  int exit_code = 0;
  register_report_command(app, exit_code);
  register_record_command(app, exit_code);
  register_capture_command(app, exit_code);
  register_rules_command(app, exit_code);
  register_demo_command(app, exit_code);
  register_exporter_command(app, exit_code);
  register_probe_command(app, exit_code);
  register_responder_command(app, exit_code);
  register_completion_command(app, exit_code);
  const auto run_tui_default = register_tui_options(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    for (const std::string& hint : did_you_mean(app)) std::cerr << hint << "\n";
    return static_cast<int>(ReportExit::usage);
  }
  if (app.get_subcommands().empty()) {
    exit_code = run_tui_default();
  }
  return exit_code;
}

}  // namespace rdmatop
