// The outcome of measuring one config: an error class, the cycles when it ran, a message when it
// did not, and the kernel's fingerprint (for duplicate detection).
//
//   ok                built and ran on the timing simulator: `cycles` is its cost
//   invalid_config    the template or schedule rejected the config (ScheduleError)
//   compile_error     legal, but it cannot be lowered or built for the target (LowerError, e.g.
//                     on-chip overflow; KernelFileError)
//   simulation_error  the simulator rejected the kernel (SimulationError)
//   timeout           the measurement overran its time limit (or saw its cancellation)
//   internal_error    a bug in tessera (InternalError or any other exception): recorded and
//                     reported loudly, never hidden
//
// `duplicate_of` is set by the tuning driver when the kernel is identical (same fingerprint) to
// the one of an earlier trial: the result is that trial's, not measured again.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace tessera::autotune {

enum class MeasureStatus {
  kOk,
  kInvalidConfig,
  kCompileError,
  kSimulationError,
  kTimeout,
  kInternalError,
};

// "ok", "invalid_config", "compile_error", "simulation_error", "timeout", "internal_error".
const char* measure_status_name(MeasureStatus status);
// The inverse; std::nullopt for any other text.
std::optional<MeasureStatus> parse_measure_status(const std::string& name);

struct MeasureResult {
  MeasureStatus status = MeasureStatus::kInternalError;
  int64_t cycles = 0;       // > 0 when ok, 0 otherwise
  std::string message;      // empty when ok
  std::string fingerprint;  // the kernel's identity; empty when none was built
  std::optional<int64_t> duplicate_of;

  bool ok() const { return status == MeasureStatus::kOk; }

  static MeasureResult success(int64_t cycles, std::string fingerprint = "");
  static MeasureResult failure(MeasureStatus status, std::string message,
                               std::string fingerprint = "");

  bool operator==(const MeasureResult& o) const;
  bool operator!=(const MeasureResult& o) const { return !(*this == o); }
};

// {"status":"ok","cycles":N[,"fingerprint":..][,"duplicate_of":T]} or
// {"status":"compile_error","message":"..."[,...]}: the log's result object.
nlohmann::json result_to_json(const MeasureResult& result);
// The inverse; TuningLogError naming the problem if the object is malformed.
MeasureResult result_from_json(const nlohmann::json& j);

}  // namespace tessera::autotune
