#include "runtime/npu/kernel_file.h"

#include <cstring>

#include "runtime/base/error.h"
#include "runtime/base/file_io.h"
#include "runtime/base/fnv1a.h"
#include "runtime/base/utf8.h"
#include "runtime/npu/encoding.h"

namespace tessera::npu {
namespace {

constexpr size_t kMaxNameBytes = 1024;
constexpr uint32_t kMaxBuffers = 65536;
// A buffer's dtype in the file (docs/npu_isa.md section 7): its own codes, independent of the
// DType enum's order.
constexpr uint8_t kDtypeCodeInt8 = 0;
constexpr uint8_t kDtypeCodeInt32 = 1;

class Writer {
 public:
  template <typename T>
  void put(T value) {
    auto u = static_cast<uint64_t>(static_cast<std::make_unsigned_t<T>>(value));
    for (size_t i = 0; i < sizeof(T); ++i) bytes.push_back(static_cast<uint8_t>(u >> (8 * i)));
  }
  void name(const std::string& s, const char* what) {
    if (s.size() > kMaxNameBytes)
      throw KernelFileError(str("cannot save kernel: ", what, " '", s.substr(0, 40),
                                "...' is longer than ", kMaxNameBytes, " bytes"));
    if (std::string why = text_name_problem(s); !why.empty())
      throw KernelFileError(str("cannot save kernel: ", what, " ", quoted_name(s), " ", why));
    put<uint16_t>(static_cast<uint16_t>(s.size()));
    bytes.insert(bytes.end(), s.begin(), s.end());
  }
  std::vector<uint8_t> bytes;
};

// Bounds-checked reader: every read past the end is a "truncated" error naming the field.
class Reader {
 public:
  Reader(const uint8_t* data, size_t size, const std::string& source)
      : data_(data), size_(size), source_(source) {}
  template <typename T>
  T get(const char* field) {
    need(sizeof(T), field);
    uint64_t u = 0;
    for (size_t i = 0; i < sizeof(T); ++i) u |= static_cast<uint64_t>(data_[pos_ + i]) << (8 * i);
    pos_ += sizeof(T);
    return static_cast<T>(static_cast<std::make_unsigned_t<T>>(u));
  }
  std::string name(const char* field) {
    auto n = get<uint16_t>(field);
    if (n > kMaxNameBytes) fail(str(field, " is ", n, " bytes long (at most ", kMaxNameBytes, ")"));
    need(n, field);
    std::string s(reinterpret_cast<const char*>(data_ + pos_), n);
    // Names reach Python (str) and error messages: valid UTF-8 without NUL, or the file is bad.
    if (std::string why = text_name_problem(s); !why.empty())
      fail(str(field, " at byte ", pos_, " ", quoted_name(s), " ", why));
    pos_ += n;
    return s;
  }
  const uint8_t* take(size_t n, const char* field) {
    need(n, field);
    const uint8_t* p = data_ + pos_;
    pos_ += n;
    return p;
  }
  size_t remaining() const { return size_ - pos_; }
  [[noreturn]] void fail(const std::string& what) const {
    throw KernelFileError(str("kernel file '", source_, "': ", what));
  }

