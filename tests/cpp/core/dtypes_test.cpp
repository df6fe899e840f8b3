// float16, uint32 and uint64 in the core: the float16 conversion pair (runtime/base/float16.h),
// promotion, constant folding with unsigned semantics, and the simplifier leaving wrapping
// unsigned arithmetic alone (compiler/arith/rewrite.h).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "compiler/arith/const_fold.h"
#include "compiler/arith/simplify.h"
#include "compiler/ir/ir_printer.h"
#include "runtime/base/float16.h"

namespace tessera {
namespace {

TEST(Float16, RoundsToNearestEvenWithSubnormalsAndOverflow) {
  EXPECT_EQ(float16_bits(1.0), 0x3C00);
  EXPECT_EQ(float16_bits(-2.0), 0xC000);
  EXPECT_EQ(float16_bits(65504.0), 0x7BFF);
  EXPECT_EQ(float16_bits(65519.99), 0x7BFF);
  EXPECT_EQ(float16_bits(65520.0), 0x7C00);  // the tie above the largest finite goes to inf
  EXPECT_EQ(float16_bits(1e300), 0x7C00);
  EXPECT_EQ(float16_bits(1.0 + std::ldexp(1.0, -11)), 0x3C00);      // tie: to even
  EXPECT_EQ(float16_bits(1.0 + 3 * std::ldexp(1.0, -11)), 0x3C02);  // tie: to even (up)
  EXPECT_EQ(float16_bits(1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40)), 0x3C01);
  EXPECT_EQ(float16_bits(std::ldexp(1.0, -24)), 0x0001);  // smallest subnormal
  EXPECT_EQ(float16_bits(std::ldexp(1.0, -25)), 0x0000);  // tie with zero: even
  EXPECT_EQ(float16_bits(3 * std::ldexp(1.0, -26)), 0x0001);
  EXPECT_EQ(float16_bits(std::ldexp(1023.5, -24)), 0x0400);  // rounds up into the normals
  EXPECT_EQ(float16_bits(-0.0), 0x8000);
  EXPECT_EQ(float16_bits(-std::numeric_limits<double>::infinity()), 0xFC00);
  EXPECT_EQ(float16_bits(std::numeric_limits<double>::quiet_NaN()), 0x7E00);
}

TEST(Float16, EveryValueRoundTrips) {
  for (uint32_t h = 0; h < 0x10000; ++h) {
    double v = float16_value(static_cast<uint16_t>(h));
    if (std::isnan(v)) {
      EXPECT_TRUE((h & 0x7C00) == 0x7C00 && (h & 0x3FF) != 0) << h;
      continue;
    }
    EXPECT_EQ(float16_bits(v), h) << h;
  }
  EXPECT_EQ(float16_value(0x0001), std::ldexp(1.0, -24));
  EXPECT_EQ(float16_value(0x7BFF), 65504.0);
}

TEST(DTypes, PromotionKeepsEveryValue) {
  EXPECT_EQ(promote(DType::kFloat16, DType::kFloat32), DType::kFloat32);
  EXPECT_EQ(promote(DType::kFloat16, DType::kInt8), DType::kFloat16);
  EXPECT_EQ(promote(DType::kFloat16, DType::kUInt8), DType::kFloat16);
  EXPECT_EQ(promote(DType::kFloat16, DType::kInt16), std::nullopt);
  EXPECT_EQ(promote(DType::kUInt32, DType::kInt32), DType::kInt64);
  EXPECT_EQ(promote(DType::kUInt32, DType::kUInt8), DType::kUInt32);
  EXPECT_EQ(promote(DType::kUInt64, DType::kUInt32), DType::kUInt64);
  EXPECT_EQ(promote(DType::kUInt64, DType::kInt64), std::nullopt);
  EXPECT_EQ(promote(DType::kUInt32, DType::kFloat64), DType::kFloat64);
  EXPECT_EQ(promote(DType::kUInt32, DType::kFloat32), std::nullopt);
  EXPECT_TRUE(int_holds(DType::kUInt64, DType::kUInt32));
  EXPECT_FALSE(int_holds(DType::kInt64, DType::kUInt64));
}

Expr u64(uint64_t v) { return make_int(static_cast<int64_t>(v), DType::kUInt64); }
Expr u32(uint32_t v) { return make_int(v, DType::kUInt32); }

TEST(ConstFold, Uint64FoldsWithUnsignedSemantics) {
  const uint64_t max = std::numeric_limits<uint64_t>::max();
  EXPECT_EQ(to_string(const_fold(ExprKind::kDiv, u64(max), u64(3))), "uint64(6148914691236517205)");
  EXPECT_EQ(to_string(const_fold(ExprKind::kMod, u64(max), u64(10))), "uint64(5)");
  EXPECT_EQ(to_string(const_fold(ExprKind::kLT, u64(uint64_t{1} << 63), u64(1))), "false");
  EXPECT_EQ(to_string(const_fold(ExprKind::kMax, u64(uint64_t{1} << 63), u64(1))),
            "uint64(9223372036854775808)");
  EXPECT_EQ(to_string(const_fold(ExprKind::kSub, u64(3), u64(5))), "uint64(18446744073709551614)");
  EXPECT_EQ(to_string(const_fold_cast(DType::kFloat64, u64(max))), "1.8446744073709552e+19");
}

TEST(ConstFold, Uint32Wraps) {
  EXPECT_EQ(to_string(const_fold(ExprKind::kAdd, u32(0xFFFFFFFFu), u32(1))), "uint32(0)");
  EXPECT_EQ(to_string(const_fold(ExprKind::kMul, u32(0x80000000u), u32(2))), "uint32(0)");
  EXPECT_EQ(to_string(const_fold(ExprKind::kGT, u32(0x80000000u), u32(1))), "true");
  EXPECT_EQ(to_string(const_fold_cast(DType::kInt32, u32(0xFFFFFFFFu))), "-1");
}

TEST(ConstFold, Float16RoundsEachOperation) {
  Expr a = make_float(0.1, DType::kFloat16), b = make_float(0.2, DType::kFloat16);
  EXPECT_EQ(to_string(a), "float16(0.0999755859375)");  // 0.1 rounded when made
  Expr s = const_fold(ExprKind::kAdd, a, b);
  ASSERT_TRUE(s.defined());
  EXPECT_EQ(s.as<FloatImmNode>()->value, round_to_float16(0.0999755859375 + 0.199951171875));
  EXPECT_FALSE(
      const_fold(ExprKind::kMul, make_float(300, DType::kFloat16), make_float(300, DType::kFloat16))
          .defined());  // overflows float16: left to the generated code
}

TEST(Simplify, UnsignedDataArithmeticIsNotTreatedAsUnboundedIntegers) {
  Buffer buf = make_buffer("A", DType::kUInt32, {4});
  Expr x = make_buffer_load(buf, {make_int(0)});
  Expr one = u32(1);
  // x + 1 > x is false for x == 0xFFFFFFFF: it must stay a comparison.
  EXPECT_EQ(to_string(simplify(make_binary(ExprKind::kGT, make_binary(ExprKind::kAdd, x, one), x))),
            "((A[0] + uint32(1)) > A[0])");
  // (x * 2) / 2 is not x modulo 2^32.
  EXPECT_EQ(to_string(simplify(
                make_binary(ExprKind::kDiv, make_binary(ExprKind::kMul, x, u32(2)), u32(2)))),
            "((A[0] * uint32(2)) / uint32(2))");
  // Identities exact under wrapping still apply.
  EXPECT_EQ(to_string(simplify(make_binary(ExprKind::kSub, x, x))), "uint32(0)");
  EXPECT_EQ(to_string(simplify(make_binary(ExprKind::kMul, x, one))), "A[0]");
  Buffer b64 = make_buffer("B", DType::kUInt64, {4});
  Expr y = make_buffer_load(b64, {make_int(0)});
  EXPECT_EQ(to_string(simplify(make_binary(ExprKind::kMin, y, u64(uint64_t{1} << 63)))),
            "min(B[0], uint64(9223372036854775808))");
}

}  // namespace
}  // namespace tessera
