// How an opctl::Error reaches the terminal and the exit code: main() for
// every command, and `opctl reconcile`, which reports a set it cannot load
// before it keeps the set's custom resources running.
#pragma once

#include "model/error.hpp"

namespace opctl::cli {

// Prints the error to stderr (every problem of an InvalidInputError, one per
// line, then "nothing was applied") and returns its exit code.
int print_error(const Error& error);

}  // namespace opctl::cli
