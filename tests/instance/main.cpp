// The instance manager against real PostgreSQL on loopback. Runs as a
// non-root user (run_as_nobody.sh), since initdb refuses root.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
