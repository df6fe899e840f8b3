#include "autotune/templates/cycles_bound.h"

#include <algorithm>

#include "runtime/npu/encoding.h"

namespace tessera {

namespace {
uint64_t ceil_div_u(uint64_t a, uint64_t b) { return (a + b - 1) / b; }
}  // namespace

void KernelWork::add_loads(uint64_t times, uint64_t dmas, uint64_t bytes, uint64_t ddr_rows,
                           uint64_t bpc) {
  loads += times * dmas;
  load_bytes += times * bytes;
  load_xfer += times * ceil_div_u(bytes, bpc);
  load_ddr_rows += times * ddr_rows;
}

void KernelWork::add_stores(uint64_t times, uint64_t dmas, uint64_t bytes, uint64_t ddr_rows,
                            uint64_t bpc) {
  stores += times * dmas;
  store_bytes += times * bytes;
  store_xfer += times * ceil_div_u(bytes, bpc);
  store_ddr_rows += times * ddr_rows;
}

CyclesBound cycles_lower_bound(const npu::Target& t, const KernelWork& w) {
  const uint64_t fixed = uint64_t(t.dma_fixed_cycles), row = uint64_t(t.dma_row_cycles);
  const uint64_t bpc = uint64_t(t.ddr_bytes_per_cycle), burst = uint64_t(t.fetch_burst_insns);
  const uint64_t n = w.insns();
  CyclesBound b;
  // Fetch: the bursts' chain, and the first burst's arrival, before which nothing starts.
  uint64_t first = 0, fetch_port = 0;
  if (burst > 0 && n > 0) {
    const uint64_t bursts = ceil_div_u(n, burst);
    fetch_port = ceil_div_u(n * npu::kInsnBytes, bpc) + bursts * row;
    b.fetch_chain = bursts * fixed + fetch_port + 1;  // the last instruction takes a cycle
    first = fixed + ceil_div_u(std::min(n, burst) * npu::kInsnBytes, bpc) + row;
  }
  // The DDR port: from the first request's latency on, every transfer one at a time.
  b.port = (burst > 0 || w.loads + w.stores > 0 ? fixed : 0) + fetch_port + w.load_xfer +
           w.store_xfer + (w.load_ddr_rows + w.store_ddr_rows) * row;
  if (w.loads > 0)
    b.load = first + w.loads * fixed + w.load_xfer + w.load_ddr_rows * row +
             w.pad_units * uint64_t(t.pad_unit_cycles);
  if (w.stores > 0) b.store = first + w.stores * fixed + w.store_xfer + w.store_ddr_rows * row;
  const uint64_t mac = w.gemms * uint64_t(t.gemm_fixed_cycles) + w.gemm_steps;
  const uint64_t vec =
      w.vectors * uint64_t(t.vector_fixed_cycles) + w.vector_rows * uint64_t(t.vector_cycles_per_row());
  if (w.gemms > 0) b.mac = first + mac;
  if (w.vectors > 0) b.vector = first + vec;
  if (t.compute_units == 1 && w.gemms + w.vectors > 0) b.compute = first + mac + vec;
  b.cycles = std::max({b.fetch_chain, b.port, b.load, b.store, b.mac, b.vector, b.compute});
  return b;
}

}  // namespace tessera
