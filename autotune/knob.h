// A knob: one named dimension of a config space, with a finite, ordered domain.
//
//   split        candidate inner factors of a loop extent (ascending). Factors that do not divide
//                the extent are legal only when the template handles tails (allow_tails).
//   choice       named alternatives (fold choice, a layout). `ordered` says the alternatives are
//                a scale (none < 2 < 4), so the search moves between adjacent ones.
//   permutation  orders of named loops (the tile-loop order): every order, or an explicit list.
//   flag         false / true (double buffering of one stage).
//
// A value is an index into the domain (0 .. size()-1); JSON carries the value itself: an integer
// (split), a string (choice), an array of strings (permutation) or a bool (flag). Knobs are
// immutable values; copies are cheap.
#pragma once

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace tessera::autotune {

enum class KnobKind { kSplit, kChoice, kPermutation, kFlag };

// "split", "choice", "permutation", "flag".
const char* knob_kind_name(KnobKind kind);

class Knob {
 public:
  // Each factory checks its domain and throws ConfigError naming the knob.
  static Knob split(std::string name, int64_t extent, std::vector<int64_t> factors,
                    bool allow_tails = false);
  static Knob choice(std::string name, std::vector<std::string> alternatives, bool ordered = false);
  // Every order of `elements` (at most 8 of them), in lexicographic order of their positions.
  static Knob permutation(std::string name, std::vector<std::string> elements);
  // Only the given orders, in the given order; each must be a permutation of `elements`.
  static Knob permutation(std::string name, std::vector<std::string> elements,
                          const std::vector<std::vector<std::string>>& orders);
  static Knob flag(std::string name);

  const std::string& name() const { return name_; }
  KnobKind kind() const { return kind_; }
  uint32_t size() const;
  // True when adjacent values are neighbours (split, ordered choice); false when any other value
  // is (unordered choice) or neighbours are by structure (permutation: one swap; flag: flip).
  bool ordered() const { return kind_ == KnobKind::kSplit || ordered_; }

  // Split knobs.
  int64_t extent() const;
  int64_t factor(uint32_t value) const;
  bool allow_tails() const { return allow_tails_; }
  // Choice knobs.
  const std::string& alternative(uint32_t value) const;
  // Permutation knobs: the loop names in order, outermost first.
  const std::vector<std::string>& elements() const { return elements_; }
  std::vector<std::string> order(uint32_t value) const;
  // Flag knobs.
  bool flag_value(uint32_t value) const;

  nlohmann::json value_to_json(uint32_t value) const;
  // The index of a JSON value; ConfigError naming the knob and what is legal otherwise.
  uint32_t value_from_json(const nlohmann::json& v) const;
  // The values one search move away from `value`, ascending: adjacent values for ordered knobs,
  // every other value for unordered choices, the orders one swap away for permutations (every
  // other order when the explicit list has none), the other value for flags.
  std::vector<uint32_t> neighbours(uint32_t value) const;
  // {"name":..,"kind":..,"domain":[...]} (plus "extent" for splits), for docs and bindings.
  nlohmann::json describe() const;

 private:
  Knob(std::string name, KnobKind kind) : name_(std::move(name)), kind_(kind) {}
  std::string legal_values() const;

  std::string name_;
  KnobKind kind_;
  bool ordered_ = false;
  bool allow_tails_ = false;
  int64_t extent_ = 0;
  std::vector<int64_t> factors_;
  std::vector<std::string> alternatives_;
  std::vector<std::string> elements_;
  // Permutations: each order as positions into elements_, and each order's one-swap neighbours.
  std::shared_ptr<const std::vector<std::vector<uint8_t>>> orders_;
  std::shared_ptr<const std::vector<std::vector<uint32_t>>> swaps_;
};

// The divisors of n (n >= 1), ascending.
std::vector<int64_t> divisors(int64_t n);

}  // namespace tessera::autotune