 private:
  void need(size_t n, const char* field) const {
    if (n > size_ - pos_)
      fail(str("truncated: ", field, " at byte ", pos_, " needs ", n, " bytes but the file has ",
               size_ - pos_, " left"));
  }
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
  std::string source_;
};

}  // namespace

uint64_t kernel_checksum(const uint8_t* data, size_t size) { return fnv1a64(data, size); }

namespace {

// Everything before the instructions, the instruction count included.
Writer write_header(const Kernel& k) {
  check_buffers(k, str("cannot save kernel '", k.name, "'"));
  Writer w;
  // Byte by byte: a range insert into the empty vector, inlined here, draws a false
  // -Wstringop-overflow from GCC 12.
  for (char c : kKernelMagic) w.put<uint8_t>(static_cast<uint8_t>(c));
  w.put<uint32_t>(kKernelFormatVersion);
  w.put<uint32_t>(0);
  w.put<uint64_t>(k.target_hash);
  w.name(k.name, "kernel name");
  w.name(k.target_name, "target name");
  w.put<uint32_t>(static_cast<uint32_t>(k.buffers.size()));
  for (const BufferDecl& b : k.buffers) {
    w.name(b.name, "buffer name");
    w.put<uint8_t>(b.dtype == DType::kInt32 ? kDtypeCodeInt32 : kDtypeCodeInt8);
    w.put<uint8_t>(static_cast<uint8_t>(b.role));
    w.put<uint8_t>(static_cast<uint8_t>(b.shape.size()));
    w.put<uint8_t>(0);
    for (int64_t e : b.shape) w.put<int64_t>(e);
    w.put<uint64_t>(b.ddr_offset);
  }
  w.put<uint32_t>(k.work ? 1 : 0);
  Work work = k.work.value_or(Work{});
  w.put<uint64_t>(work.macs);
  w.put<uint64_t>(work.min_ddr_bytes);
  w.put<uint64_t>(work.vector_ops);
  w.put<uint32_t>(static_cast<uint32_t>(k.program.size()));
  return w;
}

// FNV-1a 64 continued over one encoded instruction. A word of eight zero bytes (reserved bytes,
// unused fields) only multiplies the state by the prime eight times: one multiplication by its
// eighth power instead.
uint64_t hash_insn(const EncodedInsn& e, uint64_t hash) {
  constexpr uint64_t kPrime = 0x100000001b3ull;
  constexpr uint64_t kPrime8 = kPrime * kPrime * kPrime * kPrime * kPrime * kPrime * kPrime * kPrime;
  static_assert(kInsnBytes % 8 == 0);
  for (size_t at = 0; at < kInsnBytes; at += 8) {
    uint64_t word;
    std::memcpy(&word, e.data() + at, 8);
    hash = word == 0 ? hash * kPrime8 : fnv1a64(e.data() + at, 8, hash);
  }
  return hash;
}

}  // namespace

std::vector<uint8_t> serialize_kernel(const Kernel& k) {
  Writer w = write_header(k);
  w.bytes.reserve(w.bytes.size() + k.program.size() * sizeof(EncodedInsn) + 8);
  size_t at = w.bytes.size();
  w.bytes.resize(at + k.program.size() * kInsnBytes);
  for (const Insn& insn : k.program) {
    EncodedInsn e = encode(insn);
    std::memcpy(w.bytes.data() + at, e.data(), kInsnBytes);
    at += kInsnBytes;
  }
  w.put<uint64_t>(kernel_checksum(w.bytes.data(), w.bytes.size()));
  return w.bytes;
}

uint64_t kernel_file_checksum(const Kernel& k) {
  Writer w = write_header(k);
  uint64_t hash = kernel_checksum(w.bytes.data(), w.bytes.size());
  for (const Insn& insn : k.program) hash = hash_insn(encode(insn), hash);
  return hash;
}

Kernel parse_kernel(const uint8_t* data, size_t size, const std::string& source) {
  Reader r(data, size, source);
  const uint8_t* magic = r.take(8, "magic");
  if (std::memcmp(magic, kKernelMagic, 8) != 0)
    r.fail("not a tessera NPU kernel file (bad magic; expected \"TSRNPUKF\")");
  auto version = r.get<uint32_t>("format version");
  if (version != kKernelFormatVersion)
    r.fail(str("format version ", version, " is not supported (this build reads version ",
               kKernelFormatVersion, ")"));
  if (size < 8 + 4 + 4 + 8 + 8)
    r.fail(str("truncated: ", size, " bytes is smaller than the header"));
  uint64_t stored = 0;
  for (size_t i = 0; i < 8; ++i) stored |= static_cast<uint64_t>(data[size - 8 + i]) << (8 * i);
  if (stored != kernel_checksum(data, size - 8))
    r.fail("corrupted or truncated: checksum does not match the contents");
  Reader body(data, size - 8, source);  // the checksum is not part of the body
  body.take(12, "header");
  if (body.get<uint32_t>("flags") != 0) body.fail("unknown flags are set");
  Kernel k;
  k.target_hash = body.get<uint64_t>("target hash");
  k.name = body.name("kernel name");
  k.target_name = body.name("target name");
  auto nbuf = body.get<uint32_t>("buffer count");
  if (nbuf > kMaxBuffers) body.fail(str("buffer count ", nbuf, " exceeds ", kMaxBuffers));
  for (uint32_t i = 0; i < nbuf; ++i) {
    BufferDecl b;
    b.name = body.name("buffer name");
    auto dtype = body.get<uint8_t>("buffer dtype");
    auto role = body.get<uint8_t>("buffer role");
    auto rank = body.get<uint8_t>("buffer rank");
    if (dtype != kDtypeCodeInt8 && dtype != kDtypeCodeInt32)
      body.fail(str("buffer '", b.name, "' has unknown dtype code ", int(dtype)));
    if (role > 2) body.fail(str("buffer '", b.name, "' has unknown role code ", int(role)));
    if (rank < 1 || rank > 8)
      body.fail(str("buffer '", b.name, "' has rank ", int(rank), " (1 to 8)"));
    if (body.get<uint8_t>("buffer padding") != 0) body.fail("nonzero padding byte in buffer table");
    b.dtype = dtype == kDtypeCodeInt32 ? DType::kInt32 : DType::kInt8;
    b.role = static_cast<BufferRole>(role);
    for (int d = 0; d < rank; ++d) b.shape.push_back(body.get<int64_t>("buffer extent"));
    b.ddr_offset = body.get<uint64_t>("buffer DDR offset");
    k.buffers.push_back(std::move(b));
  }
  check_buffers(k, str("kernel file '", source, "'"));
  auto work_flag = body.get<uint32_t>("work flag");
  if (work_flag > 1) body.fail(str("work flag ", work_flag, " is not 0 (none) or 1 (declared)"));
  Work work;
  work.macs = body.get<uint64_t>("work MACs");
  work.min_ddr_bytes = body.get<uint64_t>("work DDR bytes");
  work.vector_ops = body.get<uint64_t>("work vector ops");
  if (work_flag == 1)
    k.work = work;
  else if (work != Work{})
    body.fail("the work figures are nonzero but the work flag says none is declared");
  auto ninsn = body.get<uint32_t>("instruction count");
  if (static_cast<uint64_t>(ninsn) * kInsnBytes != body.remaining())
    body.fail(str("instruction count ", ninsn, " needs ", uint64_t(ninsn) * kInsnBytes,
                  " bytes but the stream has ", body.remaining()));
  k.program.reserve(ninsn);
  for (uint32_t i = 0; i < ninsn; ++i) {
    const uint8_t* bytes = body.take(kInsnBytes, "instruction");
    try {
      k.program.push_back(decode(bytes, i));
    } catch (const KernelFileError& e) {
      body.fail(e.what());
    }
  }
  return k;
}

void save_kernel(const Kernel& kernel, const std::string& path) {
  std::vector<uint8_t> bytes = serialize_kernel(kernel);
  std::string why = write_whole_file(path, std::string(bytes.begin(), bytes.end()));
  if (!why.empty()) throw RuntimeError(str("cannot write kernel file '", path, "': ", why));
}

Kernel load_kernel(const std::string& path) {
  std::string bytes;
  std::string why = read_whole_file(path, &bytes);
  if (!why.empty()) throw KernelFileError(str("kernel file '", path, "': cannot open: ", why));
  return parse_kernel(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), path);
}

}  // namespace tessera::npu
