#include "autotune/config_space.h"

#include "autotune/errors.h"

namespace tessera::autotune {

namespace {

std::string knob_names(const std::vector<Knob>& knobs) {
  std::string out;
  for (const auto& k : knobs) out += (out.empty() ? "" : ", ") + k.name();
  return out.empty() ? "none" : out;
}

}  // namespace

const char* split_policy_name(SplitPolicy policy) {
  switch (policy) {
    case SplitPolicy::kAll:
      return "all";
    case SplitPolicy::kFactors:
      return "factors";
  }
  throw InternalError("unknown SplitPolicy");
}

SplitPolicy parse_split_policy(const std::string& name) {
  for (SplitPolicy p : {SplitPolicy::kAll, SplitPolicy::kFactors})
    if (name == split_policy_name(p)) return p;
  throw ConfigError(str("unknown split policy '", name,
                        "'; the policies: all (every candidate factor), factors (divisors only)"));
}

ConfigSpace ConfigSpace::with_split_policy(SplitPolicy policy) const {
  if (policy == SplitPolicy::kAll) return *this;
  ConfigSpace out;
  for (const Knob& k : knobs_) {
    if (k.kind() != KnobKind::kSplit) {
      out.add(k);
      continue;
    }
    std::vector<int64_t> factors;
    for (uint32_t v = 0; v < k.size(); ++v)
      if (k.extent() % k.factor(v) == 0) factors.push_back(k.factor(v));
    if (factors.empty())
      throw ConfigError(str("split policy 'factors': split knob '", k.name(),
                            "' has no candidate factor that divides its extent ", k.extent()));
    out.add(Knob::split(k.name(), k.extent(), std::move(factors), /*allow_tails=*/false));
  }
  out.validity_ = validity_;
  return out;
}

ConfigSpace& ConfigSpace::add(Knob knob) {
  for (const auto& k : knobs_)
    if (k.name() == knob.name())
      throw ConfigError(str("config space: knob '", knob.name(), "' is added twice"));
  uint64_t size = 0;
  if (__builtin_mul_overflow(size_, static_cast<uint64_t>(knob.size()), &size))
    throw ConfigError(str("config space: adding knob '", knob.name(), "' (", knob.size(),
                          " values) to a space of ", size_, " configs overflows 2^64"));
  size_ = size;
  knobs_.push_back(std::move(knob));
  return *this;
}

size_t ConfigSpace::knob_index(const std::string& name) const {
  for (size_t i = 0; i < knobs_.size(); ++i)
    if (knobs_[i].name() == name) return i;
  throw ConfigError(str("config space has no knob '", name, "'; its knobs: ", knob_names(knobs_)));
}

size_t ConfigSpace::typed_index(const std::string& name, KnobKind kind) const {
  size_t i = knob_index(name);
  if (knobs_[i].kind() != kind)
    throw ConfigError(str("knob '", name, "' is a ", knob_kind_name(knobs_[i].kind()),
                          " knob, not a ", knob_kind_name(kind), " knob"));
  return i;
}

bool ConfigSpace::in_domain(const Config& config) const {
  if (config.values.size() != knobs_.size()) return false;
  for (size_t i = 0; i < knobs_.size(); ++i)
    if (config.values[i] >= knobs_[i].size()) return false;
  return true;
}

void ConfigSpace::check_domain(const Config& config) const {
  if (config.values.size() != knobs_.size())
    throw ConfigError(str("config has ", config.values.size(), " values; the space has ",
                          knobs_.size(), " knobs (", knob_names(knobs_), ")"));
  for (size_t i = 0; i < knobs_.size(); ++i)
    if (config.values[i] >= knobs_[i].size())
      throw ConfigError(str("config: knob '", knobs_[i].name(), "' has value index ",
                            config.values[i], "; its domain has ", knobs_[i].size(), " values"));
}

bool ConfigSpace::is_valid(const Config& config) const {
  return in_domain(config) && (!validity_ || validity_(*this, config));
}

Config ConfigSpace::at(uint64_t index) const {
  if (index >= size_)
    throw ConfigError(str("config index ", index, " is outside the space (size ", size_, ")"));
  Config c;
  c.values.resize(knobs_.size());
  for (size_t i = knobs_.size(); i-- > 0;) {
    uint64_t n = knobs_[i].size();
    c.values[i] = static_cast<uint32_t>(index % n);
    index /= n;
  }
  return c;
}

uint64_t ConfigSpace::index_of(const Config& config) const {
  check_domain(config);
  uint64_t index = 0;
  for (size_t i = 0; i < knobs_.size(); ++i) index = index * knobs_[i].size() + config.values[i];
  return index;
}

nlohmann::json ConfigSpace::to_json(const Config& config) const {
  check_domain(config);
  nlohmann::json j = nlohmann::json::object();
  for (size_t i = 0; i < knobs_.size(); ++i)
    j[knobs_[i].name()] = knobs_[i].value_to_json(config.values[i]);
  return j;
}

Config ConfigSpace::from_json(const nlohmann::json& j) const {
  if (!j.is_object())
    throw ConfigError(str("config ", j.dump(),
                          " is not a JSON object of knob values; knobs: ", knob_names(knobs_)));
  for (auto it = j.begin(); it != j.end(); ++it) {
    bool known = false;
    for (const auto& k : knobs_) known = known || k.name() == it.key();
    if (!known)
      throw ConfigError(
          str("config has unknown knob '", it.key(), "'; the space's knobs: ", knob_names(knobs_)));
  }
  Config c;
  for (const auto& k : knobs_) {
    auto it = j.find(k.name());
    if (it == j.end())
      throw ConfigError(str("config ", j.dump(), " has no value for knob '", k.name(), "'"));
    c.values.push_back(k.value_from_json(*it));
  }
  return c;
}

Config ConfigSpace::from_text(const std::string& text) const {
  nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) throw ConfigError(str("config '", text, "' is not valid JSON"));
  return from_json(j);
}

int64_t ConfigSpace::split(const Config& config, const std::string& knob) const {
  size_t i = typed_index(knob, KnobKind::kSplit);
  check_domain(config);
  return knobs_[i].factor(config.values[i]);
}

const std::string& ConfigSpace::choice(const Config& config, const std::string& knob) const {
  size_t i = typed_index(knob, KnobKind::kChoice);
  check_domain(config);
  return knobs_[i].alternative(config.values[i]);
}

std::vector<std::string> ConfigSpace::permutation(const Config& config,
                                                  const std::string& knob) const {
  size_t i = typed_index(knob, KnobKind::kPermutation);
  check_domain(config);
  return knobs_[i].order(config.values[i]);
}

bool ConfigSpace::flag(const Config& config, const std::string& knob) const {
  size_t i = typed_index(knob, KnobKind::kFlag);
  check_domain(config);
  return knobs_[i].flag_value(config.values[i]);
}

nlohmann::json ConfigSpace::describe() const {
  nlohmann::json knobs = nlohmann::json::array();
  for (const auto& k : knobs_) knobs.push_back(k.describe());
  return {{"size", std::to_string(size_)}, {"knobs", knobs}};
}

}  // namespace tessera::autotune
