#include <fmt/format.h>
#include <zlib.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "tar_archive.hpp"

namespace {

std::string gunzipped_archive(const std::string& path) {
  gzFile file = gzopen(path.c_str(), "rb");
  REQUIRE(file != nullptr);
  std::string out;
  char buffer[4096];
  int read = 0;
  while ((read = gzread(file, buffer, sizeof buffer)) > 0)
    out.append(buffer, static_cast<std::size_t>(read));
  gzclose(file);
  return out;
}

}  // namespace

TEST_CASE("a tar.gz: ustar headers with checksums, contents padded to blocks, two zero blocks at the end",
          "[cli][report]") {
  auto path = std::filesystem::temp_directory_path() / "opctl-test-archive.tar.gz";
  std::string long_directory =
      "report_cluster_db_20261205T100000Z/objects/PersistentVolumeClaim/" + std::string(60, 'x');
  {
    opctl::cli::TarGzWriter archive(path.string());
    archive.add("bundle/README.txt", "hello\n", std::chrono::system_clock::from_time_t(1'700'000'000));
    archive.add(long_directory + "/db-1.yaml", std::string(600, 'a'), std::chrono::system_clock::now());
    archive.finish();
  }
  CHECK((std::filesystem::status(path).permissions() & std::filesystem::perms::others_read) ==
        std::filesystem::perms::none);
  std::string tar = gunzipped_archive(path.string());
  REQUIRE(tar.size() == 512 + 512 + 512 + 1024 + 1024);
  CHECK(tar.substr(0, 17) == "bundle/README.txt");
  CHECK(tar.substr(124, 11) == "00000000006");
  CHECK(tar.substr(136, 11) == fmt::format("{:011o}", 1'700'000'000));
  CHECK(tar.substr(257, 5) == "ustar");
  unsigned long sum = 0;
  for (std::size_t i = 0; i < 512; ++i)
    sum += (i >= 148 && i < 156) ? ' ' : static_cast<unsigned char>(tar[i]);
  CHECK(std::stoul(tar.substr(148, 6), nullptr, 8) == sum);
  CHECK(tar.substr(512, 6) == "hello\n");
  // The long name: the file in `name`, its directories in `prefix`.
  CHECK(tar.substr(1024, 9) == "db-1.yaml");
  CHECK(tar.substr(1024 + 345, long_directory.size()) == long_directory);
  CHECK(tar.substr(tar.size() - 1024) == std::string(1024, '\0'));
  std::filesystem::remove(path);
}
