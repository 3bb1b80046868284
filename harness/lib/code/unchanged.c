/* Kernels' machine code compared between modules (unchanged.h). */
#include "unchanged.h"

#include <elf.h>
#include <nettle/sha2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "disasm.h"

void kg_code_name_normal(const char *name, char *out) {
  static const char *const k_tag[] = {"_GLOBAL__N__", "_INTERNAL_"};
  memcpy(out, name, strlen(name) + 1);
  for (size_t t = 0; t < sizeof k_tag / sizeof *k_tag; t++) {
    size_t a = strlen(k_tag[t]);
    for (char *p = strstr(out, k_tag[t]); p; p = strstr(p + 1, k_tag[t]))
      if (strspn(p + a, "0123456789abcdef") >= 8) memset(p + a, 'x', 8);
  }
}

uint64_t kg_code_name_hash(const char *name) {
  char *nn = malloc(strlen(name) + 1);
  if (!nn) return 0; /* out of memory: a hash no kernel has, so nothing is proven */
  kg_code_name_normal(name, nn);
  uint64_t h = 0xcbf29ce484222325ull;
  for (const unsigned char *p = (const unsigned char *)nn; *p; p++) h = (h ^ *p) * 0x100000001b3ull;
  free(nn);
  return h;
}

/* Hashes name in its normal form (above). */
static void hash_name(struct sha256_ctx *c, const char *name) {
  size_t n = strlen(name) + 1;
  char small[512], *nn = n <= sizeof small ? small : malloc(n);
  if (!nn) { /* out of memory: the name as it is (a different digest can only refuse) */
    sha256_update(c, n, (const uint8_t *)name);
    return;
  }
  kg_code_name_normal(name, nn);
  sha256_update(c, n, (const uint8_t *)nn);
  if (nn != small) free(nn);
}

/* One cubin, its headers checked once. */
typedef struct image {
  const unsigned char *b;
  size_t len;
  const Elf64_Shdr *sh;
  size_t nsh;
  const char *names; /* .shstrtab */
  size_t names_len;
  const Elf64_Sym *sym; /* .symtab, with its string table */
  size_t nsym;
  const char *symnames;
  size_t symnames_len;
} image;

static int in_bounds(const image *im, uint64_t off, uint64_t size) { return off <= im->len && size <= im->len - off; }

static const char *sec_name(const image *im, size_t i) {
  uint32_t at = im->sh[i].sh_name;
  return at < im->names_len && memchr(im->names + at, 0, im->names_len - at) ? im->names + at : NULL;
}

static const char *sym_name(const image *im, size_t i) {
  if (i >= im->nsym) return "?";
  uint32_t at = im->sym[i].st_name;
  return at < im->symnames_len && memchr(im->symnames + at, 0, im->symnames_len - at) ? im->symnames + at : "?";
}

/* The headers, every section in bounds, the names and the symbol table. 0 or -1. */
static int open_image(image *im, const void *elf, size_t len) {
  memset(im, 0, sizeof *im);
  im->b = elf, im->len = len;
  const Elf64_Ehdr *h = elf;
  if (len < sizeof *h || memcmp(h->e_ident, ELFMAG, SELFMAG) || h->e_ident[EI_CLASS] != ELFCLASS64 ||
      h->e_shentsize != sizeof(Elf64_Shdr) || (uintptr_t)elf % 8 || h->e_shoff % 8 ||
      !in_bounds(im, h->e_shoff, (uint64_t)h->e_shnum * sizeof(Elf64_Shdr)) || h->e_shstrndx >= h->e_shnum)
    return -1;
  im->sh = (const Elf64_Shdr *)(im->b + h->e_shoff), im->nsh = h->e_shnum;
  for (size_t i = 0; i < im->nsh; i++)
    if (im->sh[i].sh_type != SHT_NOBITS && !in_bounds(im, im->sh[i].sh_offset, im->sh[i].sh_size)) return -1;
  const Elf64_Shdr *ns = &im->sh[h->e_shstrndx];
  im->names = (const char *)im->b + ns->sh_offset, im->names_len = ns->sh_size;
  for (size_t i = 0; i < im->nsh; i++) {
    const Elf64_Shdr *s = &im->sh[i];
    if (s->sh_type != SHT_SYMTAB || s->sh_link >= im->nsh || s->sh_offset % 8) continue;
    im->sym = (const Elf64_Sym *)(im->b + s->sh_offset), im->nsym = s->sh_size / sizeof(Elf64_Sym);
    im->symnames = (const char *)im->b + im->sh[s->sh_link].sh_offset, im->symnames_len = im->sh[s->sh_link].sh_size;
  }
  return 0;
}

