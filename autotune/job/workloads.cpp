#include "autotune/job/workloads.h"

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>

#include "autotune/log_record.h"
#include "runtime/base/file_io.h"

namespace tessera::autotune {

namespace {

using nlohmann::json;

std::string type_name(const json& j) { return j.type_name(); }

struct Reader {
  const std::string& path;
  std::filesystem::path dir;

  [[noreturn]] void fail(const std::string& what) const {
    throw WorkloadsError(str("workloads file ", path, ": ", what));
  }

  npu::Target target_at(const json& value, const std::string& where) const {
    if (!value.is_string() || value.get<std::string>().empty())
      fail(str(where, ": \"target\" must be the path of a target description (a string), not ",
               value.dump()));
    std::filesystem::path p(value.get<std::string>());
    if (p.is_relative()) p = dir / p;
    try {
      return npu::load_target(p.lexically_normal().string());
    } catch (const UserError& e) {
      fail(str(where, ": ", e.what()));
    }
  }
};

}  // namespace

Workloads parse_workloads(const std::string& text, const std::string& path,
                          const npu::Target& default_target) {
  Reader r{path, std::filesystem::path(path).parent_path()};
  json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) r.fail("is not valid JSON");
  if (!doc.is_object()) r.fail(str("must be a JSON object, not ", type_name(doc)));
  for (const auto& [k, v] : doc.items())
    if (k != "version" && k != "name" && k != "note" && k != "target" && k != "tasks")
      r.fail(str("unknown field \"", k, "\"; fields: version, name, note, target, tasks"));
  if (!doc.contains("version") || !doc["version"].is_number_integer())
    r.fail(str("\"version\" (an integer, ", kWorkloadsVersion, ") is missing"));
  if (doc["version"].get<int64_t>() != kWorkloadsVersion)
    r.fail(str("is format version ", doc["version"].get<int64_t>(), "; this tessera reads version ",
               kWorkloadsVersion, " only"));
  Workloads out;
  out.path = path;
  if (doc.contains("name")) {
    if (!doc["name"].is_string()) r.fail("\"name\" must be a string");
    out.name = doc["name"].get<std::string>();
  }
  npu::Target file_target = doc.contains("target") ? r.target_at(doc["target"], "the file's target")
                                                   : default_target;
  if (!doc.contains("tasks") || !doc["tasks"].is_array() || doc["tasks"].empty())
    r.fail("\"tasks\" must be a non-empty list of {\"id\", \"template\", \"args\"}");

  std::map<std::string, size_t> ids;   // id -> entry
  std::map<std::string, size_t> keys;  // task key + target -> entry
  const json& tasks = doc["tasks"];
  for (size_t i = 0; i < tasks.size(); ++i) {
    const json& e = tasks[i];
    std::string where = str("task ", i + 1);
    if (!e.is_object()) r.fail(str(where, " must be an object, not ", type_name(e)));
    if (!e.contains("id") || !e["id"].is_string() || e["id"].get<std::string>().empty())
      r.fail(str(where, ": \"id\" (a non-empty string naming the task) is missing"));
    const std::string id = e["id"].get<std::string>();
    where = str("task ", i + 1, " ('", id, "')");
    for (const auto& [k, v] : e.items())
      if (k != "id" && k != "template" && k != "args" && k != "target" && k != "note")
        r.fail(str(where, ": unknown field \"", k, "\"; fields: id, template, args, target, note"));
    if (auto [it, fresh] = ids.emplace(id, i); !fresh)
      r.fail(str(where, ": the id is also task ", it->second + 1, "'s; ids must be unique"));
    if (!e.contains("template") || !e["template"].is_string())
      r.fail(str(where, ": \"template\" (a string: the template's name) is missing"));
    if (!e.contains("args") || !e["args"].is_object())
      r.fail(str(where, ": \"args\" (an object: the template's arguments) is missing"));
    npu::Target target = e.contains("target") ? r.target_at(e["target"], where) : file_target;
    Workload w;
    w.id = id;
    try {
      w.task = make_npu_task(e["template"].get<std::string>(), e["args"], target);
    } catch (const UserError& err) {
      r.fail(str(where, ": ", err.what()));
    }
    const std::string key = w.task.tuning.key_text() + " on " + TargetId::of(target).text();
    if (auto [it, fresh] = keys.emplace(key, i); !fresh)
      r.fail(str(where, ": the same task as task ", it->second + 1, " (", key, ")"));
    out.tasks.push_back(std::move(w));
  }
  return out;
}

Workloads load_workloads(const std::string& path, const npu::Target& default_target) {
  std::string text;
  std::string why = read_whole_file(path, &text);
  if (!why.empty()) throw WorkloadsError(str("workloads file ", path, ": cannot be read: ", why));
  return parse_workloads(text, path, default_target);
}

}  // namespace tessera::autotune
