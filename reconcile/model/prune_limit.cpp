#include "model/prune_limit.hpp"

#include <algorithm>
#include <charconv>

namespace opctl::model {

std::size_t PruneLimit::allowed(std::size_t members) const {
  if (!percent) return static_cast<std::size_t>(value);
  std::size_t share = (members * static_cast<std::size_t>(value) + 99) / 100;  // rounded up
  return std::max(share, k_prune_limit_floor);
}

std::string PruneLimit::to_string() const {
  return std::to_string(value) + (percent ? "%" : "");
}

std::optional<PruneLimit> parse_prune_limit(std::string_view text) {
  PruneLimit limit;
  limit.percent = !text.empty() && text.back() == '%';
  if (limit.percent) text.remove_suffix(1);
  if (text.empty()) return std::nullopt;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), limit.value);
  if (error != std::errc() || end != text.data() + text.size() || limit.value < 0) return std::nullopt;
  if (limit.percent && limit.value > 100) return std::nullopt;
  return limit;
}

}  // namespace opctl::model
