#include "apply/deletion_listing.hpp"

#include <fmt/format.h>

namespace opctl::apply {

std::string deletion_listing(std::vector<std::string> names) {
  constexpr std::size_t k_shown = 10;
  if (names.empty()) return "nothing";
  std::size_t total = names.size();
  if (total > k_shown) names.resize(k_shown);
  std::string text = fmt::format("{} object{}: {}", total, total == 1 ? "" : "s", fmt::join(names, ", "));
  return total > k_shown ? text + ", ..." : text;
}

}  // namespace opctl::apply
