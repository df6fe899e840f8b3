// CpuModule: compiling, argument checking, export and load, failures of the environment; and the
// NDArray it runs on.
#include "runtime/cpu/cpu_module.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <functional>
#include <memory>
#include <thread>

#include "codegen/c/build_c.h"
#include "codegen/c/codegen_c.h"
#include "runtime/base/error.h"
#include "runtime/cpu/module_metadata.h"

namespace tessera {
namespace {

constexpr DType kF32 = DType::kFloat32;

template <typename T>
T* data_of(const NDArray& a) {
  return static_cast<T*>(a.data());
}

// C = A * scale + B over a rows x cols matrix (rows parallel).
LoweredFunc scaled_add(const std::string& name, int64_t rows, int64_t cols, float scale) {
  Buffer a = make_buffer("A", kF32, {rows, cols});
  Buffer b = make_buffer("B", kF32, {rows, cols});
  Buffer c = make_buffer("C", kF32, {rows, cols});
  Var i("i"), j("j");
  Expr idx = i * make_int(cols) + j;
  Expr value = make_buffer_load(a, {idx}) * make_float(scale) + make_buffer_load(b, {idx});
  Stmt body =
      make_for(i, 0, make_int(rows), ForKind::kParallel,
               make_for(j, 0, make_int(cols), ForKind::kSerial, make_store(c, {idx}, value)));
  return LoweredFunc{name, {a, b, c}, body};
}

std::vector<NDArray> inputs(int64_t rows, int64_t cols) {
  std::vector<NDArray> v;
  for (int k = 0; k < 3; ++k) v.push_back(NDArray::empty({rows, cols}, kF32));
  for (int64_t x = 0; x < rows * cols; ++x) {
    data_of<float>(v[0])[x] = static_cast<float>(x % 17) - 8;
    data_of<float>(v[1])[x] = static_cast<float>(x % 5);
  }
  return v;
}

void expect_scaled_add(const std::vector<NDArray>& v, float scale) {
  for (int64_t x = 0; x < v[0].num_elements(); ++x) {
    ASSERT_EQ(data_of<float>(v[2])[x], data_of<float>(v[0])[x] * scale + data_of<float>(v[1])[x])
        << "at " << x;
  }
}

// A private directory for files a test writes, removed with its files at the end.
class ScratchDir {
 public:
  ScratchDir() {
    char templ[] = "/tmp/tessera-test-XXXXXX";
    path_ = mkdtemp(templ);
  }
  ~ScratchDir() {
    for (const std::string& f : files_) std::remove(f.c_str());
    rmdir(path_.c_str());
  }
  std::string file(const std::string& name) {
    files_.push_back(path_ + "/" + name);
    return files_.back();
  }

 private:
  std::string path_;
  std::vector<std::string> files_;
};

template <typename E>
std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const E& e) {
    return e.what();
  }
  ADD_FAILURE() << "no exception of the expected type";
  return "";
}

// One compiled module shared by the argument tests (compiling is the slow part).
const CpuModule& shared_module() {
  static const CpuModule m = build_c(scaled_add("scaled_add", 64, 64, 2.0f));
  return m;
}

TEST(CpuModule, WrongArgumentCountIsAnArgumentError) {
  auto v = inputs(64, 64);
  std::string msg = message_of<ArgumentError>([&] { shared_module().run({v[0], v[1]}); });
  EXPECT_NE(msg.find("function 'scaled_add' takes 3 arguments (A, B, C), got 2"), std::string::npos)
      << msg;
}

TEST(CpuModule, WrongShapeIsAnArgumentErrorNamingTheArgument) {
  auto v = inputs(64, 64);
  v[2] = NDArray::empty({64, 32}, kF32);
  std::string msg = message_of<ArgumentError>([&] { shared_module().run(v); });
  EXPECT_NE(msg.find("argument 2 'C': expected shape (64, 64) float32, got (64, 32) float32"),
            std::string::npos)
      << msg;
}

TEST(CpuModule, WrongDtypeIsAnArgumentErrorNamingTheArgument) {
  auto v = inputs(64, 64);
  v[0] = NDArray::empty({64, 64}, DType::kInt32);
  std::string msg = message_of<ArgumentError>([&] { shared_module().run(v); });
  EXPECT_NE(msg.find("argument 0 'A': expected shape (64, 64) float32, got (64, 64) int32"),
            std::string::npos)
      << msg;
}

