#include "autotune/read_tuning_log.h"

#include <filesystem>

#include "autotune/errors.h"
#include "runtime/base/file_io.h"

namespace tessera::autotune {

TuningLog read_tuning_log(const std::string& path, const std::optional<TargetId>& expected) {
  TuningLog log;
  log.path = path;
  log.target = expected;
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return log;  // a log not written yet is empty
  std::string text;
  std::string why = read_whole_file(path, &text);  // a directory, no permission, ...
  if (!why.empty()) throw RuntimeError(str("tuning log ", path, ": cannot be read: ", why));

  int64_t line_no = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    ++line_no;
    size_t end = text.find('\n', pos);
    const bool complete = end != std::string::npos;
    const std::string line = text.substr(pos, complete ? end - pos : std::string::npos);
    pos = complete ? end + 1 : text.size();
    auto warn = [&](const std::string& why) {
      log.warnings.push_back(str(path, ":", line_no, ": ", why, "; line skipped"));
    };
    if (!complete) {
      warn("truncated last line (no newline: a write cut short)");
      continue;
    }
    nlohmann::json j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded()) {
      warn("not valid JSON");
      continue;
    }
    // The version first: a record of another format is refused, not skipped as corrupt.
    if (j.is_object()) {
      auto v = j.find("version");
      if (v != j.end() && v->is_number_integer() && v->get<int64_t>() != kTuningLogVersion)
        throw TuningLogError(str("tuning log ", path, " line ", line_no, ": format version ",
                                 v->get<int64_t>(), "; this tessera reads format version ",
                                 kTuningLogVersion, " only"));
    }
    LogRecord r;
    try {
      r = record_from_json(j);
    } catch (const TuningLogError& e) {
      warn(e.what());
      continue;
    } catch (const nlohmann::json::exception& e) {
      warn(str("malformed record (", e.what(), ")"));
      continue;
    }
    if (!log.target) log.target = r.target;
    if (r.target != *log.target)
      throw TuningLogError(
          str("tuning log ", path, " line ", line_no, ": a record for target ", r.target.text(),
              "; ", expected ? "this job's target is " : "the log's first record is for ",
              log.target->text(), " (one log holds one target)"));
    r.line = line_no;
    log.records.push_back(std::move(r));
  }
  return log;
}

}  // namespace tessera::autotune
