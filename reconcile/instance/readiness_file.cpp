#include "instance/readiness_file.hpp"

#include <filesystem>
#include <fstream>
#include <system_error>

namespace opctl::instance {

namespace fs = std::filesystem;

std::string readiness_path(const std::string& run_dir) {
  return run_dir + "/ready";
}

void publish_readiness(const std::string& run_dir, bool ready, const std::string& role) {
  std::string path = readiness_path(run_dir);
  std::error_code ignored;
  if (!ready) {
    fs::remove(path, ignored);
    return;
  }
  std::string temporary = path + ".new";
  {
    std::ofstream out(temporary, std::ios::trunc);
    out << role << "\n";
  }
  fs::rename(temporary, path, ignored);
}

bool readiness_published(const std::string& run_dir) {
  std::error_code error;
  auto written = fs::last_write_time(readiness_path(run_dir), error);
  if (error) return false;
  auto age = fs::file_time_type::clock::now() - written;
  return age < k_readiness_freshness && age > -k_readiness_freshness;
}

}  // namespace opctl::instance
