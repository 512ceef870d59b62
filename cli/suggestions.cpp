#include "suggestions.hpp"

#include <algorithm>
#include <vector>

#include "model/edit_distance.hpp"

namespace opctl::cli {

std::string closest_name(const CLI::App& app, const std::string& word) {
  // The innermost subcommand that was selected is the one whose flags apply.
  const CLI::App* scope = &app;
  for (const auto* command : app.get_subcommands())
    scope = command;
  std::vector<std::string> names;
  for (const auto* option : scope->get_options())
    for (const auto& name : option->get_lnames())
      names.push_back("--" + name);
  if (scope == &app)
    for (const auto* command : app.get_subcommands([](const CLI::App*) { return true; }))
      names.push_back(command->get_name());
  std::string best;
  std::size_t best_distance = std::max<std::size_t>(2, word.size() / 3) + 1;
  for (const auto& name : names) {
    std::size_t distance = model::edit_distance(word, name);
    if (distance < best_distance) {
      best_distance = distance;
      best = name;
    }
  }
  return best;
}

}  // namespace opctl::cli
