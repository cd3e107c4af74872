#include "zyg_memref.h"
#define H 3
#define I 4
#define M2 double *, double *, int64_t, int64_t, int64_t, int64_t, int64_t
#define M1 double *, double *, int64_t, int64_t, int64_t
double loss(M2, M1, M1, M1, double t);
void dloss(M2, M2, M1, M1, M1, M1, M1, double t);

static double w1[H * I] = {0.2, -0.4, 0.6, 0.1, -0.3, 0.5, 0.2, -0.7, 0.8, 0.1, -0.2, 0.4};
static double b1[H] = {0.1, -0.2, 0.05}, w2[H] = {0.9, -1.1, 0.6}, x[I] = {1.0, -0.5, 0.3, 0.8}, t = 0.25;
static double f(void) { return loss(ARGS2(w1, H, I), ARGS1(b1, H), ARGS1(w2, H), ARGS1(x, I), t); }

int main(void) {
    double dw1[H * I] = {0}, db1[H] = {0}, dw2[H] = {0};
    dloss(ARGS2(w1, H, I), ARGS2(dw1, H, I), ARGS1(b1, H), ARGS1(db1, H), ARGS1(w2, H), ARGS1(dw2, H), ARGS1(x, I), t);
    check_array("dw1", dw1, f, w1, H * I);
    check_array("db1", db1, f, b1, H);
    check_array("dw2", dw2, f, w2, H);
    return zyg_report();
}
