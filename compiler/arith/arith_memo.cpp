#include "compiler/arith/arith_memo.h"

namespace tessera {

namespace {
thread_local ArithMemo::Tables* live_tables = nullptr;
}  // namespace

ArithMemo::ArithMemo() {
  if (!live_tables) owned_ = live_tables = new Tables;
}

ArithMemo::~ArithMemo() {
  if (owned_) {
    live_tables = nullptr;
    delete owned_;
  }
}

ArithMemo::Tables* ArithMemo::current() { return live_tables; }

}  // namespace tessera
