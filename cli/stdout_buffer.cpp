#include "stdout_buffer.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iostream>
#include <string>

#include "gpubill/base/errors.hpp"

namespace gpubill::cli {

namespace {

constexpr std::size_t kBufferBytes = 64 * 1024;

void write_all(const char* p, std::size_t n) {
  while (n > 0) {
    const ssize_t w = ::write(STDOUT_FILENO, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      const int error = w < 0 ? errno : EIO;
      throw Error(std::string("cannot write to standard output: ") + std::strerror(error));
    }
    p += w;
    n -= static_cast<std::size_t>(w);
  }
}

}  // namespace

StdoutBuffer::StdoutBuffer() : buffer_(kBufferBytes) {
  setp(buffer_.data(), buffer_.data() + buffer_.size());
}

void StdoutBuffer::drain() {
  const std::size_t n = static_cast<std::size_t>(pptr() - pbase());
  setp(buffer_.data(), buffer_.data() + buffer_.size());  // dropped even when the write fails
  write_all(buffer_.data(), n);
}

StdoutBuffer::int_type StdoutBuffer::overflow(int_type c) {
  drain();
  if (!traits_type::eq_int_type(c, traits_type::eof())) {
    *pptr() = traits_type::to_char_type(c);
    pbump(1);
  }
  return traits_type::not_eof(c);
}

std::streamsize StdoutBuffer::xsputn(const char* s, std::streamsize n) {
  const auto room = epptr() - pptr();
  if (n <= room) {
    std::memcpy(pptr(), s, static_cast<std::size_t>(n));
    pbump(static_cast<int>(n));
    return n;
  }
  drain();
  if (static_cast<std::size_t>(n) >= buffer_.size()) {
    write_all(s, static_cast<std::size_t>(n));
  } else {
    std::memcpy(pptr(), s, static_cast<std::size_t>(n));
    pbump(static_cast<int>(n));
  }
  return n;
}

int StdoutBuffer::sync() {
  drain();
  return 0;
}

CheckedStdout::CheckedStdout() : old_(std::cout.rdbuf(&buffer_)) {
  std::cout.exceptions(std::ios::badbit);
}

void CheckedStdout::finish() {
  std::cout.flush();
}

void CheckedStdout::release() noexcept {
  if (released_) return;
  released_ = true;
  std::cout.exceptions(std::ios::goodbit);
  std::cout.clear();
  try {
    buffer_.pubsync();
  } catch (const std::exception&) {
    // finish() reports a failed write; here the process is already failing
  }
  std::cout.rdbuf(old_);
}

CheckedStdout::~CheckedStdout() {
  release();
}

}  // namespace gpubill::cli
