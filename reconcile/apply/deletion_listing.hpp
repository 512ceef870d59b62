// What a refused prune would have deleted, for its message: "3 objects: a, b, c".
#pragma once

#include <string>
#include <vector>

namespace opctl::apply {

// The count and the first ten "Kind namespace/name", then "...".
std::string deletion_listing(std::vector<std::string> names);

}  // namespace opctl::apply
