"""The kernels the NPU templates emit are pinned (npu_kernel_pins.py says what and how to rewrite
the pins on purpose): code generation work that only makes it faster must leave every kernel byte
as it was, and every error as it was worded."""
import json

import npu_kernel_pins as P


def test_every_pinned_kernel_is_byte_identical():
    pinned = json.load(open(P.PINS))
    now = P.compute()
    assert sorted(now) == sorted(pinned), "the sampled configs changed: rewrite the pins on purpose"
    bad = [(k, pinned[k], now[k]) for k in sorted(now) if now[k] != pinned[k]]
    assert not bad, f"{len(bad)} of {len(now)} kernels differ, first: {bad[:3]}"


def test_the_pins_cover_every_template_and_target():
    pinned = json.load(open(P.PINS))
    targets = {k.split(" ")[0] for k in pinned}
    templates = {k.split(" ")[1].rsplit("-", 1)[0] for k in pinned if "-" in k.split(" ")[1]}
    assert targets == set(P.TARGET_NAMES)
    assert {"conv2d", "conv2d_im2col", "depthwise_conv2d", "dense", "max_pool2d",
            "add"} <= templates
    assert sum("fingerprint" in v for v in pinned.values()) >= 300
