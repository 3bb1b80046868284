/* The input of kgate lint as SASS text: a listing that cuobjdump -sass or
 * nvdisasm -c printed is read as it is; machine code (a cubin, or a host
 * library or executable holding a fatbin, like a kernel module) goes through
 * the CUDA toolkit's disassembler: nvdisasm -c -g for a cubin (it prints the
 * source lines of -lineinfo), cuobjdump -sass otherwise. */
#ifndef KG_DISASM_H
#define KG_DISASM_H

#include <stddef.h>

/* Where the tools are looked for: $KGATE_CUOBJDUMP and $KGATE_NVDISASM,
 * then PATH, $CUDA_HOME/bin, /usr/local/cuda/bin. */
typedef enum kg_dis_rc {
  KG_DIS_OK = 0,
  KG_DIS_BAD = 2,    /* unreadable, empty, or the disassembler failed on it */
  KG_DIS_NO_TOOL = 3 /* machine code, and no disassembler found */
} kg_dis_rc;

/* The SASS text of path in *text (malloc'ed, NUL-terminated), its length in
 * *len. path must be a regular file (a FIFO, a device or a directory is
 * refused without blocking), and the text, the file's or the tool's, holds
 * no control byte but tabs and line ends and is UTF-8. On failure a one-line
 * reason naming path in err. */
kg_dis_rc kg_dis_read(const char *path, char **text, size_t *len, char *err, size_t errlen);

/* Each cubin a host binary (a kernel module) carries, taken out with
 * cuobjdump -xelf all: each(name, image, len, ctx) per cubin in name order
 * (cuobjdump names them <file>.<k>.sm_<arch>.cubin); a non-zero return stops.
 * KG_DIS_OK, KG_DIS_BAD (the tool failed, a cubin unreadable, each said no)
 * or KG_DIS_NO_TOOL, with err naming path. */
typedef int (*kg_dis_cubin_fn)(const char *name, const void *image, size_t len, void *ctx);
kg_dis_rc kg_dis_cubins(const char *path, kg_dis_cubin_fn each, void *ctx, char *err, size_t errlen);

#endif
