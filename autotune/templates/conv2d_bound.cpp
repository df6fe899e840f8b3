// The conv2d template's lower bounds on its kernel's work (cycles_bound.h), from the schedule
// npu_conv2d builds for a config. Each count is what the schedule's structure forces, never an
// estimate: tails make smaller tiles, and a GEMM or vector instruction covers at most two of the
// loops that nest it, so at most the product of the two largest extents of its stage's loops.
#include <algorithm>
#include <vector>

#include "autotune/templates/cycles_bound.h"
#include "autotune/templates/npu_conv2d.h"

namespace tessera {

namespace {

// The tiles of a split: (size, how many), at most two classes (full tiles, the tail).
struct TileClass {
  int64_t size, count;
};
std::vector<TileClass> tile_classes(int64_t extent, int64_t tile) {
  tile = std::min(tile, extent);
  std::vector<TileClass> out{{tile, extent / tile}};
  if (extent % tile) out.push_back({extent % tile, 1});
  return out;
}

// The product of the two largest of `ext`.
int64_t two_largest(std::vector<int64_t> ext) {
  std::sort(ext.begin(), ext.end());
  return ext.size() < 2 ? ext.back() : ext.back() * ext[ext.size() - 2];
}

uint64_t ceil_u(int64_t a, int64_t b) { return uint64_t((a + b - 1) / b); }

// One spatial dimension of the input stage, per output tile along it: the rows (columns) its
// window reads that lie in the input (`real`), the stage's extent with padding (`box`), and
// whether the box has padding.
struct SpatialTile {
  int64_t real, box;
  bool padded;
};
std::vector<SpatialTile> spatial_tiles(int64_t out, int64_t tile, int64_t stride, int64_t window,
                                       int64_t in, int64_t pad, bool sampled, int64_t aligned) {
  std::vector<SpatialTile> v;
  tile = std::min(tile, out);
  for (int64_t o0 = 0; o0 < out; o0 += tile) {
    const int64_t n = std::min(tile, out - o0);
    if (sampled) {
      v.push_back({n * window, n * window, false});
    } else if (aligned > 0) {
      v.push_back({std::min(in, aligned), std::min(in, aligned), false});
    } else {
      const int64_t lo = o0 * stride, hi = lo + (n - 1) * stride + window;  // padded coordinates
      const int64_t real = std::max<int64_t>(0, std::min(hi, pad + in) - std::max(lo, pad));
      v.push_back({real, hi - lo, real < hi - lo});
    }
  }
  return v;
}

}  // namespace

KernelWork conv2d_work_lower_bound(const npu::Target& t, const Conv2dShape& sh,
                                   const NpuConv2dParams& p) {
  const int64_t B = t.block();
  const uint64_t bpc = uint64_t(t.ddr_bytes_per_cycle);
  const int64_t CB = ceil_div(sh.C, B), KB = ceil_div(sh.K, B), OH = sh.OH(), OW = sh.OW();
  const int64_t R = sh.R, S = sh.S;
  const auto kbs = tile_classes(KB, p.tile_kb), ohs = tile_classes(OH, p.tile_oh),
             ows = tile_classes(OW, p.tile_ow), cbs = tile_classes(CB, p.tile_cb);
  const int64_t nkb = ceil_div(KB, std::min(p.tile_kb, KB)), noh = ceil_div(OH, std::min(p.tile_oh, OH)),
                now = ceil_div(OW, std::min(p.tile_ow, OW));
  const bool split_c = std::min(p.tile_cb, CB) < CB;
  KernelWork w;

  // GEMMs, per output tile and input-channel tile: every (output row, channel block, tap) is one
  // step; one instruction covers at most the two largest of the accumulation's loops in the tile
  // (output blocks, rows, columns, channel blocks, taps; rows x columns fused for 'pixels').
  // Requantize: every output row once, per tile at most the two largest of its loops; the
  // 'channels' fold first zeroes the tile's accumulator the same way (a vector pass). Stores: at
  // least one DMA per tile, its DDR rows the tile's contiguous runs.
  for (const auto& k : kbs)
    for (const auto& h : ohs)
      for (const auto& x : ows) {
        const int64_t tiles = k.count * h.count * x.count;
        const int64_t rows = k.size * h.size * x.size;
        for (const auto& c : cbs) {
          std::vector<int64_t> ext = {k.size, c.size, R, S};
          if (p.fold == ConvFold::kPixels) {
            ext.push_back(h.size * x.size);
          } else {
            ext.push_back(h.size);
            ext.push_back(x.size);
          }
          const int64_t steps = rows * c.size * R * S;
          w.gemms += uint64_t(tiles * c.count) * ceil_u(steps, two_largest(ext));
          w.gemm_steps += uint64_t(tiles * c.count * steps);
        }
        const uint64_t vec = ceil_u(rows, two_largest({k.size, h.size, x.size}));
        const int passes = p.fold == ConvFold::kChannels ? 2 : 1;
        w.vectors += uint64_t(tiles * passes) * vec;
        w.vector_rows += uint64_t(tiles * passes * rows);
        const int64_t runs = x.size < OW ? k.size * h.size : h.size < OH ? k.size : 1;
        w.add_stores(uint64_t(tiles), 1, uint64_t(rows * B), uint64_t(runs), bpc);
      }

  // The input stage, per materialization: the real pixels of its window move over DDR (padding
  // moves none: the load writes it, pad_unit_cycles per zero unit), in contiguous runs.
  const bool rows_sampled = p.input_load != InputLoad::kWindow && conv_skips_rows(sh);
  const bool cols_sampled = p.input_load == InputLoad::kStrided && conv_skips_cols(sh);
  const int64_t aligned = pixels_align_rows(sh, p) ? sh.stride * OW : 0;
  const auto hs = spatial_tiles(OH, p.tile_oh, sh.stride, R, sh.H, sh.pad, rows_sampled, 0);
  const auto ws = spatial_tiles(OW, p.tile_ow, sh.stride, S, sh.W, sh.pad, cols_sampled, aligned);
  // How many times the stage is loaded per spatial tile and per channel-tile class: per
  // input-channel tile of every output tile when the channels are split, otherwise once per
  // spatial tile (per output-channel tile too when that loop is outside the inner spatial one).
  auto pos = [&](const char* n) {
    return std::find(p.order.begin(), p.order.end(), n) - p.order.begin();
  };
  const bool kb_first = pos("kb") < std::max(pos("oh"), pos("ow"));
  for (const auto& c : cbs) {
    const int64_t per_spatial = split_c ? nkb * c.count : (kb_first ? nkb : 1);
    const int64_t cb = c.size;
    for (const auto& h : hs)
      for (const auto& x : ws) {
        const int64_t units = cb * h.real * x.real;
        if (units == 0) continue;
        int64_t runs;
        if (cols_sampled) runs = cb * h.real * x.real;       // one pixel per run
        else if (rows_sampled) runs = cb * h.real;           // the sampled rows are apart
        else if (x.real < sh.W) runs = cb * h.real;
        else if (h.real < sh.H) runs = cb;
        else runs = 1;
        // A window with zero rows above or below is one DMA per channel block (each block's
        // padding is its own box).
        const int64_t dmas = h.padded ? cb : 1;
        w.add_loads(uint64_t(per_spatial), uint64_t(dmas), uint64_t(units * B), uint64_t(runs),
                    bpc);
        w.pad_units += uint64_t(per_spatial * cb * (h.box * x.box - h.real * x.real));
      }
  }

  // The weights: the tile [kb, cb, R, S] per load, or per row of taps [kb or cb, S]
  // ('tap_row': loaded at the accumulation's rr loop, once per iteration of the loops outside it
  // in the tile: output blocks x rows of taps for the rows and channels folds, input blocks x rows
  // of taps for pixels and blocks).
  const int64_t wblock = B * B;
  for (const auto& k : kbs)
    for (const auto& c : cbs) {
      if (p.weights_at == WeightsAt::kTile) {
        int64_t count;
        if (split_c) {
          count = k.count * c.count * noh * now;
        } else {
          int64_t outside = 1;
          if (pos("oh") < pos("kb")) outside *= noh;
          if (pos("ow") < pos("kb")) outside *= now;
          count = k.count * outside;
        }
        const int64_t runs = c.size < CB ? k.size : 1;
        w.add_loads(uint64_t(count), 1, uint64_t(k.size * c.size * R * S * wblock),
                    uint64_t(runs), bpc);
      } else {
        const bool per_input_block = p.fold == ConvFold::kPixels || p.fold == ConvFold::kBlocks;
        const int64_t tiles = k.count * c.count * noh * now;
        const int64_t count = tiles * R * (per_input_block ? c.size : k.size);
        // One load: the other blocks' S taps; consecutive blocks are apart unless the taps of a
        // row are all a block has (R = 1) and, across output blocks, the input blocks are all.
        const int64_t blocks = per_input_block ? k.size : c.size;
        const bool contiguous = R == 1 && (per_input_block ? CB == 1 : true);
        const int64_t runs = contiguous ? 1 : blocks;
        w.add_loads(uint64_t(count), 1, uint64_t(blocks * S * wblock), uint64_t(runs), bpc);
      }
    }
  return w;
}

}  // namespace tessera
