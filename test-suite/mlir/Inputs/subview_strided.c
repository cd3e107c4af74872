#include "zyg_memref.h"
#define R 3
#define C 5
double windows(double *, double *, int64_t, int64_t, int64_t, int64_t, int64_t, double *, double *, int64_t, int64_t,
               int64_t);
void dwindows(double *, double *, int64_t, int64_t, int64_t, int64_t, int64_t, double *, double *, int64_t, int64_t,
              int64_t, int64_t, int64_t, double *, double *, int64_t, int64_t, int64_t, double *, double *, int64_t,
              int64_t, int64_t);
double diag_product(double *, double *, int64_t, int64_t, int64_t, int64_t, int64_t);
void ddiag_product(double *, double *, int64_t, int64_t, int64_t, int64_t, int64_t, double *, double *, int64_t,
                   int64_t, int64_t, int64_t, int64_t);

static double a[R * C] = {0.1, 0.5, -0.3, 0.8, 0.2, -0.6, 0.4, 0.9, -0.2, 0.7, 0.3, -0.8, 0.6, 0.05, -0.4};
static double w[3] = {0.7, -1.3, 0.9};
static double m[16] = {1.2, 9, 9, 9, 9, -0.7, 9, 9, 9, 9, 1.5, 9, 9, 9, 9, 0.9};
static double loss(void) { return windows(ARGS2(a, R, C), ARGS1(w, 3)); }
static double dloss(void) { return diag_product(ARGS2(m, 4, 4)); }

int main(void) {
    double da[R * C] = {0}, dw[3] = {0}, dm[16] = {0};
    dwindows(ARGS2(a, R, C), ARGS2(da, R, C), ARGS1(w, 3), ARGS1(dw, 3));
    check_array("da", da, loss, a, R * C);  /* columns 0 and 4 stay zero */
    check_array("dw", dw, loss, w, 3);
    ddiag_product(ARGS2(m, 4, 4), ARGS2(dm, 4, 4));
    check_array("dm", dm, dloss, m, 16);
    return zyg_report();
}
