/* A kernel module's fingerprint (fprint.h). */
#include "fprint.h"

#include <elf.h>
#include <nettle/sha2.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "disasm.h"
#include "fileio.h"
#include "unchanged.h"

enum { MODULE_LIMIT = 1 << 30 }; /* a kernel module is megabytes; a gigabyte is not one */

/* The section named name of a 64-bit ELF image (readable() checked it), or NULL. */
static const Elf64_Shdr *section(const unsigned char *b, const char *name) {
  const Elf64_Ehdr *h = (const Elf64_Ehdr *)b;
  if (h->e_shstrndx >= h->e_shnum) return NULL;
  const Elf64_Shdr *sh = (const Elf64_Shdr *)(b + h->e_shoff), *ns = &sh[h->e_shstrndx];
  for (size_t i = 0; i < h->e_shnum; i++) {
    if (sh[i].sh_name >= ns->sh_size) continue;
    const char *n = (const char *)b + ns->sh_offset + sh[i].sh_name;
    if (memchr(n, 0, ns->sh_size - sh[i].sh_name) && !strcmp(n, name) && sh[i].sh_type != SHT_NOBITS) return &sh[i];
  }
  return NULL;
}

/* Whether b is a 64-bit ELF image whose section headers and sections lie inside it. */
static int readable(const unsigned char *b, size_t len) {
  const Elf64_Ehdr *h = (const Elf64_Ehdr *)b;
  if (len < sizeof *h || memcmp(h->e_ident, ELFMAG, SELFMAG) || h->e_ident[EI_CLASS] != ELFCLASS64 ||
      h->e_shentsize != sizeof(Elf64_Shdr) || h->e_shoff > len ||
      (uint64_t)h->e_shnum * sizeof(Elf64_Shdr) > len - h->e_shoff || h->e_shoff % 8)
    return 0;
  const Elf64_Shdr *sh = (const Elf64_Shdr *)(b + h->e_shoff);
  for (size_t i = 0; i < h->e_shnum; i++)
    if (sh[i].sh_type != SHT_NOBITS && (sh[i].sh_offset > len || sh[i].sh_size > len - sh[i].sh_offset)) return 0;
  return 1;
}

/* A section into the digest by name and bytes ("absent" when the image has none). */
static void hash_section(struct sha256_ctx *c, const unsigned char *b, const char *name) {
  const Elf64_Shdr *s = section(b, name);
  uint64_t size = s ? s->sh_size : UINT64_MAX;
  sha256_update(c, strlen(name) + 1, (const uint8_t *)name);
  sha256_update(c, sizeof size, (const uint8_t *)&size);
  if (s) sha256_update(c, s->sh_size, b + s->sh_offset);
}

static int kept(const kg_fprint_opts *o, const char *name) {
  if (!o->nmatch) return 1;
  for (size_t k = 0; k < o->nmatch; k++)
    if (strstr(name, o->match[k])) return 1;
  return 0;
}

static int by_hash(const void *a, const void *b) {
  const kg_code_fn *x = *(const kg_code_fn *const *)a, *y = *(const kg_code_fn *const *)b;
  return x->hash < y->hash ? -1 : x->hash > y->hash;
}

/* The kept kernels at o->arch, by name hash: the hash and the digest of each. */
static int hash_kernels(struct sha256_ctx *c, const kg_code_table *t, const kg_fprint_opts *o, const char *path,
                        char *err, size_t errlen) {
  const kg_code_fn **f = calloc(t->n + 1, sizeof *f);
  size_t n = 0;
  if (!f) return snprintf(err, errlen, "%s: out of memory", path), -1;
  for (size_t i = 0; i < t->n; i++)
    if (t->f[i].arch == o->arch && kept(o, t->f[i].name)) f[n++] = &t->f[i];
  qsort(f, n, sizeof *f, by_hash);
  for (size_t i = 0; i < n; i++) {
    sha256_update(c, sizeof f[i]->hash, (const uint8_t *)&f[i]->hash);
    sha256_update(c, sizeof f[i]->sha, f[i]->sha);
  }
  free(f);
  if (!n)
    return snprintf(err, errlen, "%s: no kernel with sm_%d machine code%s", path, o->arch,
                    o->nmatch ? " whose name holds a --kernel-match pattern" : ""),
           -1;
  return 0;
}

int kg_fprint_module(const char *path, const kg_fprint_opts *o, char hex[65], char *how, size_t howlen, char *err,
                     size_t errlen) {
  char *text = NULL;
  size_t len = 0;
  if (kg_read_file(path, MODULE_LIMIT, &text, &len, err, errlen)) return -1;
  const unsigned char *b = (const unsigned char *)text;
  if (!readable(b, len)) {
    free(text);
    return snprintf(err, errlen, "%s: not a 64-bit ELF library (a kernel module)", path), -1;
  }
  struct sha256_ctx c;
  sha256_init(&c);
  static const char *const k_host[] = {".text", ".rodata", ".data", ".data.rel.ro"};
  for (size_t k = 0; k < sizeof k_host / sizeof *k_host; k++) hash_section(&c, b, k_host[k]);
  int rc = 0;
  if (!section(b, ".nv_fatbin")) {
    snprintf(how, howlen, "no device code");
  } else {
    kg_code_table t = {0};
    if (kg_code_table_add_module(&t, path) == 0) {
      snprintf(how, howlen, "sm_%d kernels by cuobjdump", o->arch);
      rc = hash_kernels(&c, &t, o, path, err, errlen);
    } else if (strstr(t.why, "not found")) { /* no cuobjdump here: the fatbin whole */
      snprintf(how, howlen, "the whole fatbin (no cuobjdump)");
      hash_section(&c, b, ".nv_fatbin");
    } else {
      rc = -1;
      snprintf(err, errlen, "%.300s", t.why);
    }
    kg_code_table_free(&t);
  }
  free(text);
  if (rc) return -1;
  unsigned char d[SHA256_DIGEST_SIZE];
  sha256_digest(&c, sizeof d, d);
  for (size_t i = 0; i < sizeof d; i++) snprintf(hex + 2 * i, 3, "%02x", d[i]);
  return 0;
}
