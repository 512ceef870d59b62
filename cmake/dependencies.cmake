# Every dependency comes from a Debian package; nothing is downloaded at configure time.
find_package(PkgConfig REQUIRED)
find_package(fmt REQUIRED)
find_package(yaml-cpp REQUIRED)
find_package(nlohmann_json 3.10 REQUIRED)
find_package(CLI11 REQUIRED)
find_package(CURL REQUIRED)
find_package(Threads REQUIRED)
find_package(OpenSSL 3 REQUIRED COMPONENTS Crypto)
find_package(ZLIB REQUIRED)
pkg_check_modules(LIBGIT2 REQUIRED IMPORTED_TARGET libgit2>=1.1)
pkg_check_modules(LIBYAML REQUIRED IMPORTED_TARGET yaml-0.1>=0.2)
# Patterns from Kubernetes and Go tools (OpenAPI pattern, SOPS rules) in their own syntax (Debian's libre2-dev).
pkg_check_modules(RE2 REQUIRED IMPORTED_TARGET re2)
# The instance manager's SQL connections (Debian's libpq-dev).
pkg_check_modules(LIBPQ REQUIRED IMPORTED_TARGET libpq>=13)
if(OPCTL_BUILD_TESTS)
  find_package(Catch2 2 REQUIRED)
endif()

message(STATUS "Dependencies: fmt ${fmt_VERSION}, yaml-cpp ${yaml-cpp_VERSION}, nlohmann_json ${nlohmann_json_VERSION}, "
               "CLI11 ${CLI11_VERSION}, libcurl ${CURL_VERSION_STRING}, libgit2 ${LIBGIT2_VERSION}, "
               "libyaml ${LIBYAML_VERSION}, libpq ${LIBPQ_VERSION}, re2 ${RE2_VERSION}")
