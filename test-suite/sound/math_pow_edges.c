// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// RUN: %grad-run -O3 %s %t.native -march=native | FileCheck %s
// RUN: %grad-run -O3 %s %t.vec -march=native -fno-math-errno | FileCheck %s
// RUN: grep -q "@llvm.pow.v" %t.vec.O3.ll
// RUN: grep -q "@llvm.powi.v" %t.vec.O3.ll
// CHECK-NOT: FAIL
// CHECK: ALL OK
// pow and powi at their edge points. A polynomial sum c[k] * pow(x, k) at x = 0: the k = 0
// term's rule once computed 0 * pow(0, -1) = 0 * inf = NaN, where the derivative is c[1].
// Then pow(x, y) elementwise over arrays (vectorised at -O3 -march=native -fno-math-errno
// into llvm.pow.v4f64, whose rule runs on vectors): y = 0 gives 0 even for x = 0 or NaN
// (pow(x, 0) = 1); x = 0 gives 1 for y = 1, 0 for y > 1, 0 for 0 < y < 1 (the root
// convention, as sqrt), -inf for y = -1; negative bases with integer exponents are exact;
// d/dy is 0 for x <= 0. powi (__builtin_powi) the same, with a loop-invariant exponent so
// that it vectorises too; and the float and long double spellings.
#include "zyg_check.h"
#include "zyg_edge.h"

double poly(double x, const double *c, int n) {
    double s = 0;
    for (int k = 0; k < n; k++)
        s += c[k] * pow(x, k);
    return s;
}

double poly_powi(double x, const double *c, int n) {
    double s = 0;
    for (int k = 0; k < n; k++)
        s += c[k] * __builtin_powi(x, k);
    return s;
}

enum { N = 12 };
static const double W[N] = {1.5, -0.5, 2.0, 0.75, 1.0, -1.25, 0.5, 3.0, -2.0, 1.0, 0.25, 1.75};

/* Elementwise, so that the loops vectorise (a sum would be an ordered reduction); the
 * gradient requests seed y's shadow with W. */
void pow_map(double *y, const double *x, const double *e, int n) {
    for (int i = 0; i < n; i++)
        y[i] = pow(x[i], e[i]);
}

void powi_map(double *y, const double *x, int k, int n) {
    for (int i = 0; i < n; i++)
        y[i] = __builtin_powi(x[i], k);
}

static void seed(double *dy) {
    for (int i = 0; i < N; i++)
        dy[i] = W[i];
}

float powf_at(float x, float y) { return powf(x, y); }
float powif_at(float x, int k) { return __builtin_powif(x, k); }
long double powl_at(long double x, long double y) { return powl(x, y); }
long double __enzyme_autodiffl(void *, ...);

static const double C[6] = {0.5, -1.25, 2.0, 0.75, -0.5, 0.125};
static double poly_at(double x) { return poly(x, C, 6); }

static void check_polynomials(void) {
    double xs[] = {0.0, -0.0, -2.0, 1.5};
    for (int i = 0; i < 4; i++) {
        double x = xs[i], want = 0, p = 1;
        for (int k = 1; k < 6; k++, p *= x)
            want += k * C[k] * p;
        double g = __enzyme_autodiff((void *)poly, x, enzyme_const, C, enzyme_const, 6);
        double gi = __enzyme_autodiff((void *)poly_powi, x, enzyme_const, C, enzyme_const, 6);
        check_edge("poly pow d/dx", g, want);
        check_edge("poly powi d/dx", gi, want);
        check_close("poly pow fd", g, FD1(poly_at, x), FD_RTOL, FD_ATOL);
    }
}

