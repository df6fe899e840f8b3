#include "compiler/arith/arith_memo.h"

namespace tessera {

ArithMemo::ArithMemo() {
  if (!live_) owned_ = live_ = new Tables;
}

ArithMemo::~ArithMemo() {
  if (owned_) {
    live_ = nullptr;
    delete owned_;
  }
}

}  // namespace tessera
