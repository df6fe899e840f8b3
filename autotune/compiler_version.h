// The compiler version every tuning-log record carries ("tessera 0.1.0"): the project version
// of the top-level CMakeLists. Bump it when a change alters the kernels built from a config.
#pragma once

namespace tessera::autotune {

const char* compiler_version();

}  // namespace tessera::autotune
