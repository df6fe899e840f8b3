#include "runtime/cpu/module_metadata.h"

#include <nlohmann/json.hpp>

#include "runtime/base/error.h"

namespace tessera {

bool operator==(const ArgSpec& a, const ArgSpec& b) {
  return a.name == b.name && a.dtype == b.dtype && a.shape == b.shape && a.written == b.written;
}

std::string module_metadata_to_json(const ModuleMetadata& m) {
  nlohmann::json args = nlohmann::json::array();
  for (const ArgSpec& a : m.args) {
    args.push_back({{"name", a.name},
                    {"dtype", dtype_name(a.dtype)},
                    {"shape", a.shape},
                    {"written", a.written}});
  }
  // nlohmann::json objects are std::maps: keys come out sorted, so the text is deterministic.
  nlohmann::json externs = nlohmann::json::array();
  for (const ExternSpec& e : m.externs) {
    externs.push_back({{"stage", e.stage}, {"function", e.function}});
  }
  nlohmann::json j = {{"version", kModuleMetadataVersion},
                      {"name", m.name},
                      {"args", args},
                      {"externs", externs}};
  return j.dump();
}

ModuleMetadata module_metadata_from_json(const std::string& text, const std::string& origin) {
  auto fail = [&](const std::string& why) {
    return RuntimeError(str("'", origin, "': its tessera metadata is unusable: ", why));
  };
  nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) throw fail("not valid JSON");
  if (!j.is_object()) throw fail("expected a JSON object");
  if (!j.contains("version") || !j["version"].is_number_integer() ||
      j["version"].get<int64_t>() != kModuleMetadataVersion) {
    throw fail(str("expected \"version\": ", kModuleMetadataVersion,
                   " (a library exported by another tessera version: export it again)"));
  }
  if (!j.contains("name") || !j["name"].is_string()) throw fail("\"name\" must be a string");
  if (!j.contains("args") || !j["args"].is_array()) throw fail("\"args\" must be an array");
  ModuleMetadata m;
  m.name = j["name"].get<std::string>();
  for (size_t i = 0; i < j["args"].size(); ++i) {
    const nlohmann::json& a = j["args"][i];
    std::string where = str("argument ", i, ": ");
    if (!a.is_object() || !a.contains("name") || !a["name"].is_string() || !a.contains("dtype") ||
        !a["dtype"].is_string() || !a.contains("shape") || !a["shape"].is_array() ||
        !a.contains("written") || !a["written"].is_boolean()) {
      throw fail(where +
                 "expected {\"name\": string, \"dtype\": string, \"shape\": [int, ...], "
                 "\"written\": bool}");
    }
    ArgSpec spec;
    spec.name = a["name"].get<std::string>();
    std::optional<DType> t = parse_dtype(a["dtype"].get<std::string>());
    if (!t) throw fail(where + "unknown dtype '" + a["dtype"].get<std::string>() + "'");
    spec.dtype = *t;
    spec.written = a["written"].get<bool>();
    for (const nlohmann::json& d : a["shape"]) {
      if (!d.is_number_integer() || d.get<int64_t>() < 0) {
        throw fail(where + "shape entries must be non-negative integers");
      }
      spec.shape.push_back(d.get<int64_t>());
    }
    m.args.push_back(std::move(spec));
  }
  if (!j.contains("externs") || !j["externs"].is_array()) throw fail("\"externs\" must be an array");
  for (size_t i = 0; i < j["externs"].size(); ++i) {
    const nlohmann::json& e = j["externs"][i];
    if (!e.is_object() || !e.contains("stage") || !e["stage"].is_string() ||
        !e.contains("function") || !e["function"].is_string()) {
      throw fail(str("extern ", i, ": expected {\"function\": string, \"stage\": string}"));
    }
    m.externs.push_back({e["stage"].get<std::string>(), e["function"].get<std::string>()});
  }
  return m;
}

}  // namespace tessera