/* The kernel whose own section this is: the name after one of the per-function prefixes. */
static const char *owner(const char *sec) {
  static const char *const k_prefix[] = {
      ".text.",         ".nv.info.",          ".nv.shared.",        ".nv.local.",     ".rel.text.",
      ".rela.text.",    ".nv.constant0.",     ".nv.constant1.",     ".nv.constant2.", ".nv.constant3.",
      ".nv.constant4.", ".rel.nv.constant0.", ".rela.nv.constant0."};
  for (size_t k = 0; sec && k < sizeof k_prefix / sizeof *k_prefix; k++)
    if (!strncmp(sec, k_prefix[k], strlen(k_prefix[k]))) return sec + strlen(k_prefix[k]);
  return NULL;
}

/* Debug sections (line tables, their relocations) and the symbol tables,
 * whose content is read through the sections that use it. */
static int is_debug(const char *sec) {
  const char *s = !strncmp(sec, ".rela.", 6) ? sec + 5 : !strncmp(sec, ".rel.", 5) ? sec + 4 : sec;
  return !strncmp(s, ".debug", 6) || !strncmp(s, ".nv_debug", 9) || !strncmp(sec, ".symtab", 7) ||
         !strcmp(sec, ".strtab") || !strcmp(sec, ".shstrtab");
}

/* A kernel: a .text.K section whose unit also gives K a parameter bank. */
static int is_kernel(const image *im, const char *k) {
  for (size_t i = 0; i < im->nsh; i++) {
    const char *n = sec_name(im, i);
    if (n && !strncmp(n, ".nv.constant0.", 14) && !strcmp(n + 14, k)) return 1;
  }
  return 0;
}

/* A symbol as text that does not depend on its index (which moves when the
 * unit gains a function): its name, or a section symbol's section name. */
static void hash_sym(struct sha256_ctx *c, const image *im, uint32_t i) {
  const char *n = i < im->nsym ? sym_name(im, i) : NULL;
  if (i < im->nsym && ELF64_ST_TYPE(im->sym[i].st_info) == STT_SECTION && im->sym[i].st_shndx < im->nsh)
    n = sec_name(im, im->sym[i].st_shndx);
  if (n) return hash_name(c, n);
  uint8_t raw[5] = {0xff, (uint8_t)i, (uint8_t)(i >> 8), (uint8_t)(i >> 16), (uint8_t)(i >> 24)};
  sha256_update(c, sizeof raw, raw);
}

/* The kernel (one of k) a symbol index names, or NULL. */
static const char *kernel_of(const image *im, uint32_t i, char **k, size_t nk) {
  const char *n = i < im->nsym && ELF64_ST_TYPE(im->sym[i].st_info) == STT_FUNC ? sym_name(im, i) : NULL;
  for (size_t j = 0; n && j < nk; j++)
    if (!strcmp(n, k[j])) return k[j];
  return NULL;
}

/* The attributes whose value opens with a symbol index: a kernel's
 * parameter bank, frame, stack sizes and register count. */
static int is_sym_attr(unsigned attr) {
  static const unsigned char k_attr[] = {0x0a, 0x11, 0x12, 0x23, 0x2f};
  return memchr(k_attr, (int)attr, sizeof k_attr) != NULL;
}

/* An attribute section (.nv.info, .nv.info.K) record by record: 4 bytes of
 * format, attribute and value, or (format 4) a size and that many bytes,
 * whose first word is a symbol index where the record is about a function
 * (is_sym_attr; any other record is hashed as it is). Such a
 * record is hashed with the symbol as text, and under the kernel it names:
 * for == NULL takes the records about no kernel of k, for == K those about
 * K, all != 0 every record. A section that does not parse is hashed whole. */
