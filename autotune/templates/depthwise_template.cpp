// The depthwise conv2d template: its knobs, the conversions between configs and
// NpuDepthwiseConv2dParams, the shape-aware default and the table entry.
#include <algorithm>
#include <limits>

#include "autotune/templates/npu_cost_model.h"
#include "autotune/templates/npu_depthwise_conv2d.h"

namespace tessera {

using autotune::Config;
using autotune::ConfigSpace;
using autotune::Knob;

namespace {

double model_cycles(const npu::Target& t, const Conv2dShape& sh, DepthwiseMapping mapping,
                    const NpuDepthwiseConv2dParams& p) {
  const bool diagonal = mapping == DepthwiseMapping::kDiagonalGemm;
  const double B = double(t.block());
  const int64_t CB = ceil_div(sh.C, t.block()), OH = sh.OH(), OW = sh.OW();
  const int64_t cb = std::min(p.tile_cb, CB), oh = std::min(p.tile_oh, OH),
                ow = std::min(p.tile_ow, OW);
  const double ncb = double(ceil_div(CB, cb));
  const double tiles = ncb * double(ceil_div(OH, oh) * ceil_div(OW, ow));
  const double outputs = double(CB * OH * OW), taps = double(sh.R * sh.S);
  CostModel c(t);
  // One GEMM (diagonal) or vector multiply-accumulate per tap over the tile's rows x columns.
  if (diagonal)
    c.gemms(tiles * double(cb) * taps, outputs * taps);
  else
    c.vectors(tiles * double(cb) * taps, outputs * taps);
  c.vectors(tiles * double(cb), outputs);              // requantize
  const double in_rows = double(std::min((oh - 1) * sh.stride + sh.R, sh.H + 2 * sh.pad));
  const double in_cols = double(std::min((ow - 1) * sh.stride + sh.S, sh.W + 2 * sh.pad));
  const double in_dmas = sh.pad > 0 ? double(cb) : 1.0;
  c.loads(tiles * in_dmas, double(cb) * in_rows * in_cols * B / in_dmas, in_rows);
  const bool cb_first = p.order.front() == "cb";
  c.loads(cb_first ? ncb : tiles, double(cb) * taps * B * (diagonal ? B : 1.0), 1.0);
  c.stores(tiles, double(cb * oh * ow) * B, double(cb * oh));
  c.pipeline(c.dma(double(cb) * in_rows * in_cols * B, in_rows) +
             c.dma(double(cb * oh * ow) * B, double(cb * oh)));
  return c.cycles(p.db_input && p.db_weights);
}

// The knobs, in the space's order (depthwise_conv2d_space). `with_order`: also the tile-loop order
// (the footprint does not depend on it; the validity check skips it).
NpuDepthwiseConv2dParams read_params(const ConfigSpace& space, const Config& c, bool with_order) {
  KnobReader r(space, c,
               {"tile_cb", "tile_oh", "tile_ow", "order", "db_input", "db_weights", "db_output"});
  NpuDepthwiseConv2dParams p;
  p.tile_cb = r.split(0);
  p.tile_oh = r.split(1);
  p.tile_ow = r.split(2);
  if (with_order) p.order = r.order(3);
  p.db_input = r.flag(4);
  p.db_weights = r.flag(5);
  p.db_output = r.flag(6);
  return p;
}

}  // namespace

ConfigSpace depthwise_conv2d_space(const npu::Target& target, const Conv2dShape& sh,
                                   DepthwiseMapping mapping) {
  check_conv_shape("depthwise_conv2d_space", sh);
  const int64_t CB = ceil_div(sh.C, target.block());
  ConfigSpace s;
  s.add(Knob::split("tile_cb", CB, every_tile(CB), true));
  s.add(Knob::split("tile_oh", sh.OH(), every_tile(sh.OH()), true));
  s.add(Knob::split("tile_ow", sh.OW(), every_tile(sh.OW()), true));
  s.add(Knob::permutation("order", {"cb", "oh", "ow"}));
  s.add(Knob::flag("db_input"));
  s.add(Knob::flag("db_weights"));
  s.add(Knob::flag("db_output"));
  s.set_validity_check([target, sh, mapping](const ConfigSpace& space, const Config& c) {
    return depthwise_conv2d_footprint(target, sh, mapping, read_params(space, c, false))
        .fits(target);
  });
  return s;
}

NpuDepthwiseConv2dParams depthwise_conv2d_params(const ConfigSpace& space, const Config& c) {
  return read_params(space, c, true);
}

Config depthwise_conv2d_config(const ConfigSpace& space, const NpuDepthwiseConv2dParams& p) {
  return space.from_json({{"tile_cb", p.tile_cb},
                          {"tile_oh", p.tile_oh},
                          {"tile_ow", p.tile_ow},
                          {"order", tile_order(p.order, {"cb", "oh", "ow"})},
                          {"db_input", p.db_input},
                          {"db_weights", p.db_weights},
                          {"db_output", p.db_output}});
}

// The model over balanced tile sizes, the channel loop outermost (weights resident) or innermost,
// all stages double-buffered; if nothing fits, the output, then the weights, then the input give
// up their second buffer.
NpuDepthwiseConv2dParams default_depthwise_conv2d_params(const npu::Target& t,
                                                         const Conv2dShape& sh,
                                                         DepthwiseMapping mapping) {
  check_conv_shape("default_depthwise_conv2d_params", sh);
  const int64_t CB = ceil_div(sh.C, t.block());
  const bool db_levels[4][3] = {
      {true, true, true}, {true, true, false}, {true, false, false}, {false, false, false}};
  const std::vector<std::vector<std::string>> orders = {{"cb", "oh", "ow"}, {"oh", "ow", "cb"}};
  for (const auto& db : db_levels) {
    NpuDepthwiseConv2dParams best, p;
    double best_cost = std::numeric_limits<double>::infinity();
    p.db_input = db[0];
    p.db_weights = db[1];
    p.db_output = db[2];
    for (int64_t cb : balanced_tiles(CB)) {
      for (int64_t oh : balanced_tiles(sh.OH())) {
        for (int64_t ow : balanced_tiles(sh.OW())) {
          p.tile_cb = cb;
          p.tile_oh = oh;
          p.tile_ow = ow;
          if (!depthwise_conv2d_footprint(t, sh, mapping, p).fits(t)) continue;
          for (const auto& order : orders) {
            p.order = order;
            double c = model_cycles(t, sh, mapping, p);
            if (c < best_cost) {
              best_cost = c;
              best = p;
            }
          }
        }
      }
    }
    if (best_cost < std::numeric_limits<double>::infinity()) return best;
  }
  NpuDepthwiseConv2dParams p;
  p.db_input = p.db_weights = p.db_output = false;
  return p;
}

namespace {

struct Args {
  Conv2dShape shape;
  Requant q;
  DepthwiseMapping mapping;
};

Args read(ArgReader& r) {
  Args a;
  a.shape = Conv2dShape{r.integer("C"), r.integer("H"), r.integer("W"),      0,
                        r.integer("R"), r.integer("S"), r.integer("stride"), r.integer("pad")};
  a.shape.K = a.shape.C;
  check_conv_shape(r.tmpl(), a.shape);
  a.q = read_requant(r);
  a.mapping = r.choice("mapping", {"vector_mac", "diagonal_gemm"}, "vector_mac") == "vector_mac"
                  ? DepthwiseMapping::kVectorMac
                  : DepthwiseMapping::kDiagonalGemm;
  return a;
}

Args args(const nlohmann::json& j) {
  ArgReader r("depthwise_conv2d", j);
  Args a = read(r);
  r.finish();
  return a;
}

nlohmann::json canonical(const nlohmann::json& j) {
  ArgReader r("depthwise_conv2d", j);
  read(r);
  return r.finish();
}

ConfigSpace space(const nlohmann::json& j, const npu::Target& t) {
  Args a = args(j);
  return depthwise_conv2d_space(t, a.shape, a.mapping);
}
Config default_config(const nlohmann::json& j, const ConfigSpace& s, const npu::Target& t) {
  Args a = args(j);
  return depthwise_conv2d_config(s, default_depthwise_conv2d_params(t, a.shape, a.mapping));
}
OnchipFootprint footprint(const nlohmann::json& j, const ConfigSpace& s, const Config& c,
                          const npu::Target& t) {
  Args a = args(j);
  return depthwise_conv2d_footprint(t, a.shape, a.mapping, depthwise_conv2d_params(s, c));
}
NpuOp build(const nlohmann::json& j, const ConfigSpace& s, const Config& c, const npu::Target& t) {
  Args a = args(j);
  return npu_depthwise_conv2d(t, a.shape, a.q, a.mapping, depthwise_conv2d_params(s, c));
}

}  // namespace

const NpuTemplate kDepthwiseConv2dTemplate = {
    "depthwise_conv2d",
    "int8 depthwise conv2d: mapping vector_mac (the vector unit's multiply-accumulate, W [C/B, R, "
    "S, B]) or diagonal_gemm (the MAC array, W [C/B, R, S, B, B]); X [C/B, H, W, B]",
    canonical,
    space,
    default_config,
    footprint,
    build};

}  // namespace tessera
