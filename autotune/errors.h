// The auto-tuner's error types (all UserError subclasses; see runtime/base/error.h).
//   ConfigError     a knob or space defined wrongly by a template, or a config (JSON, index) that
//                   is not a point of its space; the message names the knob and says what is legal.
//   TuningLogError  a tuning log that cannot be used: another format version or target, or a log
//                   whose records disagree with the search resuming from it; names the file.
// MeasurementCancelled is what a measurement throws when it sees its cancellation flag (see
// MeasureContext); the executor records it as a timeout.
#pragma once

#include "runtime/base/error.h"

namespace tessera::autotune {

class ConfigError : public UserError {
 public:
  using UserError::UserError;
};

class TuningLogError : public UserError {
 public:
  using UserError::UserError;
};

class MeasurementCancelled : public Error {
 public:
  using Error::Error;
};

}  // namespace tessera::autotune
