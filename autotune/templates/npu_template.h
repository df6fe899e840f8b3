// Tunable NPU templates: each operator of the library declares the config space of its schedule
// (named knobs with domains, autotune/knob.h) and builds the schedule from a config.
//
// A template is a row of one explicit table (npu_templates(), in npu_templates.cpp): its name, how
// it reads its arguments (the operator's shape and requantize parameters, as JSON), its config
// space for those arguments on a target, its default config (a point of that space), the on-chip
// footprint of a config (the space's cheap validity check), and the operator it builds. A task is
// (template, arguments, target): npu_task.h.
//
// Every function is pure and deterministic, and safe to call from several threads at once.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "autotune/config_space.h"
#include "autotune/tuning_task.h"
#include "autotune/templates/cycles_bound.h"
#include "autotune/templates/npu_op.h"
#include "runtime/npu/target.h"

namespace tessera {

// On-chip memory a config needs, in rows of each memory (SRAM rows of block() int8, accumulator
// rows of block() int32), double-buffered stages counted twice: what allocate_onchip will reserve.
struct OnchipFootprint {
  int64_t sram_rows = 0;
  int64_t acc_rows = 0;
  bool fits(const npu::Target& t) const {
    return sram_rows <= t.sram_rows() && acc_rows <= t.acc_rows();
  }
};

struct NpuTemplate {
  const char* name;     // "conv2d", "dense", ...
  const char* summary;  // one line: the operator and its layouts
  // The arguments with every field present (optional ones filled with their defaults), as a JSON
  // object (keys sorted): the task key's "args". ArgumentError naming the template and the field
  // for a missing, unknown or ill-typed field or an impossible shape.
  nlohmann::json (*canonical_args)(const nlohmann::json& args);
  // The config space for canonical `args` on `target`; its validity check is footprint() fitting
  // the target's SRAM and accumulator. The knob names and kinds (and the alternatives of choice
  // knobs) are the same for every shape, so cost-model features carry across tasks.
  autotune::ConfigSpace (*space)(const nlohmann::json& args, const npu::Target& target);
  // The shape-aware default: chosen by a small model of the target's capacities and costs.
  autotune::Config (*default_config)(const nlohmann::json& args, const autotune::ConfigSpace& space,
                                     const npu::Target& target);
  OnchipFootprint (*footprint)(const nlohmann::json& args, const autotune::ConfigSpace& space,
                               const autotune::Config& config, const npu::Target& target);
  // The operator with the config's schedule. A config outside the space is a ConfigError.
  NpuOp (*build)(const nlohmann::json& args, const autotune::ConfigSpace& space,
                 const autotune::Config& config, const npu::Target& target);
  // Or null. For canonical `args` on `target`: the featurizer of the template's features of a
  // config (template_features.h: its analytic estimate over the layer's bound, which carries
  // across shapes), made once per task; make_npu_task puts them after the knob features.
  autotune::Featurizer (*featurizer)(const nlohmann::json& args,
                                     const npu::Target& target) = nullptr;
  // Or null. For canonical `args` on `target`: lower bounds on the work of a config's kernel,
  // from the task and config alone (cycles_bound.h), made once per task; cycles_lower_bound turns
  // them into a sound lower bound on the timing simulator's cycles.
  WorkBounder (*work_bound)(const nlohmann::json& args, const npu::Target& target) = nullptr;
};

// The rows of the table (one per file *_template.cpp).
extern const NpuTemplate kConv2dTemplate;
extern const NpuTemplate kConv2dIm2colTemplate;
extern const NpuTemplate kDepthwiseConv2dTemplate;
extern const NpuTemplate kDenseTemplate;
extern const NpuTemplate kMaxPool2dTemplate;
extern const NpuTemplate kAddTemplate;

// The table: every template, in a fixed order.
const std::vector<const NpuTemplate*>& npu_templates();

// The template named `name`; ConfigError listing the table's names when there is none.
const NpuTemplate& npu_template(const std::string& name);

// Reads a template's JSON arguments with messages that name the template and the field.
class ArgReader {
 public:
  ArgReader(const char* tmpl, const nlohmann::json& args);
  int64_t integer(const char* field);                    // required
  int64_t integer(const char* field, int64_t fallback);  // optional
  bool boolean(const char* field, bool fallback);
  // One of `alternatives` (a string); optional.
  std::string choice(const char* field, const std::vector<std::string>& alternatives,
                     const std::string& fallback);
  // The fields read, canonical; ArgumentError for a field that was not read (unknown).
  nlohmann::json finish() const;
  const char* tmpl() const { return tmpl_; }

 private:
  const char* tmpl_;
  const nlohmann::json& args_;
  nlohmann::json out_ = nlohmann::json::object();
};

// Reads a config of a template's own space by knob position: the template lists its knob names in
// the order its space has them, checked once (a ConfigError for another space or a config outside
// it), and then reads values without looking names up (the validity check runs for every
// candidate of a search).
class KnobReader {
 public:
  // `names`: the space's knobs in order; `optional`: knobs that may follow them, in order (a knob
  // some targets' spaces have and others' not, such as db_acc).
  KnobReader(const autotune::ConfigSpace& space, const autotune::Config& config,
             std::initializer_list<const char*> names,
             std::initializer_list<const char*> optional = {});
  bool has(size_t knob) const { return knob < knobs_.size(); }
  int64_t split(size_t knob) const { return knobs_[knob].factor(values_[knob]); }
  const std::string& choice(size_t knob) const { return knobs_[knob].alternative(values_[knob]); }
  std::vector<std::string> order(size_t knob) const { return knobs_[knob].order(values_[knob]); }
  bool flag(size_t knob) const { return values_[knob] == 1; }

 private:
  const std::vector<autotune::Knob>& knobs_;
  const std::vector<uint32_t>& values_;
};

// The requantize arguments every compute template takes: multiplier, shift, zero_point (default
// 0), relu (default false).
Requant read_requant(ArgReader& r);

// Whether `space` has a knob of that name.
bool has_knob(const autotune::ConfigSpace& space, const std::string& name);

// 1, 2, ..., n: every tile size of an extent (tails allowed).
std::vector<int64_t> every_tile(int64_t n);

// The tile sizes worth considering for an extent n: for each tile count c = 1 .. n, the smallest
// tile that gives c tiles, ceil(n / c) (a larger tile with the same count only over-covers the
// edge). Ascending; about 2 sqrt(n) values.
std::vector<int64_t> balanced_tiles(int64_t n);

}  // namespace tessera
