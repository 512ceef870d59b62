// A gzip-compressed tar archive (POSIX ustar) written file by file, for the
// support bundle of `opctl cluster report`: readable by `tar xzf` anywhere.
#pragma once

#include <chrono>
#include <string>

struct gzFile_s;

namespace opctl::cli {

class TarGzWriter {
 public:
  // Creates `path` (mode 0600: a bundle is for the people it is sent to);
  // throws an opctl::Error when it cannot.
  explicit TarGzWriter(const std::string& path);
  ~TarGzWriter();
  TarGzWriter(const TarGzWriter&) = delete;
  TarGzWriter& operator=(const TarGzWriter&) = delete;

  // One regular file; `name` is relative, '/'-separated, at most 255 bytes.
  void add(const std::string& name, const std::string& content, std::chrono::system_clock::time_point mtime);
  // The end-of-archive blocks and the gzip trailer; throws when the write fails.
  void finish();

 private:
  void write(const char* data, std::size_t size);
  std::string path_;
  gzFile_s* file_ = nullptr;
};

}  // namespace opctl::cli
