#include "metrics_file.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <vector>

#include "model/error.hpp"

namespace opctl::cli {
namespace {

Error write_error(const std::string& path, const char* step) {
  return Error(ErrorCategory::invalid_input,
               fmt::format("cannot write the metrics file {}: {}: {}", path, step, std::strerror(errno)));
}

// Closes and removes the temporary file unless it was renamed into place.
class TemporaryFile {
 public:
  explicit TemporaryFile(const std::string& target) {
    std::filesystem::path path(target);
    std::string name = "." + path.filename().string() + ".XXXXXX";
    std::string pattern = (path.parent_path() / name).string();
    std::vector<char> buffer(pattern.begin(), pattern.end());
    buffer.push_back('\0');
    fd_ = mkstemp(buffer.data());
    if (fd_ < 0) throw write_error(target, "creating a temporary file beside it");
    path_.assign(buffer.data());
  }
  ~TemporaryFile() {
    if (fd_ >= 0) ::close(fd_);
    if (!renamed_) std::remove(path_.c_str());
  }
  TemporaryFile(const TemporaryFile&) = delete;
  TemporaryFile& operator=(const TemporaryFile&) = delete;

  int fd() const { return fd_; }
  const std::string& path() const { return path_; }
  // Closes the descriptor, reporting what close() reports (a full disk may show only here).
  bool close() {
    int fd = fd_;
    fd_ = -1;
    return ::close(fd) == 0;
  }
  void renamed() { renamed_ = true; }

 private:
  int fd_ = -1;
  std::string path_;
  bool renamed_ = false;
};

}  // namespace

void write_metrics_file(const std::string& path, const std::string& text) {
  TemporaryFile file(path);
  for (std::size_t written = 0; written < text.size();) {
    ssize_t n = ::write(file.fd(), text.data() + written, text.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw write_error(path, "writing");
    written += static_cast<std::size_t>(n);
  }
  if (::fchmod(file.fd(), 0644) != 0) throw write_error(path, "making it readable");
  if (::fsync(file.fd()) != 0) throw write_error(path, "flushing it to disk");
  if (!file.close()) throw write_error(path, "closing it");
  if (std::rename(file.path().c_str(), path.c_str()) != 0) throw write_error(path, "renaming it into place");
  file.renamed();
}

}  // namespace opctl::cli
