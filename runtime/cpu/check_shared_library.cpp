#include "runtime/cpu/check_shared_library.h"

#include <elf.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "runtime/base/error.h"

namespace tessera {

namespace {

#if defined(__x86_64__)
constexpr uint16_t kMachine = EM_X86_64;
#elif defined(__aarch64__)
constexpr uint16_t kMachine = EM_AARCH64;
#else
#error "check_shared_library: add this architecture's ELF machine code"
#endif
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
constexpr unsigned char kData = ELFDATA2LSB;
#else
constexpr unsigned char kData = ELFDATA2MSB;
#endif

class Checker {
 public:
  Checker(const std::string& bytes, const std::string& origin, SharedLibraryInfo& info)
      : b_(bytes), origin_(origin), info_(info) {}

  void run() {
    header();
    segments();
    sections();
    dynamic();
    symbols();
    relocations();
    versions();
  }

 private:
  [[noreturn]] void fail(const std::string& why) const {
    throw RuntimeError(str("'", origin_, "' is not a loadable shared library: ", why));
  }
  // [off, off + size) inside the file.
  bool in_file(uint64_t off, uint64_t size) const {
    return off <= b_.size() && size <= b_.size() - off;
  }
  template <typename T>
  T read(uint64_t off, const char* what) const {
    if (!in_file(off, sizeof(T)))
      fail(str(what, " at byte ", off, " lies beyond the end of the file (", b_.size(),
               " bytes): the file is truncated or corrupted"));
    T v;
    std::memcpy(&v, b_.data() + off, sizeof(T));
    return v;
  }
  // The file offset of [vaddr, vaddr + size) when it lies in one loadable segment's file bytes
  // (file_backed) or memory image.
  std::optional<uint64_t> find(uint64_t vaddr, uint64_t size, bool file_backed) const {
    for (const Elf64_Phdr& p : loads_) {
      uint64_t limit = file_backed ? p.p_filesz : p.p_memsz;
      if (vaddr >= p.p_vaddr && vaddr - p.p_vaddr <= limit && size <= limit - (vaddr - p.p_vaddr))
        return p.p_offset + (vaddr - p.p_vaddr);
    }
    return std::nullopt;
  }
  // find(), failing naming `what` when the range is outside.
  uint64_t locate(uint64_t vaddr, uint64_t size, bool file_backed, const char* what) const {
    if (std::optional<uint64_t> off = find(vaddr, size, file_backed)) return *off;
    fail(str(what, " [0x", std::hex, vaddr, ", +0x", size, std::dec,
             ") is outside the library's loadable segments"));
  }

  void header() {
    if (b_.size() < sizeof(Elf64_Ehdr))
      fail(str("the file has ", b_.size(), " bytes, fewer than an ELF header"));
    eh_ = read<Elf64_Ehdr>(0, "the ELF header");
    const unsigned char* id = eh_.e_ident;
    if (std::memcmp(id, ELFMAG, SELFMAG) != 0) fail("it does not start with the ELF magic bytes");
    if (id[EI_CLASS] != ELFCLASS64) fail("it is not a 64-bit ELF file");
    if (id[EI_DATA] != kData) fail("its byte order is not this machine's");
    if (id[EI_VERSION] != EV_CURRENT || eh_.e_version != EV_CURRENT) fail("unknown ELF version");
    if (eh_.e_type != ET_DYN) fail("it is not a shared object (ELF type is not ET_DYN)");
    if (eh_.e_machine != kMachine)
      fail(str("it is built for ELF machine ", eh_.e_machine, ", not this one (", kMachine, ")"));
    if (eh_.e_ehsize != sizeof(Elf64_Ehdr) || eh_.e_phentsize != sizeof(Elf64_Phdr))
      fail("unexpected ELF header or program header size");
    if (eh_.e_phnum == 0 || eh_.e_phnum == PN_XNUM) fail("no program headers");
    if (!in_file(eh_.e_phoff, uint64_t(eh_.e_phnum) * sizeof(Elf64_Phdr)))
      fail("the program header table lies beyond the end of the file: the file is truncated");
  }

