#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "model/error.hpp"
#include "validate/schema_source.hpp"

namespace opctl::validate {
namespace {

namespace fs = std::filesystem;

std::shared_ptr<const OpenApiDocument> read_document(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  if (!in) throw Error(ErrorCategory::invalid_input, fmt::format("{}: cannot read the file", path.string()));
  model::Json document = parse_without_descriptions(text.str());
  if (document.is_discarded())
    throw Error(
        ErrorCategory::invalid_input,
        fmt::format("{}: not valid JSON (save it with kubectl get --raw /openapi/v3/...)", path.string()));
  return std::make_shared<const OpenApiDocument>(std::move(document), path.string());
}

}  // namespace

DirectorySchemaSource::DirectorySchemaSource(std::string directory) : directory_(std::move(directory)) {
  std::error_code error;
  if (!fs::is_directory(directory_, error))
    throw Error(ErrorCategory::invalid_input, fmt::format("--schema-dir {}: not a directory", directory_));
}

SchemaSet DirectorySchemaSource::load(const std::set<std::string>& group_versions) {
  SchemaSet set;
  for (const auto& group_version : group_versions) {
    fs::path path = fs::path(directory_) / schema_file_name(group_version);
    std::error_code error;
    if (!fs::exists(path, error)) {
      set.missing[group_version] = fmt::format("no file {} in {}", path.filename().string(), directory_);
      continue;
    }
    set.documents[group_version] = read_document(path);
  }
  return set;
}

}  // namespace opctl::validate