static void hash_info(struct sha256_ctx *c, const image *im, const unsigned char *b, size_t len, char **k, size_t nk,
                      const char *for_k, int all) {
  size_t o = 0;
  while (o + 4 <= len && (b[o] != 4 || o + 4 + (b[o + 2] | b[o + 3] << 8) <= len))
    o += b[o] == 4 ? 4 + (b[o + 2] | b[o + 3] << 8) : 4;
  if (o != len) {
    sha256_update(c, len, b);
    return;
  }
  for (o = 0; o < len;) {
    size_t size = b[o] == 4 ? 4 + (size_t)(b[o + 2] | b[o + 3] << 8) : 4;
    uint32_t sym = 0;
    int has_sym = b[o] == 4 && size >= 8 && is_sym_attr(b[o + 1]);
    if (has_sym) memcpy(&sym, b + o + 4, 4);
    const char *about = has_sym ? kernel_of(im, sym, k, nk) : NULL;
    if (all || about == for_k) {
      sha256_update(c, has_sym ? 4 : size, b + o);
      if (has_sym) hash_sym(c, im, sym), sha256_update(c, size - 8, b + o + 8);
    }
    o += size;
  }
}

/* A section into the digest: its name, type, flags and size, then its
 * bytes; relocations entry by entry and the call graph pair by pair with the
 * symbols as text; attributes record by record (hash_info). */
static void hash_section(struct sha256_ctx *c, const image *im, size_t i, const char *name, char **k, size_t nk,
                         const char *for_k) {
  const Elf64_Shdr *s = &im->sh[i];
  int info = !strncmp(name, ".nv.info", 8) && im->sym;
  /* an attribute section's size counts records of other kernels too: its records say what matters */
  uint64_t head[4] = {s->sh_type, s->sh_flags, info ? 0 : s->sh_size, s->sh_entsize};
  hash_name(c, name);
  sha256_update(c, sizeof head, (const uint8_t *)head);
  if (s->sh_type == SHT_NOBITS) return;
  const unsigned char *b = im->b + s->sh_offset;
  int rela = s->sh_type == SHT_RELA;
  if (!im->sym) {
    sha256_update(c, s->sh_size, b);
  } else if (info) {
    hash_info(c, im, b, s->sh_size, k, nk, for_k, name[8] == '.');
  } else if (!strcmp(name, ".nv.callgraph")) {
    for (size_t off = 0; off + 4 <= s->sh_size; off += 4) {
      uint32_t v;
      memcpy(&v, b + off, 4);
      hash_sym(c, im, v);
    }
  } else if (s->sh_type == SHT_REL || rela) {
    size_t step = rela ? sizeof(Elf64_Rela) : sizeof(Elf64_Rel);
    for (size_t off = 0; off + step <= s->sh_size; off += step) {
      Elf64_Rela r = {0};
      memcpy(&r, b + off, step);
      uint64_t e[3] = {r.r_offset, ELF64_R_TYPE(r.r_info), (uint64_t)r.r_addend};
      sha256_update(c, sizeof e, (const uint8_t *)e);
      hash_sym(c, im, (uint32_t)ELF64_R_SYM(r.r_info));
    }
  } else {
    sha256_update(c, s->sh_size, b);
  }
}

/* The records of the unit's .nv.info about kernel for_k. */
static void hash_info_section(struct sha256_ctx *c, const image *im, size_t i, char **k, size_t nk, const char *for_k) {
  if (im->sym && im->sh[i].sh_type != SHT_NOBITS)
    hash_info(c, im, im->b + im->sh[i].sh_offset, im->sh[i].sh_size, k, nk, for_k, 0);
}

/* The unit's shared part: every section that is no kernel's own (k: the
 * kernels' names, nk of them), but for notes (the toolkit's name and command
 * line: provenance, not code) and the records of .nv.info about a kernel. */
