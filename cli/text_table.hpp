// Columns aligned the way kubectl get prints them: a header row in capitals,
// each column as wide as its widest cell, three spaces between columns.
#pragma once

#include <string>
#include <vector>

namespace opctl::cli {

class TextTable {
 public:
  explicit TextTable(std::vector<std::string> header) : rows_{std::move(header)} {}
  void add(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
  // Every row, each line starting with `indent` and ending in a newline; no trailing blanks.
  std::string render(const std::string& indent = "") const;

 private:
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace opctl::cli
