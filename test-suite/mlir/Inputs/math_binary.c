#include "zyg_memref.h"
#define CASE(n) double f_##n(double, double); zyg_grad2 d_##n(double, double);
CASE(powf) CASE(atan2) CASE(copysign) CASE(fma) CASE(fpowi) CASE(max)
typedef double (*fn)(double, double);
typedef zyg_grad2 (*gn)(double, double);
static const struct { const char *name; fn f; gn g; } cases[] = {
    {"powf", f_powf, d_powf}, {"atan2", f_atan2, d_atan2}, {"copysign", f_copysign, d_copysign},
    {"fma", f_fma, d_fma}, {"fpowi", f_fpowi, d_fpowi}, {"max", f_max, d_max},
};

int main(void) {
    /* x > 0 for powf; x != y for the max/min family. */
    double xs[] = {0.7, 1.9, 2.6}, ys[] = {1.3, -0.4, 0.8};
    for (unsigned k = 0; k < sizeof cases / sizeof cases[0]; k++)
        for (int i = 0; i < 3; i++) {
            zyg_grad2 g = cases[k].g(xs[i], ys[i]);
            printf("%s: ", cases[k].name);
            CHECK_FD2(cases[k].f, xs[i], ys[i], g);
        }
    return zyg_report();
}