static void hash_shared(struct sha256_ctx *c, const image *im, char **k, size_t nk) {
  for (size_t i = 1; i < im->nsh; i++) {
    const char *n = sec_name(im, i), *o = n ? owner(n) : NULL;
    int own = 0;
    for (size_t j = 0; o && !own && j < nk; j++) own = !strcmp(o, k[j]);
    if (n && !own && !is_debug(n) && im->sh[i].sh_type != SHT_NOTE) hash_section(c, im, i, n, k, nk, NULL);
  }
}

/* The device runtime's launch functions (a launch from the device). */
static int is_device_launch(const char *n) {
  static const char *const k_names[] = {"cudaLaunchDevice", "cudaGetParameterBuffer", "__cudaCDP"};
  for (size_t k = 0; k < sizeof k_names / sizeof *k_names; k++)
    if (strstr(n, k_names[k])) return 1;
  return 0;
}

/* The kernel among k a section symbol's .text section is, or NULL. */
static const char *text_kernel(const image *im, uint32_t s, char **k, size_t nk) {
  const Elf64_Sym *y = &im->sym[s];
  const char *n = ELF64_ST_TYPE(y->st_info) == STT_SECTION && y->st_shndx < im->nsh ? sec_name(im, y->st_shndx) : NULL;
  for (size_t j = 0; n && !strncmp(n, ".text.", 6) && j < nk; j++)
    if (!strcmp(n + 6, k[j])) return k[j];
  return NULL;
}

/* Why the relocations of section i let the code run something its digest
 * leaves out, for kernel self (NULL: code the unit shares): another kernel,
 * the device runtime's launches, a symbol outside the unit. "" when none. */
static void check_refs(const image *im, size_t i, char **k, size_t nk, const char *self, char *why, size_t len) {
  const Elf64_Shdr *s = &im->sh[i];
  size_t step = s->sh_type == SHT_RELA ? sizeof(Elf64_Rela) : sizeof(Elf64_Rel);
  for (size_t off = 0; !why[0] && off + step <= s->sh_size; off += step) {
    Elf64_Rela r = {0};
    memcpy(&r, im->b + s->sh_offset + off, step);
    uint32_t y = (uint32_t)ELF64_R_SYM(r.r_info);
    if (!y) continue;
    if (!im->sym || y >= im->nsym) {
      snprintf(why, len, "a relocation against a symbol kgate cannot read");
      break;
    }
    const char *n = sym_name(im, y), *kern = kernel_of(im, y, k, nk);
    if (!kern) kern = text_kernel(im, y, k, nk);
    if (is_device_launch(n))
      snprintf(why, len, "it launches kernels from the device (%.60s): their code is not in its digest", n);
    else if (im->sym[y].st_shndx == SHN_UNDEF)
      snprintf(why, len, "it refers to %.60s, outside its unit", n);
    else if (kern && (!self || strcmp(kern, self)))
      snprintf(why, len, "it refers to the kernel %.60s (a launch from the device)", kern);
  }
}

/* A function's own constant bank other than its parameters (0) and its
 * literals (2): data, not code. */
static int is_data_bank(const char *n) {
  const char *bank = strstr(n, ".nv.constant");
  return bank && bank[12] != '0' && bank[12] != '2';
}

/* Data the host may set (cudaMemcpyToSymbol), of which the digest holds
 * only the initial image: __device__ variables (.nv.global, .nv.global.init)
 * and __constant__ ones (a constant bank no kernel owns: bank 3, and bank 4
 * with the addresses of __device__ data), with their relocations. */
static int is_data(const char *n) {
  if (!strncmp(n, ".rela.", 6)) n += 5;
  else if (!strncmp(n, ".rel.", 5)) n += 4;
  return !strncmp(n, ".nv.global", 10) || (!strncmp(n, ".nv.constant", 12) && (!owner(n) || is_data_bank(n)));
}

/* Sections a unit may share that hold neither code nor data: the
 * attributes, the call graph, the toolkit's compatibility and prototype
 * records, the linker's actions. */
static int is_known_shared(const char *n) {
  static const char *const k_names[] = {".nv.info", ".nv.compat", ".nv.callgraph", ".nv.prototype", ".nv.rel.action"};
  for (size_t k = 0; k < sizeof k_names / sizeof *k_names; k++)
    if (!strcmp(n, k_names[k])) return 1;
  return 0;
}

