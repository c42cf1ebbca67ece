// "Did you mean": the closest known name to a mistyped subcommand or flag, by edit distance.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

namespace rdmatop {

/// Levenshtein distance (insertions, deletions, substitutions, each cost 1), plus a swap of two
/// adjacent characters at cost 1 (optimal string alignment), the commonest typo ("reprot").
std::size_t edit_distance(std::string_view a, std::string_view b);

/// The candidate closest to `typed`, if one is close enough to be what was meant: at most 2
/// edits, and fewer than half the length of the typed word (so "x" suggests nothing). Ties go
/// to the candidate listed first.
std::optional<std::string> closest_name(std::string_view typed,
                                        const std::vector<std::string>& candidates);

/// The hint lines for the arguments CLI11 could not place after a failed parse of `app`
/// (App::remaining() of the app and of the subcommand that was selected): for a word where a
/// subcommand was expected, the closest subcommand; for `--flag`/`--flag=value`, the closest
/// long flag of the command it was given to. Empty when nothing is close.
std::vector<std::string> did_you_mean(const CLI::App& app);

}  // namespace rdmatop
