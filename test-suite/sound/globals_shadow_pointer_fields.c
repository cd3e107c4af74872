// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// RUN: %grad-run -O3 %s %t.native -march=native | FileCheck %s
// Layers held in a global array of structs with a weight pointer each, set by main (so
// their shadows are set by main too: the program points each shadow's pointer field at a
// gradient buffer). Every gradient call zeroes the shadow globals' adjoints; it once zeroed
// their pointer fields as well, so the weights' gradients were lost (0, exit status 0).
// Eight layers: the shadow is zeroed in a loop over its elements (four or fewer unrolled).
// CHECK-NOT: FAIL
// CHECK: ALL OK
#include "zyg_check.h"
#define L 8
struct layer { double bias; double *w; };
struct layer net[L];
extern struct layer __zyg_shadow_net[L];
struct pair { double scale; double *w; };
struct pair two[2];
extern struct pair __zyg_shadow_two[2];

double f(double x) {
    double h = x;
    for (int l = 0; l < L; l++) h = tanh(net[l].w[0] * h + net[l].bias);
    return two[0].scale * h + two[1].scale * two[1].w[0] * h;
}

static double f_of_w(const double *w, void *u) {
    double *x = u, saved[L];
    for (int l = 0; l < L; l++) { saved[l] = net[l].w[0]; net[l].w[0] = w[l]; }
    double y = f(*x);
    for (int l = 0; l < L; l++) net[l].w[0] = saved[l];
    return y;
}

int main(void) {
    double w[L], dw[L], w2 = 0.75, dw2;
    for (int l = 0; l < L; l++) {
        w[l] = 0.9 - 0.1 * l;
        net[l] = (struct layer){0.05 * l, &w[l]};
        __zyg_shadow_net[l].w = &dw[l];
    }
    two[0] = (struct pair){1.5, NULL};
    two[1] = (struct pair){-0.5, &w2};
    __zyg_shadow_two[1].w = &dw2;
    double xs[] = {0.3, -0.7};
    for (int k = 0; k < 2; k++) {
        for (int l = 0; l < L; l++) dw[l] = 0;
        dw2 = 0;
        double x = xs[k];
        __enzyme_autodiff((void *)f, x);
        check_array_fd("df/dw", f_of_w, &x, w, L, dw);
        double h = x;
        for (int l = 0; l < L; l++) h = tanh(w[l] * h + net[l].bias);
        check_close("df/dw2", dw2, -0.5 * h, EXACT_RTOL, EXACT_ATOL);
        check_close("df/dscale0", __zyg_shadow_two[0].scale, h, EXACT_RTOL, EXACT_ATOL);
        check_close("df/dbias0 is this call's", __zyg_shadow_net[0].bias != 0, 1, 0, 0);
        if (__zyg_shadow_net[3].w != &dw[3]) printf("FAIL a shadow's pointer field was not kept\n");
    }
    return zyg_report();
}
