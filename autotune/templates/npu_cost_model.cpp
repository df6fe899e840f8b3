#include "autotune/templates/npu_cost_model.h"

#include <algorithm>

namespace tessera {

void CostModel::gemms(double count, double steps) {
  compute_ += steps + count * double(t_.gemm_fixed_cycles);
}

void CostModel::vectors(double count, double rows) {
  compute_ += rows * double(t_.vector_cycles_per_row()) + count * double(t_.vector_fixed_cycles);
}

double CostModel::dma(double bytes, double ddr_rows) const {
  return double(t_.dma_fixed_cycles) + bytes / double(t_.ddr_bytes_per_cycle) +
         ddr_rows * double(t_.dma_row_cycles);
}

void CostModel::loads(double count, double bytes, double ddr_rows) {
  load_ += count * dma(bytes, ddr_rows);
  port_ += count * (bytes / double(t_.ddr_bytes_per_cycle) + ddr_rows * double(t_.dma_row_cycles));
}

void CostModel::stores(double count, double bytes, double ddr_rows) {
  store_ += count * dma(bytes, ddr_rows);
  port_ += count * (bytes / double(t_.ddr_bytes_per_cycle) + ddr_rows * double(t_.dma_row_cycles));
}

double CostModel::cycles(bool overlapped) const {
  double busiest = std::max({compute_, load_, store_, port_});
  if (!overlapped) return busiest + 0.8 * std::min(compute_, load_) + fill_;
  // Double-buffered, the two units stall each other the more, the closer their loads are.
  double lo = std::min(compute_, load_), hi = std::max(compute_, load_);
  double r = hi > 0 ? lo / hi : 0.0;
  return busiest + 0.1 * lo * r * r * r * r + fill_;
}

}  // namespace tessera
