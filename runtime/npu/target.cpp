#include "runtime/npu/target.h"

#include <nlohmann/json.hpp>

#include "runtime/base/error.h"
#include "runtime/base/file_io.h"
#include "runtime/base/fnv1a.h"
#include "runtime/npu/npu_v1_json.h"  // generated from runtime/npu/targets/npu-v1.json

namespace tessera::npu {
namespace {

using json = nlohmann::json;

// One row per integer field: the table drives parsing, validation and printing, so a new field is
// added in exactly one place. Ranges keep every address inside the encoding's 32-bit fields and
// every cycle count far from overflow.
struct IntField {
  const char* name;
  int64_t Target::*member;
  int64_t min;
  int64_t max;
  const char* meaning;
};

constexpr int64_t kMiB = 1024 * 1024;

const IntField kIntFields[] = {
    {"clock_hz", &Target::clock_hz, 1000000, 100000000000, "clock frequency in Hz"},
    {"mac_in", &Target::mac_in, 1, 128, "MAC array input lanes (= SRAM row bytes)"},
    {"mac_out", &Target::mac_out, 1, 128, "MAC array output lanes (= accumulator row int32s)"},
    {"sram_bytes", &Target::sram_bytes, 1, 256 * kMiB, "scratchpad size in bytes"},
    {"acc_bytes", &Target::acc_bytes, 1, 256 * kMiB, "accumulator size in bytes"},
    {"vector_lanes", &Target::vector_lanes, 1, 1024, "vector unit int32 lanes"},
    {"ddr_bytes_per_cycle", &Target::ddr_bytes_per_cycle, 1, 4096, "DDR port bandwidth"},
    {"dma_fixed_cycles", &Target::dma_fixed_cycles, 0, 1000000, "DMA request latency"},
    {"dma_row_cycles", &Target::dma_row_cycles, 0, 1000000, "DMA cost per DDR row"},
    {"gemm_fixed_cycles", &Target::gemm_fixed_cycles, 0, 1000000, "GEMM instruction overhead"},
    {"vector_fixed_cycles", &Target::vector_fixed_cycles, 0, 1000000,
     "vector instruction overhead"},
    {"load_queue_depth", &Target::load_queue_depth, 1, 65536, "load instruction queue depth"},
    {"compute_queue_depth", &Target::compute_queue_depth, 1, 65536, "compute queue depth"},
    {"store_queue_depth", &Target::store_queue_depth, 1, 65536, "store instruction queue depth"},
    {"token_queue_depth", &Target::token_queue_depth, 1, 65536, "dependency-token queue depth"},
    {"fetch_burst_insns", &Target::fetch_burst_insns, 0, 65536,
     "instructions per instruction-fetch burst over the DDR port (0: fetch is free)"},
    {"acc_raw_latency_cycles", &Target::acc_raw_latency_cycles, 0, 1024,
     "accumulator read-after-write latency between GEMM steps"},
    {"pad_unit_cycles", &Target::pad_unit_cycles, 0, 1000000,
     "load-unit cycles per zero-padding unit written on chip"},
    {"compute_units", &Target::compute_units, 1, 2,
     "execution units behind the compute queue: 1 = GEMM and vector instructions run one at a "
     "time, 2 = the MAC array and the vector unit run concurrently"},
};

std::string where(const std::string& source) { return str("target description '", source, "'"); }

bool valid_name(const std::string& name) {
  if (name.empty() || name.size() > 64) return false;
  for (char c : name) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '-' || c == '_' || c == '.';
    if (!ok) return false;
  }
  return true;
}

}  // namespace

