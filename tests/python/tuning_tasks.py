"""Tuning tasks defined in Python, for the auto-tuner's Python tests.

conv_task: a real template written in Python: the operator library's int8 conv2d with its
  schedule parameters as knobs, built for the NPU and timed on the simulator.
analytic_task: a cheap task whose cost is a formula written here (tile size, loop order, double
  buffering), with regions that fail in each error class, for tests that run many trials.
"""
import hashlib
import time

import tessera
from tessera import autotune as at

MULT, SHIFT = 1 << 14, 22


def divisors(n):
    return [d for d in range(1, n + 1) if n % d == 0]


def conv_params(shape, values):
    """This Python template's knobs as the operator library's conv2d knobs: row tiles of whole
    width with every input channel, weights per output-channel tile, the input tile and weights
    double-buffered together."""
    db = values["double_buffer"]
    return dict(tile_oh=values["tile_oh"], tile_kb=values["tile_kb"], fold=values["fold"],
                tile_ow=shape["W"] + 2 * shape["pad"] - shape["S"] + 1,
                tile_cb=(shape["C"] + 15) // 16, order=["kb", "oh", "ow"], weights_at="tile",
                input_load="window", db_input=db, db_weights=db, db_output=False)


def build_conv(shape, values, target=None):
    op = tessera.npu_ops.conv2d(**shape, multiplier=MULT, shift=SHIFT, **conv_params(shape, values))
    return tessera.build(op.schedule, op.args, target="npu", name="main")


def conv_task(C=32, H=14, W=14, K=32):
    shape = dict(C=C, H=H, W=W, K=K, R=3, S=3, stride=1, pad=1)
    oh = (H + 2 - 3) + 1
    space = at.ConfigSpace()
    space.add(at.Knob.split("tile_oh", oh, divisors(oh)))
    space.add(at.Knob.split("tile_kb", (K + 15) // 16, divisors((K + 15) // 16)))
    space.add(at.Knob.flag("double_buffer"))
    space.add(at.Knob.choice("fold", ["rows", "channels"]))
    task = at.TuningTask({"template": "py_conv2d", "args": shape}, space)

    def measure(inp, ctx):
        f = build_conv(shape, inp.values)
        fingerprint = hashlib.sha256(bytes(f.kernel.to_bytes())).hexdigest()[:16]
        known = ctx.known_result(fingerprint)
        if known is not None:
            return known
        ctx.throw_if_cancelled()
        return at.MeasureResult.success(f.timing()["cycles"], fingerprint)

    return task, measure, shape


def analytic_space(n=64):
    space = at.ConfigSpace()
    space.add(at.Knob.split("tile", n, divisors(n)))
    space.add(at.Knob.permutation("order", ["i", "j", "k"]))
    space.add(at.Knob.flag("db"))
    space.add(at.Knob.choice("unroll", ["1", "2", "4"], ordered=True))
    return space


def analytic_cycles(v, n=64):
    """The formula: compute shrinks with the tile, transfers grow with reloads that the loop order
    and double buffering decide."""
    tile = v["tile"]
    reloads = {"i": 4, "j": 2, "k": 1}[v["order"][0]] * (n // tile)
    compute = n * n * n // 16 + 40 * (n // tile) ** 2 // int(v["unroll"])
    memory = reloads * (tile * 16 + 100)
    total = max(compute, memory) if v["db"] else compute + memory
    return 1000 + total


def analytic_task(n=64, sleep=0.0, bug_tile=None, invalid_tile=None, overflow_tile=None,
                  featurize=None):
    """bug_tile: a tile whose measurement has a bug (ZeroDivisionError); invalid_tile raises a
    ScheduleError, overflow_tile a LowerError. sleep: seconds per measurement, varied by config
    so that two workers finish out of order."""
    space = analytic_space(n)
    task = at.TuningTask({"template": "py_analytic", "args": {"n": n}}, space, featurize)

    def measure(inp, ctx):
        v = inp.values
        if sleep:
            time.sleep(sleep * (1 + (inp.task.space.index_of(inp.config) % 3)))
        if v["tile"] == bug_tile:
            return 1 // 0
        if v["tile"] == invalid_tile:
            raise tessera.ScheduleError(f"tile {v['tile']} does not divide the rows of stage C")
        if v["tile"] == overflow_tile:
            raise tessera.LowerError(f"tile {v['tile']}: SRAM overflow (sram of 1 buffer)")
        return at.MeasureResult.success(analytic_cycles(v, n), f"{v['tile']}/{v['order']}/"
                                        f"{v['db']}/{v['unroll']}")

    return task, measure
