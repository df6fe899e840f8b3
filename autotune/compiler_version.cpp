#include "autotune/compiler_version.h"

#ifndef TESSERA_VERSION
#error "TESSERA_VERSION must be defined by the build (the project version)"
#endif

namespace tessera::autotune {

const char* compiler_version() { return "tessera " TESSERA_VERSION; }

}  // namespace tessera::autotune
