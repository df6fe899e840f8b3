"""tessera: a tensor compiler for NPUs.

The package is thin: the logic lives in the C++ core (the _tessera extension module).

    from tessera import te
    s = te.create_schedule(C.op)
    print(tessera.lower(s, [A, B, C]))
    f = tessera.build(s, [A, B, C], target="c")      # or target="npu" (tensorized schedules)
    f(a, b, c)

A target is "c", "npu" (the built-in npu-v1) or an NPU description:
    t = tessera.npu.load_target("runtime/npu/targets/npu-32x32.json")
    f = tessera.build(s, args, target=t)

The NPU operator library: tessera.npu_ops (dense, conv2d, conv2d_im2col, depthwise_conv2d,
max_pool2d, add; each takes target= and knob overrides), built from the tunable templates of
tessera.autotune (NpuTask: config spaces, defaults, measurement); its layouts: tessera.npu_layout
(taking the target); the intrinsics for tensorize: tessera.npu_gemm_intrin(target) (the MAC
array), tessera.npu_vmac_intrin(target) (the vector unit's per-lane multiply-accumulate).
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
from ._tessera import npu_gemm_intrin, npu_vmac_intrin, TensorIntrin
from . import te, tir, nd, npu, npu_layout, autotune, npu_ops
from .symbolic import lower, build, SymbolicModule  # noqa: F811  (size variables, then _tessera's)
from .nd import cpu, device  # noqa: E402

__all__ = ["cpu", "device", "SymbolicModule", "te", "tir", "nd", "npu", "npu_layout", "npu_ops", "autotune", "npu_gemm_intrin", "npu_vmac_intrin", "TensorIntrin", "lower", "build", "load_module", "Module", "LoweredFunc", "Schedule",           "Stage", "NDArray", "TesseraError", "UserError", "ExprError", "ScheduleError",
           "LowerError", "TargetError", "KernelFileError", "ArgumentError", "SimulationError",
           "RuntimeError", "InternalError"]
