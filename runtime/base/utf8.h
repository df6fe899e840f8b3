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

}  // namespace tessera
