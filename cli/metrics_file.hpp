// --metrics-file FILE: the run's metrics for node-exporter's textfile collector.
#pragma once

#include <string>

namespace opctl::cli {

// Replaces `path` with `text` atomically: written to a hidden temporary file in the same directory (which the
// collector, reading only *.prom, ignores), made readable by all (the collector seldom runs as opctl's user),
// flushed to disk and renamed over `path`, so a scrape never reads half a file. Throws Error (invalid input)
// naming the file and the reason.
void write_metrics_file(const std::string& path, const std::string& text);

}  // namespace opctl::cli
