// Calls a measurement function and classifies what it throws into a result:
//   ScheduleError, ConfigError              -> invalid_config
//   LowerError, KernelFileError, TargetError -> compile_error
//   SimulationError                         -> simulation_error
//   MeasurementCancelled                    -> timeout
//   InternalError, any other exception      -> internal_error (message says which)
// This is the one place exceptions of a measurement are caught: every one becomes a recorded
// result, and internal errors are then reported loudly by the driver. A result that breaks the
// MeasureResult invariants (ok with cycles <= 0) is an internal error too.
#pragma once

#include "autotune/executor.h"

namespace tessera::autotune {

MeasureResult run_measurement(const MeasureFn& fn, const MeasureInput& input,
                              const MeasureContext& context);

}  // namespace tessera::autotune
