// C++ (exceptions on): a small Vec3 struct with operator+, operator-, scalar operator*,
// member dot/cross/norm, used on an array of Vec3 passed by dup pointer: a triangle-mesh
// energy (areas and a bending term between two triangles); member calls take `this`.
// RUN: %clangxx -O0 -g -I %include -S -emit-llvm %s -o %t.O0.ll
// RUN: %zyg grad %t.O0.ll -o %t.O0.grad.ll && %clangxx %t.O0.grad.ll -lm -o %t.O0.exe && %t.O0.exe | FileCheck %s
// RUN: %clangxx -O2 -g -I %include -S -emit-llvm %s -o %t.O2.ll
// RUN: %zyg grad %t.O2.ll -o %t.O2.grad.ll && %clangxx %t.O2.grad.ll -lm -o %t.O2.exe && %t.O2.exe | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
extern "C" {
#include "zyg_check.h"
}

struct Vec3 {
    double x, y, z;
    Vec3 operator+(const Vec3 &o) const { return {x + o.x, y + o.y, z + o.z}; }
    Vec3 operator-(const Vec3 &o) const { return {x - o.x, y - o.y, z - o.z}; }
    Vec3 operator*(double s) const { return {x * s, y * s, z * s}; }
    double dot(const Vec3 &o) const { return x * o.x + y * o.y + z * o.z; }
    Vec3 cross(const Vec3 &o) const { return {y * o.z - z * o.y, z * o.x - x * o.z, x * o.y - y * o.x}; }
    double norm() const { return sqrt(dot(*this)); }
};

static double tri_area(const Vec3 &a, const Vec3 &b, const Vec3 &c) { return 0.5 * (b - a).cross(c - a).norm(); }

// Two triangles (0,1,2) and (1,3,2) sharing the edge 1-2.
extern "C" double mesh_energy(const Vec3 *p, double k) {
    double e = tri_area(p[0], p[1], p[2]) + tri_area(p[1], p[3], p[2]);
    Vec3 n1 = (p[1] - p[0]).cross(p[2] - p[0]);
    Vec3 n2 = (p[3] - p[1]).cross(p[2] - p[1]);
    double c = n1.dot(n2) / (n1.norm() * n2.norm());
    Vec3 centroid = (p[0] + p[1] + p[2] + p[3]) * 0.25;
    return e + k * (1.0 - c) + 0.1 * centroid.dot(centroid);
}

static double energy_flat(const double *z) {
    Vec3 p[4];
    for (int i = 0; i < 4; i++) p[i] = {z[3 * i], z[3 * i + 1], z[3 * i + 2]};
    return mesh_energy(p, z[12]);
}

static double fd(double (*g)(const double *), const double *x, int n, int k) {
    double a[64], b[64], h = ZYG_STEP(x[k]);
    for (int i = 0; i < n; i++) a[i] = b[i] = x[i];
    a[k] += h;
    b[k] -= h;
    return (g(a) - g(b)) / (2 * h);
}

int main() {
    double pts[2][13] = {{0.0, 0.0, 0.0, 1.0, 0.1, 0.2, 0.2, 1.1, -0.1, 1.3, 1.0, 0.5, 0.8},
                         {0.1, -0.2, 0.3, 1.2, 0.0, -0.1, -0.1, 0.9, 0.2, 1.1, 1.2, -0.4, 1.5}};
    for (int q = 0; q < 2; q++) {
        Vec3 p[4], dp[4] = {};
        for (int i = 0; i < 4; i++) p[i] = {pts[q][3 * i], pts[q][3 * i + 1], pts[q][3 * i + 2]};
        double dk = __enzyme_autodiff((void *)mesh_energy, enzyme_dup, p, dp, pts[q][12]);
        for (int i = 0; i < 4; i++) {
            check_close("dp.x", dp[i].x, fd(energy_flat, pts[q], 13, 3 * i), FD_RTOL, FD_ATOL);
            check_close("dp.y", dp[i].y, fd(energy_flat, pts[q], 13, 3 * i + 1), FD_RTOL, FD_ATOL);
            check_close("dp.z", dp[i].z, fd(energy_flat, pts[q], 13, 3 * i + 2), FD_RTOL, FD_ATOL);
        }
        check_close("dk", dk, fd(energy_flat, pts[q], 13, 12), FD_RTOL, FD_ATOL);
    }
    return zyg_report();
}