/* A section of variables a probe can read by name: __device__ ones
 * (.nv.global, .nv.global.init) and the unit's __constant__ bank (3). */
static int is_variables(const char *n) {
  return !strcmp(n, ".nv.global") || !strcmp(n, ".nv.global.init") || !strcmp(n, ".nv.constant3");
}

/* Data whose contents follow from the digest once the variables are read:
 * those sections, the bank of their addresses (4, filled from relocations
 * by symbol name, which the digest holds), and their relocations. */
static int is_readable_data(const char *n) {
  if (!strncmp(n, ".rela.", 6)) n += 5;
  else if (!strncmp(n, ".rel.", 5)) n += 4;
  return is_variables(n) || !strcmp(n, ".nv.constant4");
}

/* A variable's place in its section, for the walk below. */
typedef struct span {
  uint64_t at, end;
} span;

static int by_start(const void *pa, const void *pb) {
  const span *a = pa, *b = pb;
  return a->at < b->at ? -1 : a->at > b->at;
}

/* Whether the variables (n spans, sorted here) cover a section of size
 * bytes and alignment align: every byte is in one of them, or padding that
 * aligns the next (a gap shorter than the alignment its start has) or ends
 * the section (shorter than the section's alignment). */
static int covered(span *v, size_t n, uint64_t size, uint64_t align) {
  qsort(v, n, sizeof *v, by_start);
  uint64_t pos = 0;
  for (size_t j = 0; j < n; j++) {
    uint64_t a = v[j].at & (~v[j].at + 1); /* the largest power of two dividing at; 0 at 0 */
    if (v[j].at > pos && (!a || v[j].at - pos >= a || a > (align ? align : 1))) return 0;
    if (v[j].end > pos) pos = v[j].end;
  }
  return pos >= size || size - pos < (align ? align : 1);
}

/* The unit's variables the host may set (data), each a symbol of a
 * variables section: names into *out (malloc'ed, *nout of them). A
 * variables section that its symbols do not cover (covered above) leaves
 * out NULL and says why. 0, or -1 out of memory. */
static int unit_variables(const image *im, char ***out, int *nout, char *why, size_t len) {
  *out = NULL, *nout = 0;
  char **names = calloc(im->nsym + 1, sizeof *names);
  span *v = calloc(im->nsym + 1, sizeof *v);
  int n = 0, oom = !names || !v;
  for (size_t i = 1; i < im->nsh && !why[0] && !oom; i++) {
    const char *sn = sec_name(im, i);
    if (!sn || !is_variables(sn)) continue;
    size_t nv = 0;
    for (size_t y = 0; y < im->nsym; y++) {
      const Elf64_Sym *sym = &im->sym[y];
      if (sym->st_shndx != i || ELF64_ST_TYPE(sym->st_info) != STT_OBJECT || !sym->st_size) continue;
      if (sym->st_value > im->sh[i].sh_size || sym->st_size > im->sh[i].sh_size - sym->st_value) {
        snprintf(why, len, "a variable of its unit lies outside its section (%.60s)", sym_name(im, y));
        break;
      }
      v[nv++] = (span){sym->st_value, sym->st_value + sym->st_size};
      if (!(names[n] = strdup(sym_name(im, y)))) {
        oom = 1;
        break;
      }
      n++;
    }
    if (!why[0] && !oom && !covered(v, nv, im->sh[i].sh_size, im->sh[i].sh_addralign))
      snprintf(why, len, "its unit holds __device__ or __constant__ data no variable names (%.24s)", sn);
  }
  free(v);
  if (why[0] || oom) {
    for (int j = 0; j < n; j++) free(names[j]);
    free(names);
    return oom ? -1 : 0;
  }
  *out = names, *nout = n;
  return 0;
}

/* Why no kernel of the unit is proven by its digest ("" when they may be):
 * data the host may set that a probe cannot read by name, a section the
 * proof does not know, shared code that refers to a kernel or outside the
 * unit. Data a probe can read is the caller's (unit_variables). */
