// Symbolic shapes: bind_sizes reads the sizes from array shapes (errors name the variable and the
// argument); specialize replays a schedule with the numbers, so the lowered program equals the
// one written with those constants.
#include "schedule/specialize.h"

#include <gtest/gtest.h>

#include "compiler/lower.h"
#include "runtime/base/error.h"

namespace tessera {
namespace {

struct VecAdd {
  Var n = Var::size("n");
  Tensor A, B, C;
  VecAdd() {
    A = placeholder_sym({n}, DType::kFloat32, "A");
    B = placeholder_sym({n}, DType::kFloat32, "B");
    C = compute_sym(
        {n}, [&](const std::vector<Var>& i) { return A({i[0]}) + B({i[0]}); }, "C");
  }
};

TEST(Specialize, lowers_like_the_same_schedule_written_with_constants) {
  VecAdd v;
  auto s = create_schedule({v.C.op()});
  (*s)[v.C].split(v.C.op()->axis[0], 8);
  Specialized sp = specialize(*s, {v.A, v.B, v.C}, {{v.n, 20}});

  Tensor A = placeholder({20}, DType::kFloat32, "A");
  Tensor B = placeholder({20}, DType::kFloat32, "B");
  Tensor C = compute(
      {20}, [&](const std::vector<Var>& i) { return A({i[0]}) + B({i[0]}); }, "C");
  auto s2 = create_schedule({C.op()});
  (*s2)[C].split(C.op()->axis[0], 8);
  EXPECT_EQ(to_string(lower(*sp.schedule, sp.args)), to_string(lower(*s2, {A, B, C})));
}

TEST(Specialize, split_by_nparts_derives_its_factor_from_the_bound_extent) {
  VecAdd v;
  auto s = create_schedule({v.C.op()});
  (*s)[v.C].split_nparts(v.C.op()->axis[0], 3);
  Specialized sp = specialize(*s, {v.A, v.B, v.C}, {{v.n, 10}});
  const IterVarRelation& r = sp.schedule->stages()[0]->relations.at(0);
  EXPECT_EQ(r.factor, 4);  // ceil(10 / 3)
  EXPECT_EQ(r.outer->extent, 3);
}

TEST(Specialize, lower_of_a_symbolic_schedule_names_the_variable) {
  VecAdd v;
  auto s = create_schedule({v.C.op()});
  try {
    lower(*s, {v.A, v.B, v.C});
    FAIL() << "expected LowerError";
  } catch (const LowerError& e) {
    EXPECT_NE(std::string(e.what()).find("size variable 'n' has no value"), std::string::npos);
  }
}

TEST(BindSizes, binds_from_shapes_and_checks_every_argument) {
  VecAdd v;
  SizeBinding b = bind_sizes({v.A, v.B, v.C}, {{7}, {7}, {7}}, {}, {v.n});
  EXPECT_EQ(b.at(v.n), 7);
  try {
    bind_sizes({v.A, v.B, v.C}, {{7}, {8}, {7}}, {}, {v.n});
    FAIL() << "expected ArgumentError";
  } catch (const ArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "size variable 'n' is 7 from argument 'A' dimension 0 but 8 from argument 'B'"),
              std::string::npos)
        << e.what();
  }
}

TEST(BindSizes, a_variable_no_shape_determines_is_an_error) {
  VecAdd v;
  Var m = Var::size("m");
  try {
    bind_sizes({v.A, v.B, v.C}, {{3}, {3}, {3}}, {}, {v.n, m});
    FAIL() << "expected ArgumentError";
  } catch (const ArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find("size variable 'm' is not a dimension of any argument"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace tessera
