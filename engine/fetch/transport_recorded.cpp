// A directory of recorded responses (transport.hpp): page-<n>.json and recording.json.
#include <nlohmann/json.hpp>

#include "gpubill/base/errors.hpp"
#include "gpubill/base/input_file.hpp"
#include "gpubill/base/time.hpp"
#include "gpubill/fetch/transport.hpp"

namespace gpubill {

namespace {

class RecordedTransport final : public Transport {
 public:
  explicit RecordedTransport(std::filesystem::path dir) : dir_(std::move(dir)) {
    const std::string meta = (dir_ / "recording.json").string();
    if (!std::filesystem::is_regular_file(meta)) {
      throw InputError(dir_.string(), "", "recording.json",
                       "not a recording: it has no recording.json saying when and from where "
                       "the responses were recorded");
    }
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(read_input_file(meta));
    } catch (const nlohmann::json::exception& e) {
      throw InputError(meta, "", "", std::string("not valid JSON: ") + e.what());
    }
    for (const char* field : {"recorded_at", "provenance"}) {
      if (!j.contains(field) || !j[field].is_string() || j[field].get<std::string>().empty()) {
        throw InputError(meta, "", field, "missing or not a string");
      }
    }
    recorded_at_ = j["recorded_at"].get<std::string>();
    try {
      (void)parse_instant(recorded_at_);
    } catch (const ParseError& e) {
      throw InputError(meta, "", "recorded_at", e.what());
    }
    provenance_ = j["provenance"].get<std::string>();
  }

  Download get(const std::string& url, std::size_t page,
               const std::filesystem::path& /*dest*/) override {
    const auto file = dir_ / ("page-" + std::to_string(page) + ".json");
    if (!std::filesystem::is_regular_file(file)) {
      throw InputError(dir_.string(), "", "",
                       "the recording has no " + file.filename().string() + " (request " +
                           std::to_string(page) + ": " + url + ")");
    }
    return Download{file, "recorded response " + file.string() + " (" + provenance_ + ")"};
  }

  std::string recorded_at() const override { return recorded_at_; }

 private:
  std::filesystem::path dir_;
  std::string recorded_at_, provenance_;
};

}  // namespace

std::unique_ptr<Transport> make_recorded_transport(const std::filesystem::path& dir) {
  return std::make_unique<RecordedTransport>(dir);
}

}  // namespace gpubill
