#include "autotune/templates/npu_op.h"

#include <algorithm>

#include "runtime/base/error.h"

namespace tessera {

Expr requant_expr(const Expr& acc, const Requant& q) {
  Expr r = requantize(acc, q.multiplier, q.shift, q.zero_point);
  if (q.relu) r = binary_op(ExprKind::kMax, r, int_literal(0, DType::kInt8));
  return r;
}

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

Tensor zero_padded(const Tensor& X, int64_t pad) {
  const auto& sh = X.shape();  // [blocks, H, W, B]
  Expr p = make_int(pad);
  return compute(
      {sh[0], sh[1] + 2 * pad, sh[2] + 2 * pad, sh[3]},
      [&](const std::vector<Var>& v) {
        Expr inside = binary_op(ExprKind::kAnd,
                                binary_op(ExprKind::kAnd, v[1] >= p, v[1] < make_int(sh[1] + pad)),
                                binary_op(ExprKind::kAnd, v[2] >= p, v[2] < make_int(sh[2] + pad)));
        return select(inside, X({v[0], v[1] - p, v[2] - p, v[3]}), int_literal(0, DType::kInt8));
      },
      "P", {"c", "h", "w", "l"});
}

size_t OutputTiles::position(const std::string& name) const {
  for (size_t i = 0; i < names_.size(); ++i)
    if (names_[i] == name) return i;
  TESSERA_ICHECK(false, "no tile loop named ", name);
  return 0;
}

IterVar OutputTiles::outer(const std::string& name) const { return outer_[position(name)]; }
IterVar OutputTiles::inner(const std::string& name) const { return inner_[position(name)]; }

IterVar OutputTiles::inner_of(const std::vector<std::string>& names) const {
  size_t last = 0;
  for (const std::string& n : names) {
    size_t k = std::find(order_.begin(), order_.end(), n) - order_.begin();
    TESSERA_ICHECK(k < order_.size(), "no tile loop named ", n);
    last = std::max(last, k);
  }
  return outer(order_[last]);
}

std::vector<std::string> tile_order(const std::vector<std::string>& order,
                                    const std::vector<std::string>& names) {
  return order.empty() ? names : order;
}

void check_tile_order(const char* op, const std::vector<std::string>& order,
                      const std::vector<std::string>& names) {
  if (order.empty()) return;
  std::vector<std::string> a = order, b = names;
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  if (a != b) {
    std::string want, got;
    for (const auto& n : names) want += (want.empty() ? "" : ", ") + n;
    for (const auto& n : order) got += (got.empty() ? "" : ", ") + n;
    throw ScheduleError(str(op, ": the tile-loop order [", got,
                            "] is not an order of the tile loops [", want, "]"));
  }
}

OutputTiles tile_output(Stage y, const std::vector<std::string>& names,
                        const std::vector<int64_t>& factors,
                        const std::vector<std::string>& order) {
  const std::vector<IterVar> axes = y.node()->op->axis;
  std::vector<IterVar> outer, inner;
  for (size_t d = 0; d < names.size(); ++d) {
    auto [o, i] = y.split(axes[d], factors[d]);
    outer.push_back(o);
    inner.push_back(i);
  }
  OutputTiles t(names, outer, inner, order.empty() ? names : order);
  std::vector<IterVar> loops;
  for (const std::string& n : order) loops.push_back(t.outer(n));
  loops.insert(loops.end(), inner.begin(), inner.end());
  loops.insert(loops.end(), axes.begin() + names.size(), axes.end());
  y.reorder(loops);
  return t;
}

}  // namespace tessera
