"""tessera: a tensor compiler for NPUs.

The package is thin: the logic lives in the C++ core (the _tessera extension module).

    from tessera import te
    s = te.create_schedule(C.op)
    print(tessera.lower(s, [A, B, C]))
    f = tessera.build(s, [A, B, C], target="c")
    f(a, b, c)
"""
import os as _os

# The compiled core (_tessera) lives in the build tree: <repo>/build unless TESSERA_BUILD_DIR says.
__path__.append(_os.path.join(
    _os.environ.get("TESSERA_BUILD_DIR",
                    _os.path.join(_os.path.dirname(_os.path.abspath(__file__)), "..", "..", "build")),
    "python", "tessera"))

from . import _tessera  # noqa: E402
from ._tessera import (TesseraError, UserError, ExprError, ScheduleError, LowerError, TargetError,
                       KernelFileError, ArgumentError, SimulationError, RuntimeError, InternalError)
from ._tessera import lower, build, load_module, Module, LoweredFunc, Schedule, Stage, NDArray
from . import te, nd

__all__ = ["te", "nd", "lower", "build", "load_module", "Module", "LoweredFunc", "Schedule",
           "Stage", "NDArray", "TesseraError", "UserError", "ExprError", "ScheduleError",
           "LowerError", "TargetError", "KernelFileError", "ArgumentError", "SimulationError",
           "RuntimeError", "InternalError"]