static void unit_unproven(const image *im, char **k, size_t nk, char *why, size_t len) {
  const char *data = NULL; /* a __device__ section named first: the clearer reason */
  for (size_t i = 1; i < im->nsh; i++) {
    const char *n = sec_name(im, i);
    if (n && is_data(n) && !is_readable_data(n) &&
        (!data || (strstr(n, ".nv.global") && !strstr(data, ".nv.global"))))
      data = n;
  }
  if (data)
    snprintf(why, len,
             "its unit holds __device__ or __constant__ data (%.24s) the host may set; the digest holds only its "
             "initial image",
             data + (!strncmp(data, ".rela.", 6) ? 5 : !strncmp(data, ".rel.", 5) ? 4 : 0));
  for (size_t i = 1; !why[0] && i < im->nsh; i++) {
    const char *n = sec_name(im, i), *o = n ? owner(n) : NULL;
    int own = 0;
    for (size_t j = 0; o && !own && j < nk; j++) own = !strcmp(o, k[j]);
    if (own || (n && is_debug(n)) || im->sh[i].sh_type == SHT_NOTE) continue;
    if (!n)
      snprintf(why, len, "its unit has a section without a name");
    else if (!o && !is_known_shared(n) && !is_readable_data(n))
      snprintf(why, len, "its unit has a section the proof does not know (%.80s)", n);
    else if (im->sh[i].sh_type == SHT_REL || im->sh[i].sh_type == SHT_RELA)
      check_refs(im, i, k, nk, NULL, why, len);
  }
}

/* Why kernel self is not proven by its digest, from its own sections: a
 * constant bank other than its parameters (0) and literals (2), relocations
 * as check_refs says. "" when none. */
static void kernel_unproven(const image *im, char **k, size_t nk, const char *self, char *why, size_t len) {
  for (size_t i = 1; !why[0] && i < im->nsh; i++) {
    const char *n = sec_name(im, i), *o = n ? owner(n) : NULL;
    if (!o || strcmp(o, self)) continue;
    if (is_data_bank(n)) snprintf(why, len, "it has a constant bank of data the host may set (%.80s)", n);
    else if (im->sh[i].sh_type == SHT_REL || im->sh[i].sh_type == SHT_RELA)
      check_refs(im, i, k, nk, self, why, len);
  }
}

/* A copy of the unit's variables for one kernel (NULL, 0 for none). 0, or -1 out of memory. */
static int copy_data(kg_code_fn *f, char *const *data, int ndata) {
  if (!ndata) return 0;
  if (!(f->data = calloc((size_t)ndata, sizeof *f->data))) return -1;
  for (int j = 0; j < ndata; j++)
    if (!(f->data[f->ndata++] = strdup(data[j]))) return -1;
  return 0;
}

static int add_fn(kg_code_table *t, const char *name, int arch, const unsigned char sha[32], const char *unproven,
                  char *const *data, int ndata) {
  uint64_t h = kg_code_name_hash(name);
  for (size_t i = 0; i < t->n; i++) {
    kg_code_fn *f = &t->f[i];
    if (f->arch != arch || f->hash != h) continue;
    f->twice |= memcmp(f->sha, sha, 32) != 0;
    if (!f->unproven[0]) snprintf(f->unproven, sizeof f->unproven, "%s", unproven);
    return 0;
  }
  if (t->n == t->cap) {
    size_t cap = t->cap ? 2 * t->cap : 64;
    kg_code_fn *f = realloc(t->f, cap * sizeof *f);
    if (!f) return -1;
    t->f = f, t->cap = cap;
  }
  kg_code_fn *f = &t->f[t->n];
  memset(f, 0, sizeof *f);
  if (!(f->name = strdup(name))) return -1;
  f->arch = arch, f->hash = h;
  memcpy(f->sha, sha, 32);
  snprintf(f->unproven, sizeof f->unproven, "%s", unproven);
  t->n++;
  return copy_data(f, data, ndata);
}

