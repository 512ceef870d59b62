// Markdown reports go into pull-request comments and CI job summaries, and
// GitHub refuses a comment over 65,536 characters: a report that large would
// not be posted at all. Reports are built from whole pieces (table rows,
// one collapsible diff per object) and keep only those that fit.
#pragma once

#include <string>
#include <vector>

namespace opctl::cli {

// Bytes, which are never fewer than characters, so the limit holds for both;
// the margin leaves room for what a CI step adds around the report.
inline constexpr std::size_t k_markdown_limit = 65000;

// Appends pieces to `out`, in order, while `out` stays within `limit` less
// `reserve` (room for what must still follow); returns how many were left out.
std::size_t append_while_fits(std::string& out, const std::vector<std::string>& pieces, std::size_t limit,
                              std::size_t reserve);

// "_N more objects are not shown here: the report stays below GitHub's
// 65,536-character comment limit. `WHERE` has every object._"
std::string omitted_note(std::size_t omitted, const std::string& what, const std::string& where);

}  // namespace opctl::cli
