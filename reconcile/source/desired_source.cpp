#include "source/desired_source.hpp"

#include "model/error.hpp"
#include "source/directory_source.hpp"

namespace opctl::source {

std::string SourceRevision::annotation() const {
  if (commit.empty()) return path;
  return repo + "@" + commit + ":" + (path.empty() ? "." : path);
}

DesiredSource load_desired_source(const SourceOptions& options) {
  if (!options.repo.empty())
    throw Error(ErrorCategory::invalid_input, "git sources are not implemented yet");
  DesiredSource source;
  source.files = read_directory(options.path);
  source.revision.path = options.path;
  return source;
}

}  // namespace opctl::source
