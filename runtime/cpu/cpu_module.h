// A C function compiled by the system C compiler into a shared library and loaded in-process.
//
//   CpuModule m = CpuModule::compile(codegen_c(f), f.name, specs, CompileOptions());
//   m.run({a, b, c});                 // checks count, dtype and shape of every argument
//   m.export_library("add.so");       // a self-describing library ...
//   CpuModule m2 = CpuModule::load("add.so");   // ... that loads back without the compiler
//
// Calling convention (what codegen_c emits): `int32_t <name>(void** args)`, args[i] the data
// pointer of argument i; 0 means success, any other value a failure inside the kernel (-1: a
// temporary could not be allocated; -(kExternStatusBase + i): the i-th te.extern call of
// ModuleMetadata::externs returned nonzero, and run() names its function and stage). Arguments
// must not overlap in memory (the generated code declares them `restrict`); run() rejects
// overlapping arrays.
//
// A CpuModule is a cheap, copyable handle: copies share the loaded library, which stays loaded
// (and its private temporary directory stays on disk) until the last copy is destroyed. compile()
// and run() may be called from several threads at once.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "runtime/cpu/module_metadata.h"
#include "runtime/ndarray.h"

namespace tessera {

// How generated C is compiled. The defaults are what benchmarks report.
struct CompileOptions {
  // The C compiler; empty means default_c_compiler().
  std::string compiler;
  // -ffp-contract=fast: a * b + c may become one FMA (as in Halide and OpenBLAS), so float
  // results round differently from a plain sequential reference (tests compare with a relative
  // tolerance; integers are unaffected). -march=native: an exported library runs only on
  // machines like this one. (Not -fwrapv: codegen_c makes data arithmetic wrap by itself, and the
  // flag stops GCC vectorizing signed index arithmetic: 6x slower on a tiled matmul.) The guard
  // against GCC 12's -O3 loop-distribution miscompile is in the generated source, not here
  // (codegen/c/codegen_c.cpp), so that it holds whatever flags are given and these stay valid
  // for clang.
  std::vector<std::string> flags = {"-O3",     "-march=native", "-fopenmp",          "-fPIC",
                                    "-shared", "-std=c11",      "-ffp-contract=fast"};
  // Placed after the source file on the command line.
  std::vector<std::string> link_flags = {"-lm"};
};

// The compiler CMake found for this build (TESSERA_C_COMPILER), else "cc".
std::string default_c_compiler();

class CpuModule {
 public:
  // Compiles `c_source`, loads it and looks up `func_name`, whose arguments are `args`.
  // RuntimeError (with the compiler's output and the path of the kept source) when the compiler
  // fails, or when the library cannot be loaded or lacks the function.
  static CpuModule compile(const std::string& c_source, const std::string& func_name,
                           std::vector<ArgSpec> args, const CompileOptions& options);
  // Loads a library written by export_library(). RuntimeError naming the file when it cannot be
  // read, when its checksum trailer is missing or does not match (truncated or damaged), when it
  // is not a well-formed shared library for this machine (checked before dlopen: a damaged file
  // never crashes the process), or when its metadata is missing or corrupt.
  static CpuModule load(const std::string& path);

  // Runs the function. ArgumentError naming the argument for a wrong count, dtype or shape, for
  // overlapping arrays, or for a read-only array the function writes; RuntimeError when the
  // kernel reports a failure.
  void run(const std::vector<NDArray>& args) const;
  // Writes the shared library to `path` (atomically: a loaded copy of an older file stays valid),
  // followed by a 24-byte checksum trailer that load() verifies; the file stays a valid shared
  // library for any other loader (ELF ignores trailing bytes).
  void export_library(const std::string& path) const;

  const std::string& name() const;
  const std::vector<ArgSpec>& arg_specs() const;
  // The C source compiled; empty for a module made by load().
  const std::string& source() const;

 private:
  struct State;
  explicit CpuModule(std::shared_ptr<const State> s) : state_(std::move(s)) {}
  std::shared_ptr<const State> state_;
};

}  // namespace tessera
