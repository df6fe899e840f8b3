#include "runtime/base/utf8.h"

#include <cstdio>

namespace tessera {

namespace {

std::string at(const char* what, unsigned char byte, size_t offset) {
  char buf[96];
  std::snprintf(buf, sizeof buf, "%s (byte 0x%02x at offset %zu)", what, byte, offset);
  return buf;
}

}  // namespace

std::string text_name_problem(const std::string& s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const size_t n = s.size();
  for (size_t i = 0; i < n;) {
    unsigned char c = p[i];
    if (c == 0) return at("contains a NUL character", c, i);
    if (c < 0x80) {
      ++i;
      continue;
    }
    size_t len;
    unsigned cp;
    if (c >= 0xc2 && c <= 0xdf) {
      len = 2, cp = c & 0x1f;
    } else if (c >= 0xe0 && c <= 0xef) {
      len = 3, cp = c & 0x0f;
    } else if (c >= 0xf0 && c <= 0xf4) {
      len = 4, cp = c & 0x07;
    } else {
      return at("is not valid UTF-8", c, i);
    }
    if (i + len > n) return at("is not valid UTF-8: a truncated sequence", c, i);
    for (size_t k = 1; k < len; ++k) {
      if ((p[i + k] & 0xc0) != 0x80) return at("is not valid UTF-8", p[i + k], i + k);
      cp = (cp << 6) | (p[i + k] & 0x3f);
    }
    bool overlong = (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000);
    if (overlong || (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
      return at("is not valid UTF-8", c, i);
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
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    }
  }
  return out + "'";
}

}  // namespace tessera
