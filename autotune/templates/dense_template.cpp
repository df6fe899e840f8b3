// The dense template and the im2col convolution built on it: their knobs, the conversions between
// configs and NpuDenseParams, the shape-aware default and the table entries.
#include <algorithm>
#include <limits>

#include "autotune/templates/npu_conv2d.h"
#include "autotune/templates/npu_cost_model.h"
#include "autotune/templates/npu_dense.h"
#include "autotune/templates/template_features.h"
#include "runtime/npu/roofline.h"

namespace tessera {

using autotune::Config;
using autotune::ConfigSpace;
using autotune::Knob;

namespace {

const char* const kFolds[] = {"kb", "nb"};

// The model's estimate of a config (see default_dense_params), into `c`; returns whether loads
// overlap compute (its total is c.cycles(that)).
bool estimate(const npu::Target& t, int64_t M, int64_t K, int64_t N, const NpuDenseParams& p,
              CostModel& c) {
  const double B = double(t.block());
  const int64_t KB = ceil_div(K, t.block()), NB = ceil_div(N, t.block());
  const int64_t m = std::min(p.tile_m, M), nb = std::min(p.tile_nb, NB),
                kb = std::min(p.tile_kb, KB);
  const double nm = double(ceil_div(M, m)), nnb = double(ceil_div(NB, nb)),
               nkb = double(ceil_div(KB, kb));
  const double tiles = nm * nnb, outputs = double(M * NB);
  // The 'kb' fold zeroes each tile's accumulator with a vector pass the tile's GEMMs wait for,
  // queued behind the previous tile's requantize: nothing overlaps then.
  c.overlap_vector(p.db_acc && offers_db_acc(t) && p.fold != DenseFold::kSteps);
  // fold kb: accumulating GEMMs fold the two largest of the tile's loops (nb, kb, m), after a
  // vector pass over the tile; fold nb: GEMMs over blocks x rows per K step, the first a reset.
  // Then one requantize pass.
  double steps = outputs * double(KB);
  if (p.fold == DenseFold::kSteps) {
    double ext[] = {double(nb), double(kb), double(m)};
    std::sort(std::begin(ext), std::end(ext));
    c.gemms(steps / (ext[2] * ext[1]), steps);
    c.vectors(tiles, outputs);
  } else {
    c.gemms(tiles * double(KB), steps);
  }
  c.vectors(tiles, outputs);
  const bool m_first = p.order.front() == "m";
  double x_loads, w_loads;
  if (kb < KB) {
    x_loads = w_loads = tiles * nkb;
  } else {
    x_loads = nm * (m_first ? 1.0 : nnb);
    w_loads = nnb * (m_first ? nm : 1.0);
  }
  c.loads(x_loads, double(m * kb) * B, kb < KB ? double(m) : 1.0);
  c.loads(w_loads, double(nb * kb) * B * B, kb < KB ? double(nb) : 1.0);
  c.stores(tiles, double(m * nb) * B, nb < NB ? double(m) : 1.0);
  c.pipeline(c.dma(double(m * kb) * B, double(m)) + c.dma(double(m * nb) * B, double(m)));
  return p.db_input && p.db_weights;
}

double model_cycles(const npu::Target& t, int64_t M, int64_t K, int64_t N,
                    const NpuDenseParams& p) {
  CostModel c(t);
  const bool overlapped = estimate(t, M, K, N, p, c);
  return c.cycles(overlapped);
}

// The knobs, in the space's order (dense_space). `with_order`: also the tile-loop order (the
// footprint does not depend on it; the validity check skips it).
NpuDenseParams read_params(const ConfigSpace& space, const Config& c, bool with_order) {
  KnobReader r(
      space, c,
      {"tile_m", "tile_nb", "tile_kb", "order", "fold", "db_input", "db_weights", "db_output"},
      {"db_acc"});
  NpuDenseParams p;
  p.tile_m = r.split(0);
  p.tile_nb = r.split(1);
  p.tile_kb = r.split(2);
  if (with_order) p.order = r.order(3);
  p.fold = r.choice(4) == kFolds[1] ? DenseFold::kBlocks : DenseFold::kSteps;
  p.db_input = r.flag(5);
  p.db_weights = r.flag(6);
  p.db_output = r.flag(7);
  p.db_acc = r.has(8) && r.flag(8);
  return p;
}

}  // namespace

ConfigSpace dense_space(const npu::Target& target, int64_t M, int64_t K, int64_t N) {
  check_dense_shape("dense_space", M, K, N);
  const int64_t KB = ceil_div(K, target.block()), NB = ceil_div(N, target.block());
  ConfigSpace s;
  // A tile of more rows than the accumulator holds cannot fit with any block count.
  s.add(Knob::split("tile_m", M, every_tile(std::min(M, target.acc_rows())), true));
  s.add(Knob::split("tile_nb", NB, every_tile(NB), true));
  s.add(Knob::split("tile_kb", KB, every_tile(KB), true));
  s.add(Knob::permutation("order", {"m", "nb"}));
  s.add(Knob::choice("fold", {kFolds[0], kFolds[1]}));
  s.add(Knob::flag("db_input"));
  s.add(Knob::flag("db_weights"));
  s.add(Knob::flag("db_output"));
  if (offers_db_acc(target)) s.add(Knob::flag("db_acc"));
  s.set_validity_check([target, M, K, N](const ConfigSpace& space, const Config& c) {
    return dense_footprint(target, M, K, N, read_params(space, c, false)).fits(target);
  });
  return s;
}

NpuDenseParams dense_params(const ConfigSpace& space, const Config& c) {
  return read_params(space, c, true);
}

Config dense_config(const ConfigSpace& space, const NpuDenseParams& p) {
  nlohmann::json j = {{"tile_m", p.tile_m},
                      {"tile_nb", p.tile_nb},
                      {"tile_kb", p.tile_kb},
                      {"order", tile_order(p.order, {"m", "nb"})},
                      {"fold", kFolds[static_cast<int>(p.fold)]},
                      {"db_input", p.db_input},
                      {"db_weights", p.db_weights},
                      {"db_output", p.db_output}};
  if (has_knob(space, "db_acc")) j["db_acc"] = p.db_acc;
  return space.from_json(j);
}

// The model over the tile sizes worth trying (balanced_tiles; rows up to the accumulator's size),
// both orders, all stages double-buffered; if nothing fits that way, the output, then the weights,
// then the input tile give up their second buffer.
NpuDenseParams default_dense_params(const npu::Target& t, int64_t M, int64_t K, int64_t N) {
  check_dense_shape("default_dense_params", M, K, N);
  const int64_t KB = ceil_div(K, t.block()), NB = ceil_div(N, t.block());
  const bool db_levels[4][3] = {
      {true, true, true}, {true, true, false}, {true, false, false}, {false, false, false}};
  for (const auto& db : db_levels) {
    NpuDenseParams best, p;
    double best_cost = std::numeric_limits<double>::infinity();
    p.db_input = db[0];
    p.db_weights = db[1];
    p.db_output = db[2];
    for (bool db_acc : {false, true}) {
      if (db_acc && !offers_db_acc(t)) continue;
      p.db_acc = db_acc;
      for (int64_t m : balanced_tiles(M)) {
        if (m > t.acc_rows()) continue;
        for (int64_t nb : balanced_tiles(NB)) {
          for (int64_t kb : balanced_tiles(KB)) {
            p.tile_m = m;
            p.tile_nb = nb;
            p.tile_kb = kb;
            if (!dense_footprint(t, M, K, N, p).fits(t)) continue;
            for (const char* first : {"m", "nb"}) {
              for (DenseFold fold : {DenseFold::kSteps, DenseFold::kBlocks}) {
                p.order = first == std::string("m") ? std::vector<std::string>{"m", "nb"}
                                                    : std::vector<std::string>{"nb", "m"};
                p.fold = fold;
                double c = model_cycles(t, M, K, N, p);
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
    if (best_cost < std::numeric_limits<double>::infinity()) return best;
  }
  NpuDenseParams p;
  p.db_input = p.db_weights = p.db_output = p.db_acc = false;
  return p;
}

namespace {

struct DenseArgs {
  int64_t M, K, N;
  Requant q;
  std::optional<Work> work;  // the im2col convolution's
};

DenseArgs read_dense(ArgReader& r) {
  DenseArgs a{r.integer("M"), r.integer("K"), r.integer("N"), {}};
  check_dense_shape(r.tmpl(), a.M, a.K, a.N);
  a.q = read_requant(r);
  return a;
}

// conv2d as a dense layer over the im2col matrix: one row per output pixel (OH * OW), one column
// per window element (C * R * S), one output per filter (K).
DenseArgs read_im2col(ArgReader& r) {
  Conv2dShape sh{r.integer("C"), r.integer("H"), r.integer("W"),      r.integer("K"),
                 r.integer("R"), r.integer("S"), r.integer("stride"), r.integer("pad")};
  check_conv_shape(r.tmpl(), sh);
  return DenseArgs{sh.OH() * sh.OW(), sh.C * sh.R * sh.S, sh.K, read_requant(r), conv2d_work(sh)};
}

template <DenseArgs (*Read)(ArgReader&), const char* Name>
struct Entry {
  static DenseArgs args(const nlohmann::json& j) {
    ArgReader r(Name, j);
    DenseArgs a = Read(r);
    r.finish();
    return a;
  }
  static nlohmann::json canonical(const nlohmann::json& j) {
    ArgReader r(Name, j);
    Read(r);
    return r.finish();
  }
  static ConfigSpace space(const nlohmann::json& j, const npu::Target& t) {
    DenseArgs a = args(j);
    return dense_space(t, a.M, a.K, a.N);
  }
  static Config default_config(const nlohmann::json& j, const ConfigSpace& s,
                               const npu::Target& t) {
    DenseArgs a = args(j);
    return dense_config(s, default_dense_params(t, a.M, a.K, a.N));
  }
  static OnchipFootprint footprint(const nlohmann::json& j, const ConfigSpace& s, const Config& c,
                                   const npu::Target& t) {
    DenseArgs a = args(j);
    return dense_footprint(t, a.M, a.K, a.N, dense_params(s, c));
  }
  static NpuOp build(const nlohmann::json& j, const ConfigSpace& s, const Config& c,
                     const npu::Target& t) {
    DenseArgs a = args(j);
    NpuOp op = npu_dense(t, a.M, a.K, a.N, a.q, dense_params(s, c), a.work);
    op.name = Name;
    return op;
  }
  static autotune::Featurizer featurizer(const nlohmann::json& j, const npu::Target& target) {
    const DenseArgs a = args(j);
    const double bound =
        npu::roofline_bound(target, a.work ? *a.work : dense_work(a.M, a.K, a.N)).cycles;
    const int64_t M = a.M, K = a.K, N = a.N;
    return [target, M, K, N, bound](const ConfigSpace& s, const Config& c) {
      NpuDenseParams p = dense_params(s, c);
      CostModel m(target);
      const bool overlapped = estimate(target, M, K, N, p, m);
      return template_features(m, overlapped, bound, dense_footprint(target, M, K, N, p), target);
    };
  }
  static constexpr NpuTemplate entry(const char* summary) {
    return {Name, summary, canonical, space, default_config, footprint, build, featurizer};
  }
};

constexpr char kDenseName[] = "dense";
constexpr char kIm2colName[] = "conv2d_im2col";

}  // namespace

const NpuTemplate kDenseTemplate = Entry<read_dense, kDenseName>::entry(
    "int8 dense on the MAC array: X [M, K/B, B], W [N/B, K/B, B, B] -> Y [M, N/B, B]");

const NpuTemplate kConv2dIm2colTemplate = Entry<read_im2col, kIm2colName>::entry(
    "int8 conv2d as a dense layer over the im2col matrix (for few input channels, such as an RGB "
    "stem): X [OH*OW, C*R*S/B, B] (npu_layout.pack_im2col), W [K/B, C*R*S/B, B, B] -> Y [OH*OW, "
    "K/B, B]");

}  // namespace tessera