int kg_code_table_add_cubin(kg_code_table *t, const void *elf, size_t len, int arch, const char *what) {
  image im;
  if (open_image(&im, elf, len)) return snprintf(t->why, sizeof t->why, "%.200s: not a readable cubin", what), -1;
  char **k = calloc(im.nsh + 1, sizeof *k);
  size_t nk = 0;
  for (size_t i = 0; k && i < im.nsh; i++) {
    const char *n = sec_name(&im, i);
    if (n && !strncmp(n, ".text.", 6) && is_kernel(&im, n + 6)) k[nk++] = (char *)n + 6;
  }
  int rc = k ? 0 : -1;
  struct sha256_ctx shared;
  sha256_init(&shared);
  char unit_why[160] = "", **data = NULL;
  int ndata = 0;
  if (k) hash_shared(&shared, &im, k, nk), unit_unproven(&im, k, nk, unit_why, sizeof unit_why);
  if (k && !unit_why[0] && unit_variables(&im, &data, &ndata, unit_why, sizeof unit_why)) rc = -1;
  for (size_t j = 0; !rc && j < nk; j++) {
    struct sha256_ctx c = shared; /* the unit's shared part, then the kernel's own sections */
    for (size_t i = 1; i < im.nsh; i++) {
      const char *n = sec_name(&im, i), *o = n ? owner(n) : NULL;
      if (o && !strcmp(o, k[j]))
        hash_section(&c, &im, i, n, k, nk, k[j]);
      else if (n && !strcmp(n, ".nv.info"))
        hash_info_section(&c, &im, i, k, nk, k[j]);
    }
    unsigned char d[32];
    sha256_digest(&c, sizeof d, d);
    char why[160];
    snprintf(why, sizeof why, "%s", unit_why);
    if (!why[0]) kernel_unproven(&im, k, nk, k[j], why, sizeof why);
    rc = add_fn(t, k[j], arch, d, why, data, ndata);
  }
  for (int j = 0; j < ndata; j++) free(data[j]);
  free(data);
  free(k);
  if (rc)
    snprintf(t->why, sizeof t->why, "out of memory");
  else
    t->units++;
  return rc;
}

typedef struct module_ctx {
  kg_code_table *t;
  const char *path;
} module_ctx;

/* cuobjdump names a cubin <file>.<k>.sm_<arch>.cubin. */
static int add_extracted(const char *name, const void *image, size_t len, void *ctx) {
  module_ctx *m = ctx;
  const char *a = strstr(name, ".sm_");
  int arch = a ? atoi(a + 4) : 0;
  char what[1200];
  snprintf(what, sizeof what, "%s (%s)", m->path, name);
  if (arch <= 0) return snprintf(m->t->why, sizeof m->t->why, "%.200s: no architecture in the name", what), -1;
  /* the read buffer is malloc'ed: aligned for the ELF structures */
  return kg_code_table_add_cubin(m->t, image, len, arch, what);
}

int kg_code_table_add_module(kg_code_table *t, const char *path) {
  module_ctx m = {t, path};
  char err[600];
  kg_dis_rc rc = kg_dis_cubins(path, add_extracted, &m, err, sizeof err);
  if (rc != KG_DIS_OK && !t->why[0]) snprintf(t->why, sizeof t->why, "%.290s", err);
  return rc == KG_DIS_OK ? 0 : -1;
}

void kg_code_table_free(kg_code_table *t) {
  for (size_t i = 0; i < t->n; i++) {
    for (int j = 0; j < t->f[i].ndata; j++) free(t->f[i].data[j]);
    free(t->f[i].data);
    free(t->f[i].name);
  }
  free(t->f);
  memset(t, 0, sizeof *t);
}

/* The kernel of t with this name hash at arch; NULL with why. */
static const kg_code_fn *find(const kg_code_table *t, uint64_t h, int arch, const char *side, char *buf, size_t len) {
  const kg_code_fn *hit = NULL;
  for (size_t i = 0; i < t->n; i++) {
    if (t->f[i].hash != h || t->f[i].arch != arch) continue;
    if (hit) return snprintf(buf, len, "not proven: two kernels of the %s share a name hash", side), NULL;
    hit = &t->f[i];
  }
  if (!hit)
    snprintf(buf, len, "not proven: a launched kernel has no sm_%d machine code in the %s module%s%.100s", arch, side,
             t->why[0] ? ": " : "", t->why);
  else if (hit->twice)
    snprintf(buf, len, "not proven: %.80s is in two units of the %s with different code", hit->name, side), hit = NULL;
  return hit;
}

