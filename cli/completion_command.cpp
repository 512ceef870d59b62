#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <map>
#include <vector>

#include "commands.hpp"
#include "exit_codes.hpp"

namespace opctl::cli {
namespace {

// Subcommand -> its flags, read from the parser itself so completion never
// falls behind the real options.
std::map<std::string, std::vector<std::string>> command_flags(const CLI::App& app) {
  std::map<std::string, std::vector<std::string>> flags;
  auto add_options = [](const CLI::App& command, std::vector<std::string>& list) {
    for (const auto* option : command.get_options()) {
      for (const auto& name : option->get_lnames())
        list.push_back("--" + name);
      for (const auto& name : option->get_snames())
        list.push_back("-" + name);
    }
  };
  auto every = [](const CLI::App*) { return true; };
  for (const auto* command : app.get_subcommands(every)) {
    auto& list = flags[command->get_name()];
    add_options(*command, list);
    // A group (cluster, instance): its subcommands' names, then their flags.
    for (const auto* sub : command->get_subcommands(every))
      list.push_back(sub->get_name());
    for (const auto* sub : command->get_subcommands(every))
      add_options(*sub, list);
    std::sort(list.begin(), list.end());
    list.erase(std::unique(list.begin(), list.end()), list.end());
  }
  return flags;
}

std::string join(const std::vector<std::string>& words) {
  return fmt::format("{}", fmt::join(words, " "));
}

std::string bash_script(const std::map<std::string, std::vector<std::string>>& flags) {
  std::vector<std::string> commands;
  std::string cases;
  for (const auto& [command, options] : flags) {
    commands.push_back(command);
    cases += fmt::format("    {}) words=\"{}\" ;;\n", command, join(options));
  }
  return fmt::format(R"(# bash completion for opctl; load with: source <(opctl completion bash)
_opctl() {{
  local cur command words
  cur="${{COMP_WORDS[COMP_CWORD]}}"
  command="${{COMP_WORDS[1]}}"
  if [ "$COMP_CWORD" -eq 1 ]; then
    COMPREPLY=($(compgen -W "{}" -- "$cur"))
    return
  fi
  case "$command" in
{}    *) words="" ;;
  esac
  case "${{COMP_WORDS[COMP_CWORD-1]}}" in
    --path|--cache-dir|-f|--config|--kubeconfig|--report|--git-*-file|--schema-dir)
      COMPREPLY=($(compgen -f -- "$cur")); return ;;
  esac
  COMPREPLY=($(compgen -W "$words" -- "$cur"))
}}
complete -F _opctl opctl
)",
                     join(commands), cases);
}

std::string zsh_script(const std::map<std::string, std::vector<std::string>>& flags) {
  std::vector<std::string> commands;
  std::string cases;
  for (const auto& [command, options] : flags) {
    commands.push_back(command);
    cases += fmt::format("    {}) compadd -- {} ;;\n", command, join(options));
  }
  return fmt::format(R"(#compdef opctl
# zsh completion for opctl; load with: source <(opctl completion zsh)
_opctl() {{
  if (( CURRENT == 2 )); then
    compadd -- {}
    return
  fi
  case "${{words[2]}}" in
{}  esac
  _files
}}
compdef _opctl opctl
)",
                     join(commands), cases);
}

std::string fish_script(const std::map<std::string, std::vector<std::string>>& flags) {
  std::vector<std::string> commands;
  for (const auto& [command, options] : flags)
    commands.push_back(command);
  std::string out = "# fish completion for opctl; load with: opctl completion fish | source\n";
  out += fmt::format("complete -c opctl -f -n '__fish_use_subcommand' -a '{}'\n", join(commands));
  for (const auto& [command, options] : flags)
    for (const auto& option : options) {
      if (!option.starts_with("--")) continue;
      out += fmt::format("complete -c opctl -n '__fish_seen_subcommand_from {}' -l {}\n", command,
                         option.substr(2));
    }
  return out;
}

}  // namespace

void register_completion(CLI::App& app, CommandAction& action) {
  auto shell = std::make_shared<std::string>();
  auto* command = app.add_subcommand("completion", "Print a shell completion script (bash, zsh or fish)");
  command->footer(
      "Examples:\n"
      "  source <(opctl completion bash)\n"
      "  opctl completion zsh > \"${fpath[1]}/_opctl\"\n"
      "  opctl completion fish | source\n");
  command->add_option("shell", *shell, "bash, zsh or fish")
      ->required()
      ->check(CLI::IsMember({"bash", "zsh", "fish"}));
  command->callback([shell, &app, &action] {
    action = [shell, &app] {
      auto flags = command_flags(app);
      if (*shell == "bash") std::cout << bash_script(flags);
      if (*shell == "zsh") std::cout << zsh_script(flags);
      if (*shell == "fish") std::cout << fish_script(flags);
      return k_exit_ok;
    };
  });
}

}  // namespace opctl::cli
