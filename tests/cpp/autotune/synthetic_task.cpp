#include "synthetic_task.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "autotune/errors.h"

namespace tessera::autotune::testing {

namespace {

constexpr int64_t kR = 3;
constexpr int64_t kSram = 64 * 1024, kAcc = 16 * 1024;

constexpr const char* kLoops = "hwkc";

struct Tiles {
  int64_t th, tw, tk, tc;
  int64_t trips[4];  // tile-loop trip counts, in kLoops order
  int order[4];      // the loops with more than one iteration, outermost first (kLoops indices)
  int loops = 0;
  int fold;  // 0 none, 1 rows, 2 cols
  int64_t unroll;
  bool db_input, db_weight;
};

enum { kFoldNone, kFoldRows, kFoldCols };
// Knob positions, in the order the space adds them.
enum { kTileH, kTileW, kTileK, kTileC, kOrder, kFold, kUnroll, kDbInput, kDbWeight };

}  // namespace

// The shape and each knob's values by index (the cost is evaluated millions of times by the
// tests' exhaustive sweeps, so it does not look knobs up by name).
struct SyntheticConv::Tables {
  SyntheticShape shape;
  std::vector<int64_t> th, tw, tk, tc, unroll{1, 2, 4, 8};
  std::vector<std::array<int, 4>> orders;

  explicit Tables(SyntheticShape s) : shape(s) {
    th = divisors(s.H);
    tw = divisors(s.W);  // plus two tile widths that leave tails
    for (int64_t f : {16, 32})
      if (f < s.W && s.W % f) tw.push_back(f);
    std::sort(tw.begin(), tw.end());
    tk = divisors(s.K);
    tc = divisors(s.C);
    std::array<int, 4> p{0, 1, 2, 3};
    do orders.push_back(p);
    while (std::next_permutation(p.begin(), p.end()));
  }

