"""The NPU operator library: int8 operators in the packed layouts of tessera.npu_layout, each
built from its template (tessera.autotune) with the shape-aware default config. Any knob of the
template's space can be given by name to override the default (`tile_oh=4`, `order=["oh", "ow",
"kb"]`, `db_input=False`, ...); a value outside the knob's domain is a ConfigError that lists the
domain. `target` is an npu.Target (None: npu-v1). Each returns an NpuOp (.name, .args, .schedule)
for tessera.build(op.schedule, op.args, target=target).

Inside `with tessera.autotune.apply_history_best(log):` the base config is the task's best record
in the tuning log instead of the default (tessera/autotune/replay.py); knobs still override it.
"""
from ._tessera.npu_ops import NpuOp  # noqa: F401
from .autotune import NpuTask, current_history_best


def _op(template, args, knobs, target):
    task = NpuTask(template, args, target)
    replay = current_history_best()
    config = task.default_config() if replay is None else replay.config_for(task)
    if knobs:
        values = task.values(config)
        values.update(knobs)
        config = task.config_from_json(values)
    return task.build(config)


def dense(M, K, N, multiplier, shift, zero_point=0, relu=False, target=None, **knobs):
    """Y[m, n] = requant(sum_k X[m, k] W[n, k]): X [M, K/B, B], W [N/B, K/B, B, B] -> Y [M, N/B, B].
    Knobs: tile_m, tile_nb, tile_kb, order (of "m", "nb"), db_input, db_weights, db_output, and
    db_acc on a target whose MAC array and vector unit overlap (compute_units = 2)."""
    return _op("dense", dict(M=M, K=K, N=N, multiplier=multiplier, shift=shift,
                             zero_point=zero_point, relu=relu), knobs, target)


def conv2d(C, H, W, K, R, S, stride, pad, multiplier, shift, zero_point=0, relu=False,
           target=None, **knobs):
    """conv2d in NCHWc: X [C/B, H, W, B], W [K/B, C/B, R, S, B, B] -> Y [K/B, OH, OW, B].
    Knobs: tile_kb, tile_oh, tile_ow, tile_cb, order (of "kb", "oh", "ow"), fold ("rows",
    "channels"), input_load ("window", "strided_rows", "strided"), db_input, db_weights,
    db_output, and db_acc on a target whose MAC array and vector unit overlap (compute_units = 2)."""
    return _op("conv2d", dict(C=C, H=H, W=W, K=K, R=R, S=S, stride=stride, pad=pad,
                              multiplier=multiplier, shift=shift, zero_point=zero_point,
                              relu=relu), knobs, target)


def conv2d_im2col(C, H, W, K, R, S, stride, pad, multiplier, shift, zero_point=0, relu=False,
                  target=None, **knobs):
    """conv2d as a dense layer over the im2col matrix (npu_layout.pack_im2col_input,
    pack_im2col_weight, unpack_im2col_output): for few input channels. Knobs: dense's."""
    return _op("conv2d_im2col", dict(C=C, H=H, W=W, K=K, R=R, S=S, stride=stride, pad=pad,
                                     multiplier=multiplier, shift=shift, zero_point=zero_point,
                                     relu=relu), knobs, target)


def depthwise_conv2d(C, H, W, R, S, stride, pad, multiplier, shift, zero_point=0, relu=False,
                     mapping="vector_mac", target=None, **knobs):
    """Depthwise conv2d: X [C/B, H, W, B] -> Y [C/B, OH, OW, B]. mapping "vector_mac": the vector
    unit's multiply-accumulate, weights [C/B, R, S, B] (npu_layout.pack_depthwise_weight);
    "diagonal_gemm": the MAC array with diagonal weight tiles [C/B, R, S, B, B]
    (pack_depthwise_weight_diagonal). Knobs: tile_cb, tile_oh, tile_ow, order (of "cb", "oh",
    "ow"), db_input, db_weights, db_output."""
    return _op("depthwise_conv2d", dict(C=C, H=H, W=W, R=R, S=S, stride=stride, pad=pad,
                                        multiplier=multiplier, shift=shift,
                                        zero_point=zero_point, relu=relu, mapping=mapping),
               knobs, target)


def max_pool2d(C, H, W, R, S, stride, pad=0, target=None, **knobs):
    """Max pooling (padding never wins): X [C/B, H, W, B] -> Y [C/B, OH, OW, B].
    Knobs: tile_cb, tile_oh, tile_ow, order (of "cb", "oh", "ow"), db_input, db_output."""
    return _op("max_pool2d", dict(C=C, H=H, W=W, R=R, S=S, stride=stride, pad=pad), knobs, target)


def add(C, H, W, relu=False, target=None, **knobs):
    """Saturating int8 add (+ relu): A, B [C/B, H, W, B] -> Y.
    Knobs: tile_cb, tile_h, tile_w, order (of "cb", "h", "w"), db_input, db_output."""
    return _op("add", dict(C=C, H=H, W=W, relu=relu), knobs, target)
