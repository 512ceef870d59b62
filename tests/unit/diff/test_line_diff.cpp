#include <catch2/catch.hpp>

#include "diff/line_diff.hpp"

using opctl::diff::unified_diff;

TEST_CASE("equal texts have an empty diff", "[linediff]") {
  CHECK(unified_diff("a\nb\n", "a\nb\n").empty());
}

TEST_CASE("a changed line shows with three lines of context", "[linediff]") {
  std::string before = "1\n2\n3\n4\n5\n6\n7\n8\n9\n";
  std::string after = "1\n2\n3\n4\nfive\n6\n7\n8\n9\n";
  CHECK(unified_diff(before, after) == "@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n");
}

TEST_CASE("changes far apart give separate hunks, near ones one hunk", "[linediff]") {
  std::string before, far_after, near_after;
  for (int i = 1; i <= 20; ++i)
    before += std::to_string(i) + "\n";
  far_after = before;
  far_after.replace(far_after.find("2\n"), 2, "two\n");
  far_after.replace(far_after.find("\n19\n") + 1, 3, "nineteen\n");
  CHECK(unified_diff(before, far_after) ==
        "@@ -1,5 +1,5 @@\n 1\n-2\n+two\n 3\n 4\n 5\n@@ -16,5 +16,5 @@\n 16\n 17\n 18\n-19\n+nineteen\n 20\n");
  near_after = "1\nx\n3\n4\n5\n6\ny\n8\n";
  CHECK(unified_diff("1\n2\n3\n4\n5\n6\n7\n8\n", near_after) ==
        "@@ -1,8 +1,8 @@\n 1\n-2\n+x\n 3\n 4\n 5\n 6\n-7\n+y\n 8\n");
}

TEST_CASE("added and removed whole texts", "[linediff]") {
  CHECK(unified_diff("", "a\nb\n") == "@@ -0,0 +1,2 @@\n+a\n+b\n");
  CHECK(unified_diff("a\n", "") == "@@ -1,1 +0,0 @@\n-a\n");
}

TEST_CASE("a large new text is one hunk of additions", "[linediff]") {
  std::string after;
  for (int i = 0; i < 20000; ++i)
    after += "line " + std::to_string(i) + "\n";
  const std::string diff = unified_diff("", after);
  CHECK(diff.rfind("@@ -0,0 +1,20000 @@\n+line 0\n+line 1\n", 0) == 0);
  CHECK(diff.size() == std::string("@@ -0,0 +1,20000 @@\n").size() + after.size() + 20000);
}

TEST_CASE("one change in a large text is one small hunk", "[linediff]") {
  std::string before;
  for (int i = 0; i < 20000; ++i)
    before += "line " + std::to_string(i) + "\n";
  std::string after = before;
  after.replace(after.find("line 10000\n"), 11, "changed\n");
  CHECK(unified_diff(before, after) ==
        "@@ -9998,7 +9998,7 @@\n line 9997\n line 9998\n line 9999\n-line 10000\n+changed\n line 10001\n"
        " line 10002\n line 10003\n");
}

TEST_CASE("a missing final newline is no difference; a NUL byte is text", "[linediff]") {
  CHECK(unified_diff("a\nb", "a\nb\n").empty());
  CHECK(unified_diff("a\nb", "a\nc") == "@@ -1,2 +1,2 @@\n a\n-b\n+c\n");
  const std::string with_nul("x\0y\n", 4);
  CHECK(unified_diff("x\n", with_nul) == "@@ -1,1 +1,1 @@\n-x\n+" + with_nul);
}
