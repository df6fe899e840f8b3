// A config space: the ordered product of a template's knobs, plus the template's cheap validity
// check.
//
// Index: mixed radix, the last knob varying fastest (the order of nested loops over the knobs in
// the order they were added): index = ((v0 * n1 + v1) * n2 + v2) ... The size is a uint64 and
// adding a knob that would overflow it is a ConfigError.
//
// JSON: {"knob": value, ...} with the keys sorted (nlohmann's default object), so to_text() is a
// canonical text: equal configs of equal spaces give equal bytes. from_json() requires exactly
// the space's knobs; an error names the knob and says what is legal.
//
// Split policy (as AutoTVM's define_split policies): `all` keeps every candidate factor the
// template lists (tails included where it handles them); `factors` keeps only the divisors of
// each split knob's extent, a much smaller space that can be swept exhaustively. The policy is a
// property of the task (its key names a non-default one, so logs of two spaces never mix).
//
// Validity: an optional predicate over (space, config), e.g. the on-chip footprint computed from
// the knobs. It must be cheap (the search calls it for every candidate), pure and deterministic.
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "autotune/config.h"
#include "autotune/knob.h"

namespace tessera::autotune {

class ConfigSpace;
using ValidityCheck = std::function<bool(const ConfigSpace&, const Config&)>;

enum class SplitPolicy { kAll, kFactors };

// "all", "factors".
const char* split_policy_name(SplitPolicy policy);
// ConfigError naming the legal policies for any other text.
SplitPolicy parse_split_policy(const std::string& name);

class ConfigSpace {
 public:
  // Appends a knob; ConfigError when its name is taken or the size would overflow uint64.
  ConfigSpace& add(Knob knob);
  void set_validity_check(ValidityCheck check) { validity_ = std::move(check); }

  const std::vector<Knob>& knobs() const { return knobs_; }
  // The knob's position; ConfigError naming the knob and listing the space's knobs if absent.
  size_t knob_index(const std::string& name) const;
  const Knob& knob(const std::string& name) const { return knobs_[knob_index(name)]; }
  uint64_t size() const { return size_; }

  Config at(uint64_t index) const;  // ConfigError when index >= size()
  uint64_t index_of(const Config& config) const;
  // True when the config has one in-range value per knob.
  bool in_domain(const Config& config) const;
  // In the domain and accepted by the validity check (if any).
  bool is_valid(const Config& config) const;

  nlohmann::json to_json(const Config& config) const;
  std::string to_text(const Config& config) const { return to_json(config).dump(); }
  Config from_json(const nlohmann::json& j) const;
  Config from_text(const std::string& text) const;

  // Typed values for the template building a schedule; ConfigError if the knob is absent or of
  // another kind.
  int64_t split(const Config& config, const std::string& knob) const;
  const std::string& choice(const Config& config, const std::string& knob) const;
  std::vector<std::string> permutation(const Config& config, const std::string& knob) const;
  bool flag(const Config& config, const std::string& knob) const;

  // The same space (knobs in the same order, the same validity check) under a split policy: for
  // `factors`, each split knob keeps only its candidates that divide its extent (no tails).
  ConfigSpace with_split_policy(SplitPolicy policy) const;

  // {"size": "..." (decimal string: may exceed 2^53), "knobs": [Knob::describe()...]}.
  nlohmann::json describe() const;

 private:
  size_t typed_index(const std::string& name, KnobKind kind) const;
  void check_domain(const Config& config) const;

  std::vector<Knob> knobs_;
  uint64_t size_ = 1;
  ValidityCheck validity_;
};

}  // namespace tessera::autotune