  void segments() {
    for (uint16_t i = 0; i < eh_.e_phnum; ++i) {
      Elf64_Phdr p =
          read<Elf64_Phdr>(eh_.e_phoff + uint64_t(i) * sizeof(Elf64_Phdr), "a program header");
      if (p.p_filesz > 0 && !in_file(p.p_offset, p.p_filesz))
        fail(str("segment ", i, " (bytes ", p.p_offset, "..", p.p_offset + p.p_filesz,
                 ") lies beyond the end of the file (", b_.size(),
                 " bytes): the file is truncated"));
      if (p.p_type == PT_LOAD) {
        if (p.p_filesz > p.p_memsz)
          fail(str("loadable segment ", i, " has more file bytes than memory"));
        if (p.p_memsz > (uint64_t(1) << 40) || p.p_vaddr > (uint64_t(1) << 40))
          fail(str("loadable segment ", i, " is implausibly large or far"));
        if (p.p_align > 1 &&
            ((p.p_align & (p.p_align - 1)) != 0 || (p.p_vaddr - p.p_offset) % p.p_align != 0))
          fail(str("loadable segment ", i, " is misaligned"));
        loads_.push_back(p);
      } else if (p.p_type == PT_DYNAMIC) {
        if (dyn_.p_type == PT_DYNAMIC) fail("two dynamic segments");
        dyn_ = p;
      }
    }
    if (loads_.empty()) fail("no loadable segment");
    if (dyn_.p_type != PT_DYNAMIC) fail("no dynamic segment");
  }

  void sections() {
    if (eh_.e_shnum == 0) return;
    if (eh_.e_shentsize != sizeof(Elf64_Shdr)) fail("unexpected section header size");
    if (!in_file(eh_.e_shoff, uint64_t(eh_.e_shnum) * sizeof(Elf64_Shdr)))
      fail("the section header table lies beyond the end of the file: the file is truncated");
    for (uint16_t i = 0; i < eh_.e_shnum; ++i) {
      Elf64_Shdr s =
          read<Elf64_Shdr>(eh_.e_shoff + uint64_t(i) * sizeof(Elf64_Shdr), "a section header");
      if (s.sh_type != SHT_NOBITS && s.sh_type != SHT_NULL && !in_file(s.sh_offset, s.sh_size))
        fail(str("section ", i, " lies beyond the end of the file: the file is truncated"));
      if (s.sh_type == SHT_DYNSYM && s.sh_entsize == sizeof(Elf64_Sym))
        dynsym_section_count_ = s.sh_size / sizeof(Elf64_Sym);
    }
  }

  void dynamic() {
    locate(dyn_.p_vaddr, dyn_.p_filesz, true, "the dynamic section");
    size_t n = dyn_.p_filesz / sizeof(Elf64_Dyn);
    bool ended = false;
    std::vector<uint64_t> name_offsets;
    for (size_t i = 0; i < n && !ended; ++i) {
      Elf64_Dyn d = read<Elf64_Dyn>(dyn_.p_offset + i * sizeof(Elf64_Dyn), "a dynamic entry");
      uint64_t v = d.d_un.d_val;
      switch (d.d_tag) {
        case DT_NULL:
          ended = true;
          break;
        case DT_NEEDED:
        case DT_SONAME:
        case DT_RPATH:
        case DT_RUNPATH:
          name_offsets.push_back(v);
          break;
        case DT_STRTAB:
          strtab_ = v;
          has_strtab_ = true;
          break;
        case DT_STRSZ:
          strsz_ = v;
          break;
        case DT_SYMTAB:
          symtab_ = v;
          has_symtab_ = true;
          break;
        case DT_SYMENT:
          if (v != sizeof(Elf64_Sym)) fail("unexpected symbol entry size");
          break;
        case DT_HASH:
          hash_ = v;
          break;
        case DT_GNU_HASH:
          gnu_hash_ = v;
          break;
        case DT_RELA:
          rela_ = v;
          break;
        case DT_RELASZ:
          relasz_ = v;
          break;
        case DT_RELAENT:
          if (v != sizeof(Elf64_Rela)) fail("unexpected relocation entry size");
          break;
        case DT_JMPREL:
          jmprel_ = v;
          break;
        case DT_PLTRELSZ:
          pltrelsz_ = v;
          break;
        case DT_PLTREL:
          if (v != DT_RELA) fail("PLT relocations are not RELA");
          break;
        case DT_INIT:
        case DT_FINI:
          locate(v, 1, true, "an init/fini function");
          break;
        case DT_INIT_ARRAY:
          init_array_ = v;
          break;
        case DT_INIT_ARRAYSZ:
          init_arraysz_ = v;
          break;
        case DT_FINI_ARRAY:
          fini_array_ = v;
          break;
        case DT_FINI_ARRAYSZ:
          fini_arraysz_ = v;
          break;
        case DT_PLTGOT:
          locate(v, 8, false, "the global offset table");
          break;
        case DT_VERSYM:
          versym_ = v;
          break;
        case DT_VERNEED:
          verneed_ = v;
          break;
        case DT_VERNEEDNUM:
          verneednum_ = v;
          break;
        case DT_VERDEF:
          verdef_ = v;
          break;
        case DT_VERDEFNUM:
          verdefnum_ = v;
          break;
        case DT_FLAGS:
        case DT_FLAGS_1:
        case DT_RELACOUNT:
        case DT_BIND_NOW:
        case DT_TEXTREL:
        case DT_SYMBOLIC:
        case DT_DEBUG:
          break;
        default:
          fail(str("unsupported dynamic entry tag 0x", std::hex, d.d_tag));
      }
    }
    if (!ended) fail("the dynamic section has no terminating DT_NULL entry");
    if (!has_strtab_ || !has_symtab_) fail("no dynamic string or symbol table");
    if (strsz_ == 0) fail("an empty dynamic string table");
    strtab_off_ = locate(strtab_, strsz_, true, "the dynamic string table");
    if (b_[strtab_off_ + strsz_ - 1] != '\0') fail("the dynamic string table is not terminated");
    for (uint64_t o : name_offsets)
      if (o >= strsz_) fail("a library name lies outside the string table");
    if (init_arraysz_) locate(init_array_, init_arraysz_, false, "the init array");
    if (fini_arraysz_) locate(fini_array_, fini_arraysz_, false, "the fini array");
  }