static void check_pow_arrays(void) {
    /* (x, y, d/dx, d/dy) per element; log 2 for d/dy at (2, 3) is 8 log 2. */
    const double L2 = log(2.0);
    double pts[N][4] = {
        {0.0, 0.0, 0.0, 0.0},   {0.0, 1.0, 1.0, 0.0},      {-0.0, 2.0, 0.0, 0.0},
        {0.0, 0.5, 0.0, 0.0},   {-2.0, 3.0, 12.0, 0.0},    {-2.0, 2.0, -4.0, 0.0},
        {NAN, 0.0, 0.0, 0.0},   {2.0, 3.0, 12.0, 8 * L2},  {-1.5, 0.0, 0.0, 0.0},
        {0.0, 3.5, 0.0, 0.0},   {2.0, 0.0, 0.0, L2},       {-0.5, -1.0, -4.0, 0.0},
    };
    double x[N], e[N], y[N], dx[N] = {0}, de[N] = {0}, dy[N];
    for (int i = 0; i < N; i++)
        x[i] = pts[i][0], e[i] = pts[i][1];
    seed(dy);
    __enzyme_autodiff((void *)pow_map, enzyme_dup, y, dy, enzyme_dup, x, dx, enzyme_dup, e, de, enzyme_const, N);
    for (int i = 0; i < N; i++) {
        char label[64];
        snprintf(label, sizeof label, "pow(%g, %g) d/dx", pts[i][0], pts[i][1]);
        check_edge(label, dx[i], W[i] * pts[i][2]);
        snprintf(label, sizeof label, "pow(%g, %g) d/dy", pts[i][0], pts[i][1]);
        check_edge(label, de[i], W[i] * pts[i][3]);
    }
    /* The pole: pow(x, -1) at 0 is -inf, said so. */
    double x0[N] = {0}, dx0[N] = {0}, e0[N], de0[N] = {0};
    for (int i = 0; i < N; i++)
        e0[i] = -1.0, x0[i] = i + 1.0;
    x0[3] = 0.0;
    seed(dy);
    __enzyme_autodiff((void *)pow_map, enzyme_dup, y, dy, enzyme_dup, x0, dx0, enzyme_dup, e0, de0, enzyme_const, N);
    check_edge("pow(0, -1) d/dx", dx0[3], -INFINITY * (W[3] > 0 ? 1 : -1));
    check_edge("pow(2, -1) d/dx", dx0[1], W[1] * -0.25);
}

static void check_powi_arrays(void) {
    double x[N];
    for (int i = 0; i < N; i++)
        x[i] = i % 3 == 0 ? 0.0 : (i % 3 == 1 ? -2.0 : 1.5);
    int ks[] = {0, 1, 2, 3, -2};
    for (int j = 0; j < 5; j++) {
        int k = ks[j];
        double y[N], dy[N], dx[N] = {0};
        seed(dy);
        __enzyme_autodiff((void *)powi_map, enzyme_dup, y, dy, enzyme_dup, x, dx, enzyme_const, k, enzyme_const, N);
        for (int i = 0; i < N; i++) {
            double want = k == 0 ? 0.0 : k * __builtin_powi(x[i], k - 1);
            char label[64];
            snprintf(label, sizeof label, "powi(%g, %d) d/dx", x[i], k);
            check_edge(label, dx[i], W[i] * want);
        }
    }
}

static void check_spellings(void) {
    check_edge("powf(0, 0)", __enzyme_autodifff((void *)powf_at, 0.0f, enzyme_const, 0.0f), 0.0);
    check_edge("powf(0, 1)", __enzyme_autodifff((void *)powf_at, 0.0f, enzyme_const, 1.0f), 1.0);
    check_edge("powf(0, 2)", __enzyme_autodifff((void *)powf_at, 0.0f, enzyme_const, 2.0f), 0.0);
    check_edge("powf(0, 0.5)", __enzyme_autodifff((void *)powf_at, 0.0f, enzyme_const, 0.5f), 0.0);
    check_edge("powf(-2, 3)", __enzyme_autodifff((void *)powf_at, -2.0f, enzyme_const, 3.0f), 12.0);
    check_edge("powif(0, 0)", __enzyme_autodifff((void *)powif_at, 0.0f, enzyme_const, 0), 0.0);
    check_edge("powif(0, 1)", __enzyme_autodifff((void *)powif_at, 0.0f, enzyme_const, 1), 1.0);
    check_edge("powl(0, 0)", (double)__enzyme_autodiffl((void *)powl_at, 0.0L, enzyme_const, 0.0L), 0.0);
    check_edge("powl(0, 1)", (double)__enzyme_autodiffl((void *)powl_at, 0.0L, enzyme_const, 1.0L), 1.0);
    check_edge("powl(-2, 3)", (double)__enzyme_autodiffl((void *)powl_at, -2.0L, enzyme_const, 3.0L), 12.0);
}

int main(void) {
    check_polynomials();
    check_pow_arrays();
    check_powi_arrays();
    check_spellings();
    return zyg_report();
}
