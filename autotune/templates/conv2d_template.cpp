// The conv2d template: its knobs, the conversions between configs and NpuConv2dParams, the
// shape-aware default and the table entry.
#include <algorithm>
#include <limits>

#include "autotune/errors.h"
#include "autotune/templates/npu_conv2d.h"
#include "autotune/templates/npu_cost_model.h"
#include "autotune/templates/template_features.h"
#include "runtime/npu/roofline.h"

namespace tessera {

using autotune::Config;
using autotune::ConfigSpace;
using autotune::Knob;

namespace {

const char* const kFolds[] = {"rows", "channels", "pixels", "blocks"};
const char* const kLoads[] = {"window", "strided_rows", "strided"};
const char* const kWeightsAt[] = {"tile", "tap_row"};

std::vector<std::string> input_loads(const Conv2dShape& sh) {
  std::vector<std::string> out{kLoads[0]};
  if (conv_skips_rows(sh)) out.push_back(kLoads[1]);
  if (conv_skips_cols(sh)) out.push_back(kLoads[2]);
  return out;
}

// The model's estimate of a config (see default_conv2d_params), into `m`; returns whether loads
// overlap compute (its total is m.cycles(that)).
bool estimate(const npu::Target& t, const Conv2dShape& sh, const NpuConv2dParams& p,
              CostModel& m) {
  const double B = double(t.block());
  const int64_t CB = ceil_div(sh.C, t.block()), KB = ceil_div(sh.K, t.block());
  const int64_t OH = sh.OH(), OW = sh.OW();
  const int64_t kb = std::min(p.tile_kb, KB), oh = std::min(p.tile_oh, OH),
                ow = std::min(p.tile_ow, OW), cb = std::min(p.tile_cb, CB);
  const double nkb = double(ceil_div(KB, kb)), noh = double(ceil_div(OH, oh)),
               now = double(ceil_div(OW, ow)), ncb = double(ceil_div(CB, cb));
  const double tiles = nkb * noh * now, spatial = noh * now;
  const double taps = double(sh.R * sh.S);
  const double outputs = double(KB * OH * OW);  // accumulator rows over the whole layer
  // The 'channels' fold zeroes each tile's accumulator with a vector pass the tile's GEMMs wait
  // for, queued behind the previous tile's requantize: nothing overlaps then.
  m.overlap_vector(p.db_acc && offers_db_acc(t) && p.fold != ConvFold::kChannels);
  // GEMMs: MAC-array steps, and the instructions' fixed costs. Rows: one per (k, c, tap) and tile;
  // channels: the two largest of the loops that nest the GEMM perfectly fold (inside the weights'
  // load when it is per row of taps), and the accumulator starts with a vector pass instead of a
  // reset step.
  double steps = outputs * double(CB) * taps;
  if (p.fold == ConvFold::kRows) {
    m.gemms(spatial * double(KB * CB) * taps, steps);
  } else if (p.fold == ConvFold::kPixels) {
    m.gemms(tiles * double(CB) * taps, steps);
  } else if (p.fold == ConvFold::kBlocks) {
    // Per reduction step, the two largest of the tile's rows, output blocks and columns fold.
    std::vector<double> ext = {double(oh), double(kb), double(ow)};
    std::sort(ext.begin(), ext.end());
    m.gemms(steps / (ext[1] * ext[2]), steps);
  } else {
    std::vector<double> ext = {double(sh.S), double(oh), double(cb), double(ow)};
    if (p.weights_at == WeightsAt::kTile) ext.insert(ext.end(), {double(kb), double(sh.R)});
    std::sort(ext.begin(), ext.end());
    m.gemms(steps / (ext.back() * ext[ext.size() - 2]), steps);
    m.vectors(tiles * double(kb), outputs);
  }
  m.vectors(tiles * double(std::min(kb, oh)), outputs);  // requantize: the outer of kb, oh
  const bool rows = p.input_load != InputLoad::kWindow && conv_skips_rows(sh);
  const bool cols = p.input_load == InputLoad::kStrided && conv_skips_cols(sh);
  const double in_rows =
      rows ? double(oh * sh.R) : double(std::min((oh - 1) * sh.stride + sh.R, sh.H + 2 * sh.pad));
  const double in_cols = cols ? double(ow * sh.S)
                         : pixels_align_rows(sh, p)
                             ? double(sh.stride * sh.OW())
                             : double(std::min((ow - 1) * sh.stride + sh.S, sh.W + 2 * sh.pad));
  // Loads per tile position: the input once per channel tile, or once per spatial tile (and per
  // output-channel tile when that loop is outside the spatial ones); the weights likewise.
  auto pos = [&](const char* n) {
    return std::find(p.order.begin(), p.order.end(), n) - p.order.begin();
  };
  const bool kb_first = pos("kb") < std::max(pos("oh"), pos("ow"));
  double in_loads, w_loads;
  if (cb < CB) {
    in_loads = w_loads = tiles * ncb;
  } else {
    in_loads = spatial * (kb_first ? nkb : 1.0);
    double outside = 1.0;  // spatial tile loops outside the kb loop
    if (pos("oh") < pos("kb")) outside *= noh;
    if (pos("ow") < pos("kb")) outside *= now;
    w_loads = nkb * outside;
  }
  const double in_dmas = cols ? double(cb * oh) : (sh.pad > 0 ? double(cb) : 1.0);
  const double in_ddr_rows = double(cb) * (cols ? double(oh * ow) : in_rows);
  m.loads(in_loads * in_dmas, double(cb) * in_rows * in_cols * B / in_dmas, in_ddr_rows / in_dmas);
  double w_bytes = double(kb * cb) * taps * B * B;
  if (p.weights_at == WeightsAt::kTapRow) {
    // One row of taps per load: per output block (rows, channels) or per input block (pixels).
    const bool pixels = p.fold == ConvFold::kPixels || p.fold == ConvFold::kBlocks;
    w_loads = tiles * ncb * double(sh.R) * (pixels ? double(cb) : double(kb));
    w_bytes = double(pixels ? kb : cb) * double(sh.S) * B * B;
  }
  m.loads(w_loads, w_bytes, cb < CB ? double(kb) : 1.0);
  const double out_bytes = double(kb * oh * ow) * B;
  m.stores(tiles, out_bytes, double(kb * oh));
  // Nothing overlaps the first input and weight tiles (every DMA of them) and the last store.
  m.pipeline(in_dmas * m.dma(double(cb) * in_rows * in_cols * B / in_dmas, in_ddr_rows / in_dmas) +
             m.dma(w_bytes, 1.0) + m.dma(out_bytes, double(kb * oh)));
  return p.db_input && p.db_weights;
}

double model_cycles(const npu::Target& t, const Conv2dShape& sh, const NpuConv2dParams& p) {
  CostModel m(t);
  const bool overlapped = estimate(t, sh, p, m);
  return m.cycles(overlapped);
}

// The knobs, in the space's order (conv2d_space). `with_order`: also the tile-loop order (the
// footprint does not depend on it; the validity check skips it).
NpuConv2dParams read_params(const ConfigSpace& space, const Config& c, bool with_order) {
  KnobReader r(space, c,
               {"tile_kb", "tile_oh", "tile_ow", "tile_cb", "order", "fold", "input_load",
                "weights_at", "db_input", "db_weights", "db_output"},
               {"db_acc"});
  NpuConv2dParams p;
  p.tile_kb = r.split(0);
  p.tile_oh = r.split(1);
  p.tile_ow = r.split(2);
  p.tile_cb = r.split(3);
  if (with_order) p.order = r.order(4);
  const std::string& fold = r.choice(5);
  p.fold = fold == kFolds[3]   ? ConvFold::kBlocks
           : fold == kFolds[2] ? ConvFold::kPixels
           : fold == kFolds[1] ? ConvFold::kChannels
                               : ConvFold::kRows;
  const std::string& load = r.choice(6);
  p.input_load = load == kLoads[2]   ? InputLoad::kStrided
                 : load == kLoads[1] ? InputLoad::kStridedRows
                                     : InputLoad::kWindow;
  p.weights_at = r.choice(7) == kWeightsAt[1] ? WeightsAt::kTapRow : WeightsAt::kTile;
  p.db_input = r.flag(8);
  p.db_weights = r.flag(9);
  p.db_output = r.flag(10);
  p.db_acc = r.has(11) && r.flag(11);
  return p;
}

}  // namespace

ConfigSpace conv2d_space(const npu::Target& target, const Conv2dShape& sh) {
  check_conv_shape("conv2d_space", sh);
  const int64_t CB = ceil_div(sh.C, target.block()), KB = ceil_div(sh.K, target.block());
  ConfigSpace s;
  s.add(Knob::split("tile_kb", KB, every_tile(KB), true));
  s.add(Knob::split("tile_oh", sh.OH(), every_tile(sh.OH()), true));
  s.add(Knob::split("tile_ow", sh.OW(), every_tile(sh.OW()), true));
  s.add(Knob::split("tile_cb", CB, every_tile(CB), true));
  s.add(Knob::permutation("order", {"kb", "oh", "ow"}));
  s.add(Knob::choice("fold", {kFolds[0], kFolds[1], kFolds[2], kFolds[3]}));
  s.add(Knob::choice("input_load", input_loads(sh), /*ordered=*/true));
  s.add(Knob::choice("weights_at", {kWeightsAt[0], kWeightsAt[1]}));
  s.add(Knob::flag("db_input"));
  s.add(Knob::flag("db_weights"));
  s.add(Knob::flag("db_output"));
  if (offers_db_acc(target)) s.add(Knob::flag("db_acc"));
  s.set_validity_check([target, sh](const ConfigSpace& space, const Config& c) {
    NpuConv2dParams p = read_params(space, c, false);
    return fold_applies(sh, p) && conv2d_footprint(target, sh, p).fits(target);
  });
  return s;
}

NpuConv2dParams conv2d_params(const ConfigSpace& space, const Config& c) {
  return read_params(space, c, true);
}

Config conv2d_config(const ConfigSpace& space, const NpuConv2dParams& p) {
  nlohmann::json j = {{"tile_kb", p.tile_kb},
                      {"tile_oh", p.tile_oh},
                      {"tile_ow", p.tile_ow},
                      {"tile_cb", p.tile_cb},
                      {"order", tile_order(p.order, {"kb", "oh", "ow"})},
                      {"fold", kFolds[static_cast<int>(p.fold)]},
                      {"input_load", kLoads[static_cast<int>(p.input_load)]},
                      {"weights_at", kWeightsAt[static_cast<int>(p.weights_at)]},
                      {"db_input", p.db_input},
                      {"db_weights", p.db_weights},
                      {"db_output", p.db_output}};
  if (has_knob(space, "db_acc")) j["db_acc"] = p.db_acc;
  return space.from_json(j);
}

// The model (model_cycles) over the tile sizes worth trying (balanced_tiles), both placements of
// the output-channel loop (weights resident: kb outermost; inputs resident: kb innermost), every
// fold, input load and weights placement, all stages double-buffered; if nothing fits that way, the
// output, then the weights, then the input tile give up their second buffer.
NpuConv2dParams default_conv2d_params(const npu::Target& t, const Conv2dShape& sh) {
  check_conv_shape("default_conv2d_params", sh);
  const int64_t CB = ceil_div(sh.C, t.block()), KB = ceil_div(sh.K, t.block());
  const std::vector<std::vector<std::string>> orders = {{"kb", "oh", "ow"}, {"oh", "ow", "kb"}};
  const bool db_levels[4][3] = {
      {true, true, true}, {true, true, false}, {true, false, false}, {false, false, false}};
  std::vector<InputLoad> loads{InputLoad::kWindow};
  if (conv_skips_rows(sh)) loads.push_back(InputLoad::kStridedRows);
  if (conv_skips_cols(sh)) loads.push_back(InputLoad::kStrided);
  for (const auto& db : db_levels) {
    NpuConv2dParams best;
    double best_cost = std::numeric_limits<double>::infinity();
    NpuConv2dParams p;
    p.db_input = db[0];
    p.db_weights = db[1];
    p.db_output = db[2];
    for (bool db_acc : {false, true}) {
      if (db_acc && !offers_db_acc(t)) continue;
      p.db_acc = db_acc;
      for (int64_t kb : balanced_tiles(KB)) {
        for (int64_t cb : balanced_tiles(CB)) {
          for (int64_t oh : balanced_tiles(sh.OH())) {
            for (int64_t ow : balanced_tiles(sh.OW())) {
              p.tile_kb = kb;
              p.tile_cb = cb;
              p.tile_oh = oh;
              p.tile_ow = ow;
              for (const auto& order : orders) {
                for (ConvFold fold :
                     {ConvFold::kRows, ConvFold::kChannels, ConvFold::kPixels, ConvFold::kBlocks}) {
                  for (InputLoad load : loads) {
                    for (WeightsAt w : {WeightsAt::kTile, WeightsAt::kTapRow}) {
                      p.order = order;
                      p.fold = fold;
                      p.input_load = load;
                      p.weights_at = w;
                      if (!fold_applies(sh, p) || !conv2d_footprint(t, sh, p).fits(t)) continue;
                      double c = model_cycles(t, sh, p);
                      if (c < best_cost) {
                        best_cost = c;
                        best = p;
                      }
                    }
                  }
                }
              }
            }
          }
        }
      }
    }
    if (best_cost < std::numeric_limits<double>::infinity()) return best;
  }
  // Nothing fits even single-buffered with one-row tiles: return the smallest tiles; building it
  // reports the overflow with the buffers' sizes.
  NpuConv2dParams p;
  p.db_input = p.db_weights = p.db_output = p.db_acc = false;
  return p;
}

namespace {

Conv2dShape read_shape(ArgReader& r) {
  Conv2dShape sh{r.integer("C"), r.integer("H"), r.integer("W"),      r.integer("K"),
                 r.integer("R"), r.integer("S"), r.integer("stride"), r.integer("pad")};
  check_conv_shape(r.tmpl(), sh);
  return sh;
}

struct Conv2dArgs {
  Conv2dShape shape;
  Requant q;
};

Conv2dArgs read_args(const nlohmann::json& j) {
  ArgReader r("conv2d", j);
  Conv2dArgs a{read_shape(r), read_requant(r)};
  r.finish();
  return a;
}

nlohmann::json canonical(const nlohmann::json& j) {
  ArgReader r("conv2d", j);
  read_shape(r);
  read_requant(r);
  return r.finish();
}

ConfigSpace space(const nlohmann::json& j, const npu::Target& t) {
  return conv2d_space(t, read_args(j).shape);
}

Config default_config(const nlohmann::json& j, const ConfigSpace& s, const npu::Target& t) {
  return conv2d_config(s, default_conv2d_params(t, read_args(j).shape));
}

OnchipFootprint footprint(const nlohmann::json& j, const ConfigSpace& s, const Config& c,
                          const npu::Target& t) {
  return conv2d_footprint(t, read_args(j).shape, conv2d_params(s, c));
}

NpuOp build(const nlohmann::json& j, const ConfigSpace& s, const Config& c, const npu::Target& t) {
  Conv2dArgs a = read_args(j);
  return npu_conv2d(t, a.shape, a.q, conv2d_params(s, c));
}

autotune::Featurizer featurizer(const nlohmann::json& j, const npu::Target& target) {
  const Conv2dShape sh = read_args(j).shape;
  const double bound = npu::roofline_bound(target, conv2d_work(sh)).cycles;
  return [target, sh, bound](const ConfigSpace& s, const Config& c) {
    NpuConv2dParams p = conv2d_params(s, c);
    CostModel m(target);
    const bool overlapped = estimate(target, sh, p, m);
    return template_features(m, overlapped, bound, conv2d_footprint(target, sh, p), target);
  };
}

WorkBounder work_bound(const nlohmann::json& j, const npu::Target& target) {
  const Conv2dShape sh = read_args(j).shape;
  return [target, sh](const ConfigSpace& s, const Config& c) {
    return conv2d_work_lower_bound(target, sh, conv2d_params(s, c));
  };
}

}  // namespace

const NpuTemplate kConv2dTemplate = {
    "conv2d",
    "int8 conv2d in NCHWc layouts on the MAC array: X [C/B, H, W, B], W [K/B, C/B, R, S, B, B]",
    canonical,
    space,
    default_config,
    footprint,
    build,
    featurizer,
    work_bound};

}  // namespace tessera
