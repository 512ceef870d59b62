// --report FILE: the JSON report of a command, written for CI to read.
#pragma once

#include <string>

#include "model/object.hpp"

namespace opctl::cli {

// Writes `report` (indented JSON) to `path`, replacing it. Throws Error
// (invalid input: the flag names a place that cannot be written) naming the
// file and the reason when it cannot be opened, written or flushed: a CI job
// must never read a truncated report as a complete one.
void write_report_file(const std::string& path, const model::Json& report);

}  // namespace opctl::cli