TEST(CpuModule, OverlappingArgumentsAreAnArgumentError) {
  auto v = inputs(64, 64);
  std::string msg = message_of<ArgumentError>([&] { shared_module().run({v[0], v[1], v[0]}); });
  EXPECT_NE(msg.find("arguments 0 'A' and 2 'C' share memory"), std::string::npos) << msg;
}

TEST(CpuModule, CopyKeepsTheLibraryLoadedAfterTheOriginalIsGone) {
  std::unique_ptr<CpuModule> original =
      std::make_unique<CpuModule>(build_c(scaled_add("copied", 8, 8, 3.0f)));
  CpuModule copy = *original;
  original.reset();
  auto v = inputs(8, 8);
  copy.run(v);
  expect_scaled_add(v, 3.0f);
  EXPECT_EQ(copy.name(), "copied");
  EXPECT_NE(copy.source().find("int32_t copied(void** args)"), std::string::npos);
}

TEST(CpuModule, ExportThenLoadGivesTheSameResults) {
  ScratchDir dir;
  std::string path = dir.file("scaled_add.so");
  LoweredFunc f = scaled_add("exported", 16, 8, -1.5f);
  {
    CpuModule m = build_c(f);
    m.export_library(path);
    m.export_library(path);  // overwriting an exported file is fine
  }
  CpuModule loaded = CpuModule::load(path);
  EXPECT_EQ(loaded.name(), "exported");
  EXPECT_EQ(loaded.arg_specs(), c_arg_specs(f));
  EXPECT_EQ(loaded.source(), "");
  auto v = inputs(16, 8);
  loaded.run(v);
  expect_scaled_add(v, -1.5f);
  // The loaded module checks arguments from the metadata alone.
  EXPECT_THROW(loaded.run({v[0]}), ArgumentError);
}

TEST(CpuModule, LoadOfAFileThatIsNotALibraryNamesTheFile) {
  ScratchDir dir;
  std::string path = dir.file("garbage.so");
  std::ofstream(path) << "not a shared library";
  std::string msg = message_of<RuntimeError>([&] { CpuModule::load(path); });
  EXPECT_NE(msg.find(path), std::string::npos) << msg;
  std::string missing = dir.file("missing.so");
  EXPECT_NE(message_of<RuntimeError>([&] { CpuModule::load(missing); }).find(missing),
            std::string::npos);
}

TEST(CpuModule, LoadRejectsLibrariesWithoutOrWithCorruptMetadata) {
  ScratchDir dir;
  CompileOptions opts;
  // A library that is not tessera's: no entry symbol.
  std::string plain = dir.file("plain.so");
  CpuModule::compile("#include <stdint.h>\nint32_t f(void** args) { return 0; }\n", "f", {}, opts)
      .export_library(plain);
  std::string msg = message_of<RuntimeError>([&] { CpuModule::load(plain); });
  EXPECT_NE(msg.find(plain), std::string::npos) << msg;
  EXPECT_NE(msg.find("tessera_module_entry"), std::string::npos) << msg;
  // An entry whose metadata is not JSON (compiled under another name: compile() itself checks
  // the metadata of the function it is given).
  std::string corrupt = dir.file("corrupt.so");
  CpuModule::compile(
      "#include <stdint.h>\nconst char tessera_module_entry[] = \"g\";\n"
      "const char tessera_metadata_g[] = \"{\\\"args\\\": [\";\n"
      "int32_t f(void** args) { return 0; }\n",
      "f", {}, opts)
      .export_library(corrupt);
  msg = message_of<RuntimeError>([&] { CpuModule::load(corrupt); });
  EXPECT_NE(msg.find(corrupt), std::string::npos) << msg;
  EXPECT_NE(msg.find("not valid JSON"), std::string::npos) << msg;
}

