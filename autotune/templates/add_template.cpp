// The elementwise add template: its knobs, the conversions between configs and NpuAddParams, the
// shape-aware default and the table entry.
#include <algorithm>
#include <limits>

#include "autotune/templates/npu_add.h"
#include "autotune/templates/npu_cost_model.h"

namespace tessera {

using autotune::Config;
using autotune::ConfigSpace;
using autotune::Knob;

namespace {

double model_cycles(const npu::Target& t, int64_t C, int64_t H, int64_t W, bool relu,
                    const NpuAddParams& p) {
  const double B = double(t.block());
  const int64_t CB = ceil_div(C, t.block());
  const int64_t cb = std::min(p.tile_cb, CB), h = std::min(p.tile_h, H), w = std::min(p.tile_w, W);
  const double tiles = double(ceil_div(CB, cb) * ceil_div(H, h) * ceil_div(W, w));
  const double passes = relu ? 2.0 : 1.0;
  CostModel c(t);
  c.vectors(tiles * double(cb) * passes, double(CB * H * W) * passes);
  const double bytes = double(cb * h * w) * B, rows = double(cb * (w < W ? h : 1));
  c.loads(2.0 * tiles, bytes, rows);
  c.stores(tiles, bytes, rows);
  c.pipeline(2.0 * c.dma(bytes, rows) + c.dma(bytes, rows));
  return c.cycles(p.db_input);
}

// The knobs, in the space's order (add_space). `with_order`: also the tile-loop order (the
// footprint does not depend on it; the validity check skips it).
NpuAddParams read_params(const ConfigSpace& space, const Config& c, bool with_order) {
  KnobReader r(space, c, {"tile_cb", "tile_h", "tile_w", "order", "db_input", "db_output"});
  NpuAddParams p;
  p.tile_cb = r.split(0);
  p.tile_h = r.split(1);
  p.tile_w = r.split(2);
  if (with_order) p.order = r.order(3);
  p.db_input = r.flag(4);
  p.db_output = r.flag(5);
  return p;
}

}  // namespace

ConfigSpace add_space(const npu::Target& target, int64_t C, int64_t H, int64_t W) {
  check_add_shape("add_space", C, H, W);
  const int64_t CB = ceil_div(C, target.block());
  ConfigSpace s;
  s.add(Knob::split("tile_cb", CB, every_tile(CB), true));
  s.add(Knob::split("tile_h", H, every_tile(H), true));
  s.add(Knob::split("tile_w", W, every_tile(W), true));
  s.add(Knob::permutation("order", {"cb", "h", "w"}));
  s.add(Knob::flag("db_input"));
  s.add(Knob::flag("db_output"));
  s.set_validity_check([target, C, H, W](const ConfigSpace& space, const Config& c) {
    return add_footprint(target, C, H, W, read_params(space, c, false)).fits(target);
  });
  return s;
}

NpuAddParams add_params(const ConfigSpace& space, const Config& c) {
  return read_params(space, c, true);
}

Config add_config(const ConfigSpace& space, const NpuAddParams& p) {
  return space.from_json({{"tile_cb", p.tile_cb},
                          {"tile_h", p.tile_h},
                          {"tile_w", p.tile_w},
                          {"order", tile_order(p.order, {"cb", "h", "w"})},
                          {"db_input", p.db_input},
                          {"db_output", p.db_output}});
}

// The model over balanced tile sizes, both stages double-buffered (else the output, then the
// inputs give up their second buffer).
NpuAddParams default_add_params(const npu::Target& t, int64_t C, int64_t H, int64_t W, bool relu) {
  check_add_shape("default_add_params", C, H, W);
  const int64_t CB = ceil_div(C, t.block());
  const bool db_levels[3][2] = {{true, true}, {true, false}, {false, false}};
  for (const auto& db : db_levels) {
    NpuAddParams best, p;
    double best_cost = std::numeric_limits<double>::infinity();
    p.db_input = db[0];
    p.db_output = db[1];
    for (int64_t cb : balanced_tiles(CB)) {
      for (int64_t h : balanced_tiles(H)) {
        for (int64_t w : balanced_tiles(W)) {
          p.tile_cb = cb;
          p.tile_h = h;
          p.tile_w = w;
          if (!add_footprint(t, C, H, W, p).fits(t)) continue;
          double c = model_cycles(t, C, H, W, relu, p);
          if (c < best_cost) {
            best_cost = c;
            best = p;
          }
        }
      }
    }
    if (best_cost < std::numeric_limits<double>::infinity()) return best;
  }
  NpuAddParams p;
  p.db_input = p.db_output = false;
  return p;
}

namespace {

struct Args {
  int64_t C, H, W;
  bool relu;
};

Args read(ArgReader& r) {
  Args a{r.integer("C"), r.integer("H"), r.integer("W"), r.boolean("relu", false)};
  check_add_shape(r.tmpl(), a.C, a.H, a.W);
  return a;
}

Args args(const nlohmann::json& j) {
  ArgReader r("add", j);
  Args a = read(r);
  r.finish();
  return a;
}

nlohmann::json canonical(const nlohmann::json& j) {
  ArgReader r("add", j);
  read(r);
  return r.finish();
}

ConfigSpace space(const nlohmann::json& j, const npu::Target& t) {
  Args a = args(j);
  return add_space(t, a.C, a.H, a.W);
}
Config default_config(const nlohmann::json& j, const ConfigSpace& s, const npu::Target& t) {
  Args a = args(j);
  return add_config(s, default_add_params(t, a.C, a.H, a.W, a.relu));
}
OnchipFootprint footprint(const nlohmann::json& j, const ConfigSpace& s, const Config& c,
                          const npu::Target& t) {
  Args a = args(j);
  return add_footprint(t, a.C, a.H, a.W, add_params(s, c));
}
NpuOp build(const nlohmann::json& j, const ConfigSpace& s, const Config& c, const npu::Target& t) {
  Args a = args(j);
  return npu_add(t, a.C, a.H, a.W, a.relu, add_params(s, c));
}

}  // namespace

const NpuTemplate kAddTemplate = {
    "add",
    "int8 saturating elementwise add (a residual connection), optional relu, on the vector unit: "
    "A, B [C/B, H, W, B] -> Y",
    canonical,
    space,
    default_config,
    footprint,
    build};

}  // namespace tessera
