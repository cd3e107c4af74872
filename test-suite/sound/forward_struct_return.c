// A helper returning {double, double} by value in forward mode: its tangent's slot in the
// caller was pointer-sized, and at -O0 the tangents came out wrong (exit 0). Now right.
// Built again with -DOUT_POINTER, the helper writes its result through a pointer instead
// (forward mode through structs in general; it was e2e/forward_structs.c).
// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// RUN: %grad-run -O3 %s %t.native -march=native | FileCheck %s
// RUN: %grad-run -O0 %s %t.ptr -DOUT_POINTER | FileCheck %s
// RUN: %grad-run -O2 %s %t.ptr -DOUT_POINTER | FileCheck %s
// RUN: %grad-run -O3 %s %t.ptr.native -DOUT_POINTER -march=native | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Forward mode through structs: a struct of doubles passed by pointer (`enzyme_dup`, its
// shadow a struct of tangents), a small struct passed by value to helpers (in registers),
// a larger one by value (byval), an array of structs with mixed int and double fields,
// and a struct written as output. Tangents against central differences along the same
// direction.
#include <string.h>
#include "zyg_check.h"

typedef struct { double x, y; } vec2;                 /* by value in registers */
typedef struct { double m[3][3]; double bias[3]; } affine3; /* by value: byval */
typedef struct { int id; double mass; double pos[3]; double vel[3]; } particle;

