// Files compiled into the library by cmake/embed_data.cmake: the SQL migrations and the
// bundled catalog, each as (file name, text), sorted by name.
#pragma once

#include <string>
#include <vector>

namespace gpubill::embedded {

struct File {
  std::string name;
  std::string text;
};

const std::vector<File>& migrations();
const std::vector<File>& catalog_files();

}  // namespace gpubill::embedded
