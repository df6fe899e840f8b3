#include "runtime/base/utf8.h"

#include <cstdio>

namespace tessera {

namespace {

std::string at(const char* what, unsigned char byte, size_t offset) {
  char buf[96];
  std::snprintf(buf, sizeof buf, "%s (byte 0x%02x at offset %zu)", what, byte, offset);
  return buf;
}

std::string hex_byte(unsigned char c) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "\\x%02x", c);
  return buf;
}

// The length of the valid UTF-8 sequence (RFC 3629: no overlong forms, no surrogates, at most
// U+10FFFF) that starts at p[i], or 0 when none does; `bad` is then the offending byte's offset
// and `truncated` says whether the sequence ran past the end.
size_t sequence_length(const unsigned char* p, size_t n, size_t i, size_t* bad, bool* truncated) {
  unsigned char c = p[i];
  *bad = i;
  *truncated = false;
  if (c < 0x80) return 1;
  size_t len;
  unsigned cp;
  if (c >= 0xc2 && c <= 0xdf) {
    len = 2, cp = c & 0x1f;
  } else if (c >= 0xe0 && c <= 0xef) {
    len = 3, cp = c & 0x0f;
  } else if (c >= 0xf0 && c <= 0xf4) {
    len = 4, cp = c & 0x07;
  } else {
    return 0;
  }
  if (i + len > n) {
    *truncated = true;
    return 0;
  }
  for (size_t k = 1; k < len; ++k) {
    if ((p[i + k] & 0xc0) != 0x80) {
      *bad = i + k;
      return 0;
    }
    cp = (cp << 6) | (p[i + k] & 0x3f);
  }
  bool overlong = (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000);
  if (overlong || (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff) return 0;
  return len;
}

}  // namespace

std::string text_name_problem(const std::string& s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const size_t n = s.size();
  for (size_t i = 0; i < n;) {
    if (p[i] == 0) return at("contains a NUL character", 0, i);
    size_t bad;
    bool truncated;
    size_t len = sequence_length(p, n, i, &bad, &truncated);
    if (len == 0) {
      return truncated ? at("is not valid UTF-8: a truncated sequence", p[i], i)
                       : at("is not valid UTF-8", p[bad], bad);
    }
    i += len;
  }
  return "";
}

std::string quoted_name(const std::string& s) {
  std::string out = "'";
  for (unsigned char c : s) {
    if (c >= 0x20 && c < 0x7f && c != '\\') {
      out += static_cast<char>(c);
    } else {
      out += hex_byte(c);
    }
  }
  return out + "'";
}

std::string printable_text(const std::string& s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const size_t n = s.size();
  std::string out;
  out.reserve(n);
  for (size_t i = 0; i < n;) {
    size_t bad;
    bool truncated;
    size_t len = p[i] == 0 ? 0 : sequence_length(p, n, i, &bad, &truncated);
    if (len == 0) {
      out += hex_byte(p[i]);
      ++i;
    } else {
      out.append(s, i, len);
      i += len;
    }
  }
  return out;
}

}  // namespace tessera