#ifndef OUT_POINTER
static vec2 rot(vec2 v, double a) {
    vec2 r = {cos(a) * v.x - sin(a) * v.y, sin(a) * v.x + cos(a) * v.y};
    return r;
#else
static void rot(vec2 v, double a, vec2 *r) {
    r->x = cos(a) * v.x - sin(a) * v.y;
    r->y = sin(a) * v.x + cos(a) * v.y;
#endif
}
static double dot2(vec2 a, vec2 b) { return a.x * b.x + a.y * b.y; }

static double apply(affine3 A, const double *v, int row) {
    double s = A.bias[row];
    for (int j = 0; j < 3; j++) s += A.m[row][j] * v[j];
    return s;
}

/* by pointer: the particles' energy plus a pair term */
static double energy(const particle *p, int n, const affine3 *A) {
    double e = 0;
    for (int i = 0; i < n; i++) {
        double v2 = 0;
        for (int k = 0; k < 3; k++) v2 += p[i].vel[k] * p[i].vel[k];
        e += 0.5 * p[i].mass * v2;
        for (int r = 0; r < 3; r++) e += 0.1 * p[i].id * apply(*A, p[i].pos, r);
        for (int j = 0; j < i; j++) {
            double d2 = 0.01;
            for (int k = 0; k < 3; k++) {
                double dd = p[i].pos[k] - p[j].pos[k];
                d2 += dd * dd;
            }
            e += p[i].mass * p[j].mass / sqrt(d2);
        }
    }
    return e;
}

/* two vec2 by pointer, one rotated by value through helpers; the result also written to *out */
static double angle_form(const vec2 *a, const vec2 *b, double ang, vec2 *out) {
#ifndef OUT_POINTER
    vec2 ra = rot(*a, ang);
    *out = rot(*b, -0.5 * ang);
#else
    vec2 ra;
    rot(*a, ang, &ra);
    rot(*b, -0.5 * ang, out);
#endif
    out->x += ra.x * ra.y;
    return dot2(ra, *b) + dot2(*out, *out);
}

#define NP 4

static void init(particle *p, double s) {
    for (int i = 0; i < NP; i++) {
        p[i].id = i + 1;
        p[i].mass = 1.0 + 0.3 * i + 0.1 * s;
        for (int k = 0; k < 3; k++) {
            p[i].pos[k] = sin(1.3 * i + 0.7 * k + s);
            p[i].vel[k] = cos(0.9 * i - 0.4 * k) * s;
        }
    }
}

/* p + t * dp on every float field */
static void step(particle *out, const particle *p, const particle *dp, double t) {
    for (int i = 0; i < NP; i++) {
        out[i] = p[i];
        out[i].mass += t * dp[i].mass;
        for (int k = 0; k < 3; k++) out[i].pos[k] += t * dp[i].pos[k], out[i].vel[k] += t * dp[i].vel[k];
    }
}

int main(void) {
    affine3 A;
    for (int i = 0; i < 3; i++) {
        A.bias[i] = 0.2 * i - 0.1;
        for (int j = 0; j < 3; j++) A.m[i][j] = 0.3 * (i + 1) - 0.2 * j + (i == j);
    }
    double h = 1e-6;
    double ss[] = {0.5, 1.2, -0.8};
    for (int q = 0; q < 3; q++) {
        particle p[NP], dp[NP], pp[NP], pm[NP];
        init(p, ss[q]);
        for (int d = 0; d < 2; d++) {
            memset(dp, 0, sizeof dp);
            for (int i = 0; i < NP; i++) {
                dp[i].mass = d ? 0.3 * i - 0.2 : 0.0;
                for (int k = 0; k < 3; k++) {
                    dp[i].pos[k] = d ? 0.1 * (k + 1) - 0.05 * i : (i == 1 && k == 2);
                    dp[i].vel[k] = d ? -0.2 + 0.15 * k : 0.0;
                }
            }
            double t = __enzyme_fwddiff((void *)energy, enzyme_dup, p, dp, enzyme_const, NP, enzyme_const, &A);
            step(pp, p, dp, h);
            step(pm, p, dp, -h);
            check_close("energy (array of structs)", t, (energy(pp, NP, &A) - energy(pm, NP, &A)) / (2 * h), FD_RTOL, FD_ATOL);
        }
        /* the affine map active too: its shadow a struct of tangents */
        affine3 dA, Ap, Am;
        particle dp0[NP];
        memset(dp0, 0, sizeof dp0);
        for (int i = 0; i < 3; i++) {
            dA.bias[i] = 0.5 - 0.3 * i;
            for (int j = 0; j < 3; j++) dA.m[i][j] = 0.1 * (i - j) + 0.05;
        }
        Ap = A, Am = A;
        for (int i = 0; i < 3; i++) {
            Ap.bias[i] += h * dA.bias[i], Am.bias[i] -= h * dA.bias[i];
            for (int j = 0; j < 3; j++) Ap.m[i][j] += h * dA.m[i][j], Am.m[i][j] -= h * dA.m[i][j];
        }
        double t = __enzyme_fwddiff((void *)energy, enzyme_dup, p, dp0, enzyme_const, NP, enzyme_dup, &A, &dA);
        check_close("energy along the affine map", t, (energy(p, NP, &Ap) - energy(p, NP, &Am)) / (2 * h), FD_RTOL, FD_ATOL);

        /* vec2 by pointer, out struct */
        vec2 a = {0.4 + 0.1 * q, -0.7}, b = {1.1, 0.3 * q - 0.2}, da = {0.6, -0.1}, db = {-0.3, 0.8}, out, dout = {0, 0};
        double dang = 0.9, ang = 0.35 * (q + 1);
        double r = __enzyme_fwddiff((void *)angle_form, enzyme_dup, &a, &da, enzyme_dup, &b, &db, ang, dang, enzyme_dup, &out, &dout);
        vec2 ap = {a.x + h * da.x, a.y + h * da.y}, am = {a.x - h * da.x, a.y - h * da.y};
        vec2 bp = {b.x + h * db.x, b.y + h * db.y}, bm = {b.x - h * db.x, b.y - h * db.y}, op, om;
        double fp = angle_form(&ap, &bp, ang + h * dang, &op), fm = angle_form(&am, &bm, ang - h * dang, &om);
        check_close("angle_form", r, (fp - fm) / (2 * h), FD_RTOL, FD_ATOL);
        check_close("angle_form out.x", dout.x, (op.x - om.x) / (2 * h), FD_RTOL, FD_ATOL);
        check_close("angle_form out.y", dout.y, (op.y - om.y) / (2 * h), FD_RTOL, FD_ATOL);
    }
    return zyg_report();
}
