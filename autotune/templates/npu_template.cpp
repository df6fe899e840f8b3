#include "autotune/templates/npu_template.h"

#include <algorithm>
#include <cstdint>
#include <set>

#include "autotune/errors.h"
#include "runtime/base/error.h"

namespace tessera {

const std::vector<const NpuTemplate*>& npu_templates() {
  static const std::vector<const NpuTemplate*> table = {
      &kConv2dTemplate, &kConv2dIm2colTemplate, &kDepthwiseConv2dTemplate,
      &kDenseTemplate,  &kMaxPool2dTemplate,    &kAddTemplate,
  };
  return table;
}

const NpuTemplate& npu_template(const std::string& name) {
  std::string names;
  for (const NpuTemplate* t : npu_templates()) {
    if (name == t->name) return *t;
    names += (names.empty() ? "" : ", ") + std::string(t->name);
  }
  throw autotune::ConfigError(str("no NPU template named '", name, "'; the templates: ", names));
}

ArgReader::ArgReader(const char* tmpl, const nlohmann::json& args) : tmpl_(tmpl), args_(args) {
  if (!args.is_object()) {
    throw ArgumentError(
        str(tmpl, ": the arguments ", args.dump(), " are not a JSON object of named values"));
  }
}

int64_t ArgReader::integer(const char* field) {
  auto it = args_.find(field);
  if (it == args_.end()) throw ArgumentError(str(tmpl_, ": argument '", field, "' is missing"));
  if (!it->is_number_integer()) {
    throw ArgumentError(
        str(tmpl_, ": argument '", field, "' = ", it->dump(), " is not an integer"));
  }
  int64_t v = it->get<int64_t>();
  out_[field] = v;
  return v;
}

int64_t ArgReader::integer(const char* field, int64_t fallback) {
  if (args_.find(field) == args_.end()) {
    out_[field] = fallback;
    return fallback;
  }
  return integer(field);
}

bool ArgReader::boolean(const char* field, bool fallback) {
  auto it = args_.find(field);
  bool v = fallback;
  if (it != args_.end()) {
    if (!it->is_boolean()) {
      throw ArgumentError(
          str(tmpl_, ": argument '", field, "' = ", it->dump(), " is not true or false"));
    }
    v = it->get<bool>();
  }
  out_[field] = v;
  return v;
}

std::string ArgReader::choice(const char* field, const std::vector<std::string>& alternatives,
                              const std::string& fallback) {
  auto it = args_.find(field);
  std::string v = fallback;
  if (it != args_.end()) {
    bool known = it->is_string();
    if (known) {
      v = it->get<std::string>();
      known = std::find(alternatives.begin(), alternatives.end(), v) != alternatives.end();
    }
    if (!known) {
      std::string legal;
      for (const std::string& a : alternatives) legal += (legal.empty() ? "'" : ", '") + a + "'";
      throw ArgumentError(
          str(tmpl_, ": argument '", field, "' = ", it->dump(), " is not one of ", legal));
    }
  }
  out_[field] = v;
  return v;
}

nlohmann::json ArgReader::finish() const {
  for (auto it = args_.begin(); it != args_.end(); ++it) {
    if (out_.find(it.key()) == out_.end()) {
      std::string known;
      for (auto k = out_.begin(); k != out_.end(); ++k)
        known += (known.empty() ? "" : ", ") + k.key();
      throw ArgumentError(
          str(tmpl_, ": unknown argument '", it.key(), "'; the arguments are ", known));
    }
  }
  return out_;
}

KnobReader::KnobReader(const autotune::ConfigSpace& space, const autotune::Config& config,
                       std::initializer_list<const char*> names,
                       std::initializer_list<const char*> optional)
    : knobs_(space.knobs()), values_(config.values) {
  bool same = knobs_.size() >= names.size() && knobs_.size() <= names.size() + optional.size();
  size_t i = 0;
  for (const char* n : names) same = same && knobs_[i++].name() == n;
  for (const char* n : optional) same = same && (i >= knobs_.size() || knobs_[i++].name() == n);
  if (!same) {
    std::string want;
    for (const char* n : names) want += (want.empty() ? "" : ", ") + std::string(n);
    for (const char* n : optional) want += str(", [", n, "]");
    throw autotune::ConfigError(
        str("the config space is not this template's: its knobs are not ", want));
  }
  if (!space.in_domain(config)) space.index_of(config);  // ConfigError naming the knob
}

bool has_knob(const autotune::ConfigSpace& space, const std::string& name) {
  for (const autotune::Knob& k : space.knobs())
    if (k.name() == name) return true;
  return false;
}

Requant read_requant(ArgReader& r) {
  Requant q;
  q.multiplier = r.integer("multiplier");
  q.shift = r.integer("shift");
  q.zero_point = r.integer("zero_point", 0);
  q.relu = r.boolean("relu", false);
  // The vector unit's requantize fields (docs/npu_isa.md).
  if (q.multiplier < INT32_MIN || q.multiplier > INT32_MAX) {
    throw ArgumentError(str(r.tmpl(), ": multiplier = ", q.multiplier, " is not an int32"));
  }
  if (q.shift < 0 || q.shift > 62) {
    throw ArgumentError(str(r.tmpl(), ": shift = ", q.shift, " must be in [0, 62]"));
  }
  if (q.zero_point < -128 || q.zero_point > 127) {
    throw ArgumentError(str(r.tmpl(), ": zero_point = ", q.zero_point, " must be in [-128, 127]"));
  }
  return q;
}

std::vector<int64_t> every_tile(int64_t n) {
  std::vector<int64_t> out;
  for (int64_t t = 1; t <= n; ++t) out.push_back(t);
  return out;
}

std::vector<int64_t> balanced_tiles(int64_t n) {
  std::set<int64_t> tiles;
  for (int64_t c = 1; c <= n; ++c) tiles.insert((n + c - 1) / c);
  return std::vector<int64_t>(tiles.begin(), tiles.end());
}

}  // namespace tessera
