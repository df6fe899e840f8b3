#include "runtime/ndarray.h"

#include <cstdlib>
#include <cstring>
#include <limits>

#include "runtime/base/error.h"

namespace tessera {

namespace {

constexpr size_t kAlignment = 64;

// The element count, or an ArgumentError naming the shape when a dimension is negative or the
// byte size would not fit in int64.
int64_t checked_elements(const std::vector<int64_t>& shape, DType dtype) {
  int64_t n = 1;
  for (int64_t s : shape) {
    if (s < 0) {
      throw ArgumentError(str("NDArray shape ", shape_to_string(shape),
                              " has a negative dimension; dimensions must be >= 0"));
    }
    if (s != 0 && n > std::numeric_limits<int64_t>::max() / bytes_of(dtype) / s) {
      throw ArgumentError(str("NDArray shape ", shape_to_string(shape), " of ", dtype_name(dtype),
                              " is too large to address"));
    }
    n *= s;
  }
  return n;
}

}  // namespace

std::string shape_to_string(const std::vector<int64_t>& shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + (shape.size() == 1 ? ",)" : ")");
}

NDArray NDArray::empty(std::vector<int64_t> shape, DType dtype) {
  int64_t bytes = checked_elements(shape, dtype) * bytes_of(dtype);
  // aligned_alloc needs a size that is a multiple of the alignment; never allocate zero bytes so
  // that data() is a valid pointer even for an empty array.
  size_t size = (static_cast<size_t>(bytes) + kAlignment - 1) / kAlignment * kAlignment;
  if (size == 0) size = kAlignment;
  void* p = std::aligned_alloc(kAlignment, size);
  if (p == nullptr) {
    throw RuntimeError(str("could not allocate ", size, " bytes for an NDArray of shape ",
                           shape_to_string(shape), " ", dtype_name(dtype)));
  }
  std::memset(p, 0, size);
  NDArray a;
  a.owner_ = std::shared_ptr<void>(p, std::free);
  a.data_ = p;
  a.shape_ = std::move(shape);
  a.dtype_ = dtype;
  return a;
}

NDArray NDArray::view(void* data, std::vector<int64_t> shape, DType dtype, bool writeable) {
  int64_t n = checked_elements(shape, dtype);
  if (data == nullptr && n != 0) {
    throw ArgumentError(str("NDArray::view of shape ", shape_to_string(shape),
                            " got a null data pointer; only an empty array may have no data"));
  }
  NDArray a;
  a.data_ = data;
  a.shape_ = std::move(shape);
  a.dtype_ = dtype;
  a.writeable_ = writeable;
  return a;
}

int64_t NDArray::num_elements() const {
  int64_t n = 1;
  for (int64_t s : shape_) n *= s;
  return n;
}

int64_t NDArray::num_bytes() const { return num_elements() * bytes_of(dtype_); }

}  // namespace tessera
