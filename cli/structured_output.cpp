#include "structured_output.hpp"

#include "model/yaml_document.hpp"

namespace opctl::cli {

std::string render_structured(const model::Json& document, const std::string& output) {
  std::string text = output == "yaml" ? model::to_yaml(document) : document.dump(2);
  if (text.empty() || text.back() != '\n') text += '\n';
  return text;
}

}  // namespace opctl::cli
