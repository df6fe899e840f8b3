// Index arithmetic over a stage's split and fuse records (see relations.h).
#include "schedule/relations.h"

#include <algorithm>

namespace tessera {

void pass_up_index(const StageNode& st, AxisValues* values) {
  AxisValues& v = *values;
  // Axes whose value may pass their extent (under a split tail, where a guard holds it back).
  std::set<const IterVarNode*> over;
  for (auto it = st.relations.rbegin(); it != st.relations.rend(); ++it) {
    const IterVarRelation& r = *it;
    if (r.kind == IterVarRelation::kSplit) {
      if (!v.count(r.outer.get()) || !v.count(r.inner.get())) continue;
      v[r.parent.get()] = v.at(r.outer.get()) * make_int(r.factor) + v.at(r.inner.get());
      if (r.parent->extent % r.factor != 0 || over.count(r.outer.get()) ||
          over.count(r.inner.get())) {
        over.insert(r.parent.get());
      }
    } else {
      if (!v.count(r.fused.get())) continue;
      Expr f = v.at(r.fused.get());
      // Past the fused extent the guard is false; clamping keeps the parts inside their axes
      // there too, so that every read stays provably in bounds (same values where it holds).
      if (over.count(r.fused.get())) f = min(f, make_int(r.fused->extent - 1));
      v[r.outer.get()] = f / make_int(r.inner->extent);
      v[r.inner.get()] = f % make_int(r.inner->extent);
    }
  }
}

void pass_down_index(const StageNode& st, AxisValues* values) {
  AxisValues& v = *values;
  for (const IterVarRelation& r : st.relations) {
    if (r.kind == IterVarRelation::kSplit) {
      if (!v.count(r.parent.get())) continue;
      Expr p = v.at(r.parent.get());
      v[r.outer.get()] = p / make_int(r.factor);
      v[r.inner.get()] = p % make_int(r.factor);
    } else {
      if (!v.count(r.outer.get()) || !v.count(r.inner.get())) continue;
      v[r.fused.get()] = v.at(r.outer.get()) * make_int(r.inner->extent) + v.at(r.inner.get());
    }
  }
}

std::vector<Expr> split_bound_checks(const StageNode& st, const AxisValues& values) {
  std::vector<Expr> out;
  for (const IterVarRelation& r : st.relations) {
    if (r.kind != IterVarRelation::kSplit || r.parent->extent % r.factor == 0) continue;
    auto it = values.find(r.parent.get());
    if (it != values.end()) out.push_back(it->second < make_int(r.parent->extent));
  }
  return out;
}

std::set<const IterVarNode*> connected_axes(const StageNode& st, const IterVar& axis) {
  std::set<const IterVarNode*> in{axis.get()};
  for (size_t before = 0; before != in.size();) {
    before = in.size();
    for (const IterVarRelation& r : st.relations) {
      std::vector<const IterVarNode*> group{
          r.outer.get(), r.inner.get(),
          r.kind == IterVarRelation::kSplit ? r.parent.get() : r.fused.get()};
      if (std::any_of(group.begin(), group.end(), [&](auto* a) { return in.count(a) > 0; })) {
        in.insert(group.begin(), group.end());
      }
    }
  }
  return in;
}

bool contains_axis(const std::vector<IterVar>& axes, const IterVar& iv) {
  return std::find(axes.begin(), axes.end(), iv) != axes.end();
}

}  // namespace tessera
