#include "error_output.hpp"

#include <iostream>

#include "exit_codes.hpp"

namespace opctl::cli {

int print_error(const Error& error) {
  if (const auto* invalid = dynamic_cast<const InvalidInputError*>(&error)) {
    for (const auto& problem : invalid->problems())
      std::cerr << "error: " << problem.to_string() << "\n";
    std::cerr << "nothing was applied\n";
    return k_exit_invalid_input;
  }
  std::cerr << "error: " << error.what() << "\n";
  return exit_code_for(error.category());
}

}  // namespace opctl::cli
