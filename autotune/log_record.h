// One record of a tuning log (docs/tuning_log.md): one measured trial of one search, as one
// JSON object on one line. Keys are sorted (nlohmann's default object), so the same record gives
// the same bytes on every machine:
//   {"compiler":"tessera 0.1.0","config":{...},"result":{"cycles":1234,"status":"ok"},
//    "seed":7,"target":{"hash":"6c90ef56f0f62046","name":"npu-v1"},"task":{...},
//    "timestamp":"2024-05-01T12:00:00.123Z","trial":0,"tuner":"xgb","version":1}
// A search is identified by (task, tuner, seed); its trials are numbered from 0.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "autotune/measure_result.h"
#include "runtime/npu/target.h"

namespace tessera::autotune {

// The format version this tessera writes and reads. The rule (docs/tuning_log.md): adding an
// optional field keeps the version; removing or renaming a field, or changing what one means,
// bumps it; a reader refuses every version but its own.
constexpr int64_t kTuningLogVersion = 1;

struct TargetId {
  std::string name;
  std::string hash;  // npu::target_hash as 16 lower-case hex digits

  static TargetId of(const npu::Target& target);
  std::string text() const { return name + " (hash " + hash + ")"; }
  bool operator==(const TargetId& o) const { return name == o.name && hash == o.hash; }
  bool operator!=(const TargetId& o) const { return !(*this == o); }
};

struct LogRecord {
  int64_t version = kTuningLogVersion;
  std::string compiler;
  TargetId target;
  nlohmann::json task;  // the task key
  std::string tuner;
  uint64_t seed = 0;
  int64_t trial = 0;
  nlohmann::json config;  // canonical config JSON
  MeasureResult result;
  std::string timestamp;  // ISO 8601, UTC, milliseconds
  int64_t line = 0;       // where it was read (1-based); 0 if not read from a file; not written
};

nlohmann::json record_to_json(const LogRecord& record);
// TuningLogError naming the missing or malformed field. The version is checked by the reader.
LogRecord record_from_json(const nlohmann::json& j);

// Now, as the log's timestamp text.
std::string utc_timestamp();

}  // namespace tessera::autotune
