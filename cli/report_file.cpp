#include "report_file.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fstream>

#include "model/error.hpp"

namespace opctl::cli {
namespace {

Error write_error(const std::string& path) {
  // errno is what the failed open, write or flush left; 0 says nothing more.
  std::string reason = errno != 0 ? std::strerror(errno) : "the write failed";
  return Error(ErrorCategory::invalid_input,
               fmt::format("cannot write the report file {}: {}", path, reason));
}

}  // namespace

void write_report_file(const std::string& path, const model::Json& report) {
  errno = 0;
  std::ofstream out(path);
  if (!out) throw write_error(path);
  out << report.dump(2) << "\n";
  out.flush();  // a full disk shows here, not at the stream's destruction where it would be lost
  if (!out) throw write_error(path);
  out.close();
  if (!out) throw write_error(path);
}

}  // namespace opctl::cli