// A library cut short, or with one byte changed, is a RuntimeError naming the file before dlopen
// sees it (a truncated library used to kill the process with SIGBUS inside dlopen).
TEST(CpuModule, LoadOfATruncatedOrDamagedLibraryIsAnError) {
  ScratchDir dir;
  std::string good = dir.file("good.so");
  build_c(scaled_add("good", 4, 8, 2.0f)).export_library(good);
  std::ifstream in(good, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_GT(bytes.size(), 4096u);
  std::string bad = dir.file("bad.so");
  auto load_bytes = [&](const std::string& b) {
    std::ofstream(bad, std::ios::binary | std::ios::trunc)
        .write(b.data(), std::streamsize(b.size()));
    return message_of<RuntimeError>([&] { CpuModule::load(bad); });
  };
  for (size_t cut : {size_t(0), size_t(100), bytes.size() / 2, bytes.size() - 1}) {
    std::string msg = load_bytes(bytes.substr(0, cut));
    EXPECT_NE(msg.find("'" + bad + "'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("truncated, damaged"), std::string::npos) << msg;
  }
  for (size_t at : {size_t(16), size_t(700), bytes.size() / 2}) {
    std::string damaged = bytes;
    damaged[at] = static_cast<char>(damaged[at] ^ 0x40);
    std::string msg = load_bytes(damaged);
    EXPECT_NE(msg.find("the checksum does not match its contents"), std::string::npos) << msg;
  }
  CpuModule m = CpuModule::load(good);  // the original still loads and runs
  std::vector<NDArray> v = inputs(4, 8);
  m.run(v);
  expect_scaled_add(v, 2.0f);
}

// GCC 12 -O3 miscompiled this nest (zeroing stores of an outer parallel loop became one memset
// over the wrong region). The guard is in the generated source, so it holds with the caller's
// own flags, which here lack everything the defaults add.
TEST(CpuModule, ZeroThenAccumulateNestUnderParallelForIsRightWithPlainO3) {
  const int64_t Bn = 6, M = 3, N = 5;  // batch_matmul with K = 1, j outermost and parallel
  Buffer a = make_buffer("A", DType::kInt32, {Bn, M, 1});
  Buffer b = make_buffer("B", DType::kInt32, {Bn, 1, N});
  Buffer c = make_buffer("C", DType::kInt32, {Bn, M, N});
  Var j("j"), bb("b"), i("i");
  Expr at = bb * make_int(M * N) + i * make_int(N) + j;
  Expr product =
      make_buffer_load(a, {bb * make_int(M) + i}) * make_buffer_load(b, {bb * make_int(N) + j});
  Stmt body = make_for(
      j, 0, make_int(N), ForKind::kParallel,
      make_for(bb, 0, make_int(Bn), ForKind::kSerial,
               make_for(i, 0, make_int(M), ForKind::kSerial,
                        make_seq({make_store(c, {at}, make_int(0)),
                                  make_store(c, {at}, make_buffer_load(c, {at}) + product)}))));
  LoweredFunc f{"bmm", {a, b, c}, body};
  CompileOptions opts;
  opts.flags = {"-O3", "-fopenmp", "-fPIC", "-shared"};
  CpuModule m = build_c(f, opts);
  NDArray A = NDArray::empty({Bn, M, 1}, DType::kInt32),
          B = NDArray::empty({Bn, 1, N}, DType::kInt32);
  NDArray C = NDArray::empty({Bn, M, N}, DType::kInt32);
  for (int64_t x = 0; x < Bn * M; ++x) data_of<int32_t>(A)[x] = int32_t(x + 1);
  for (int64_t x = 0; x < Bn * N; ++x) data_of<int32_t>(B)[x] = int32_t(x + 2);
  for (int64_t x = 0; x < Bn * M * N; ++x) data_of<int32_t>(C)[x] = -7;
  m.run({A, B, C});
  for (int64_t p = 0; p < Bn; ++p)
    for (int64_t r = 0; r < M; ++r)
      for (int64_t q = 0; q < N; ++q)
        ASSERT_EQ(data_of<int32_t>(C)[p * M * N + r * N + q],
                  data_of<int32_t>(A)[p * M + r] * data_of<int32_t>(B)[p * N + q])
            << "at C[" << p << ", " << r << ", " << q << "]";
}

TEST(CpuModule, CompilerErrorReportsItsOutputAndKeepsTheSource) {
  std::string msg = message_of<RuntimeError>([] {
    CpuModule::compile(
        "#include <stdint.h>\nint32_t broken(void** args) { return undefined_name; }\n", "broken",
        {}, CompileOptions());
  });
  EXPECT_NE(msg.find("failed"), std::string::npos) << msg;
  EXPECT_NE(msg.find("undefined_name"), std::string::npos) << msg;  // the compiler's diagnostic
  size_t at = msg.find("the source is kept at ");
  ASSERT_NE(at, std::string::npos) << msg;
  std::string src = msg.substr(at + 22, msg.find('\n', at) - at - 22);
  std::ifstream kept(src);
  EXPECT_TRUE(kept.good()) << "no file at " << src;
  // Tidy up what the failure deliberately left behind.
  std::string dir = src.substr(0, src.rfind('/'));
  for (const char* f : {"/kernel.c", "/compile.log"}) std::remove((dir + f).c_str());
  rmdir(dir.c_str());
}

TEST(CpuModule, MissingCompilerIsARuntimeError) {
  CompileOptions opts;
  opts.compiler = "/nonexistent/tessera-cc";
  std::string msg =
      message_of<RuntimeError>([&] { CpuModule::compile("int x;\n", "x", {}, opts); });
  EXPECT_NE(msg.find("could not start the C compiler '/nonexistent/tessera-cc'"), std::string::npos)
      << msg;
}

TEST(CpuModule, CompilesAndRunsFromSeveralThreadsAtOnce) {
  const int kThreads = 3;
  std::vector<std::string> failures(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([t, &failures] {
      try {
        float scale = static_cast<float>(t + 1);
        CpuModule m = build_c(scaled_add("worker" + std::to_string(t), 8, 16, scale));
        auto v = inputs(8, 16);
        m.run(v);
        for (int64_t x = 0; x < 8 * 16; ++x) {
          if (data_of<float>(v[2])[x] !=
              data_of<float>(v[0])[x] * scale + data_of<float>(v[1])[x]) {
            failures[t] = "wrong value at " + std::to_string(x);
            return;
          }
        }
      } catch (const std::exception& e) {
        failures[t] = e.what();
      }
    });
  }
  for (auto& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(failures[t], "") << "thread " << t;
}

TEST(NDArray, EmptyIsZeroFilledAndAligned) {
  NDArray a = NDArray::empty({3, 5}, DType::kInt16);
  EXPECT_EQ(a.num_elements(), 15);
  EXPECT_EQ(a.num_bytes(), 30);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a.data()) % 64, 0u);
  for (int k = 0; k < 15; ++k) EXPECT_EQ(data_of<int16_t>(a)[k], 0);
  NDArray scalar = NDArray::empty({}, kF32);
  EXPECT_EQ(scalar.num_elements(), 1);
  EXPECT_NE(scalar.data(), nullptr);
}

TEST(NDArray, NegativeDimensionIsAnArgumentError) {
  std::string msg = message_of<ArgumentError>([] { NDArray::empty({4, -1}, kF32); });
  EXPECT_NE(msg.find("(4, -1)"), std::string::npos) << msg;
}

TEST(NDArray, ViewOfNullDataIsAnArgumentError) {
  EXPECT_THROW(NDArray::view(nullptr, {2}, kF32), ArgumentError);
  float x[2] = {1, 2};
  NDArray v = NDArray::view(x, {2}, kF32);
  EXPECT_EQ(v.data(), x);
  EXPECT_EQ(shape_to_string(v.shape()), "(2,)");
}

}  // namespace
}  // namespace tessera