/* Whether the probe read every variable of f's unit (read: the normal
 * names' hashes); 0 with why in buf. Each one found is added to *alike once
 * (kernels of one unit share its variables), when alike is given. */
static int data_read(const kg_code_fn *f, const char *side, const kg_code_read *read, kg_code_read *alike, char *buf,
                     size_t len) {
  for (int j = 0; j < f->ndata; j++) {
    uint64_t h = kg_code_name_hash(f->data[j]);
    int seen = 0, counted = 0;
    for (int i = 0; read && !seen && i < read->n; i++) seen = read->hash[i] == h;
    for (int i = 0; seen && alike && !counted && i < alike->n; i++) counted = alike->hash[i] == h;
    if (seen && alike && !counted && alike->n < KG_CODE_MAX_READ) alike->hash[alike->n++] = h;
    if (!seen)
      return snprintf(buf, len,
                      "not proven: %.60s in the %s: its unit's __device__ or __constant__ data (%.60s) was not read",
                      f->name, side, f->data[j]),
             0;
  }
  return 1;
}

int kg_code_same(const kg_code_table *head, const kg_code_table *base, int arch, const uint64_t *kernels, int nkernels,
                 int nlaunches, const kg_code_read *read, char *buf, size_t len) {
  struct sha256_ctx all;
  sha256_init(&all);
  if (nkernels <= 0) return snprintf(buf, len, "not proven: no kernel launched"), 0;
  kg_code_read alike = {0}; /* the variables the launched kernels' units hold, each once */
  for (int k = 0; k < nkernels; k++) {
    const kg_code_fn *h = find(head, kernels[k], arch, "head", buf, len);
    const kg_code_fn *b = h ? find(base, kernels[k], arch, "base", buf, len) : NULL;
    if (!b) return 0;
    if (memcmp(h->sha, b->sha, 32)) return snprintf(buf, len, "machine code differs: %.100s", h->name), 0;
    const kg_code_fn *u = h->unproven[0] ? h : b->unproven[0] ? b : NULL;
    if (u)
      return snprintf(buf, len, "not proven: %.60s in the %s: %s", u->name, u == h ? "head" : "base", u->unproven), 0;
    if (!data_read(h, "head", read, &alike, buf, len) || !data_read(b, "base", read, NULL, buf, len)) return 0;
    sha256_update(&all, 32, h->sha);
  }
  unsigned char d[32];
  sha256_digest(&all, sizeof d, d);
  char hex[17], vars[48] = "";
  for (int i = 0; i < 8; i++) snprintf(hex + 2 * i, 3, "%02x", d[i]);
  if (alike.n) snprintf(vars, sizeof vars, ", %d variable%s read alike", alike.n, alike.n == 1 ? "" : "s");
  snprintf(buf, len, "same machine code (sm_%d, SHA-256 %s) and launches: %d kernel%s, %d launch%s%s", arch, hex,
           nkernels, nkernels == 1 ? "" : "s", nlaunches, nlaunches == 1 ? "" : "es", vars);
  return 1;
}

int kg_code_digest(const kg_code_table *t, int arch, const uint64_t *kernels, int nkernels, const char *launches,
                   const kg_code_read *read, char hex[65], char *buf, size_t len) {
  struct sha256_ctx all;
  sha256_init(&all);
  hex[0] = '\0';
  if (nkernels <= 0) return snprintf(buf, len, "not proven: no kernel launched"), 0;
  sha256_update(&all, strlen(launches), (const uint8_t *)launches);
  for (int k = 0; k < nkernels; k++) {
    const kg_code_fn *f = find(t, kernels[k], arch, "head", buf, len);
    if (!f) return 0;
    if (f->unproven[0]) return snprintf(buf, len, "not proven: %.60s: %s", f->name, f->unproven), 0;
    if (!data_read(f, "head", read, NULL, buf, len)) return 0;
    sha256_update(&all, 32, f->sha);
  }
  unsigned char d[32];
  sha256_digest(&all, sizeof d, d);
  for (int i = 0; i < 32; i++) snprintf(hex + 2 * i, 3, "%02x", d[i]);
  return 1;
}
