#include "tar_archive.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>
#include <zlib.h>

#include <array>
#include <cstring>

#include "model/error.hpp"

namespace opctl::cli {
namespace {

constexpr std::size_t k_tar_block = 512;

// An octal number right-aligned in `width` bytes with a terminating NUL, as ustar writes them.
void put_tar_octal(char* field, std::size_t width, unsigned long long value) {
  std::string text = fmt::format("{:0{}o}", value, width - 1);
  std::memcpy(field, text.data(), width - 1);
  field[width - 1] = '\0';
}

}  // namespace

TarGzWriter::TarGzWriter(const std::string& path) : path_(path) {
  int descriptor = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (descriptor < 0)
    throw Error(ErrorCategory::invalid_input,
                fmt::format("cannot create {}: {}", path, std::strerror(errno)));
  file_ = gzdopen(descriptor, "wb9");
  if (file_ == nullptr) {
    ::close(descriptor);
    throw Error(ErrorCategory::internal, fmt::format("cannot start gzip output to {}", path));
  }
}

TarGzWriter::~TarGzWriter() {
  if (file_ != nullptr) gzclose(file_);
}

void TarGzWriter::write(const char* data, std::size_t size) {
  if (size == 0) return;
  if (gzwrite(file_, data, static_cast<unsigned>(size)) != static_cast<int>(size))
    throw Error(ErrorCategory::invalid_input, fmt::format("cannot write {}", path_));
}

void TarGzWriter::add(const std::string& name, const std::string& content,
                      std::chrono::system_clock::time_point mtime) {
  std::array<char, k_tar_block> header{};
  // ustar keeps up to 100 bytes in `name` and the directories before them in `prefix` (155 bytes).
  std::string prefix, base = name;
  if (base.size() > 100) {
    auto slash = name.rfind('/');
    if (slash == std::string::npos || name.size() - slash - 1 > 100 || slash > 155)
      throw Error(ErrorCategory::internal, "a support bundle file name is too long for tar: " + name);
    prefix = name.substr(0, slash);
    base = name.substr(slash + 1);
  }
  std::memcpy(header.data(), base.data(), base.size());
  put_tar_octal(header.data() + 100, 8, 0600);
  put_tar_octal(header.data() + 108, 8, 0);
  put_tar_octal(header.data() + 116, 8, 0);
  put_tar_octal(header.data() + 124, 12, content.size());
  auto seconds = std::chrono::duration_cast<std::chrono::seconds>(mtime.time_since_epoch()).count();
  put_tar_octal(header.data() + 136, 12, static_cast<unsigned long long>(seconds < 0 ? 0 : seconds));
  header[156] = '0';
  std::memcpy(header.data() + 257, "ustar", 6);
  std::memcpy(header.data() + 263, "00", 2);
  std::memcpy(header.data() + 345, prefix.data(), prefix.size());
  // The checksum is computed with its own field as eight spaces.
  std::memset(header.data() + 148, ' ', 8);
  unsigned long sum = 0;
  for (char byte : header)
    sum += static_cast<unsigned char>(byte);
  std::string checksum = fmt::format("{:06o}", sum);
  std::memcpy(header.data() + 148, checksum.data(), 6);
  header[154] = '\0';
  header[155] = ' ';
  write(header.data(), header.size());
  write(content.data(), content.size());
  std::array<char, k_tar_block> padding{};
  write(padding.data(), (k_tar_block - content.size() % k_tar_block) % k_tar_block);
}

void TarGzWriter::finish() {
  std::array<char, 2 * k_tar_block> end{};
  write(end.data(), end.size());
  int status = gzclose(file_);
  file_ = nullptr;
  if (status != Z_OK) throw Error(ErrorCategory::invalid_input, fmt::format("cannot finish {}", path_));
}

}  // namespace opctl::cli
