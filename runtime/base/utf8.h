// Checks on names that come from files (kernel files, libraries): they reach Python as str and
// appear in error messages, so they must be valid UTF-8 and hold no NUL (which would cut a C
// string, and so a message, short).
#pragma once

#include <string>

namespace tessera {

// "" when s is valid UTF-8 (RFC 3629: no overlong forms, no surrogates, at most U+10FFFF) with no
// NUL byte; else why not, e.g. "is not valid UTF-8 (byte 0xff at offset 3)".
std::string text_name_problem(const std::string& s);

// s in single quotes with every byte outside printable ASCII written as \xNN, so that a bad name
// can be shown safely in a message.
std::string quoted_name(const std::string& s);

// s with every NUL byte and every byte that is not part of a valid UTF-8 sequence written as
// \xNN; valid UTF-8 (and newlines) kept. Every error message goes through it (runtime/base/
// error.h): a path or name from the user can hold such bytes, and a NUL cut the message short
// while invalid UTF-8 made Python show it empty.
std::string printable_text(const std::string& s);

}  // namespace tessera
