#include "model/ascii_case.hpp"

namespace opctl::model {

std::string ascii_lower(std::string_view text) {
  std::string out(text);
  for (char& letter : out)
    if (letter >= 'A' && letter <= 'Z') letter = static_cast<char>(letter - 'A' + 'a');
  return out;
}

}  // namespace opctl::model
