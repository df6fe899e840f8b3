"""tessera.npu: the NPU target, kernel files and the cycle-level simulator.

A thin layer over the C++ runtime (runtime/npu); docs/npu_isa.md is the reference.

    import numpy as np
    from tessera import npu
    k = npu.load_kernel("gemm.tnpu")
    outputs, stats = npu.run(k, {"A": a, "W": w})     # functional: numpy in, numpy out
    stats = npu.run_timing(k)                          # timing: no data
    print(stats["cycles"], npu.achieved_over_bound(k, stats["cycles"]))  # against its true work

Every function takes an optional target (default: the built-in npu-v1).
"""
from ._tessera import npu as _npu

Target = _npu.Target
Kernel = _npu.Kernel
NpuModule = _npu.NpuModule
Assembler = _npu.Assembler
Mem = _npu.Mem
Queue = _npu.Queue
VecOp = _npu.VecOp
DType = _npu.DType
BufferRole = _npu.BufferRole
Pad = _npu.Pad
RooflineBound = _npu.RooflineBound
POP_PREV, POP_NEXT, PUSH_PREV, PUSH_NEXT = (_npu.POP_PREV, _npu.POP_NEXT, _npu.PUSH_PREV,
                                            _npu.PUSH_NEXT)
at, sram, acc = _npu.at, _npu.sram, _npu.acc
default_target = _npu.default_target
load_target = _npu.load_target
parse_target = _npu.parse_target
load_kernel = _npu.load_kernel
build_npu = _npu.build_npu
load_npu_module = _npu.load_npu_module  # a saved NpuModule (kernel file) for a target
kernel_from_bytes = _npu.kernel_from_bytes


def _target(target):
    return _npu.default_target() if target is None else target


def run(kernel, inputs, target=None, check_hazards=True, max_work=None):
    """Runs `kernel` in functional mode.

    inputs: dict buffer name -> numpy array with the buffer's exact shape and dtype (int8/int32).
    Returns (outputs, stats): outputs maps each output buffer's name to a new numpy array; stats is
    the statistics dict of run_timing (same schedule, same numbers). Data moves in the order the
    timing model runs instructions; with check_hazards (the default) two queues touching the same
    range without a token or queue order between them is a SimulationError naming both.
    max_work: the simulator refuses, before running, a program whose work (MACs, vector lane
    operations, bytes moved on chip) exceeds it (SimulationError naming the instruction); None
    means the default, 2**36. Ctrl-C stops a run with KeyboardInterrupt.
    """
    return _npu.simulate_functional(kernel, _target(target), dict(inputs), check_hazards, max_work)


def run_timing(kernel, target=None, max_work=None):
    """Runs `kernel` in timing mode (no data) and returns its statistics dict: cycles, units
    (load/compute/store: busy_cycles, stalled_cycles, insns), ddr_bytes_read/written,
    ddr_port_busy_cycles, ddr_bytes_fetched, sram/acc_peak_bytes, insn_count per opcode, macs,
    vector_ops. max_work: as for run() (both modes refuse the same programs)."""
    return _npu.simulate_timing(kernel, _target(target), max_work)


def roofline(kernel, target=None):
    """The roofline bound of the kernel's true work (RooflineBound: cycles, its three components,
    limited_by): the work the compiler (or Assembler.declare_work) stamped into it, at the
    operator's logical shape. An ArgumentError when the kernel declares none."""
    return _npu.roofline_bound(kernel, _target(target))


def kernel_roofline(kernel, target=None):
    """The roofline bound of the kernel's own instructions and buffers (padded work counts)."""
    return _npu.kernel_roofline_bound(kernel, _target(target))


def roofline_of(macs, min_ddr_bytes, vector_ops, target=None):
    """The roofline bound of a workload given by its figures."""
    return _npu.roofline_bound_of(_target(target), macs, min_ddr_bytes, vector_ops)


def achieved_over_bound(kernel, cycles, target=None):
    """Measured cycles over the kernel's true-work roofline bound (1 is the physical limit)."""
    return _npu.achieved_over_bound(cycles, roofline(kernel, target))
