#include "model/edit_distance.hpp"

#include <algorithm>
#include <cctype>
#include <vector>

namespace opctl::model {

std::size_t edit_distance(const std::string& a, const std::string& b, LetterCase letter_case) {
  auto same = [letter_case](unsigned char x, unsigned char y) {
    return letter_case == LetterCase::ignored ? std::tolower(x) == std::tolower(y) : x == y;
  };
  // One row of the dynamic-programming table at a time.
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j)
    row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t above = row[j];
      row[j] = std::min({above + 1, row[j - 1] + 1, diagonal + (same(a[i - 1], b[j - 1]) ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

}  // namespace opctl::model
