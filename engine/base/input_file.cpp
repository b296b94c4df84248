#include "gpubill/base/input_file.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "gpubill/base/errors.hpp"

namespace gpubill {

void check_input_file(const std::string& path) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (status.type() == std::filesystem::file_type::not_found) {
    throw InputError(path, "", "", "no such file");
  }
  if (status.type() == std::filesystem::file_type::directory) {
    throw InputError(path, "", "", "is a directory, not a file");
  }
  // access(), not a trial open: opening a named pipe twice would wait for a second writer.
  if (::access(path.c_str(), R_OK) != 0) {
    throw InputError(path, "", "", std::string("cannot open: ") + std::strerror(errno));
  }
}

std::string read_input_file(const std::string& path, std::size_t max_bytes) {
  check_input_file(path);
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  if (!ec && size > max_bytes) {
    throw InputError(path, "", "",
                     "is " + std::to_string(size) + " bytes; at most " + std::to_string(max_bytes) +
                         " are read");
  }
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw InputError(path, "", "", "read error");
  return text.str();
}

}  // namespace gpubill
