#include "suggestions.hpp"

#include <algorithm>
#include <vector>

namespace opctl::cli {
namespace {

std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

}  // namespace

std::string closest_name(const CLI::App& app, const std::string& word) {
  // The innermost subcommand that was selected is the one whose flags apply.
  const CLI::App* scope = &app;
  for (const auto* command : app.get_subcommands()) scope = command;
  std::vector<std::string> names;
  for (const auto* option : scope->get_options())
    for (const auto& name : option->get_lnames()) names.push_back("--" + name);
  if (scope == &app)
    for (const auto* command : app.get_subcommands([](const CLI::App*) { return true; }))
      names.push_back(command->get_name());
  std::string best;
  std::size_t best_distance = std::max<std::size_t>(2, word.size() / 3) + 1;
  for (const auto& name : names) {
    std::size_t distance = edit_distance(word, name);
    if (distance < best_distance) {
      best_distance = distance;
      best = name;
    }
  }
  return best;
}

}  // namespace opctl::cli
