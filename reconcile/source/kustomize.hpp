// Kustomizations, rendered by `kubectl kustomize` (opctl does not embed
// kustomize); without kubectl on PATH a kustomization is an input error.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace opctl::source {

// kustomization.yaml, kustomization.yml or Kustomization: the names kustomize looks for.
bool is_kustomization_file_name(std::string_view name);

// The first executable called `program` in the ':'-separated `search_path`.
std::optional<std::filesystem::path> find_program(std::string_view program, std::string_view search_path);

// Runs `kubectl kustomize DIRECTORY` and returns what it prints. Throws
// InvalidInputError naming `display` when kubectl is missing or fails.
std::string render_kustomization(const std::filesystem::path& directory, const std::string& display);

}  // namespace opctl::source