  // The number of dynamic symbols: from the hash tables the loader walks (each checked), or the
  // section headers.
  uint64_t symbol_count() {
    uint64_t count = dynsym_section_count_;
    if (hash_) {
      uint64_t off = locate(hash_, 8, true, "the hash table");
      uint32_t nbucket = read<uint32_t>(off, "the hash table"),
               nchain = read<uint32_t>(off + 4, "the hash table");
      locate(hash_, 8 + 4 * (uint64_t(nbucket) + nchain), true, "the hash table");
      count = std::max<uint64_t>(count, nchain);
    }
    if (gnu_hash_) {
      uint64_t off = locate(gnu_hash_, 16, true, "the GNU hash table");
      uint32_t nbuckets = read<uint32_t>(off, "the GNU hash table");
      uint32_t symoffset = read<uint32_t>(off + 4, "the GNU hash table");
      uint32_t bloom_size = read<uint32_t>(off + 8, "the GNU hash table");
      uint64_t buckets = gnu_hash_ + 16 + 8 * uint64_t(bloom_size);
      uint64_t boff = locate(buckets, 4 * uint64_t(nbuckets), true, "the GNU hash buckets");
      uint64_t chains = buckets + 4 * uint64_t(nbuckets);
      // Chains are consecutive runs of the chain array, each ending at an entry with the low bit
      // set; the last symbol is the end of the chain that starts last. One scan, never per bucket.
      uint64_t start = 0;
      for (uint32_t i = 0; i < nbuckets; ++i) {
        uint32_t s = read<uint32_t>(boff + 4 * uint64_t(i), "a GNU hash bucket");
        if (s == 0) continue;
        if (s < symoffset) fail("a GNU hash bucket points below the hashed symbols");
        start = std::max<uint64_t>(start, s);
      }
      uint64_t last = symoffset;
      for (uint64_t k = start; start != 0; ++k) {
        uint64_t e = locate(chains + 4 * (k - symoffset), 4, true, "a GNU hash chain");
        if (read<uint32_t>(e, "a GNU hash chain") & 1) {
          last = k + 1;
          break;
        }
      }
      count = std::max(count, last);
    }
    if (count == 0) fail("cannot tell how many dynamic symbols there are (no hash table)");
    return count;
  }

  void symbols() {
    nsyms_ = symbol_count();
    uint64_t off = locate(symtab_, nsyms_ * sizeof(Elf64_Sym), true, "the dynamic symbol table");
    for (uint64_t i = 0; i < nsyms_; ++i) {
      Elf64_Sym s = read<Elf64_Sym>(off + i * sizeof(Elf64_Sym), "a dynamic symbol");
      if (s.st_name >= strsz_)
        fail(str("dynamic symbol ", i, " has its name outside the string table"));
      if (s.st_shndx == SHN_UNDEF || s.st_shndx == SHN_ABS) continue;
      if (ELF64_ST_TYPE(s.st_info) == STT_TLS) continue;  // an offset into the TLS block
      std::string name(b_.data() + strtab_off_ + s.st_name);
      if (ELF64_ST_TYPE(s.st_info) == STT_OBJECT) {
        // Data objects: where their bytes are in the file, for readers of constant data.
        locate(s.st_value, s.st_size, false, "a data symbol");
        if (std::optional<uint64_t> at = find(s.st_value, s.st_size, true); at && s.st_size > 0)
          info_.objects[name] = {*at, s.st_size};
      } else {
        locate(s.st_value, 1, false, "a symbol");
      }
    }
  }

