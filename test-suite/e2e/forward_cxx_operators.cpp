// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Forward mode from C++ through a small vector class with overloaded operators returning
// by value (24 bytes: returned through sret at -O0), a dot and cross product, a rigid
// rotation by Rodrigues' formula and a spring-network energy over an array of them. The
// positions are `enzyme_dup` (an array of Vec3, its shadow an array of tangent Vec3s).
// Tangents against central differences along the same direction. (A 16-byte Vec2 returned
// by value at -O0 is bugs/fwd_struct_return.c.)
#include <cmath>
#include <cstdio>

extern "C" {
#include "zyg_check.h"
}

template <typename R, typename... T> R __enzyme_fwddiff(void *, T...);

struct Vec3 {
    double x, y, z;
    Vec3 operator+(const Vec3 &o) const { return {x + o.x, y + o.y, z + o.z}; }
    Vec3 operator-(const Vec3 &o) const { return {x - o.x, y - o.y, z - o.z}; }
    Vec3 operator*(double s) const { return {x * s, y * s, z * s}; }
    Vec3 &operator+=(const Vec3 &o) {
        x += o.x, y += o.y, z += o.z;
        return *this;
    }
    double dot(const Vec3 &o) const { return x * o.x + y * o.y + z * o.z; }
    Vec3 cross(const Vec3 &o) const { return {y * o.z - z * o.y, z * o.x - x * o.z, x * o.y - y * o.x}; }
    double norm() const { return std::sqrt(dot(*this)); }
};

/* rotates v about the unit axis k by angle th */
static Vec3 rotate(const Vec3 &v, const Vec3 &k, double th) {
    return v * std::cos(th) + k.cross(v) * std::sin(th) + k * (k.dot(v) * (1 - std::cos(th)));
}

#define NV 5
static double springs(const Vec3 *p, double rest, double th) {
    Vec3 axis{0.0, 0.6, 0.8};
    double e = 0;
    Vec3 centre{0, 0, 0};
    for (int i = 0; i < NV; i++) centre += p[i] * (1.0 / NV);
    for (int i = 0; i < NV; i++)
        for (int j = i + 1; j < NV; j++) {
            double l = (rotate(p[i], axis, th) - p[j]).norm();
            e += (l - rest) * (l - rest);
        }
    return e + (p[0] - centre).dot(p[1] - centre);
}

int main() {
    double h = 1e-6;
    for (int pt = 0; pt < 2; pt++) {
        for (int q = 0; q < 3; q++) {
            Vec3 p[NV], dp[NV], pp[NV], pm[NV];
            for (int i = 0; i < NV; i++) {
                p[i] = {std::sin(1.1 * i + pt), std::cos(0.7 * i - pt), 0.3 * i - 0.5 * pt};
                dp[i] = q == 0 ? Vec3{i == 2 ? 1.0 : 0.0, 0, 0} : Vec3{0.1 * i, -0.2, 0.05 * q * i};
                pp[i] = p[i] + dp[i] * h;
                pm[i] = p[i] - dp[i] * h;
            }
            double rest = 1.2, drest = q == 1 ? 0.7 : 0.0, th = 0.4 + 0.3 * q, dth = q == 2 ? 1.0 : 0.0;
            double t = __enzyme_fwddiff<double>((void *)springs, enzyme_dup, p, dp, rest, drest, th, dth);
            double want = (springs(pp, rest + h * drest, th + h * dth) - springs(pm, rest - h * drest, th - h * dth)) / (2 * h);
            check_close("spring energy", t, want, FD_RTOL, FD_ATOL);
        }
    }
    return zyg_report();
}
