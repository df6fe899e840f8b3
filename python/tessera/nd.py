"""tessera's own arrays: 64-byte-aligned host memory that numpy can view without a copy."""
import numpy as np

from . import _tessera


def empty(shape, dtype="float32", device=None):
    """A zero-filled NDArray (TVM's tvm.nd.empty(shape, dtype, dev))."""
    return _tessera.nd_empty(list(shape), str(np.dtype(dtype)))


class Device:
    """TVM's device handle: tessera's C modules run on the host, so the only device is cpu(0)."""

    def __init__(self, kind="cpu", index=0):
        if kind != "cpu":
            raise _tessera.ArgumentError(
                f"device '{kind}': tessera runs C modules on the host CPU only (tessera.cpu(0)); "
                "NPU kernels run on the simulator through their module")
        self.device_type, self.device_id = kind, int(index)

    def __repr__(self):
        return f"cpu({self.device_id})"

    def __eq__(self, other):
        return isinstance(other, Device) and other.device_id == self.device_id

    def __hash__(self):
        return hash(("cpu", self.device_id))

    def sync(self):
        """Nothing to wait for: a C module returns when its kernel has run."""


def cpu(dev_id=0):
    """TVM's tvm.cpu(0): the host."""
    return Device("cpu", dev_id)


def device(kind="cpu", dev_id=0):
    """TVM's tvm.device("cpu", 0)."""
    return Device(kind, dev_id)


def array(values, device=None, dtype=None):
    """An NDArray holding a copy of `values` (TVM's tvm.nd.array(a, dev); the device is the host:
    a Device or None)."""
    if device is not None and not isinstance(device, Device):
        try:  # the former array(values, dtype) call
            as_dtype = np.dtype(device)
        except TypeError:
            raise _tessera.ArgumentError(
                f"nd.array: device must be tessera.cpu(0), got {device!r}") from None
        if dtype is not None:
            raise _tessera.ArgumentError(f"nd.array: device must be tessera.cpu(0), got {device!r}")
        device, dtype = None, as_dtype
    src = np.asarray(values, dtype=dtype)
    out = empty(src.shape, src.dtype)
    np.asarray(out)[...] = src
    return out
