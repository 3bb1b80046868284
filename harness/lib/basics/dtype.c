#include "dtype.h"

#include <math.h>
#include <string.h>

#include "inputgen.h"

static const kg_dtype_info k_dtypes[KG_NDTYPES] = {
    [KG_I32] = {"i32", 4, 4, 0, 0, 0.0},
    [KG_I64] = {"i64", 8, 8, 0, 0, 0.0},
    [KG_F32] = {"f32", 4, 4, 1, 24, 0x1p-24},
    [KG_F64] = {"f64", 8, 8, 1, 53, 0x1p-53},
    [KG_F16] = {"f16", 2, 4, 1, 24, 0x1p-24},
    [KG_BF16] = {"bf16", 2, 4, 1, 24, 0x1p-24},
};

const kg_dtype_info *kg_dtype_get(kg_dtype dt) {
  return (unsigned)dt < KG_NDTYPES ? &k_dtypes[dt] : NULL;
}

int kg_dtype_parse(const char *name, kg_dtype *dt) {
  for (int i = 0; i < KG_NDTYPES; i++)
    if (strcmp(name, k_dtypes[i].name) == 0) {
      *dt = (kg_dtype)i;
      return 0;
    }
  return -1;
}

/* The conversions to 16 bits are the generator's (kernels/inputgen.h). */
uint16_t kg_f16_from_float(float f) { return kg_gen_f16_from_float(f); }

float kg_f16_to_float(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1fu;
  uint32_t mant = h & 0x3ffu;
  if (exp == 0) { /* zero or subnormal: exact in float */
    float v = (float)mant * 0x1p-24f;
    return sign ? -v : v;
  }
  if (exp == 31) return kg_gen_f32_from_bits(sign | 0x7f800000u | (mant << 13));
  return kg_gen_f32_from_bits(sign | ((exp - 15 + 127) << 23) | (mant << 13));
}

uint16_t kg_bf16_from_float(float f) { return kg_gen_bf16_from_float(f); }

float kg_bf16_to_float(uint16_t b) { return kg_gen_f32_from_bits((uint32_t)b << 16); }

static inline double load_one(kg_dtype dt, const void *buf, size_t i) {
  switch (dt) {
  case KG_I32: return ((const int32_t *)buf)[i];
  case KG_I64: return (double)((const int64_t *)buf)[i];
  case KG_F32: return ((const float *)buf)[i];
  case KG_F64: return ((const double *)buf)[i];
  case KG_F16: return kg_f16_to_float(((const uint16_t *)buf)[i]);
  case KG_BF16: return kg_bf16_to_float(((const uint16_t *)buf)[i]);
  default: return NAN;
  }
}

double kg_dtype_load(kg_dtype dt, const void *buf, size_t i) { return load_one(dt, buf, i); }

/* One loop per dtype, so the dtype is decided once and not per element. */
void kg_dtype_load_many(kg_dtype dt, const void *buf, size_t count, double *out) {
  switch (dt) {
  case KG_I32: for (size_t i = 0; i < count; i++) out[i] = load_one(KG_I32, buf, i); break;
  case KG_I64: for (size_t i = 0; i < count; i++) out[i] = load_one(KG_I64, buf, i); break;
  case KG_F32: for (size_t i = 0; i < count; i++) out[i] = load_one(KG_F32, buf, i); break;
  case KG_F64: for (size_t i = 0; i < count; i++) out[i] = load_one(KG_F64, buf, i); break;
  case KG_F16: for (size_t i = 0; i < count; i++) out[i] = load_one(KG_F16, buf, i); break;
  case KG_BF16: for (size_t i = 0; i < count; i++) out[i] = load_one(KG_BF16, buf, i); break;
  default: for (size_t i = 0; i < count; i++) out[i] = NAN;
  }
}

int64_t kg_dtype_load_int(kg_dtype dt, const void *buf, size_t i) {
  return dt == KG_I64 ? ((const int64_t *)buf)[i] : dt == KG_I32 ? ((const int32_t *)buf)[i] : 0;
}

double kg_dtype_store(kg_dtype dt, void *buf, size_t i, double v) {
  switch (dt) {
  case KG_I32: ((int32_t *)buf)[i] = (int32_t)v; break;
  case KG_I64: ((int64_t *)buf)[i] = (int64_t)v; break;
  case KG_F32:
  case KG_F64:
  case KG_F16:
  case KG_BF16: kg_gen_put_float(dt, buf, i, v); break;
  default: return NAN;
  }
  return kg_dtype_load(dt, buf, i);
}
