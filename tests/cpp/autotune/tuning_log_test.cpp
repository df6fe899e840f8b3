#include <gtest/gtest.h>

#include <algorithm>

#include "autotune/compiler_version.h"
#include "autotune/errors.h"
#include "autotune/pick_best.h"
#include "autotune/read_tuning_log.h"
#include "autotune/tuning_log_writer.h"
#include "log_test_util.h"

namespace tessera::autotune {
namespace {

using testing::read_file;
using testing::temp_path;
using testing::write_file;

LogRecord record(int64_t trial, MeasureResult result, nlohmann::json config = {{"tile", 4}}) {
  LogRecord r;
  r.compiler = "tessera 0.1.0";
  r.target = TargetId{"npu-v1", "a8a47a83b809a113"};
  r.task = {{"template", "dense"}, {"args", {{"M", 64}, {"K", 64}, {"N", 64}}}};
  r.tuner = "xgb";
  r.seed = 7;
  r.trial = trial;
  r.config = std::move(config);
  r.result = std::move(result);
  r.timestamp = "2024-05-01T12:00:00.000Z";
  return r;
}

std::string line(const LogRecord& r) { return record_to_json(r).dump() + "\n"; }

template <typename F>
std::string error_of(F f) {
  try {
    f();
  } catch (const TuningLogError& e) {
    return e.what();
  }
  return "no TuningLogError";
}

TEST(TuningLog, a_record_is_one_json_object_with_sorted_keys) {
  EXPECT_EQ(record_to_json(record(3, MeasureResult::success(1234, "fp1"))).dump(),
            R"({"compiler":"tessera 0.1.0","config":{"tile":4},"result":{"cycles":1234,)"
            R"("fingerprint":"fp1","status":"ok"},"seed":7,"target":{"hash":"a8a47a83b809a113",)"
            R"("name":"npu-v1"},"task":{"args":{"K":64,"M":64,"N":64},"template":"dense"},)"
            R"("timestamp":"2024-05-01T12:00:00.000Z","trial":3,"tuner":"xgb","version":1})");
  MeasureResult dup = MeasureResult::failure(MeasureStatus::kCompileError, "SRAM overflow");
  EXPECT_EQ(result_to_json(dup).dump(), R"({"message":"SRAM overflow","status":"compile_error"})");
}

TEST(TuningLog, the_target_id_is_the_target_name_and_its_pinned_hash) {
  TargetId id = TargetId::of(npu::default_target());
  EXPECT_EQ(id.name, "npu-v1");
  EXPECT_EQ(id.hash, "a8a47a83b809a113");  // npu::target_hash, pinned by the target tests
  EXPECT_EQ(std::string(compiler_version()).rfind("tessera ", 0), 0u);  // "tessera <version>"
}

TEST(TuningLog, written_records_read_back_equal) {
  std::string path = temp_path("log.jsonl");
  std::vector<LogRecord> in = {
      record(0, MeasureResult::success(500, "a")),
      record(1, MeasureResult::failure(MeasureStatus::kTimeout, "over 1 s")),
      record(2, MeasureResult::success(500, "a")),
  };
  in[2].result.duplicate_of = 0;
  {
    TuningLogWriter w(path);
    w.append({in[0], in[1]});
    w.append({in[2]});
  }
  TuningLog log = read_tuning_log(path, TargetId{"npu-v1", "a8a47a83b809a113"});
  EXPECT_TRUE(log.warnings.empty());
  ASSERT_EQ(log.records.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(record_to_json(log.records[i]), record_to_json(in[i]));
    EXPECT_EQ(log.records[i].line, static_cast<int64_t>(i + 1));
  }
  EXPECT_EQ(read_file(path), line(in[0]) + line(in[1]) + line(in[2]));
}

TEST(TuningLog, a_missing_file_is_an_empty_log) {
  TuningLog log = read_tuning_log(temp_path("none.jsonl"));
  EXPECT_TRUE(log.records.empty());
  EXPECT_TRUE(log.warnings.empty());
}

TEST(TuningLog, a_directory_is_an_error_naming_it_not_an_empty_log) {
  std::string file = temp_path("any.jsonl");
  std::string dir = file.substr(0, file.rfind('/'));
  try {
    read_tuning_log(dir);
    ADD_FAILURE() << "a directory read as a tuning log";
  } catch (const RuntimeError& e) {
    EXPECT_NE(std::string(e.what()).find("tuning log " + dir + ": cannot be read: is a directory"),
              std::string::npos)
        << e.what();
  }
}

TEST(TuningLog, truncated_and_corrupt_lines_are_skipped_with_warnings_naming_file_and_line) {
  std::string path = temp_path("damaged.jsonl");
  std::string last = line(record(3, MeasureResult::success(9)));
  nlohmann::json no_result = record_to_json(record(2, MeasureResult::success(8)));
  no_result.erase("result");
  write_file(path, line(record(0, MeasureResult::success(10))) + "garbage {\n" +
                       line(record(1, MeasureResult::success(11))) + no_result.dump() + "\n" +
                       last.substr(0, last.size() / 2));
  TuningLog log = read_tuning_log(path);
  ASSERT_EQ(log.records.size(), 2u);
  EXPECT_EQ(log.records[0].trial, 0);
  EXPECT_EQ(log.records[1].trial, 1);
  EXPECT_EQ(log.records[1].line, 3);
  ASSERT_EQ(log.warnings.size(), 3u);
  EXPECT_EQ(log.warnings[0], path + ":2: not valid JSON; line skipped");
  EXPECT_EQ(log.warnings[1], path + ":4: record has no \"result\"; line skipped");
  EXPECT_EQ(log.warnings[2],
            path + ":5: truncated last line (no newline: a write cut short); line skipped");
}

TEST(TuningLog, a_log_of_another_format_version_is_refused_naming_both_versions) {
  std::string path = temp_path("v2.jsonl");
  nlohmann::json v2 = record_to_json(record(1, MeasureResult::success(5)));
  v2["version"] = 2;
  write_file(path, line(record(0, MeasureResult::success(5))) + v2.dump() + "\n");
  EXPECT_EQ(
      error_of([&] { read_tuning_log(path); }),
      "tuning log " + path + " line 2: format version 2; this tessera reads format version 1 only");
}

TEST(TuningLog, a_log_of_another_target_is_refused_naming_both_targets) {
  std::string path = temp_path("other_target.jsonl");
  write_file(path, line(record(0, MeasureResult::success(5))));
  EXPECT_EQ(error_of([&] {
              read_tuning_log(path, TargetId{"npu-big", "0123456789abcdef"});
            }),
            "tuning log " + path +
                " line 1: a record for target npu-v1 (hash a8a47a83b809a113); this job's target "
                "is npu-big (hash 0123456789abcdef) (one log holds one target)");
  // Same name, another description: the hash tells them apart.
  EXPECT_NE(error_of([&] {
              read_tuning_log(path, TargetId{"npu-v1", "0000000000000001"});
            }),
            "no TuningLogError");
  // With no target expected, a log mixing two is refused too.
  LogRecord other = record(1, MeasureResult::success(5));
  other.target = TargetId{"npu-big", "0123456789abcdef"};
  write_file(path, line(record(0, MeasureResult::success(5))) + line(other));
  EXPECT_NE(error_of([&] { read_tuning_log(path); }).find("line 2: a record for target npu-big"),
            std::string::npos);
}

TEST(TuningLogWriter, opening_cuts_off_a_truncated_last_line_before_appending) {
  std::string path = temp_path("cut.jsonl");
  std::string first = line(record(0, MeasureResult::success(10)));
  std::string second = line(record(1, MeasureResult::success(11)));
  write_file(path, first + second.substr(0, 17));
  {
    TuningLogWriter w(path);
    w.append({record(1, MeasureResult::success(12))});
  }
  EXPECT_EQ(read_file(path), first + line(record(1, MeasureResult::success(12))));
  // A file with no newline at all is cut to nothing.
  write_file(path, "{\"vers");
  { TuningLogWriter w(path); }
  EXPECT_EQ(read_file(path), "");
}

TEST(TuningLogWriter, a_second_writer_of_the_same_log_is_refused) {
  std::string path = temp_path("locked.jsonl");
  TuningLogWriter w(path);
  try {
    TuningLogWriter again(path);
    FAIL();
  } catch (const RuntimeError& e) {
    EXPECT_NE(std::string(e.what()).find("being written by another job"), std::string::npos);
  }
}

TEST(PickBest, fewest_cycles_then_config_text_whatever_the_record_order) {
  std::vector<LogRecord> rs = {
      record(0, MeasureResult::success(300), {{"tile", 1}}),
      record(1, MeasureResult::success(200), {{"tile", 8}}),
      record(2, MeasureResult::success(200), {{"tile", 2}}),  // ties with trial 1: "2" < "8"
      record(3, MeasureResult::failure(MeasureStatus::kCompileError, "x"), {{"tile", 16}}),
      record(4, MeasureResult::failure(MeasureStatus::kTimeout, "slow"), {{"tile", 32}}),
  };
  LogRecord other_task = record(0, MeasureResult::success(900), {{"tile", 4}});
  other_task.task = {{"template", "add"}};
  rs.push_back(other_task);
  LogRecord only_failures = record(0, MeasureResult::failure(MeasureStatus::kCompileError, "x"));
  only_failures.task = {{"template", "pool"}};
  rs.push_back(only_failures);
  for (int shuffle = 0; shuffle < 3; ++shuffle) {
    std::rotate(rs.begin(), rs.begin() + 2, rs.end());
    auto best = pick_best(rs);
    ASSERT_EQ(best.size(), 2u);  // the task with no valid record is absent
    const LogRecord& dense = best.at(record(0, MeasureResult::success(1)).task.dump());
    EXPECT_EQ(dense.trial, 2);
    EXPECT_EQ(dense.config.dump(), R"({"tile":2})");
    EXPECT_EQ(best.at(R"({"template":"add"})").result.cycles, 900);
  }
}

}  // namespace
}  // namespace tessera::autotune
