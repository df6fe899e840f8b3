// Simulator runs from Python: SimOptions whose should_stop hook lets Ctrl-C (any pending Python
// signal) stop a long simulation, and the translation of that stop back into the Python
// exception the signal raised (KeyboardInterrupt), instead of a SimulationError.
//
//   PySimRun run(max_work);                       // with the GIL held
//   try {
//     py::gil_scoped_release release;
//     stats = simulate_timing(k, t, run.options);
//   } catch (const SimulationError&) {
//     run.reraise_interrupt();                     // KeyboardInterrupt if that is why it stopped
//     throw;
//   }
#pragma once

#include <pybind11/pybind11.h>

#include <chrono>
#include <memory>

#include "python/src/py_args.h"
#include "runtime/npu/simulator.h"

namespace tessera::python {

class PySimRun {
 public:
  // max_work: None for the default (npu::kDefaultMaxWork), else a positive integer.
  explicit PySimRun(const pybind11::object& max_work = pybind11::none());

  npu::SimOptions options;

  // Re-raises the Python exception of the signal that stopped the run, if one did.
  void reraise_interrupt() const {
    if (state_->interrupted) throw pybind11::error_already_set();
  }

 private:
  struct State {
    bool interrupted = false;
    uint32_t calls = 0;
    std::chrono::steady_clock::time_point last_check;
  };
  std::shared_ptr<State> state_ = std::make_shared<State>();
};

inline PySimRun::PySimRun(const pybind11::object& max_work) {
  if (!max_work.is_none()) {
    int64_t w = int64_arg<ArgumentError>(max_work, "max_work");
    if (w < 1) throw ArgumentError(str("max_work must be a positive integer, got ", w));
    options.max_work = static_cast<uint64_t>(w);
  }
  std::shared_ptr<State> s = state_;
  // Called once per instruction without the GIL: looks at the clock every 64 calls (timing mode
  // runs tens of millions of instructions a second), and takes the GIL to run Python's signal
  // handlers at most every 20 ms.
  options.should_stop = [s]() {
    if (++s->calls % 64 != 0) return false;
    auto now = std::chrono::steady_clock::now();
    if (now - s->last_check < std::chrono::milliseconds(20)) return false;
    s->last_check = now;
    pybind11::gil_scoped_acquire gil;
    if (PyErr_CheckSignals() != 0) s->interrupted = true;  // the exception stays set
    return s->interrupted;
  };
}

}  // namespace tessera::python
