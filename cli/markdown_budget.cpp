#include "markdown_budget.hpp"

#include <fmt/format.h>

namespace opctl::cli {

std::size_t append_while_fits(std::string& out, const std::vector<std::string>& pieces, std::size_t limit,
                              std::size_t reserve) {
  std::size_t kept = 0;
  for (const auto& piece : pieces) {
    if (out.size() + piece.size() + reserve > limit) break;
    out += piece;
    ++kept;
  }
  return pieces.size() - kept;
}

std::string omitted_note(std::size_t omitted, const std::string& what, const std::string& where) {
  return fmt::format(
      "_{} more {} not shown here: the report stays below GitHub's 65,536-character comment limit. {} has "
      "every "
      "object._\n\n",
      omitted, what, where);
}

}  // namespace opctl::cli
