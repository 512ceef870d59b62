// The one error mechanism shared by every layer: a small hierarchy rooted in
// opctl::Error whose category the CLI maps to an exit code.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace opctl {

enum class ErrorCategory {
  invalid_input,  // the user's manifests, flags or config are wrong
  cluster,        // the API server is unreachable or refused a request
  lock_held,      // another run holds the lease
  timeout,        // waiting for health ran out of time
  internal,       // a bug in opctl
};

class Error : public std::runtime_error {
 public:
  Error(ErrorCategory category, const std::string& message)
      : std::runtime_error(message), category_(category) {}
  ErrorCategory category() const { return category_; }

 private:
  ErrorCategory category_;
};

// One thing wrong with the input, pointing at where it is.
struct Problem {
  std::string file;
  int line = 0;       // 1-based; 0 when unknown
  std::string field;  // a field path such as metadata.name; empty when the whole document
  std::string message;

  // "file:line: field: message", leaving out what is unknown.
  std::string to_string() const;
};

// Every problem found in the input, so a user fixes them all in one round.
class InvalidInputError : public Error {
 public:
  explicit InvalidInputError(std::vector<Problem> problems);
  const std::vector<Problem>& problems() const { return problems_; }

 private:
  std::vector<Problem> problems_;
};

class ClusterError : public Error {
 public:
  explicit ClusterError(const std::string& message) : Error(ErrorCategory::cluster, message) {}
};

}  // namespace opctl
