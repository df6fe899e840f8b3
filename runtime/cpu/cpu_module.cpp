#include "runtime/cpu/cpu_module.h"

#include <dlfcn.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "runtime/base/error.h"
#include "runtime/base/file_io.h"
#include "runtime/cpu/library_file.h"
#include "runtime/cpu/run_process.h"

#ifndef TESSERA_C_COMPILER
#define TESSERA_C_COMPILER "cc"
#endif

namespace tessera {

namespace {

using KernelFn = int32_t (*)(void**);

constexpr const char* kSourceFile = "kernel.c";
constexpr const char* kLibraryFile = "kernel.so";
constexpr const char* kLogFile = "compile.log";

std::string errno_text() { return std::strerror(errno); }

// A fresh private directory (mode 0700) under $TMPDIR or /tmp.
std::string make_temp_dir() {
  const char* base = std::getenv("TMPDIR");
  std::string templ = std::string(base && *base ? base : "/tmp") + "/tessera-XXXXXX";
  std::vector<char> buf(templ.begin(), templ.end());
  buf.push_back('\0');
  if (mkdtemp(buf.data()) == nullptr) {
    throw RuntimeError(str("could not create a temporary directory from '", templ,
                           "': ", errno_text(), "; set TMPDIR to a writable directory"));
  }
  return std::string(buf.data());
}

void write_file(const std::string& path, const std::string& bytes) {
  std::string why = write_whole_file(path, bytes);
  if (!why.empty()) throw RuntimeError(str("could not write '", path, "': ", why));
}

std::string read_file(const std::string& path) {
  std::string bytes;
  std::string why = read_whole_file(path, &bytes);
  if (!why.empty()) throw RuntimeError(str("could not open '", path, "': ", why));
  return bytes;
}

std::string dl_error() {
  const char* e = dlerror();
  return e ? e : "unknown dynamic loader error";
}

// The kernel library pulls in the OpenMP runtime. If that runtime were unloaded together with
// the last kernel while its worker threads still sleep inside it, the process would crash, so it
// is pinned in memory for the life of the process (RTLD_NODELETE on the already loaded copy).
void pin_openmp_runtime() {
  for (const char* lib : {"libgomp.so.1", "libomp.so.5", "libomp.so"}) {
    dlopen(lib, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
  }
}

std::string describe(const ArgSpec& s) {
  return str(shape_to_string(s.shape), " ", dtype_name(s.dtype));
}

}  // namespace

std::string default_c_compiler() { return TESSERA_C_COMPILER; }

// Owns the loaded library and its private directory; shared by every copy of a module.
struct CpuModule::State {
  std::string dir;        // private temporary directory holding the library (removed at the end)
  bool keep_dir = false;  // after a compiler failure: the user needs the source
  void* handle = nullptr;
  KernelFn fn = nullptr;
  ModuleMetadata meta;
  std::string source;

  std::string library_path() const { return dir + "/" + kLibraryFile; }

  ~State() {
    if (handle) dlclose(handle);
    if (keep_dir) return;
    for (const char* f : {kSourceFile, kLibraryFile, kLogFile}) {
      std::remove((dir + "/" + f).c_str());
    }
    rmdir(dir.c_str());
  }