namespace tessera {
namespace {

// The metadata names the extern calls (version 3), in order, and refuses a malformed list.
TEST(ModuleMetadata, ExternCallsRoundTripAndAreChecked) {
  ModuleMetadata m{"f", {{"A", DType::kInt32, {4}, false}}, {{"E", "my_check"}, {"G", "g"}}};
  std::string text = module_metadata_to_json(m);
  EXPECT_EQ(text,
            "{\"args\":[{\"dtype\":\"int32\",\"name\":\"A\",\"shape\":[4],\"written\":false}],"
            "\"externs\":[{\"function\":\"my_check\",\"stage\":\"E\"},{\"function\":\"g\","
            "\"stage\":\"G\"}],\"name\":\"f\",\"version\":3}");
  ModuleMetadata back = module_metadata_from_json(text, "lib.so");
  ASSERT_EQ(back.externs.size(), 2u);
  EXPECT_EQ(back.externs[1].stage, "G");
  EXPECT_EQ(back.externs[1].function, "g");
  std::string bad = text;
  bad.replace(bad.find("\"stage\":\"G\""), 11, "\"stage\":7");
  EXPECT_NE(message_of<RuntimeError>([&] { module_metadata_from_json(bad, "lib.so"); })
                .find("'lib.so': its tessera metadata is unusable: extern 1"),
            std::string::npos);
  std::string v2 = text;
  v2.replace(v2.find("\"version\":3"), 11, "\"version\":2");
  EXPECT_NE(message_of<RuntimeError>([&] { module_metadata_from_json(v2, "lib.so"); })
                .find("export it again"),
            std::string::npos);
}

}  // namespace
}  // namespace tessera
