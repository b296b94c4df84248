// Standard output that reports a failed write: std::cout's own buffer ignores a full disk or a
// closed descriptor, and an export of millions of rows would end with exit 0 and nothing
// written. Installed by main around the command.
#pragma once

#include <streambuf>
#include <vector>

namespace gpubill::cli {

// A std::streambuf writing to file descriptor 1 through a 64 KiB buffer. The first failed
// write(2) throws gpubill::Error("cannot write to standard output: <the OS's message>"); with
// std::ios::badbit in the stream's exception mask the stream passes it on to the caller, so a
// command stops at its first lost byte.
class StdoutBuffer : public std::streambuf {
 public:
  StdoutBuffer();
  StdoutBuffer(const StdoutBuffer&) = delete;
  StdoutBuffer& operator=(const StdoutBuffer&) = delete;

 protected:
  int_type overflow(int_type c) override;
  std::streamsize xsputn(const char* s, std::streamsize n) override;
  int sync() override;

 private:
  void drain();  // writes the buffered bytes; throws on failure
  std::vector<char> buffer_;
};

// Points std::cout at a StdoutBuffer for its lifetime (throwing on a failed write), and back at
// its own buffer after. finish() flushes, throwing gpubill::Error when that fails. release()
// writes what is buffered (ignoring a failure: the command is failing already) and restores
// std::cout: call it before writing an error to std::cerr, which is tied to std::cout.
class CheckedStdout {
 public:
  CheckedStdout();
  ~CheckedStdout();
  CheckedStdout(const CheckedStdout&) = delete;
  CheckedStdout& operator=(const CheckedStdout&) = delete;
  void finish();
  void release() noexcept;

 private:
  StdoutBuffer buffer_;
  std::streambuf* old_;
  bool released_ = false;
};

}  // namespace gpubill::cli
