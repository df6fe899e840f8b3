#include "autotune/run_measurement.h"

#include "autotune/errors.h"

namespace tessera::autotune {

MeasureResult run_measurement(const MeasureFn& fn, const MeasureInput& input,
                              const MeasureContext& context) {
  using S = MeasureStatus;
  try {
    MeasureResult r = fn(input, context);
    if (r.ok() && r.cycles <= 0)
      return MeasureResult::failure(
          S::kInternalError,
          str("the measurement returned ok with ", r.cycles, " cycles (must be positive)"),
          r.fingerprint);
    if (!r.ok() && r.cycles != 0) r.cycles = 0;
    return r;
  } catch (const MeasurementCancelled& e) {
    return MeasureResult::failure(S::kTimeout, e.what());
  } catch (const ScheduleError& e) {
    return MeasureResult::failure(S::kInvalidConfig, e.what());
  } catch (const ConfigError& e) {
    return MeasureResult::failure(S::kInvalidConfig, e.what());
  } catch (const LowerError& e) {
    return MeasureResult::failure(S::kCompileError, e.what());
  } catch (const KernelFileError& e) {
    return MeasureResult::failure(S::kCompileError, e.what());
  } catch (const TargetError& e) {
    return MeasureResult::failure(S::kCompileError, e.what());
  } catch (const SimulationError& e) {
    return MeasureResult::failure(S::kSimulationError, e.what());
  } catch (const InternalError& e) {
    return MeasureResult::failure(S::kInternalError, e.what());
  } catch (const std::exception& e) {
    // Not a tessera error class: a bug of the template or of tessera. Recorded, then reported.
    return MeasureResult::failure(S::kInternalError, str("unexpected exception: ", e.what()));
  }
}

}  // namespace tessera::autotune
