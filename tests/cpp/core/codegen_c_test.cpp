// The C backend: LoweredFuncs built by hand from IR nodes, turned into C by codegen_c, compiled
// and run by CpuModule, and checked against values computed here with plain C++ loops.
#include "codegen/c/codegen_c.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>

#include "codegen/c/build_c.h"
#include "runtime/base/error.h"

namespace tessera {
namespace {

constexpr DType kF32 = DType::kFloat32;
constexpr DType kI32 = DType::kInt32;

template <typename T>
T* data_of(const NDArray& a) {
  return static_cast<T*>(a.data());
}

int count_of(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t p = text.find(what); p != std::string::npos; p = text.find(what, p + 1)) ++n;
  return n;
}

Expr load(const Buffer& b, Expr i) { return make_buffer_load(b, {std::move(i)}); }
Stmt store(const Buffer& b, Expr i, Expr v) { return make_store(b, {std::move(i)}, std::move(v)); }
Stmt loop(const Var& v, int64_t extent, Stmt body, ForKind k = ForKind::kSerial) {
  return make_for(v, 0, make_int(extent), k, std::move(body));
}

// C[i, j] = A[i, j] + B[i, j] over rows x cols, rows parallel, columns vectorized.
LoweredFunc elementwise_add(int64_t rows, int64_t cols) {
  Buffer a = make_buffer("A", kF32, {rows, cols});
  Buffer b = make_buffer("B", kF32, {rows, cols});
  Buffer c = make_buffer("C", kF32, {rows, cols});
  Var i("i"), j("j");
  Expr idx = i * make_int(cols) + j;
  Stmt body =
      loop(i, rows, loop(j, cols, store(c, idx, load(a, idx) + load(b, idx)), ForKind::kVectorized),
           ForKind::kParallel);
  return LoweredFunc{"add", {a, b, c}, make_attr("produce", "C", body)};
}

TEST(CodegenC, ParallelVectorizedAddMatchesReference) {
  const int64_t rows = 37, cols = 29;
  CpuModule m = build_c(elementwise_add(rows, cols));
  NDArray a = NDArray::empty({rows, cols}, kF32), b = NDArray::empty({rows, cols}, kF32),
          c = NDArray::empty({rows, cols}, kF32);
  for (int64_t k = 0; k < rows * cols; ++k) {
    data_of<float>(a)[k] = 0.5f * static_cast<float>(k % 97) - 3.0f;
    data_of<float>(b)[k] = 0.25f * static_cast<float>(k % 13);
  }
  m.run({a, b, c});
  for (int64_t k = 0; k < rows * cols; ++k) {
    ASSERT_EQ(data_of<float>(c)[k], data_of<float>(a)[k] + data_of<float>(b)[k]) << "at " << k;
  }
}

TEST(CodegenC, SameFuncGivesByteIdenticalSourceWithExpectedPragmas) {
  std::string first = codegen_c(elementwise_add(8, 16));
  Var unrelated("i");  // shifts variable ids; the text must not depend on them
  std::string second = codegen_c(elementwise_add(8, 16));
  EXPECT_EQ(first, second);
  EXPECT_EQ(count_of(first, "#pragma omp parallel for schedule(static)\n"), 1);
  EXPECT_EQ(count_of(first, "#pragma omp simd\n"), 1);
  EXPECT_NE(first.find("int32_t add(void** args) {"), std::string::npos);
  EXPECT_NE(first.find("float* restrict A = (float*)args[0];"), std::string::npos);
  EXPECT_NE(first.find("for (int32_t i = 0; i < 8; ++i) {"), std::string::npos);
  EXPECT_NE(first.find("C[(i * 16) + j] = A[(i * 16) + j] + B[(i * 16) + j];"), std::string::npos);
  EXPECT_NE(first.find("// produce C"), std::string::npos);
  EXPECT_NE(first.find("const char tessera_module_entry[] = \"add\";"), std::string::npos);
  EXPECT_NE(first.find("const char tessera_metadata_add[] = \"{\\\"args\\\":[{\\\"dtype\\\":"
                       "\\\"float32\\\",\\\"name\\\":\\\"A\\\",\\\"shape\\\":[8,16],"
                       "\\\"written\\\":false}"),
            std::string::npos);
  EXPECT_EQ(first.find("0x"), std::string::npos);  // no pointer values
  // The guard against GCC 12's -O3 loop-distribution miscompile, for GCC only.
  EXPECT_NE(first.find("#if defined(__GNUC__) && !defined(__clang__)\n#pragma GCC optimize("
                       "\"no-tree-loop-distribute-patterns\")\n#endif\n"),
            std::string::npos);
}

TEST(CodegenC, UnrollPragmaUsesExtentCappedAt64) {
  Buffer out = make_buffer("Out", kI32, {100});
  Var i("i"), j("j");
  Stmt body = make_seq({loop(i, 4, store(out, i, i), ForKind::kUnrolled),
                        loop(j, 100, store(out, j, j), ForKind::kUnrolled)});
  std::string src = codegen_c(LoweredFunc{"unrolled", {out}, body});
  EXPECT_NE(src.find("#pragma GCC unroll 4\n"), std::string::npos);
  EXPECT_NE(src.find("#pragma GCC unroll 64\n"), std::string::npos);
}

TEST(CodegenC, ParallelLoopInsideParallelLoopRunsSerially) {
  Buffer out = make_buffer("Out", kI32, {6, 5});
  Var i("i"), j("j");
  Stmt body = loop(i, 6, loop(j, 5, store(out, i * 5 + j, i * 10 + j), ForKind::kParallel),
                   ForKind::kParallel);
  LoweredFunc f{"nested", {out}, body};
  EXPECT_EQ(count_of(codegen_c(f), "#pragma omp parallel"), 1);
  CpuModule m = build_c(f);
  NDArray o = NDArray::empty({6, 5}, kI32);
  m.run({o});
  for (int r = 0; r < 6; ++r) {
    for (int c = 0; c < 5; ++c) EXPECT_EQ(data_of<int32_t>(o)[r * 5 + c], r * 10 + c);
  }
}

TEST(CodegenC, RowSumWithLocalAllocateInParallelLoop) {
  const int64_t rows = 16, cols = 50;
  Buffer a = make_buffer("A", kF32, {rows, cols});
  Buffer b = make_buffer("B", kF32, {rows});
  Buffer acc = make_buffer("acc", kF32, {1}, "local");
  Var i("i"), k("k");
  Stmt row = make_seq({store(acc, 0, make_float(0.0)),
                       loop(k, cols, store(acc, 0, load(acc, 0) + load(a, i * make_int(cols) + k))),
                       store(b, i, load(acc, 0))});
  LoweredFunc f{"row_sum", {a, b}, loop(i, rows, make_allocate(acc, row), ForKind::kParallel)};
  std::string src = codegen_c(f);
  EXPECT_NE(src.find("_Alignas(64) float acc[1];  // local"), std::string::npos);
  CpuModule m = build_c(f);
  NDArray an = NDArray::empty({rows, cols}, kF32), bn = NDArray::empty({rows}, kF32);
  for (int64_t x = 0; x < rows * cols; ++x) data_of<float>(an)[x] = static_cast<float>(x % 11) - 4;
  m.run({an, bn});
  for (int64_t r = 0; r < rows; ++r) {
    float expect = 0;
    for (int64_t c = 0; c < cols; ++c) expect += data_of<float>(an)[r * cols + c];
    EXPECT_FLOAT_EQ(data_of<float>(bn)[r], expect) << "row " << r;
  }
}

TEST(CodegenC, LargeTemporaryUsesHeapAndIsFreed) {
  const int64_t n = 300000;  // 1.2 MB: far above the stack limit
  Buffer a = make_buffer("A", kF32, {n});
  Buffer b = make_buffer("B", kF32, {n});
  Buffer t = make_buffer("T", kF32, {n});
  Var i("i"), j("j");
  Stmt body = make_allocate(
      t, make_seq({loop(i, n, store(t, i, load(a, i) * make_float(2.0)), ForKind::kParallel),
                   loop(j, n, store(b, j, load(t, n - 1 - j) + make_float(1.0)))}));
  LoweredFunc f{"heap_temp", {a, b}, body};
  std::string src = codegen_c(f);
  EXPECT_NE(src.find("float* restrict T = (float*)aligned_alloc(64, 1200000);"), std::string::npos);
  EXPECT_NE(src.find("free(T);"), std::string::npos);
  EXPECT_NE(src.find("return tsr_status;"), std::string::npos);
  CpuModule m = build_c(f);
  NDArray an = NDArray::empty({n}, kF32), bn = NDArray::empty({n}, kF32);
  for (int64_t x = 0; x < n; ++x) data_of<float>(an)[x] = static_cast<float>(x % 1000);
  m.run({an, bn});
  for (int64_t x = 0; x < n; ++x) {
    ASSERT_EQ(data_of<float>(bn)[x], data_of<float>(an)[n - 1 - x] * 2.0f + 1.0f) << "at " << x;
  }
}

TEST(CodegenC, NarrowIntegerArithmeticWrapsAround) {
  const int64_t n = 256;
  DType i8 = DType::kInt8, u8 = DType::kUInt8;
  Buffer a = make_buffer("A", i8, {n}), b = make_buffer("B", i8, {n});
  Buffer sum = make_buffer("Sum", i8, {n}), prod = make_buffer("Prod", i8, {n});
  Buffer diff = make_buffer("Diff", u8, {n});
  Var i("i");
  Stmt body =
      make_seq({store(sum, i, load(a, i) + load(b, i)), store(prod, i, load(a, i) * load(b, i)),
                store(diff, i, make_cast(u8, load(a, i)) - make_cast(u8, load(b, i)))});
  CpuModule m = build_c(LoweredFunc{"wrap8", {a, b, sum, prod, diff}, loop(i, n, body)});
  NDArray an = NDArray::empty({n}, i8), bn = NDArray::empty({n}, i8), sn = NDArray::empty({n}, i8),
          pn = NDArray::empty({n}, i8), dn = NDArray::empty({n}, u8);
  for (int x = 0; x < n; ++x) {
    data_of<int8_t>(an)[x] = static_cast<int8_t>(x - 128);
    data_of<int8_t>(bn)[x] = static_cast<int8_t>((x * 37) % 256 - 128);
  }
  m.run({an, bn, sn, pn, dn});
  for (int x = 0; x < n; ++x) {
    int av = x - 128, bv = (x * 37) % 256 - 128;
    // Reference: exact integer result reduced modulo 256 into the type's range.
    auto wrap_s8 = [](int v) { return ((v % 256) + 256 + 128) % 256 - 128; };
    EXPECT_EQ(data_of<int8_t>(sn)[x], wrap_s8(av + bv)) << av << " + " << bv;
    EXPECT_EQ(data_of<int8_t>(pn)[x], wrap_s8(av * bv)) << av << " * " << bv;
    EXPECT_EQ(data_of<uint8_t>(dn)[x], (((av + 256) % 256 - (bv + 256) % 256) + 256) % 256);
  }
}

TEST(CodegenC, Int32AndInt64DataArithmeticWrapsAround) {
  DType i64 = DType::kInt64;
  Buffer a = make_buffer("A", kI32, {3}), b = make_buffer("B", kI32, {3});
  Buffer c = make_buffer("C", i64, {1});
  Var i("i");
  Stmt body = make_seq(
      {loop(i, 3, store(b, i, load(a, i) * load(a, i) + make_int(1))),
       store(c, 0,
             make_int(std::numeric_limits<int64_t>::max(), i64) + make_cast(i64, load(a, 0)))});
  LoweredFunc f{"wrap32", {a, b, c}, body};
  std::string src = codegen_c(f);
  EXPECT_NE(src.find("(int32_t)((uint32_t)A[i] * (uint32_t)A[i])"), std::string::npos) << src;
  CpuModule m = build_c(f);
  NDArray an = NDArray::empty({3}, kI32), bn = NDArray::empty({3}, kI32),
          cn = NDArray::empty({1}, i64);
  const int32_t in[3] = {65536, 46341, -7};
  for (int k = 0; k < 3; ++k) data_of<int32_t>(an)[k] = in[k];
  m.run({an, bn, cn});
  for (int k = 0; k < 3; ++k) {
    // Reference: the exact product reduced modulo 2^32 into int32's range.
    int64_t exact = int64_t{in[k]} * in[k] + 1;
    int64_t wrapped = ((exact % (int64_t{1} << 32)) + (int64_t{1} << 32)) % (int64_t{1} << 32);
    if (wrapped >= (int64_t{1} << 31)) wrapped -= int64_t{1} << 32;
    EXPECT_EQ(data_of<int32_t>(bn)[k], wrapped) << in[k] << " * " << in[k] << " + 1";
  }
  // INT64_MAX + 65536 wraps to INT64_MIN + 65535.
  EXPECT_EQ(data_of<int64_t>(cn)[0], std::numeric_limits<int64_t>::min() + 65535);
}

TEST(CodegenC, FloorDivisionAndModuloOfNegativeNumbers) {
  // Every a in [-9, 9] against every b in {-4..-1, 1..4}, for int32, int8 and float32.
  std::vector<int> as, bs;
  for (int a = -9; a <= 9; ++a) {
    for (int b : {-4, -3, -2, -1, 1, 2, 3, 4}) {
      as.push_back(a);
      bs.push_back(b);
    }
  }
  as.push_back(-128);  // int8: -128 / -1 wraps to -128
  bs.push_back(-1);
  const int64_t n = static_cast<int64_t>(as.size());
  DType i8 = DType::kInt8;
  Buffer a = make_buffer("A", kI32, {n}), b = make_buffer("B", kI32, {n});
  Buffer q = make_buffer("Q", kI32, {n}), r = make_buffer("R", kI32, {n});
  Buffer q8 = make_buffer("Q8", i8, {n}), r8 = make_buffer("R8", i8, {n});
  Buffer fq = make_buffer("FQ", kF32, {n}), fr = make_buffer("FR", kF32, {n});
  Var i("i");
  Expr x = load(a, i), y = load(b, i);
  Expr x8 = make_cast(i8, x), y8 = make_cast(i8, y);
  Expr xf = make_cast(kF32, x) + make_float(0.5), yf = make_cast(kF32, y);
  Stmt body = make_seq({store(q, i, x / y), store(r, i, x % y), store(q8, i, x8 / y8),
                        store(r8, i, x8 % y8), store(fq, i, xf / yf), store(fr, i, xf % yf)});
  CpuModule m = build_c(LoweredFunc{"floor_ops", {a, b, q, r, q8, r8, fq, fr}, loop(i, n, body)});
  std::vector<NDArray> args;
  for (DType t : {kI32, kI32, kI32, kI32, i8, i8, kF32, kF32}) {
    args.push_back(NDArray::empty({n}, t));
  }
  for (int64_t k = 0; k < n; ++k) {
    data_of<int32_t>(args[0])[k] = as[k];
    data_of<int32_t>(args[1])[k] = bs[k];
  }
  m.run(args);
  for (int64_t k = 0; k < n; ++k) {
    int av = as[k], bv = bs[k];
    int fq_ref = static_cast<int>(std::floor(static_cast<double>(av) / bv));
    int fr_ref = av - fq_ref * bv;
    EXPECT_EQ(data_of<int32_t>(args[2])[k], fq_ref) << av << " / " << bv;
    EXPECT_EQ(data_of<int32_t>(args[3])[k], fr_ref) << av << " % " << bv;
    int q8_ref = av == -128 ? -128 : fq_ref;  // 128 does not fit in int8 and wraps
    EXPECT_EQ(data_of<int8_t>(args[4])[k], q8_ref) << av << " / " << bv << " in int8";
    EXPECT_EQ(data_of<int8_t>(args[5])[k], fr_ref) << av << " % " << bv << " in int8";
    double xa = av + 0.5;
    EXPECT_FLOAT_EQ(data_of<float>(args[6])[k], static_cast<float>(xa / bv));
    EXPECT_NEAR(data_of<float>(args[7])[k], xa - std::floor(xa / bv) * bv, 1e-5)
        << xa << " % " << bv;
  }
}

TEST(CodegenC, DivModOfProvablyNonNegativeOperandsArePlainCOperators) {
  Buffer out = make_buffer("Out", kI32, {4, 12});
  Var i("i");
  Expr shifted = i - 6;  // negative for i < 6: needs the floor helpers
  Stmt body = make_seq({store(out, i, i / 4), store(out, i + 12, i % 4),
                        store(out, i + 24, shifted / 4), store(out, i + 36, shifted % 4)});
  LoweredFunc f{"divmod", {out}, loop(i, 12, body)};
  std::string src = codegen_c(f);
  EXPECT_NE(src.find("Out[i] = i / 4;"), std::string::npos) << src;
  EXPECT_NE(src.find("Out[i + 12] = i % 4;"), std::string::npos) << src;
  EXPECT_NE(src.find("tsr_floordiv_i32(i - 6, 4)"), std::string::npos) << src;
  EXPECT_NE(src.find("tsr_floormod_i32(i - 6, 4)"), std::string::npos) << src;
  CpuModule m = build_c(f);
  NDArray o = NDArray::empty({4, 12}, kI32);
  m.run({o});
  const int32_t* r = data_of<int32_t>(o);
  for (int x = 0; x < 12; ++x) {
    int s = x - 6;
    int q = static_cast<int>(std::floor(s / 4.0));
    EXPECT_EQ(r[x], x / 4);
    EXPECT_EQ(r[x + 12], x % 4);
    EXPECT_EQ(r[x + 24], q) << s << " / 4";
    EXPECT_EQ(r[x + 36], s - 4 * q) << s << " % 4";
  }
}

TEST(CodegenC, IfGuardSkipsOutOfRangeIterations) {
  Buffer a = make_buffer("A", kF32, {12}), b = make_buffer("B", kF32, {12});
  Buffer c = make_buffer("C", kF32, {12});
  Var i("i");
  Stmt body = make_seq(
      {make_if(i < 10, store(b, i, load(a, i) * make_float(2.0)), store(b, i, make_float(-1.0))),
       make_if(i < 10, store(c, i, make_float(1.0)))});
  CpuModule m = build_c(LoweredFunc{"guarded", {a, b, c}, loop(i, 12, body)});
  NDArray an = NDArray::empty({12}, kF32), bn = NDArray::empty({12}, kF32),
          cn = NDArray::empty({12}, kF32);
  for (int x = 0; x < 12; ++x) data_of<float>(an)[x] = static_cast<float>(x) + 0.5f;
  m.run({an, bn, cn});
  for (int x = 0; x < 12; ++x) {
    EXPECT_EQ(data_of<float>(bn)[x], x < 10 ? (x + 0.5f) * 2.0f : -1.0f) << x;
    EXPECT_EQ(data_of<float>(cn)[x], x < 10 ? 1.0f : 0.0f) << x;  // untouched past the guard
  }
}

TEST(CodegenC, MathCallsMinMaxSelectMatchLibm) {
  const int64_t n = 9;
  const float xs[n] = {-3.5f, -1.0f, -0.25f, 0.0f, 0.3f, 1.0f, 2.5f, 4.0f, 7.75f};
  Buffer x = make_buffer("X", kF32, {n});
  Buffer out = make_buffer("Out", kF32, {12, n});
  Buffer d = make_buffer("D", DType::kFloat64, {n});
  Var i("i");
  Expr v = load(x, i);
  auto call = [&](const char* name, std::vector<Expr> args) {
    return make_call(kF32, name, std::move(args));
  };
  Expr av = call("abs", {v});
  std::vector<Expr> results = {call("exp", {v}),
                               call("log", {av + make_float(1.0)}),
                               call("sqrt", {av}),
                               call("tanh", {v}),
                               call("sigmoid", {v}),
                               call("floor", {v}),
                               call("ceil", {v}),
                               call("pow", {av, make_float(1.5)}),
                               av,
                               min(v, make_float(1.0)),
                               max(v, make_float(1.0)),
                               make_select(v > make_float(0.0), v, make_float(-INFINITY))};
  std::vector<Stmt> stores;
  for (size_t k = 0; k < results.size(); ++k) {
    stores.push_back(store(out, make_int(static_cast<int>(k * n)) + i, results[k]));
  }
  Expr vd = make_cast(DType::kFloat64, v);
  stores.push_back(store(d, i, make_call(DType::kFloat64, "exp", {vd})));
  CpuModule m = build_c(LoweredFunc{"math", {x, out, d}, loop(i, n, make_seq(stores))});
  EXPECT_NE(m.source().find("expf("), std::string::npos);
  EXPECT_NE(m.source().find("exp((double)X[i])"), std::string::npos);
  NDArray xn = NDArray::empty({n}, kF32), on = NDArray::empty({12, n}, kF32),
          dn = NDArray::empty({n}, DType::kFloat64);
  for (int k = 0; k < n; ++k) data_of<float>(xn)[k] = xs[k];
  m.run({xn, on, dn});
  for (int k = 0; k < n; ++k) {
    double t = xs[k], a = std::fabs(t);
    double ref[12] = {std::exp(t),      std::log(a + 1),        std::sqrt(a),
                      std::tanh(t),     1 / (1 + std::exp(-t)), std::floor(t),
                      std::ceil(t),     std::pow(a, 1.5),       a,
                      std::min(t, 1.0), std::max(t, 1.0),       t > 0 ? t : -INFINITY};
    for (int r = 0; r < 12; ++r) {
      float got = data_of<float>(on)[r * n + k];
      if (std::isinf(ref[r])) {
        EXPECT_EQ(got, static_cast<float>(ref[r])) << "result " << r << " of x=" << t;
      } else {
        EXPECT_NEAR(got, ref[r], 1e-5 * (1 + std::fabs(ref[r]))) << "result " << r << " of x=" << t;
      }
    }
    EXPECT_DOUBLE_EQ(data_of<double>(dn)[k], std::exp(t));
  }
}

TEST(CodegenC, ConstantsAndCastsFollowCConversions) {
  DType i64 = DType::kInt64;
  Buffer big = make_buffer("Big", i64, {4});
  Buffer ints = make_buffer("Ints", kI32, {6});
  Buffer fl = make_buffer("Fl", kF32, {2});
  Var i("i");
  const int64_t kStep = int64_t{1} << 40, kBase = -(int64_t{1} << 62);
  Stmt body = make_seq(
      {loop(i, 4, store(big, i, make_cast(i64, i) * make_int(kStep, i64) + make_int(kBase, i64))),
       store(ints, 0, make_cast(kI32, make_float(-2.75))),  // truncates toward 0
       store(ints, 1, make_cast(kI32, make_cast(DType::kInt8, make_int(300)))),  // wraps to 44
       store(ints, 2, make_cast(kI32, make_cast(DType::kBool, make_int(7)))),    // nonzero -> 1
       store(ints, 3, make_int(std::numeric_limits<int32_t>::min())),
       store(ints, 4, make_call(kI32, "abs", {make_int(-17)})),
       store(ints, 5, make_call(kI32, "abs", {make_int(std::numeric_limits<int32_t>::min())})),
       store(fl, 0, make_float(NAN)), store(fl, 1, make_float(0.1))});
  CpuModule m = build_c(LoweredFunc{"consts", {big, ints, fl}, body});
  EXPECT_NE(m.source().find("INT64_C(1099511627776)"), std::string::npos);
  NDArray bn = NDArray::empty({4}, i64), in = NDArray::empty({6}, kI32),
          fn = NDArray::empty({2}, kF32);
  m.run({bn, in, fn});
  for (int k = 0; k < 4; ++k) EXPECT_EQ(data_of<int64_t>(bn)[k], k * kStep + kBase);
  EXPECT_EQ(data_of<int32_t>(in)[0], -2);
  EXPECT_EQ(data_of<int32_t>(in)[1], 44);
  EXPECT_EQ(data_of<int32_t>(in)[2], 1);
  EXPECT_EQ(data_of<int32_t>(in)[3], std::numeric_limits<int32_t>::min());
  EXPECT_EQ(data_of<int32_t>(in)[4], 17);
  EXPECT_EQ(data_of<int32_t>(in)[5], std::numeric_limits<int32_t>::min());  // abs wraps
  EXPECT_TRUE(std::isnan(data_of<float>(fn)[0]));
  EXPECT_EQ(data_of<float>(fn)[1], 0.1f);
}

TEST(CodegenC, LetBindingsIncludingARebindCompileAndRun) {
  Buffer out = make_buffer("Out", kI32, {2, 5});
  Var i("i"), t("t");
  // The same let variable bound twice in one block: the second binding gets its own C block.
  Stmt body = make_seq(
      {make_let(t, i * 3, store(out, i, t + t)), make_let(t, i + 100, store(out, i + 5, t))});
  LoweredFunc f{"lets", {out}, loop(i, 5, body)};
  CpuModule m = build_c(f);
  EXPECT_NE(m.source().find("const int32_t t = i * 3;"), std::string::npos);
  NDArray o = NDArray::empty({2, 5}, kI32);
  m.run({o});
  for (int k = 0; k < 5; ++k) {
    EXPECT_EQ(data_of<int32_t>(o)[k], 6 * k);
    EXPECT_EQ(data_of<int32_t>(o)[k + 5], k + 100);
  }
}

TEST(CodegenC, NamesAreSanitizedAndKeptApartFromCKeywords) {
  Buffer a = make_buffer("int", kF32, {4});  // a C keyword
  Buffer b = make_buffer("B.local", kF32, {4});
  Var i("i.outer");
  std::string src = codegen_c(LoweredFunc{"f", {a, b}, loop(i, 4, store(b, i, load(a, i)))});
  EXPECT_NE(src.find("float* restrict int_1 = (float*)args[0];"), std::string::npos);
  EXPECT_NE(src.find("B_local[i_outer] = int_1[i_outer];"), std::string::npos);
}

// ---- IR that cannot be compiled -----------------------------------------------------------------

TEST(CodegenC, UnboundVariableIsAnInternalError) {
  Buffer out = make_buffer("Out", kI32, {4});
  Var stray("stray");
  LoweredFunc f{"f", {out}, store(out, 0, stray)};
  try {
    codegen_c(f);
    FAIL() << "expected InternalError";
  } catch (const InternalError& e) {
    EXPECT_NE(std::string(e.what()).find("'stray' outside any loop or let"), std::string::npos);
  }
}

TEST(CodegenC, MultiDimensionalAccessIsAnInternalError) {
  Buffer out = make_buffer("Out", kI32, {2, 2});
  LoweredFunc f{"f", {out}, make_store(out, {make_int(0), make_int(1)}, make_int(3))};
  EXPECT_THROW(codegen_c(f), InternalError);
}

TEST(CodegenC, UnknownMathFunctionIsAnInternalError) {
  Buffer out = make_buffer("Out", kF32, {1});
  LoweredFunc f{"f", {out}, store(out, 0, make_call(kF32, "erf", {make_float(1.0)}))};
  EXPECT_THROW(codegen_c(f), InternalError);
}

TEST(CodegenC, NpuScopeBufferIsALowerError) {
  Buffer out = make_buffer("Out", kF32, {1});
  Buffer s = make_buffer("S", kF32, {1}, "sram");
  LoweredFunc f{"f", {out}, make_allocate(s, store(out, 0, make_float(1.0)))};
  try {
    codegen_c(f);
    FAIL() << "expected LowerError";
  } catch (const LowerError& e) {
    EXPECT_NE(std::string(e.what()).find("'S' is in scope 'sram'"), std::string::npos);
  }
}

TEST(CodegenC, FunctionNameThatIsNotACIdentifierIsALowerError) {
  Buffer out = make_buffer("Out", kF32, {1});
  EXPECT_THROW(codegen_c(LoweredFunc{"my-op", {out}, store(out, 0, make_float(1.0))}), LowerError);
  EXPECT_THROW(codegen_c(LoweredFunc{"exp", {out}, store(out, 0, make_float(1.0))}), LowerError);
}

}  // namespace
}  // namespace tessera
