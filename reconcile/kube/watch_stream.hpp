// Watching a collection for changes: `?watch=1` streams one JSON event per
// line. The watch starts from a list (or a given resourceVersion), follows
// BOOKMARK events, resumes from the last resourceVersion when the connection
// drops or the server ends the stream, and lists again when the server says
// that version is gone (410), reporting what changed in between.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "model/object.hpp"

namespace opctl::kube {

struct WatchEvent {
  std::string type;    // ADDED, MODIFIED or DELETED
  model::Json object;  // with apiVersion and kind set
};

enum class WatchControl { keep_watching, stop };
using WatchHandler = std::function<WatchControl(const WatchEvent&)>;

struct WatchOptions {
  std::string label_selector;
  std::string field_selector;
  // Where to start. Empty: list first and report every object as ADDED, then
  // watch from the list's version. Given: only changes after it.
  std::string resource_version;
  std::chrono::milliseconds timeout{300'000};  // the whole watch, reconnects included
  // How long one watch request lasts on the server (timeoutSeconds) before
  // the watch reconnects from where it was.
  std::chrono::seconds request_timeout{240};
  int max_failures = 5;  // consecutive failed connects (no event in between) before giving up
  std::chrono::milliseconds retry_delay{200};  // doubles after each failed connect
};

struct WatchResult {
  bool stopped = false;          // the handler said stop; false: the timeout ran out
  std::string resource_version;  // the last one seen: a later watch can resume from it
  int connects = 0;              // watch requests made
  int relists = 0;               // lists after the server said the version was gone
  int bookmarks = 0;
};

// Splits a streamed body into lines (one watch event each), across chunks.
class LineSplitter {
 public:
  // Calls `on_line` for each complete line in `chunk`; stops early and
  // returns false when `on_line` does.
  bool feed(std::string_view chunk, const std::function<bool(std::string_view)>& on_line);
  void clear() { partial_.clear(); }

 private:
  std::string partial_;
};

// The identity a watch keeps per object: "namespace/name".
std::string watch_key(const model::Json& object);

// What a watch knows of the objects it reported, so a list after a 410 can
// be turned into the ADDED/MODIFIED/DELETED events that were missed.
class WatchState {
 public:
  // Remembers an ADDED or MODIFIED object, forgets a DELETED one.
  void record(const WatchEvent& event);
  // The events that take the known objects to `listed`, in name order,
  // deletions first. Records them too.
  std::vector<WatchEvent> replace(const std::vector<model::Json>& listed);

 private:
  std::map<std::string, model::Json> objects_;
};

}  // namespace opctl::kube