void validate_target(const Target& t, const std::string& source) {
  if (!valid_name(t.name))
    throw TargetError(str(where(source),
                          ": field 'name' must be 1-64 characters of [A-Za-z0-9._-], got '", t.name,
                          "'"));
  for (const IntField& f : kIntFields) {
    int64_t v = t.*f.member;
    if ((f.member == &Target::mac_in || f.member == &Target::mac_out) && v == 0)
      throw TargetError(str(where(source), ": field '", f.name,
                            "' is 0: the MAC array cannot have a zero-sized dimension"));
    if (v < f.min || v > f.max)
      throw TargetError(str(where(source), ": field '", f.name, "' (", f.meaning, ") is ", v,
                            ", out of range [", f.min, ", ", f.max, "]"));
  }
  if (t.mac_in != t.mac_out)
    throw TargetError(str(where(source), ": fields 'mac_in' (", t.mac_in, ") and 'mac_out' (",
                          t.mac_out,
                          ") differ: tessera supports square MAC arrays only (mac_in = mac_out, "
                          "any size from 1 to 128), because the vector unit moves whole rows "
                          "between SRAM and the accumulator and the packed layouts use one "
                          "channel block for inputs and outputs"));
  if (t.sram_bytes % t.mac_in != 0 || t.sram_rows() < t.mac_out)
    throw TargetError(str(where(source), ": field 'sram_bytes' (", t.sram_bytes,
                          ") must be a multiple of the SRAM row (", t.mac_in,
                          " bytes) and hold at least one weight tile (", t.mac_in * t.mac_out,
                          " bytes)"));
  if (t.acc_bytes % (4 * t.mac_out) != 0)
    throw TargetError(str(where(source), ": field 'acc_bytes' (", t.acc_bytes,
                          ") must be a multiple of the accumulator row (", 4 * t.mac_out,
                          " bytes)"));
}

Target parse_target(const std::string& json_text, const std::string& source) {
  json j;
  try {
    j = json::parse(json_text);
  } catch (const json::exception& e) {  // parse_error, and out_of_range for a number like 1e999
    throw TargetError(str(where(source), ": not valid JSON: ", e.what()));
  }
  if (!j.is_object()) throw TargetError(str(where(source), ": must be a JSON object"));
  for (auto it = j.begin(); it != j.end(); ++it) {  // std::map order: deterministic
    bool known = it.key() == "name";
    for (const IntField& f : kIntFields) known = known || it.key() == f.name;
    if (!known)
      throw TargetError(str(where(source), ": unknown field '", it.key(),
                            "' (see docs/npu_isa.md for the list of fields)"));
  }
  Target t;
  if (!j.contains("name")) throw TargetError(str(where(source), ": missing field 'name'"));
  if (!j["name"].is_string())
    throw TargetError(str(where(source), ": field 'name' must be a string"));
  t.name = j["name"].get<std::string>();
  for (const IntField& f : kIntFields) {
    if (!j.contains(f.name))
      throw TargetError(str(where(source), ": missing field '", f.name, "' (", f.meaning, ")"));
    const json& v = j[f.name];
    if (!v.is_number_integer())
      throw TargetError(
          str(where(source), ": field '", f.name, "' must be an integer, got ", v.dump()));
    if (v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(f.max))
      throw TargetError(str(where(source), ": field '", f.name, "' (", f.meaning, ") is ", v.dump(),
                            ", out of range [", f.min, ", ", f.max, "]"));
    t.*f.member = v.get<int64_t>();
  }
  validate_target(t, source);
  return t;
}

Target default_target() {
  static const Target t = parse_target(kNpuV1Json, "built-in npu-v1");
  return t;
}

Target load_target(const std::string& path) {
  std::string text;
  std::string why = read_whole_file(path, &text);
  if (!why.empty())
    throw TargetError(str("target description '", path, "': cannot open file: ", why));
  return parse_target(text, path);
}

std::string target_to_json(const Target& t) {
  json j;
  j["name"] = t.name;
  for (const IntField& f : kIntFields) j[f.name] = t.*f.member;
  return j.dump(2);
}

uint64_t target_hash(const Target& t) {
  std::string text = target_to_json(t);
  return fnv1a64(reinterpret_cast<const uint8_t*>(text.data()), text.size());
}

}  // namespace tessera::npu
