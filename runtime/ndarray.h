// NDArray: a dense, row-major, typed array on the host. Either owns 64-byte-aligned memory or
// views memory owned by someone else (a numpy array). Modules take arrays as DLTensor-like views.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "runtime/base/dtype.h"

namespace tessera {

class NDArray {
 public:
  NDArray() = default;
  // Allocates zero-filled, 64-byte-aligned storage. ArgumentError for a negative dimension.
  static NDArray empty(std::vector<int64_t> shape, DType dtype);
  // Views external memory (not owned; must outlive the view). ArgumentError for a null pointer
  // with a non-empty shape. A read-only view (writeable = false, e.g. of a numpy array whose
  // WRITEABLE flag is off) is refused by modules wherever they would write it.
  static NDArray view(void* data, std::vector<int64_t> shape, DType dtype, bool writeable = true);

  void* data() const { return data_; }
  DType dtype() const { return dtype_; }
  const std::vector<int64_t>& shape() const { return shape_; }
  bool writeable() const { return writeable_; }
  int64_t num_elements() const;
  int64_t num_bytes() const;

 private:
  std::shared_ptr<void> owner_;
  void* data_ = nullptr;
  std::vector<int64_t> shape_;
  DType dtype_ = DType::kFloat32;
  bool writeable_ = true;
};

// A shape as Python prints it: "(64, 32)", "(8,)", "()". Used in error messages.
std::string shape_to_string(const std::vector<int64_t>& shape);

}  // namespace tessera
