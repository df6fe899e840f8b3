// Replay's choice: for each task of a log, its best valid record. Valid means status ok
// (duplicates of an earlier kernel included: their cycles are that kernel's). Best means fewest
// cycles, ties broken by the canonical config text (its JSON dump), so the choice depends neither
// on the order of the records nor on which search found them.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "autotune/log_record.h"

namespace tessera::autotune {

// Keyed (and ordered) by the task's canonical JSON text; a task without a valid record is absent.
std::map<std::string, LogRecord> pick_best(const std::vector<LogRecord>& records);

}  // namespace tessera::autotune