  // Loads the library in `dir` and finds `meta.name`; `origin` names the file for errors.
  void open(const std::string& origin) {
    handle = dlopen(library_path().c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) throw RuntimeError(str("could not load '", origin, "': ", dl_error()));
    pin_openmp_runtime();
  }
  const char* symbol(const std::string& name) const {
    return static_cast<const char*>(dlsym(handle, name.c_str()));
  }
  void find_function(const std::string& origin) {
    fn = reinterpret_cast<KernelFn>(dlsym(handle, meta.name.c_str()));
    if (!fn) {
      throw RuntimeError(str("'", origin, "' does not define the function '", meta.name, "'"));
    }
  }
};

CpuModule CpuModule::compile(const std::string& c_source, const std::string& func_name,
                             std::vector<ArgSpec> args, const CompileOptions& options) {
  if (func_name.empty()) throw ArgumentError("CpuModule::compile: the function name is empty");
  auto state = std::make_shared<State>();
  state->dir = make_temp_dir();
  state->source = c_source;
  state->meta = ModuleMetadata{func_name, std::move(args)};
  const std::string src = state->dir + "/" + kSourceFile;
  write_file(src, c_source);

  std::vector<std::string> argv = {options.compiler.empty() ? default_c_compiler()
                                                            : options.compiler};
  argv.insert(argv.end(), options.flags.begin(), options.flags.end());
  argv.insert(argv.end(), {"-o", state->library_path(), src});
  argv.insert(argv.end(), options.link_flags.begin(), options.link_flags.end());
  ProcessResult r = run_process(argv, state->dir + "/" + kLogFile);
  if (!r.started) {
    throw RuntimeError(str("could not start the C compiler '", argv[0], "': ", r.output,
                           "; install a C compiler or set CompileOptions::compiler"));
  }
  if (r.exit_status != 0) {
    state->keep_dir = true;  // so that the source can be inspected
    throw RuntimeError(str("the C compiler '", argv[0], "' failed (exit status ", r.exit_status,
                           ") on function '", func_name, "'; the source is kept at ", src, "\n",
                           r.output));
  }
  state->open(state->library_path());
  // A tessera-generated source describes its arguments; they must be the ones given here.
  if (const char* json = state->symbol("tessera_metadata_" + func_name)) {
    ModuleMetadata m = module_metadata_from_json(json, state->library_path());
    TESSERA_ICHECK(m.name == func_name && m.args == state->meta.args,
                   "the metadata in the generated source of '", func_name,
                   "' disagrees with the argument specs given to CpuModule::compile");
    state->meta.externs = std::move(m.externs);
  }
  state->find_function(state->library_path());
  return CpuModule(std::move(state));
}

CpuModule CpuModule::load(const std::string& path) {
  // Everything is checked on the file's bytes before dlopen sees them (library_file.h): a
  // truncated or damaged library is a RuntimeError here, never a crash inside the loader.
  LibraryFile file = parse_library_file(read_file(path), path);
  auto state = std::make_shared<State>();
  state->meta = std::move(file.meta);
  state->dir = make_temp_dir();
  // dlopen a private copy: the loader caches libraries by path, and a file overwritten later
  // (e.g. by a new export) must not change or crash a module already loaded.
  write_file(state->library_path(), file.library);
  state->open(path);
  state->find_function(path);
  return CpuModule(std::move(state));
}

void CpuModule::run(const std::vector<NDArray>& args) const {
  const std::vector<ArgSpec>& specs = state_->meta.args;
  if (args.size() != specs.size()) {
    std::string names;
    for (size_t i = 0; i < specs.size(); ++i) names += (i ? ", " : "") + specs[i].name;
    throw ArgumentError(str("function '", state_->meta.name, "' takes ", specs.size(),
                            " arguments (", names, "), got ", args.size()));
  }
  std::vector<void*> ptrs;
  for (size_t i = 0; i < args.size(); ++i) {
    const ArgSpec& s = specs[i];
    if (args[i].dtype() != s.dtype || args[i].shape() != s.shape) {
      throw ArgumentError(str("argument ", i, " '", s.name, "': expected shape ", describe(s),
                              ", got ", shape_to_string(args[i].shape()), " ",
                              dtype_name(args[i].dtype())));
    }
    if (args[i].data() == nullptr && args[i].num_elements() != 0) {
      throw ArgumentError(str("argument ", i, " '", s.name, "': the array has no data"));
    }
    if (s.written && !args[i].writeable()) {
      throw ArgumentError(str("argument ", i, " '", s.name, "': function '", state_->meta.name,
                              "' writes it, but the array is read-only; pass a writeable array ",
                              "(np.array(x) makes a writeable copy)"));
    }
    ptrs.push_back(args[i].data());
  }
  // The generated code declares every argument `restrict`: overlapping arrays would be undefined.
  for (size_t i = 0; i < args.size(); ++i) {
    for (size_t j = i + 1; j < args.size(); ++j) {
      auto lo_i = reinterpret_cast<uintptr_t>(args[i].data());
      auto lo_j = reinterpret_cast<uintptr_t>(args[j].data());
      auto hi_i = lo_i + static_cast<uintptr_t>(args[i].num_bytes());
      auto hi_j = lo_j + static_cast<uintptr_t>(args[j].num_bytes());
      if (lo_i < hi_j && lo_j < hi_i) {
        throw ArgumentError(str("arguments ", i, " '", specs[i].name, "' and ", j, " '",
                                specs[j].name, "' share memory; function '", state_->meta.name,
                                "' needs arguments that do not overlap: pass a copy"));
      }
    }
  }
  int32_t status = state_->fn(ptrs.data());
  if (status != 0) {
    const std::vector<ExternSpec>& ex = state_->meta.externs;
    int64_t k = -static_cast<int64_t>(status) - kExternStatusBase;
    if (k >= 0 && k < static_cast<int64_t>(ex.size())) {
      throw RuntimeError(str("function '", state_->meta.name, "' failed: the C function '",
                             ex[k].function, "' of te.extern stage '", ex[k].stage,
                             "' returned a nonzero status (its return value is a status: 0 means "
                             "success)"));
    }
    throw RuntimeError(str("function '", state_->meta.name, "' failed with status ", status,
                           status == -1 ? ": a temporary buffer could not be allocated" : ""));
  }
}

void CpuModule::export_library(const std::string& path) const {
  // Write a sibling temporary file and rename it over `path`: rename is atomic, and a process
  // that has the old file mapped keeps its (now unlinked) copy intact.
  std::string tmp = path + ".tmp-XXXXXX";
  std::vector<char> buf(tmp.begin(), tmp.end());
  buf.push_back('\0');
  int fd = mkstemp(buf.data());
  if (fd < 0) throw RuntimeError(str("could not write '", path, "': ", errno_text()));
  close(fd);
  tmp = buf.data();
  try {
    write_file(tmp, library_file_bytes(read_file(state_->library_path())));
  } catch (const RuntimeError& e) {
    std::remove(tmp.c_str());
    throw RuntimeError(str("could not write '", path, "': ", e.what()));
  }
  chmod(tmp.c_str(), 0755);
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::string why = errno_text();
    std::remove(tmp.c_str());
    throw RuntimeError(str("could not write '", path, "': ", why));
  }
}

const std::string& CpuModule::name() const { return state_->meta.name; }
const std::vector<ArgSpec>& CpuModule::arg_specs() const { return state_->meta.args; }
const std::string& CpuModule::source() const { return state_->source; }

}  // namespace tessera
