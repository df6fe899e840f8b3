"""The main job, NPU part: ResNet-18's layer2 3x3 convolution (128 -> 128 channels, 28 x 28)
from the operator library, built for a simulated NPU with its default schedule, run on random
int8 data (with the simulator's hazard check), checked bit-exact against numpy, and timed against
the roofline bound of the layer's true work (unpadded MACs, minimum DDR bytes).

    python examples/resnet_layer_npu.py [--target runtime/npu/targets/npu-32x32.json]
"""
import argparse

import numpy as np

import tessera
from tessera import npu
from tessera import npu_layout as L

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--target", help="NPU target description (JSON); default: npu-v1")
path = parser.parse_args().target
target = npu.load_target(path) if path else npu.default_target()

C, H, W, K, R, S, STRIDE, PAD = 128, 28, 28, 128, 3, 3, 1, 1
MULT, SHIFT = 1 << 14, 22

op = tessera.npu_ops.conv2d(C=C, H=H, W=W, K=K, R=R, S=S, stride=STRIDE, pad=PAD,
                             multiplier=MULT, shift=SHIFT, relu=True, target=target)
f = tessera.build(op.schedule, op.args, target=target, name="l2_3x3")

rng = np.random.default_rng(0)
x = rng.integers(-128, 128, (C, H, W), dtype=np.int8)
w = rng.integers(-128, 128, (K, C, R, S), dtype=np.int8)
y = np.zeros(L.activation_shape(K, H, W, target), np.int8)
f(L.pack_activation(x, target), L.pack_conv_weight(w, target), y)

# numpy reference: int64 convolution, then the NPU's requantize and relu.
xp = np.pad(x.astype(np.int64), ((0, 0), (PAD, PAD), (PAD, PAD)))
acc = np.zeros((K, H, W), np.int64)
for r in range(R):
    for s in range(S):
        acc += np.einsum("chw,kc->khw", xp[:, r:r + H, s:s + W], w[:, :, r, s].astype(np.int64),
                         optimize=True)
ref = L.requantize(acc, MULT, SHIFT, relu=True)
assert np.array_equal(L.unpack_activation(y, K), ref), "NPU result differs from numpy"
print(f"conv2d 128x28x28 -> 128, 3x3, on {target.name}: bit-exact against numpy")

t = f.timing()
r = f.roofline()  # against the operator's true work, as its kernel carries it
assert r["macs"] == K * H * W * C * R * S, "the true work is the layer's unpadded MACs"
print(f"cycles {t['cycles']}, true-work roofline bound {r['bound']:.0f} "
      f"({r['limited_by']}-limited): {r['fraction']:.1%} of the roofline (true-work fraction)")
for unit in ("load", "compute", "store"):
    u = t["units"][unit]
    print(f"  {unit:8s} busy {u['busy_cycles']:7d} cycles ({u['busy_cycles'] / t['cycles']:.0%}), "
          f"{u['insns']} instructions")
print(f"  (compute: MAC array busy {t['mac_busy_cycles']} cycles, vector unit "
      f"{t['vector_busy_cycles']}; they overlap on {target.name}: compute_units = "
      f"{target.compute_units})")
