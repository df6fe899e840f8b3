#include "autotune/log_record.h"

#include <chrono>
#include <cstdio>
#include <ctime>

#include "autotune/errors.h"

namespace tessera::autotune {

namespace {

const nlohmann::json& field(const nlohmann::json& j, const char* name) {
  auto it = j.find(name);
  if (it == j.end()) throw TuningLogError(str("record has no \"", name, "\""));
  return *it;
}

std::string string_field(const nlohmann::json& j, const char* name) {
  const auto& v = field(j, name);
  if (!v.is_string()) throw TuningLogError(str("record field \"", name, "\" is not a string"));
  return v.get<std::string>();
}

}  // namespace

TargetId TargetId::of(const npu::Target& target) {
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx",
                static_cast<unsigned long long>(npu::target_hash(target)));
  return TargetId{target.name, hex};
}

nlohmann::json record_to_json(const LogRecord& r) {
  return {
      {"version", r.version},
      {"compiler", r.compiler},
      {"target", {{"name", r.target.name}, {"hash", r.target.hash}}},
      {"task", r.task},
      {"tuner", r.tuner},
      {"seed", r.seed},
      {"trial", r.trial},
      {"config", r.config},
      {"result", result_to_json(r.result)},
      {"timestamp", r.timestamp},
  };
}

LogRecord record_from_json(const nlohmann::json& j) {
  if (!j.is_object()) throw TuningLogError("record is not a JSON object");
  LogRecord r;
  const auto& version = field(j, "version");
  if (!version.is_number_integer()) throw TuningLogError("record \"version\" is not an integer");
  r.version = version.get<int64_t>();
  r.compiler = string_field(j, "compiler");
  const auto& target = field(j, "target");
  if (!target.is_object()) throw TuningLogError("record \"target\" is not an object");
  r.target.name = string_field(target, "name");
  r.target.hash = string_field(target, "hash");
  r.task = field(j, "task");
  if (!r.task.is_object()) throw TuningLogError("record \"task\" is not an object");
  r.tuner = string_field(j, "tuner");
  const auto& seed = field(j, "seed");
  if (!seed.is_number_unsigned())
    throw TuningLogError("record \"seed\" is not an unsigned integer");
  r.seed = seed.get<uint64_t>();
  const auto& trial = field(j, "trial");
  if (!trial.is_number_integer() || trial.get<int64_t>() < 0)
    throw TuningLogError("record \"trial\" is not a trial index");
  r.trial = trial.get<int64_t>();
  r.config = field(j, "config");
  if (!r.config.is_object()) throw TuningLogError("record \"config\" is not an object");
  r.result = result_from_json(field(j, "result"));
  r.timestamp = string_field(j, "timestamp");
  return r;
}

std::string utc_timestamp() {
  auto now = std::chrono::system_clock::now();
  std::time_t secs = std::chrono::system_clock::to_time_t(now);
  auto ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(ms));
  return buf;
}

}  // namespace tessera::autotune
