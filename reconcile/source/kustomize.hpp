// Kustomizations, rendered by `kubectl kustomize`, or by `kustomize build`
// where there is no kubectl (opctl does not embed kustomize); with neither
// on PATH a kustomization is an input error.
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

// Runs `kubectl kustomize DIRECTORY` (or `kustomize build DIRECTORY`) and
// returns what it prints. Throws InvalidInputError naming `display` when
// neither program is on PATH or the one run fails.
std::string render_kustomization(const std::filesystem::path& directory, const std::string& display);

}  // namespace opctl::source
