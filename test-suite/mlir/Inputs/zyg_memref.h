/* C views of MLIR memrefs for the drivers of test-suite/mlir: descriptors as MLIR's C
 * interface passes them (`llvm.emit_c_interface`, `_mlir_ciface_NAME(desc *...)`), the
 * exploded form the default calling convention passes (`NAME(allocated, aligned, offset,
 * sizes..., strides...)`), and finite differences with respect to an array element. */
#ifndef ZYG_MEMREF_H
#define ZYG_MEMREF_H
#include <stdint.h>
#include <string.h>
#include "zyg_check.h"

typedef struct { double *allocated, *aligned; int64_t offset; } memref0_f64;
typedef struct { double *allocated, *aligned; int64_t offset, sizes[1], strides[1]; } memref1_f64;
typedef struct { double *allocated, *aligned; int64_t offset, sizes[2], strides[2]; } memref2_f64;
typedef struct { float *allocated, *aligned; int64_t offset, sizes[1], strides[1]; } memref1_f32;

/* A contiguous vector or row-major matrix. */
#define MEMREF1(p, n) ((memref1_f64){(p), (p), 0, {(n)}, {1}})
#define MEMREF2(p, r, c) ((memref2_f64){(p), (p), 0, {(r), (c)}, {(c), 1}})
/* The same, exploded into arguments: allocated, aligned, offset, sizes, strides. */
#define ARGS1(p, n) (p), (p), (int64_t)0, (int64_t)(n), (int64_t)1
#define ARGS2(p, r, c) (p), (p), (int64_t)0, (int64_t)(r), (int64_t)(c), (int64_t)(c), (int64_t)1

/* Central difference of loss() with respect to *p (restored afterwards). */
__attribute__((unused)) static double fd_at(double (*loss)(void), double *p) {
    double s = *p, h = ZYG_STEP(s);
    *p = s + h;
    double up = loss();
    *p = s - h;
    double down = loss();
    *p = s;
    return (up - down) / (2 * h);
}

/* got[i] against the central difference of loss() in p[i], for each i < n. */
__attribute__((unused)) static void check_array(const char *label, const double *got, double (*loss)(void), double *p, int n) {
    char name[64];
    for (int i = 0; i < n; i++) {
        snprintf(name, sizeof name, "%s[%d]", label, i);
        check_close(name, got[i], fd_at(loss, &p[i]), FD_RTOL, FD_ATOL);
    }
}
#endif
