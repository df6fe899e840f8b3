"""tessera.autotune: the tunable NPU templates (autotune/templates in C++).

Each operator of the library is a template that declares a config space (named knobs with
domains) and builds its schedule from a config; a task is (template, arguments, target).

    from tessera import autotune
    [t["name"] for t in autotune.templates()]      # conv2d, conv2d_im2col, depthwise_conv2d, ...
    task = autotune.Task("conv2d", dict(C=64, H=56, W=56, K=64, R=3, S=3, stride=1, pad=1,
                                        multiplier=1 << 14, shift=22), target=None)
    task.space_size, task.knobs
    cfg = task.config(12345)                       # or task.config_from_json('{"tile_kb": ...}')
    cfg.index, cfg.to_json()                       # index <-> config <-> canonical JSON
    d = task.default_config()                      # the shape-aware default, a point of the space
    task.is_valid(cfg), task.footprint(cfg)        # the cheap check (on-chip footprint)
    op = task.build(cfg)                           # an npu_ops.NpuOp: op.schedule, op.args
    task.measure(cfg)                              # build + timing simulation: status, cycles, ...
"""
from ._tessera.autotune import Config, Task, templates  # noqa: F401

__all__ = ["Config", "Task", "templates"]
