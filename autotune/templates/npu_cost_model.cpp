#include "autotune/templates/npu_cost_model.h"

#include <algorithm>

namespace tessera {

namespace {
// Two units fed from one side stall each other the more, the closer their loads are.
double overlapped_time(double a, double b) {
  double lo = std::min(a, b), hi = std::max(a, b);
  double r = hi > 0 ? lo / hi : 0.0;
  return hi + 0.1 * lo * r * r * r * r;
}
}  // namespace

void CostModel::gemms(double count, double steps) {
  gemm_ += steps + count * double(t_.gemm_fixed_cycles);
  gemm_count_ += count;
}

void CostModel::vectors(double count, double rows) {
  vector_ += rows * double(t_.vector_cycles_per_row()) + count * double(t_.vector_fixed_cycles);
}

double CostModel::compute() const {
  return overlap_vector_ ? overlapped_time(gemm_, vector_) : gemm_ + vector_;
}

double CostModel::dma(double bytes, double ddr_rows) const {
  return double(t_.dma_fixed_cycles) + bytes / double(t_.ddr_bytes_per_cycle) +
         ddr_rows * double(t_.dma_row_cycles);
}

void CostModel::loads(double count, double bytes, double ddr_rows) {
  dma_count_ += count;
  load_ += count * dma(bytes, ddr_rows);
  port_ += count * (bytes / double(t_.ddr_bytes_per_cycle) + ddr_rows * double(t_.dma_row_cycles));
}

void CostModel::stores(double count, double bytes, double ddr_rows) {
  dma_count_ += count;
  store_ += count * dma(bytes, ddr_rows);
  port_ += count * (bytes / double(t_.ddr_bytes_per_cycle) + ddr_rows * double(t_.dma_row_cycles));
}

double CostModel::cycles(bool overlapped) const {
  const double compute = this->compute();
  double busiest = std::max({compute, load_, store_, port_});
  if (!overlapped) return busiest + 0.8 * std::min(compute, load_) + fill_;
  // Double-buffered, compute and loads overlap, with the stall of two units fed from one side.
  return busiest + (overlapped_time(compute, load_) - std::max(compute, load_)) + fill_;
}

}  // namespace tessera
