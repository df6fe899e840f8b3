// NDArray lives in runtime/ndarray.cpp, outside the folders the core library's source glob
// covers (runtime/cpu/ is covered, runtime/ is not); it is compiled into tessera_core from here.
// Delete this file once CMakeLists.txt picks up runtime/ndarray.cpp itself.
#include "runtime/ndarray.cpp"  // NOLINT(build/include)
