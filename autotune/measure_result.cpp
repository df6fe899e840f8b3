#include "autotune/measure_result.h"

#include "autotune/errors.h"

namespace tessera::autotune {

namespace {

constexpr MeasureStatus kAllStatuses[] = {
    MeasureStatus::kOk,           MeasureStatus::kInvalidConfig,
    MeasureStatus::kCompileError, MeasureStatus::kSimulationError,
    MeasureStatus::kTimeout,      MeasureStatus::kInternalError,
};

}  // namespace

const char* measure_status_name(MeasureStatus status) {
  switch (status) {
    case MeasureStatus::kOk:
      return "ok";
    case MeasureStatus::kInvalidConfig:
      return "invalid_config";
    case MeasureStatus::kCompileError:
      return "compile_error";
    case MeasureStatus::kSimulationError:
      return "simulation_error";
    case MeasureStatus::kTimeout:
      return "timeout";
    case MeasureStatus::kInternalError:
      return "internal_error";
  }
  throw InternalError("unknown MeasureStatus");
}

std::optional<MeasureStatus> parse_measure_status(const std::string& name) {
  for (MeasureStatus s : kAllStatuses)
    if (name == measure_status_name(s)) return s;
  return std::nullopt;
}

MeasureResult MeasureResult::success(int64_t cycles, std::string fingerprint) {
  TESSERA_ICHECK(cycles > 0, "a successful measurement has positive cycles, not ", cycles);
  MeasureResult r;
  r.status = MeasureStatus::kOk;
  r.cycles = cycles;
  r.fingerprint = std::move(fingerprint);
  return r;
}

MeasureResult MeasureResult::failure(MeasureStatus status, std::string message,
                                     std::string fingerprint) {
  TESSERA_ICHECK(status != MeasureStatus::kOk, "failure() with status ok");
  MeasureResult r;
  r.status = status;
  r.message = std::move(message);
  r.fingerprint = std::move(fingerprint);
  return r;
}

bool MeasureResult::operator==(const MeasureResult& o) const {
  return status == o.status && cycles == o.cycles && message == o.message &&
         fingerprint == o.fingerprint && duplicate_of == o.duplicate_of;
}

nlohmann::json result_to_json(const MeasureResult& result) {
  nlohmann::json j = {{"status", measure_status_name(result.status)}};
  if (result.ok())
    j["cycles"] = result.cycles;
  else
    j["message"] = result.message;
  if (!result.fingerprint.empty()) j["fingerprint"] = result.fingerprint;
  if (result.duplicate_of) j["duplicate_of"] = *result.duplicate_of;
  return j;
}

MeasureResult result_from_json(const nlohmann::json& j) {
  if (!j.is_object()) throw TuningLogError("result is not a JSON object");
  auto st = j.find("status");
  if (st == j.end() || !st->is_string()) throw TuningLogError("result has no \"status\" string");
  auto status = parse_measure_status(st->get<std::string>());
  if (!status) throw TuningLogError(str("result status ", st->dump(), " is not an error class"));
  MeasureResult r;
  r.status = *status;
  if (r.ok()) {
    auto c = j.find("cycles");
    if (c == j.end() || !c->is_number_integer() || c->get<int64_t>() <= 0)
      throw TuningLogError("an ok result has no positive integer \"cycles\"");
    r.cycles = c->get<int64_t>();
  } else {
    auto m = j.find("message");
    if (m == j.end() || !m->is_string())
      throw TuningLogError("a failed result has no \"message\" string");
    r.message = m->get<std::string>();
  }
  if (auto f = j.find("fingerprint"); f != j.end()) {
    if (!f->is_string()) throw TuningLogError("result \"fingerprint\" is not a string");
    r.fingerprint = f->get<std::string>();
  }
  if (auto d = j.find("duplicate_of"); d != j.end()) {
    if (!d->is_number_integer() || d->get<int64_t>() < 0)
      throw TuningLogError("result \"duplicate_of\" is not a trial index");
    r.duplicate_of = d->get<int64_t>();
  }
  return r;
}

}  // namespace tessera::autotune
