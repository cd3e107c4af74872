#include "zyg_memref.h"
#define M 3
#define K 4
#define N 2
typedef memref2_f64 m2;
void _mlir_ciface_matmul(m2 *a, m2 *b, m2 *c);
void _mlir_ciface_dmatmul(m2 *a, m2 *da, m2 *b, m2 *db, m2 *c, m2 *dc);
double _mlir_ciface_frobenius_of_product(m2 *a, m2 *b);
void _mlir_ciface_dfrobenius_of_product(m2 *a, m2 *da, m2 *b, m2 *db);

static double A[M * K] = {0.2, -0.5, 1.0, 0.3, 0.7, 0.1, -0.4, 0.9, -1.1, 0.6, 0.25, -0.3};
static double B[K * N] = {0.5, -0.2, 0.8, 1.3, -0.6, 0.4, 0.1, -0.9};
static double W[M * N] = {1.0, -0.5, 0.25, 2.0, -1.5, 0.75};  /* seed of C */

static double weighted(void) {  /* sum W .* (A B) */
    double C[M * N];
    m2 a = MEMREF2(A, M, K), b = MEMREF2(B, K, N), c = MEMREF2(C, M, N);
    _mlir_ciface_matmul(&a, &b, &c);
    double l = 0;
    for (int i = 0; i < M * N; i++)
        l += W[i] * C[i];
    return l;
}
static double frob(void) {
    m2 a = MEMREF2(A, M, K), b = MEMREF2(B, K, N);
    return _mlir_ciface_frobenius_of_product(&a, &b);
}

int main(void) {
    double C[M * N], dC[M * N], dA[M * K] = {0}, dB[K * N] = {0};
    memcpy(dC, W, sizeof dC);
    m2 a = MEMREF2(A, M, K), da = MEMREF2(dA, M, K), b = MEMREF2(B, K, N), db = MEMREF2(dB, K, N);
    m2 c = MEMREF2(C, M, N), dc = MEMREF2(dC, M, N);
    _mlir_ciface_dmatmul(&a, &da, &b, &db, &c, &dc);
    check_array("dA", dA, weighted, A, M * K);
    check_array("dB", dB, weighted, B, K * N);
    for (int i = 0; i < M * N; i++)
        check_close("dC consumed", dC[i], 0, 0, 0);

    memset(dA, 0, sizeof dA);
    memset(dB, 0, sizeof dB);
    _mlir_ciface_dfrobenius_of_product(&a, &da, &b, &db);
    check_array("dA frob", dA, frob, A, M * K);
    check_array("dB frob", dB, frob, B, K * N);
    return zyg_report();
}
