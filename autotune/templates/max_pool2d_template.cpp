// The max pooling template: its knobs, the conversions between configs and NpuMaxPool2dParams,
// the shape-aware default and the table entry.
#include <algorithm>
#include <limits>

#include "autotune/templates/npu_cost_model.h"
#include "autotune/templates/npu_max_pool2d.h"

namespace tessera {

using autotune::Config;
using autotune::ConfigSpace;
using autotune::Knob;

namespace {

double model_cycles(const npu::Target& t, const Pool2dShape& sh, const NpuMaxPool2dParams& p) {
  const double B = double(t.block());
  const int64_t CB = ceil_div(sh.C, t.block()), OH = sh.OH(), OW = sh.OW();
  const int64_t cb = std::min(p.tile_cb, CB), oh = std::min(p.tile_oh, OH),
                ow = std::min(p.tile_ow, OW);
  const double tiles = double(ceil_div(CB, cb) * ceil_div(OH, oh) * ceil_div(OW, ow));
  const double outputs = double(CB * OH * OW), taps = double(sh.R * sh.S);
  CostModel c(t);
  c.vectors(tiles * double(cb), outputs);                // the -128 fill
  c.vectors(tiles * double(cb) * taps, outputs * taps);  // one max per tap over the tile
  const double in_rows = double(std::min((oh - 1) * sh.stride + sh.R, sh.H + 2 * sh.pad));
  const double in_cols = double(std::min((ow - 1) * sh.stride + sh.S, sh.W + 2 * sh.pad));
  const double dmas = sh.pad > 0 ? double(cb) : 1.0;
  c.loads(tiles * dmas, double(cb) * in_rows * in_cols * B / dmas, in_rows);
  c.stores(tiles, double(cb * oh * ow) * B, double(cb * oh));
  c.pipeline(c.dma(double(cb) * in_rows * in_cols * B, in_rows) +
             c.dma(double(cb * oh * ow) * B, double(cb * oh)));
  return c.cycles(p.db_input);
}

// The knobs, in the space's order (max_pool2d_space). `with_order`: also the tile-loop order (the
// footprint does not depend on it; the validity check skips it).
NpuMaxPool2dParams read_params(const ConfigSpace& space, const Config& c, bool with_order) {
  KnobReader r(space, c, {"tile_cb", "tile_oh", "tile_ow", "order", "db_input", "db_output"});
  NpuMaxPool2dParams p;
  p.tile_cb = r.split(0);
  p.tile_oh = r.split(1);
  p.tile_ow = r.split(2);
  if (with_order) p.order = r.order(3);
  p.db_input = r.flag(4);
  p.db_output = r.flag(5);
  return p;
}

}  // namespace

ConfigSpace max_pool2d_space(const npu::Target& target, const Pool2dShape& sh) {
  check_pool_shape("max_pool2d_space", sh);
  const int64_t CB = ceil_div(sh.C, target.block());
  ConfigSpace s;
  s.add(Knob::split("tile_cb", CB, every_tile(CB), true));
  s.add(Knob::split("tile_oh", sh.OH(), every_tile(sh.OH()), true));
  s.add(Knob::split("tile_ow", sh.OW(), every_tile(sh.OW()), true));
  s.add(Knob::permutation("order", {"cb", "oh", "ow"}));
  s.add(Knob::flag("db_input"));
  s.add(Knob::flag("db_output"));
  s.set_validity_check([target, sh](const ConfigSpace& space, const Config& c) {
    return max_pool2d_footprint(target, sh, read_params(space, c, false)).fits(target);
  });
  return s;
}

NpuMaxPool2dParams max_pool2d_params(const ConfigSpace& space, const Config& c) {
  return read_params(space, c, true);
}

Config max_pool2d_config(const ConfigSpace& space, const NpuMaxPool2dParams& p) {
  return space.from_json({{"tile_cb", p.tile_cb},
                          {"tile_oh", p.tile_oh},
                          {"tile_ow", p.tile_ow},
                          {"order", tile_order(p.order, {"cb", "oh", "ow"})},
                          {"db_input", p.db_input},
                          {"db_output", p.db_output}});
}

// The model over balanced tile sizes, both stages double-buffered (else the output, then the
// input gives up its second buffer).
NpuMaxPool2dParams default_max_pool2d_params(const npu::Target& t, const Pool2dShape& sh) {
  check_pool_shape("default_max_pool2d_params", sh);
  const int64_t CB = ceil_div(sh.C, t.block());
  const bool db_levels[3][2] = {{true, true}, {true, false}, {false, false}};
  for (const auto& db : db_levels) {
    NpuMaxPool2dParams best, p;
    double best_cost = std::numeric_limits<double>::infinity();
    p.db_input = db[0];
    p.db_output = db[1];
    for (int64_t cb : balanced_tiles(CB)) {
      for (int64_t oh : balanced_tiles(sh.OH())) {
        for (int64_t ow : balanced_tiles(sh.OW())) {
          p.tile_cb = cb;
          p.tile_oh = oh;
          p.tile_ow = ow;
          if (!max_pool2d_footprint(t, sh, p).fits(t)) continue;
          double c = model_cycles(t, sh, p);
          if (c < best_cost) {
            best_cost = c;
            best = p;
          }
        }
      }
    }
    if (best_cost < std::numeric_limits<double>::infinity()) return best;
  }
  NpuMaxPool2dParams p;
  p.db_input = p.db_output = false;
  return p;
}

namespace {

Pool2dShape read(ArgReader& r) {
  Pool2dShape sh{r.integer("C"), r.integer("H"),      r.integer("W"),     r.integer("R"),
                 r.integer("S"), r.integer("stride"), r.integer("pad", 0)};
  check_pool_shape(r.tmpl(), sh);
  return sh;
}

Pool2dShape shape(const nlohmann::json& j) {
  ArgReader r("max_pool2d", j);
  Pool2dShape sh = read(r);
  r.finish();
  return sh;
}

nlohmann::json canonical(const nlohmann::json& j) {
  ArgReader r("max_pool2d", j);
  read(r);
  return r.finish();
}

ConfigSpace space(const nlohmann::json& j, const npu::Target& t) {
  return max_pool2d_space(t, shape(j));
}
Config default_config(const nlohmann::json& j, const ConfigSpace& s, const npu::Target& t) {
  return max_pool2d_config(s, default_max_pool2d_params(t, shape(j)));
}
OnchipFootprint footprint(const nlohmann::json& j, const ConfigSpace& s, const Config& c,
                          const npu::Target& t) {
  return max_pool2d_footprint(t, shape(j), max_pool2d_params(s, c));
}
NpuOp build(const nlohmann::json& j, const ConfigSpace& s, const Config& c, const npu::Target& t) {
  return npu_max_pool2d(t, shape(j), max_pool2d_params(s, c));
}

}  // namespace

const NpuTemplate kMaxPool2dTemplate = {
    "max_pool2d",
    "int8 max pooling on the vector unit (padding never wins): X [C/B, H, W, B] -> Y [C/B, OH, OW, "
    "B]",
    canonical,
    space,
    default_config,
    footprint,
    build};

}  // namespace tessera
