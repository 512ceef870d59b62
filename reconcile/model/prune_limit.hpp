// How many members of a set one pass may prune (--max-prune, maxPrune in
// opctl.yaml): a count ("10") or a share of the set's members ("50%").
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace opctl::model {

struct PruneLimit {
  bool percent = true;
  int value = 50;

  // The most deletions allowed in a set of `members`. A share never refuses
  // k_prune_limit_floor deletions or fewer: a routine change that removes a
  // few objects from a small set is not a mass deletion.
  std::size_t allowed(std::size_t members) const;
  std::string to_string() const;
};

inline constexpr std::size_t k_prune_limit_floor = 5;

// "N" (0 or more) or "P%" (0 to 100); nullopt for anything else.
std::optional<PruneLimit> parse_prune_limit(std::string_view text);

}  // namespace opctl::model