  Tiles tiles(const Config& c) const {
    const auto& v = c.values;
    Tiles t;
    t.th = th[v[kTileH]];
    t.tw = tw[v[kTileW]];
    t.tk = tk[v[kTileK]];
    t.tc = tc[v[kTileC]];
    t.trips[0] = (shape.H + t.th - 1) / t.th;
    t.trips[1] = (shape.W + t.tw - 1) / t.tw;
    t.trips[2] = shape.K / t.tk;
    t.trips[3] = shape.C / t.tc;
    // A loop of one iteration is not a loop: only the order of the others matters.
    for (int l : orders[v[kOrder]])
      if (t.trips[l] > 1) t.order[t.loops++] = l;
    t.fold = static_cast<int>(v[kFold]);
    t.unroll = unroll[v[kUnroll]];
    t.db_input = v[kDbInput] == 1;
    t.db_weight = v[kDbWeight] == 1;
    return t;
  }
};

namespace {

int64_t in_tile_bytes(const Tiles& t) { return (t.th + kR - 1) * (t.tw + kR - 1) * t.tc; }
int64_t w_tile_bytes(const Tiles& t) { return t.tk * t.tc * kR * kR; }
int64_t out_tile_bytes(const Tiles& t) { return t.th * t.tw * t.tk; }

// How many times a tile of a tensor indexed by the loops `uses` (a set of kLoops bits) is
// loaded: every iteration of the loops down to the innermost loop it depends on.
int64_t loads(const Tiles& t, unsigned uses) {
  int innermost = -1;
  for (int i = 0; i < t.loops; ++i)
    if (uses & (1u << t.order[i])) innermost = i;
  int64_t n = 1;
  for (int i = 0; i <= innermost; ++i) n *= t.trips[t.order[i]];
  return n;
}

constexpr unsigned kUsesH = 1, kUsesW = 2, kUsesK = 4, kUsesC = 8;

bool fits_on_chip(const Tiles& t) {
  int64_t bytes = in_tile_bytes(t) * (t.db_input ? 2 : 1) +
                  w_tile_bytes(t) * (t.db_weight ? 2 : 1) + out_tile_bytes(t);
  return bytes <= kSram;
}

std::string fingerprint(const Tiles& t) {
  std::string f = std::to_string(t.th) + "x" + std::to_string(t.tw) + "x" + std::to_string(t.tk) +
                  "x" + std::to_string(t.tc) + "/";
  for (int i = 0; i < t.loops; ++i) f += kLoops[t.order[i]];
  f += "/" + std::to_string(t.fold) + "/" + std::to_string(t.unroll) + (t.db_input ? "/di" : "/-") +
       (t.db_weight ? "/dw" : "/-");
  return f;
}

}  // namespace

SyntheticConv::SyntheticConv(SyntheticShape shape)
    : tables_(std::make_shared<const Tables>(shape)) {
  const Tables& t = *tables_;
  task_.key = {
      {"template", "synthetic_conv2d"},
      {"args", {{"C", shape.C}, {"H", shape.H}, {"W", shape.W}, {"K", shape.K}, {"R", kR}}}};
  task_.space.add(Knob::split("tile_h", shape.H, t.th));
  task_.space.add(Knob::split("tile_w", shape.W, t.tw, /*allow_tails=*/true));
  task_.space.add(Knob::split("tile_k", shape.K, t.tk));
  task_.space.add(Knob::split("tile_c", shape.C, t.tc));
  task_.space.add(Knob::permutation("order", {"h", "w", "k", "c"}));
  task_.space.add(Knob::choice("fold", {"none", "rows", "cols"}));
  task_.space.add(Knob::choice("unroll", {"1", "2", "4", "8"}, /*ordered=*/true));
  task_.space.add(Knob::flag("db_input"));
  task_.space.add(Knob::flag("db_weight"));
  task_.space.set_validity_check([tables = tables_](const ConfigSpace&, const Config& c) {
    return fits_on_chip(tables->tiles(c));
  });
}

MeasureFn SyntheticConv::measure_fn() const {
  auto self = std::make_shared<const SyntheticConv>(*this);
  return
      [self](const MeasureInput& in, const MeasureContext& ctx) { return self->measure(in, ctx); };
}

std::optional<int64_t> SyntheticConv::cycles(const Config& config) const {
  const SyntheticShape& s = tables_->shape;
  Tiles t = tables_->tiles(config);
  if (t.th * t.tw * t.tk * 4 > kAcc) return std::nullopt;
  if (t.fold == kFoldCols && s.W % t.tw != 0) return std::nullopt;
  const int64_t nh = t.trips[0], nw = t.trips[1], nk = t.trips[2], nc = t.trips[3];
  // Compute: padded MACs at the array's utilisation, plus per-instruction overhead.
  const double util = std::min<double>(t.tk, 16) / 16 * std::min<double>(t.tc, 16) / 16;
  const double macs = static_cast<double>(nh * t.th) * (nw * t.tw) * s.K * s.C * kR * kR;
  const double mac_cycles = macs / (256 * util);
  double per_tile = 20.0 * t.th * kR * kR * 4 / t.unroll;
  if (t.fold == kFoldRows && t.th >= 4) per_tile *= 0.5;
  if (t.fold == kFoldCols && t.tw >= 8) per_tile *= 0.6;
  if (t.unroll * t.tw > 64) per_tile *= 1.0 + 0.1 * (t.unroll * t.tw / 64);  // code size
  const double compute = mac_cycles + per_tile * nh * nw * nk * nc;
  // Transfers: reuse decided by the loop order; partial sums spilled when c is not innermost.
  const int64_t li = loads(t, kUsesH | kUsesW | kUsesC), lw = loads(t, kUsesK | kUsesC),
                lo = loads(t, kUsesH | kUsesW | kUsesK);
  const bool in_place = lo == nh * nw * nk;
  const double bytes = static_cast<double>(li) * in_tile_bytes(t) +
                       static_cast<double>(lw) * w_tile_bytes(t) +
                       static_cast<double>(lo) * out_tile_bytes(t) * (in_place ? 1 : 8);
  const double latency = 100.0 * (li * (t.db_input ? 0.1 : 1) + lw * (t.db_weight ? 0.1 : 1) + lo);
  const double memory = bytes / 16 + latency;
  double total;
  if (t.db_input && t.db_weight)
    total = std::max(compute, memory);
  else if (t.db_input || t.db_weight)
    total = std::max(compute, memory) + 0.5 * std::min(compute, memory);
  else
    total = compute + memory;
  return static_cast<int64_t>(std::llround(total)) + 1000;
}

MeasureResult SyntheticConv::measure(const MeasureInput& input,
                                     const MeasureContext& context) const {
  const int64_t W = tables_->shape.W;
  Tiles t = tables_->tiles(input.config);
  if (t.fold == kFoldCols && W % t.tw != 0)
    throw ScheduleError(
        str("fold cols: tile_w ", t.tw, " leaves a tail of ", W % t.tw, " columns"));
  const std::string fp = fingerprint(t);
  if (auto known = context.known_result(fp)) return *known;
  context.throw_if_cancelled();
  auto cycles = this->cycles(input.config);
  if (!cycles)
    return MeasureResult::failure(
        MeasureStatus::kCompileError,
        str("accumulator overflow: ", t.th * t.tw * t.tk * 4, " bytes > ", kAcc), fp);
  return MeasureResult::success(*cycles, fp);
}

namespace {

const SyntheticConv& default_conv() {
  static const SyntheticConv conv;
  return conv;
}

}  // namespace

TuningTask synthetic_task() { return default_conv().task(); }

std::optional<int64_t> synthetic_cycles(const ConfigSpace&, const Config& config) {
  return default_conv().cycles(config);
}

MeasureResult measure_synthetic(const MeasureInput& input, const MeasureContext& context) {
  return default_conv().measure(input, context);
}

}  // namespace tessera::autotune::testing
