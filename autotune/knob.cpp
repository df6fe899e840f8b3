#include "autotune/knob.h"

#include <algorithm>
#include <map>
#include <set>

#include "autotune/errors.h"

namespace tessera::autotune {

namespace {

// At most this many values are listed in an error message.
constexpr size_t kListedValues = 12;

template <typename T>
std::string join_limited(const std::vector<T>& values, size_t limit) {
  std::string out;
  for (size_t i = 0; i < values.size() && i < limit; ++i) out += (i ? ", " : "") + values[i];
  if (values.size() > limit) out += str(", ... (", values.size(), " in all)");
  return out;
}

std::vector<std::vector<uint8_t>> all_orders(size_t n) {
  std::vector<uint8_t> p(n);
  for (size_t i = 0; i < n; ++i) p[i] = static_cast<uint8_t>(i);
  std::vector<std::vector<uint8_t>> out;
  do out.push_back(p);
  while (std::next_permutation(p.begin(), p.end()));
  return out;
}

}  // namespace

const char* knob_kind_name(KnobKind kind) {
  switch (kind) {
    case KnobKind::kSplit:
      return "split";
    case KnobKind::kChoice:
      return "choice";
    case KnobKind::kPermutation:
      return "permutation";
    case KnobKind::kFlag:
      return "flag";
  }
  throw InternalError("unknown KnobKind");
}

std::vector<int64_t> divisors(int64_t n) {
  if (n < 1) throw ConfigError(str("divisors(", n, "): the extent must be at least 1"));
  std::vector<int64_t> low, high;
  for (int64_t d = 1; d * d <= n; ++d) {
    if (n % d) continue;
    low.push_back(d);
    if (d != n / d) high.push_back(n / d);
  }
  low.insert(low.end(), high.rbegin(), high.rend());
  return low;
}

Knob Knob::split(std::string name, int64_t extent, std::vector<int64_t> factors, bool allow_tails) {
  Knob k(std::move(name), KnobKind::kSplit);
  if (extent < 1) throw ConfigError(str("split knob '", k.name_, "': extent ", extent, " < 1"));
  if (factors.empty()) throw ConfigError(str("split knob '", k.name_, "': no candidate factors"));
  for (size_t i = 0; i < factors.size(); ++i) {
    int64_t f = factors[i];
    if (f < 1 || f > extent)
      throw ConfigError(str("split knob '", k.name_, "': factor ", f, " is outside 1..", extent));
    if (i > 0 && f <= factors[i - 1])
      throw ConfigError(str("split knob '", k.name_, "': factors must be strictly ascending (",
                            factors[i - 1], " then ", f, ")"));
    if (!allow_tails && extent % f != 0)
      throw ConfigError(str("split knob '", k.name_, "': factor ", f, " does not divide extent ",
                            extent, " and the knob does not allow tails"));
  }
  k.extent_ = extent;
  k.factors_ = std::move(factors);
  k.allow_tails_ = allow_tails;
  return k;
}

Knob Knob::choice(std::string name, std::vector<std::string> alternatives, bool ordered) {
  Knob k(std::move(name), KnobKind::kChoice);
  if (alternatives.empty()) throw ConfigError(str("choice knob '", k.name_, "': no alternatives"));
  std::set<std::string> seen;
  for (const auto& a : alternatives)
    if (!seen.insert(a).second)
      throw ConfigError(str("choice knob '", k.name_, "': alternative '", a, "' is listed twice"));
  if (alternatives.size() > UINT32_MAX)
    throw ConfigError(str("choice knob '", k.name_, "': too many alternatives"));
  k.alternatives_ = std::move(alternatives);
  k.ordered_ = ordered;
  return k;
}

Knob Knob::permutation(std::string name, std::vector<std::string> elements) {
  if (elements.size() > 8)
    throw ConfigError(str("permutation knob '", name, "': ", elements.size(),
                          " loops have too many orders to list (at most 8 loops); pass the "
                          "allowed orders explicitly"));
  std::vector<std::vector<std::string>> orders;
  for (const auto& p : all_orders(elements.size())) {
    std::vector<std::string> o;
    for (uint8_t i : p) o.push_back(elements[i]);
    orders.push_back(std::move(o));
  }
  return permutation(std::move(name), std::move(elements), orders);
}

Knob Knob::permutation(std::string name, std::vector<std::string> elements,
                       const std::vector<std::vector<std::string>>& orders) {
  Knob k(std::move(name), KnobKind::kPermutation);
  if (elements.empty()) throw ConfigError(str("permutation knob '", k.name_, "': no loops"));
  if (elements.size() > 255)
    throw ConfigError(str("permutation knob '", k.name_, "': more than 255 loops"));
  std::map<std::string, uint8_t> position;
  for (size_t i = 0; i < elements.size(); ++i)
    if (!position.emplace(elements[i], static_cast<uint8_t>(i)).second)
      throw ConfigError(
          str("permutation knob '", k.name_, "': loop '", elements[i], "' is listed twice"));
  if (orders.empty()) throw ConfigError(str("permutation knob '", k.name_, "': no orders"));
  auto ords = std::make_shared<std::vector<std::vector<uint8_t>>>();
  std::map<std::vector<uint8_t>, uint32_t> index;
  for (const auto& o : orders) {
    std::vector<uint8_t> p;
    std::vector<bool> used(elements.size(), false);
    for (const auto& e : o) {
      auto it = position.find(e);
      if (it == position.end() || used[it->second])
        throw ConfigError(str("permutation knob '", k.name_, "': order [", join_limited(o, 16),
                              "] is not a permutation of [", join_limited(elements, 16), "]"));
      used[it->second] = true;
      p.push_back(it->second);
    }
    if (p.size() != elements.size())
      throw ConfigError(str("permutation knob '", k.name_, "': order [", join_limited(o, 16),
                            "] is not a permutation of [", join_limited(elements, 16), "]"));
    if (!index.emplace(p, static_cast<uint32_t>(ords->size())).second)
      throw ConfigError(str("permutation knob '", k.name_, "': order [", join_limited(o, 16),
                            "] is listed twice"));
    ords->push_back(std::move(p));
  }
  // One-swap neighbours, ascending, computed once.
  auto swaps = std::make_shared<std::vector<std::vector<uint32_t>>>(ords->size());
  for (size_t v = 0; v < ords->size(); ++v) {
    std::set<uint32_t> near;
    for (size_t i = 0; i < elements.size(); ++i)
      for (size_t j = i + 1; j < elements.size(); ++j) {
        std::vector<uint8_t> q = (*ords)[v];
        std::swap(q[i], q[j]);
        auto it = index.find(q);
        if (it != index.end()) near.insert(it->second);
      }
    (*swaps)[v].assign(near.begin(), near.end());
  }
  k.elements_ = std::move(elements);
  k.orders_ = std::move(ords);
  k.swaps_ = std::move(swaps);
  return k;
}

Knob Knob::flag(std::string name) { return Knob(std::move(name), KnobKind::kFlag); }

uint32_t Knob::size() const {
  switch (kind_) {
    case KnobKind::kSplit:
      return static_cast<uint32_t>(factors_.size());
    case KnobKind::kChoice:
      return static_cast<uint32_t>(alternatives_.size());
    case KnobKind::kPermutation:
      return static_cast<uint32_t>(orders_->size());
    case KnobKind::kFlag:
      return 2;
  }
  throw InternalError("unknown KnobKind");
}

int64_t Knob::extent() const {
  TESSERA_ICHECK(kind_ == KnobKind::kSplit, "knob '", name_, "' is not a split knob");
  return extent_;
}

int64_t Knob::factor(uint32_t value) const {
  TESSERA_ICHECK(kind_ == KnobKind::kSplit && value < factors_.size(), "knob '", name_, "'");
  return factors_[value];
}

const std::string& Knob::alternative(uint32_t value) const {
  TESSERA_ICHECK(kind_ == KnobKind::kChoice && value < alternatives_.size(), "knob '", name_, "'");
  return alternatives_[value];
}

std::vector<std::string> Knob::order(uint32_t value) const {
  TESSERA_ICHECK(kind_ == KnobKind::kPermutation && value < orders_->size(), "knob '", name_, "'");
  std::vector<std::string> out;
  for (uint8_t i : (*orders_)[value]) out.push_back(elements_[i]);
  return out;
}

bool Knob::flag_value(uint32_t value) const {
  TESSERA_ICHECK(kind_ == KnobKind::kFlag && value < 2, "knob '", name_, "'");
  return value == 1;
}

nlohmann::json Knob::value_to_json(uint32_t value) const {
  switch (kind_) {
    case KnobKind::kSplit:
      return factor(value);
    case KnobKind::kChoice:
      return alternative(value);
    case KnobKind::kPermutation:
      return order(value);
    case KnobKind::kFlag:
      return flag_value(value);
  }
  throw InternalError("unknown KnobKind");
}

std::string Knob::legal_values() const {
  std::vector<std::string> vals;
  for (uint32_t v = 0; v < size() && v <= kListedValues; ++v)
    vals.push_back(value_to_json(v).dump());
  std::string out = join_limited(vals, kListedValues);
  if (size() > kListedValues + 1) out += str(", ... (", size(), " in all)");
  return out;
}

uint32_t Knob::value_from_json(const nlohmann::json& v) const {
  auto bad = [&](const char* what) {
    return ConfigError(str("knob '", name_, "' (", knob_kind_name(kind_), "): ", v.dump(), " is ",
                           what, "; legal values: ", legal_values()));
  };
  switch (kind_) {
    case KnobKind::kSplit: {
      if (!v.is_number_integer()) throw bad("not an integer factor");
      auto f = v.get<int64_t>();
      auto it = std::lower_bound(factors_.begin(), factors_.end(), f);
      if (it == factors_.end() || *it != f) throw bad("not a candidate factor");
      return static_cast<uint32_t>(it - factors_.begin());
    }
    case KnobKind::kChoice: {
      if (!v.is_string()) throw bad("not a string");
      auto it = std::find(alternatives_.begin(), alternatives_.end(), v.get<std::string>());
      if (it == alternatives_.end()) throw bad("not one of the alternatives");
      return static_cast<uint32_t>(it - alternatives_.begin());
    }
    case KnobKind::kPermutation: {
      if (!v.is_array()) throw bad("not an array of loop names");
      for (const auto& e : v)
        if (!e.is_string()) throw bad("not an array of loop names");
      std::vector<uint8_t> p;
      for (const auto& e : v) {
        auto it = std::find(elements_.begin(), elements_.end(), e.get<std::string>());
        if (it == elements_.end()) throw bad("not an order of the knob's loops");
        p.push_back(static_cast<uint8_t>(it - elements_.begin()));
      }
      auto it = std::find(orders_->begin(), orders_->end(), p);
      if (it == orders_->end()) throw bad("not one of the allowed orders");
      return static_cast<uint32_t>(it - orders_->begin());
    }
    case KnobKind::kFlag:
      if (!v.is_boolean()) throw bad("not a bool");
      return v.get<bool>() ? 1 : 0;
  }
  throw InternalError("unknown KnobKind");
}

std::vector<uint32_t> Knob::neighbours(uint32_t value) const {
  TESSERA_ICHECK(value < size(), "knob '", name_, "': value ", value, " out of range");
  std::vector<uint32_t> out;
  if (kind_ == KnobKind::kPermutation && !(*swaps_)[value].empty()) return (*swaps_)[value];
  if (ordered()) {
    if (value > 0) out.push_back(value - 1);
    if (value + 1 < size()) out.push_back(value + 1);
    return out;
  }
  for (uint32_t v = 0; v < size(); ++v)
    if (v != value) out.push_back(v);
  return out;
}

nlohmann::json Knob::describe() const {
  nlohmann::json d = {{"name", name_}, {"kind", knob_kind_name(kind_)}};
  nlohmann::json domain = nlohmann::json::array();
  for (uint32_t v = 0; v < size(); ++v) domain.push_back(value_to_json(v));
  d["domain"] = domain;
  if (kind_ == KnobKind::kSplit) {
    d["extent"] = extent_;
    d["allow_tails"] = allow_tails_;
  }
  if (kind_ == KnobKind::kChoice) d["ordered"] = ordered_;
  return d;
}

}  // namespace tessera::autotune
