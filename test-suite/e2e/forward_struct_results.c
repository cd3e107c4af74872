// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// RUN: %grad-run -O3 %s %t.native -march=native | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
/* `__enzyme_fwddiff` of a function that returns a struct: the request returns the struct of
 * the result's tangents, as Enzyme does, however the ABI passes it: in two registers
 * ({double, double}), as a vector (two floats), as {<2 x float>, float}, with an integer
 * beside a double (its tangent is 0), through memory (`sret`: three doubles, an array of
 * four), and in vector mode (`enzyme_width`, 2 and 3 lanes: a struct of one tangent struct
 * per lane). The function's work has loops, calls and memory. Each tangent is checked
 * against central differences of the same component along the same direction. */
#include "zyg_check.h"

extern int enzyme_width, enzyme_dupv;

typedef struct { double a, b; } pair;                /* two SSE registers */
typedef struct { float a, b; } fpair;                /* <2 x float> */
typedef struct { float a, b, c; } ftriple;           /* { <2 x float>, float } */
typedef struct { double v; int n; } counted;         /* { double, i32 } */
typedef struct { double x, y, z; } triple;           /* sret */
typedef struct { double v[4]; } quad;                /* sret, an array inside */
typedef struct { pair lane[2]; } pair2;              /* width 2 */
typedef struct { triple lane[3]; } triple3;          /* width 3, sret */

pair __enzyme_fwddiff_pair(void *, ...) __asm__("__enzyme_fwddiff");
fpair __enzyme_fwddiff_fpair(void *, ...) __asm__("__enzyme_fwddiff");
ftriple __enzyme_fwddiff_ftriple(void *, ...) __asm__("__enzyme_fwddiff");
counted __enzyme_fwddiff_counted(void *, ...) __asm__("__enzyme_fwddiff");
triple __enzyme_fwddiff_triple(void *, ...) __asm__("__enzyme_fwddiff");
quad __enzyme_fwddiff_quad(void *, ...) __asm__("__enzyme_fwddiff");
pair2 __enzyme_fwddiff_pair2(void *, ...) __asm__("__enzyme_fwddiff");
triple3 __enzyme_fwddiff_triple3(void *, ...) __asm__("__enzyme_fwddiff");

__attribute__((noinline)) static double poly(double x, int n) {
    double s = 0.0, p = 1.0;
    for (int k = 0; k < n; k++) {
        s += p / (k + 1);
        p *= x;
    }
    return s;
}

static pair f_pair(double x, double y) {
    pair r = {x * y + sin(x), poly(y, 5) - x * x};
    return r;
}
static fpair f_fpair(float x, float y) {
    fpair r = {x * y, expf(x) - y * y};
    return r;
}
static ftriple f_ftriple(float x, float y) {
    ftriple r = {x + y, x * y, sinf(x) * y};
    return r;
}
static counted f_counted(double x, int n) {
    counted r = {poly(x, n), n + 1};
    return r;
}
static triple f_triple(const double *p, double s) {
    triple r = {0, 0, 0};
    for (int i = 0; i < 3; i++) {
        r.x += p[i] * s;
        r.y += p[i] * p[i];
    }
    r.z = exp(r.x / 4) * s;
    return r;
}
static quad f_quad(const double *p, int n) {
    quad q;
    for (int k = 0; k < 4; k++) {
        double s = 0;
        for (int i = 0; i < n; i++)
            s += pow(p[i], k + 1);
        q.v[k] = s;
    }
    return q;
}

/* the component `which` of each function, for central differences along a direction */
static double c_pair(double x, double y, int which) { pair r = f_pair(x, y); return which ? r.b : r.a; }
static double c_fpair(double x, double y, int which) { fpair r = f_fpair(x, y); return which ? r.b : r.a; }
static double c_ftriple(double x, double y, int which) {
    ftriple r = f_ftriple(x, y);
    return which == 0 ? r.a : which == 1 ? r.b : r.c;
}
static double c_triple(const double *p, double s, int which) {
    triple r = f_triple(p, s);
    return which == 0 ? r.x : which == 1 ? r.y : r.z;
}

/* d/dt c(x + t dx, y + t dy) at t = 0 */
static double fd_dir2(double (*c)(double, double, int), double x, double y, double dx, double dy, int which, double h) {
    return (c(x + h * dx, y + h * dy, which) - c(x - h * dx, y - h * dy, which)) / (2 * h);
}
static double fd_triple(const double *p, const double *dp, double s, double ds, int which) {
    double h = 1e-6, up[3], down[3];
    for (int i = 0; i < 3; i++) {
        up[i] = p[i] + h * dp[i];
        down[i] = p[i] - h * dp[i];
    }
    return (c_triple(up, s + h * ds, which) - c_triple(down, s - h * ds, which)) / (2 * h);
}

