#include "zyg_memref.h"
#define VIEW double *, double *, int64_t, int64_t, int64_t
double dot(VIEW, VIEW, double s);
double ddot(VIEW, VIEW, VIEW, VIEW, double s);

/* a: 4 contiguous values; b: every other of 9, from index 1. */
static double a[4] = {0.5, -1.2, 2.0, 0.3}, b[9] = {9, 1.1, 9, 0.4, 9, -0.7, 9, 1.6, 9}, s = 0.8;
static double loss(void) { return dot(a, a, 0, 4, 1, b, b, 1, 4, 2, s); }

int main(void) {
    double da[4] = {0}, db[9] = {0};
    double ds = ddot(a, a, 0, 4, 1, da, da, 0, 4, 1, b, b, 1, 4, 2, db, db, 1, 4, 2, s);
    check_close("ds", ds, fd_at(loss, &s), FD_RTOL, FD_ATOL);
    check_array("da", da, loss, a, 4);
    check_array("db", db, loss, b, 9);  /* zero where the view does not look */
    return zyg_report();
}