  void relocation_table(uint64_t addr, uint64_t size, const char* what) {
    if (size == 0) return;
    if (size % sizeof(Elf64_Rela) != 0) fail(str(what, " size is not a whole number of entries"));
    uint64_t off = locate(addr, size, true, what);
    for (uint64_t i = 0; i < size / sizeof(Elf64_Rela); ++i) {
      Elf64_Rela r = read<Elf64_Rela>(off + i * sizeof(Elf64_Rela), what);
      locate(r.r_offset, 8, false, "a relocation's target");
      if (ELF64_R_SYM(r.r_info) >= nsyms_)
        fail(str("a relocation names symbol ", ELF64_R_SYM(r.r_info), " of ", nsyms_));
    }
  }

  void relocations() {
    relocation_table(rela_, relasz_, "the relocation table");
    relocation_table(jmprel_, pltrelsz_, "the PLT relocation table");
  }

  void versions() {
    if (versym_) locate(versym_, 2 * nsyms_, true, "the symbol version table");
    // Each entry takes at least 16 bytes of the file: more entries than that is corruption (and
    // would make the walks below long).
    if (verneednum_ > b_.size() / 16 || verdefnum_ > b_.size() / 16)
      fail("implausible number of symbol version entries");
    uint64_t at = verneed_;
    for (uint64_t i = 0; i < verneednum_; ++i) {
      uint64_t off = locate(at, sizeof(Elf64_Verneed), true, "a version requirement");
      Elf64_Verneed v = read<Elf64_Verneed>(off, "a version requirement");
      if (v.vn_file >= strsz_)
        fail("a version requirement's file name lies outside the string table");
      uint64_t aux = at + v.vn_aux;
      for (uint16_t k = 0; k < v.vn_cnt; ++k) {
        Elf64_Vernaux a =
            read<Elf64_Vernaux>(locate(aux, sizeof(Elf64_Vernaux), true, "a version requirement"),
                                "a version requirement");
        if (a.vna_name >= strsz_) fail("a version name lies outside the string table");
        aux += a.vna_next;
      }
      at += v.vn_next;
    }
    at = verdef_;
    for (uint64_t i = 0; i < verdefnum_; ++i) {
      uint64_t off = locate(at, sizeof(Elf64_Verdef), true, "a version definition");
      Elf64_Verdef v = read<Elf64_Verdef>(off, "a version definition");
      uint64_t aux = at + v.vd_aux;
      for (uint16_t k = 0; k < v.vd_cnt; ++k) {
        Elf64_Verdaux a =
            read<Elf64_Verdaux>(locate(aux, sizeof(Elf64_Verdaux), true, "a version definition"),
                                "a version definition");
        if (a.vda_name >= strsz_) fail("a version name lies outside the string table");
        aux += a.vda_next;
      }
      at += v.vd_next;
    }
  }

  const std::string& b_;
  const std::string& origin_;
  SharedLibraryInfo& info_;
  Elf64_Ehdr eh_{};
  std::vector<Elf64_Phdr> loads_;
  Elf64_Phdr dyn_{};
  uint64_t dynsym_section_count_ = 0;
  bool has_strtab_ = false, has_symtab_ = false;
  uint64_t strtab_ = 0, strsz_ = 0, strtab_off_ = 0, symtab_ = 0, hash_ = 0, gnu_hash_ = 0;
  uint64_t rela_ = 0, relasz_ = 0, jmprel_ = 0, pltrelsz_ = 0;
  uint64_t init_array_ = 0, init_arraysz_ = 0, fini_array_ = 0, fini_arraysz_ = 0;
  uint64_t versym_ = 0, verneed_ = 0, verneednum_ = 0, verdef_ = 0, verdefnum_ = 0;
  uint64_t nsyms_ = 0;
};

}  // namespace

std::optional<std::string> SharedLibraryInfo::string_object(const std::string& bytes,
                                                            const std::string& name) const {
  auto it = objects.find(name);
  if (it == objects.end()) return std::nullopt;
  const char* p = bytes.data() + it->second.first;
  size_t len = strnlen(p, it->second.second);
  if (len == it->second.second) return std::nullopt;  // not a NUL-terminated string
  return std::string(p, len);
}

SharedLibraryInfo check_shared_library(const std::string& bytes, const std::string& origin) {
  SharedLibraryInfo info;
  Checker(bytes, origin, info).run();
  return info;
}

}  // namespace tessera
