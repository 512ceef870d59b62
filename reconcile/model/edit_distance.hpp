// The Levenshtein distance, for "did you mean" suggestions (flags, commands,
// field names).
#pragma once

#include <cstddef>
#include <string>

namespace opctl::model {

enum class LetterCase { sensitive, ignored };

std::size_t edit_distance(const std::string& a, const std::string& b,
                          LetterCase letter_case = LetterCase::sensitive);

}  // namespace opctl::model
