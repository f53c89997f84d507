// A minimal JSON writer: the report needs objects, arrays, strings and
// numbers, and nothing more than correct escaping and commas.
//
//   JsonWriter w;
//   w.beginObject().key("engine").value("ftree").endObject();
//   std::string text = w.take();
#pragma once

#include <concepts>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ibsm::analysis {

class JsonWriter {
 public:
  JsonWriter& beginObject();
  JsonWriter& endObject();
  JsonWriter& beginArray();
  JsonWriter& endArray();
  JsonWriter& key(std::string_view name);
  JsonWriter& value(std::string_view text);
  JsonWriter& value(const char* text) { return value(std::string_view{text}); }
  JsonWriter& value(std::uint64_t number);
  template <std::unsigned_integral T>
  requires(!std::same_as<T, bool>) JsonWriter& value(T number) {
    return value(static_cast<std::uint64_t>(number));
  }
  JsonWriter& value(double number);
  JsonWriter& value(bool flag);
  JsonWriter& null();  // a figure that was not computed
  JsonWriter& value(const std::vector<std::string>& texts);

  std::string take() { return std::move(out_); }

  static std::string quote(std::string_view text);

 private:
  void separate();

  std::string out_;
  std::vector<bool> first_;  // per open container: nothing written in it yet
  bool afterKey_{false};
};

}  // namespace ibsm::analysis
