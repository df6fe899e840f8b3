// The compiler version every tuning-log record carries ("tessera 0.2.0"): the project version
// of the top-level CMakeLists (and pyproject.toml). Bump it when a change alters the kernels
// built from a config: tests/python/npu_kernel_pins.py --write refuses such a change otherwise.
#pragma once

namespace tessera::autotune {

const char* compiler_version();

}  // namespace tessera::autotune
