"""tessera: a tensor compiler for NPUs. The package is thin; the logic lives in the C++ core."""
from . import _tessera
from ._tessera import (TesseraError, UserError, ExprError, ScheduleError, LowerError, TargetError,
                       KernelFileError, ArgumentError, SimulationError, RuntimeError, InternalError)