int main(void) {
    const double pts[3][2] = {{0.3, 1.7}, {-1.2, 0.4}, {2.1, -0.8}};
    const double dirs[2][2] = {{1.0, 0.0}, {0.6, -1.3}};
    for (int i = 0; i < 3; i++) {
        double x = pts[i][0], y = pts[i][1];
        for (int d = 0; d < 2; d++) {
            double dx = dirs[d][0], dy = dirs[d][1];
            pair t = __enzyme_fwddiff_pair((void *)f_pair, x, dx, y, dy);
            check_close("pair.a", t.a, fd_dir2(c_pair, x, y, dx, dy, 0, 1e-6), FD_RTOL, FD_ATOL);
            check_close("pair.b", t.b, fd_dir2(c_pair, x, y, dx, dy, 1, 1e-6), FD_RTOL, FD_ATOL);

            fpair tf = __enzyme_fwddiff_fpair((void *)f_fpair, (float)x, (float)dx, (float)y, (float)dy);
            check_close("fpair.a", tf.a, fd_dir2(c_fpair, x, y, dx, dy, 0, 1e-3), FLOAT_RTOL, FLOAT_ATOL);
            check_close("fpair.b", tf.b, fd_dir2(c_fpair, x, y, dx, dy, 1, 1e-3), FLOAT_RTOL, FLOAT_ATOL);

            ftriple t3 = __enzyme_fwddiff_ftriple((void *)f_ftriple, (float)x, (float)dx, (float)y, (float)dy);
            check_close("ftriple.a", t3.a, fd_dir2(c_ftriple, x, y, dx, dy, 0, 1e-3), FLOAT_RTOL, FLOAT_ATOL);
            check_close("ftriple.b", t3.b, fd_dir2(c_ftriple, x, y, dx, dy, 1, 1e-3), FLOAT_RTOL, FLOAT_ATOL);
            check_close("ftriple.c", t3.c, fd_dir2(c_ftriple, x, y, dx, dy, 2, 1e-3), FLOAT_RTOL, FLOAT_ATOL);

            /* vector mode, 2 lanes: lane l along dirs[l] (the same for every point) */
            pair2 t2 = __enzyme_fwddiff_pair2((void *)f_pair, enzyme_width, 2, x, dirs[0][0], dirs[1][0], y, dirs[0][1],
                                              dirs[1][1]);
            for (int l = 0; l < 2; l++) {
                check_close("pair x2: a", t2.lane[l].a, fd_dir2(c_pair, x, y, dirs[l][0], dirs[l][1], 0, 1e-6), FD_RTOL,
                            FD_ATOL);
                check_close("pair x2: b", t2.lane[l].b, fd_dir2(c_pair, x, y, dirs[l][0], dirs[l][1], 1, 1e-6), FD_RTOL,
                            FD_ATOL);
            }
        }
        for (int n = 1; n <= 6; n += 5) {
            counted tc = __enzyme_fwddiff_counted((void *)f_counted, x, 1.0, enzyme_const, n);
            double h = 1e-6, want = (poly(x + h, n) - poly(x - h, n)) / (2 * h);
            check_close("counted.v", tc.v, want, FD_RTOL, FD_ATOL);
            check_close("counted.n (no tangent)", tc.n, 0, 0, 0);
        }
        double p[3] = {x, y, 0.5 * x - y}, dp[3] = {0.3, -1.0, 0.7}, s = 1.0 + 0.25 * i;
        triple tt = __enzyme_fwddiff_triple((void *)f_triple, enzyme_dup, p, dp, s, 0.5);
        check_close("triple.x", tt.x, fd_triple(p, dp, s, 0.5, 0), FD_RTOL, FD_ATOL);
        check_close("triple.y", tt.y, fd_triple(p, dp, s, 0.5, 1), FD_RTOL, FD_ATOL);
        check_close("triple.z", tt.z, fd_triple(p, dp, s, 0.5, 2), FD_RTOL, FD_ATOL);

        /* vector mode through memory: 3 lanes, lane l's shadow of p at dps[l] */
        double dps[3][3] = {{1, 0, 0}, {0, 1, 0}, {0.2, 0.3, -0.4}}, dss[3] = {0.0, 0.0, 1.0};
        triple3 t33 = __enzyme_fwddiff_triple3((void *)f_triple, enzyme_width, 3, enzyme_dupv, sizeof dps[0], p, dps,
                                               s, dss[0], dss[1], dss[2]);
        for (int l = 0; l < 3; l++) {
            check_close("triple x3: x", t33.lane[l].x, fd_triple(p, dps[l], s, dss[l], 0), FD_RTOL, FD_ATOL);
            check_close("triple x3: y", t33.lane[l].y, fd_triple(p, dps[l], s, dss[l], 1), FD_RTOL, FD_ATOL);
            check_close("triple x3: z", t33.lane[l].z, fd_triple(p, dps[l], s, dss[l], 2), FD_RTOL, FD_ATOL);
        }

        double q[3] = {0.5 + 0.1 * i, 1.5, 0.8}, dq[3] = {1.0, -0.5, 0.25};
        quad tq = __enzyme_fwddiff_quad((void *)f_quad, enzyme_dup, q, dq, enzyme_const, 3);
        for (int k = 0; k < 4; k++) {
            double want = 0; /* d/dt sum_i q_i^(k+1) = sum_i (k+1) q_i^k dq_i */
            for (int j = 0; j < 3; j++)
                want += (k + 1) * pow(q[j], k) * dq[j];
            check_close("quad.v[k] (exact)", tq.v[k], want, EXACT_RTOL, EXACT_ATOL);
        }
    }
    return zyg_report();
}
