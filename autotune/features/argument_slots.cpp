#include "autotune/features/argument_slots.h"

namespace tessera::autotune {

const char* argument_slot_name(int slot) {
  static const char* const kNames[kArgumentSlots] = {"in0", "in1", "in2", "out0", "rest"};
  return slot >= 0 && slot < kArgumentSlots ? kNames[slot] : "?";
}

std::vector<int> argument_slots(const std::vector<bool>& is_output) {
  constexpr int kInputSlots = 3, kOutputSlots = 1;
  std::vector<int> slots;
  int inputs = 0, outputs = 0;
  for (bool out : is_output) {
    if (out)
      slots.push_back(outputs < kOutputSlots ? kInputSlots + outputs++ : kRestSlot);
    else
      slots.push_back(inputs < kInputSlots ? inputs++ : kRestSlot);
  }
  return slots;
}

}  // namespace tessera::autotune
