// Subcommand registry: each subcommand lives in its own cli/<name>_command.cpp and is wired
// into the one CLI11 app by register_all_commands (cli/commands.cpp).
#pragma once

#include <CLI/CLI.hpp>

namespace rdmatop {

/// Parses the command line and runs the chosen subcommand; returns the process exit code.
int run_cli(int argc, char** argv);

/// Each register_* adds one subcommand whose callback stores its exit code in `exit_code`.
void register_report_command(CLI::App& app, int& exit_code);
void register_record_command(CLI::App& app, int& exit_code);
void register_capture_command(CLI::App& app, int& exit_code);
void register_rules_command(CLI::App& app, int& exit_code);
void register_demo_command(CLI::App& app, int& exit_code);
void register_exporter_command(CLI::App& app, int& exit_code);
void register_probe_command(CLI::App& app, int& exit_code);
void register_responder_command(CLI::App& app, int& exit_code);
/// Hidden: `rdmatop completion bash|zsh` prints a completion script for this command tree.
void register_completion_command(CLI::App& app, int& exit_code);
/// Top-level flags of `rdmatop` without a subcommand (the TUI); returns what runs it.
std::function<int()> register_tui_options(CLI::App& app);

}  // namespace rdmatop
