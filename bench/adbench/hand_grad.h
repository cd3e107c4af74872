/* Hand-written gradient of the hand objective's sum of squared errors (bench/adbench/hand.h)
 * with respect to theta, for the benchmarks' baseline: the forward pass keeps every bone's
 * Euler rotations, relative, absolute and skinning transforms; the reverse pass runs the
 * chain rule back through the global transform, the skinning, the bone hierarchy (children
 * before parents) and the Euler angles. Column-major 4x4 and 3x3 matrices as in hand.h.
 * Static functions only. */
#ifndef ZYG_ADBENCH_HAND_GRAD_H
#define ZYG_ADBENCH_HAND_GRAD_H
#include "hand.h"

/* out (n x p) += A^T (A: m x n) * B (m x p) */
ADB_FN void hand_mat_mult_tn_acc(int n, int m, int p, const double *A, const double *B, double *out) {
    for (int i = 0; i < n; i++)
        for (int k = 0; k < p; k++) {
            double s = 0.0;
            for (int j = 0; j < m; j++)
                s += A[i * m + j] * B[k * m + j];
            out[k * n + i] += s;
        }
}

/* out (n x p) += A (n x m) * B^T (B: p x m) */
ADB_FN void hand_mat_mult_nt_acc(int n, int m, int p, const double *A, const double *B, double *out) {
    for (int i = 0; i < n; i++)
        for (int k = 0; k < p; k++) {
            double s = 0.0;
            for (int j = 0; j < m; j++)
                s += A[j * n + i] * B[j * p + k];
            out[k * n + i] += s;
        }
}

/* adds to dangle_axis[3] the gradient through hand_angle_axis_to_rotation_matrix given dR */
ADB_FN void hand_angle_axis_to_rotation_matrix_rev(const double *a, const double *dR, double *da) {
    double norm = sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
    if (norm < .0001)
        return;
    double x = a[0] / norm, y = a[1] / norm, z = a[2] / norm, s = sin(norm), c = cos(norm), omc = 1 - c;
#define G(i, j) dR[(j) * 3 + (i)]
    double dx = G(0, 0) * 2 * x * omc + G(0, 1) * y * omc + G(0, 2) * z * omc + G(1, 0) * y * omc - G(1, 2) * s +
                G(2, 0) * z * omc + G(2, 1) * s;
    double dy = G(0, 1) * x * omc + G(0, 2) * s + G(1, 0) * x * omc + G(1, 1) * 2 * y * omc + G(1, 2) * z * omc -
                G(2, 0) * s + G(2, 1) * z * omc;
    double dz = -G(0, 1) * s + G(0, 2) * x * omc + G(1, 0) * s + G(1, 2) * y * omc + G(2, 0) * x * omc +
                G(2, 1) * y * omc + G(2, 2) * 2 * z * omc;
    double dc = G(0, 0) * (1 - x * x) - G(0, 1) * x * y - G(0, 2) * x * z - G(1, 0) * x * y + G(1, 1) * (1 - y * y) -
                G(1, 2) * y * z - G(2, 0) * x * z - G(2, 1) * z * y + G(2, 2) * (1 - z * z);
    double ds = -G(0, 1) * z + G(0, 2) * y + G(1, 0) * z - G(1, 2) * x - G(2, 0) * y + G(2, 1) * x;
#undef G
    double dnorm = -dc * s + ds * c - (dx * x + dy * y + dz * z) / norm;
    da[0] += dx / norm + dnorm * x;
    da[1] += dy / norm + dnorm * y;
    da[2] += dz / norm + dnorm * z;
}

/* adds to dxzy[3] the gradient through hand_euler_angles_to_rotation_matrix given dR */
ADB_FN void hand_euler_angles_to_rotation_matrix_rev(const double *xzy, const double *dR, double *dxzy) {
    double tx = xzy[0], ty = xzy[2], tz = xzy[1];
    double Rx[9], Ry[9], Rz[9], RyRx[9], RzRy[9], tmp[9];
    double dRx[9] = {0}, dRy[9] = {0}, dRz[9] = {0};
    hand_set_identity(3, Rx);
    Rx[4] = cos(tx), Rx[5] = sin(tx), Rx[7] = -Rx[5], Rx[8] = Rx[4];
    hand_set_identity(3, Ry);
    Ry[0] = cos(ty), Ry[6] = sin(ty), Ry[2] = -Ry[6], Ry[8] = Ry[0];
    hand_set_identity(3, Rz);
    Rz[0] = cos(tz), Rz[1] = sin(tz), Rz[3] = -Rz[1], Rz[4] = Rz[0];
    /* R = Rz Ry Rx */
    hand_mat_mult(3, 3, 3, Ry, Rx, RyRx);
    hand_mat_mult(3, 3, 3, Rz, Ry, RzRy);
    hand_mat_mult_nt_acc(3, 3, 3, dR, RyRx, dRz); /* dRz = dR (Ry Rx)^T */
    hand_mat_mult_tn_acc(3, 3, 3, RzRy, dR, dRx); /* dRx = (Rz Ry)^T dR */
    for (int i = 0; i < 9; i++)
        tmp[i] = 0.0;
    hand_mat_mult_tn_acc(3, 3, 3, Rz, dR, tmp); /* Rz^T dR */
    hand_mat_mult_nt_acc(3, 3, 3, tmp, Rx, dRy); /* Rz^T dR Rx^T */
    dxzy[0] += -sin(tx) * (dRx[4] + dRx[8]) + cos(tx) * (dRx[5] - dRx[7]);
    dxzy[2] += -sin(ty) * (dRy[0] + dRy[8]) + cos(ty) * (dRy[6] - dRy[2]);
    dxzy[1] += -sin(tz) * (dRz[0] + dRz[4]) + cos(tz) * (dRz[1] - dRz[3]);
}

/* The sum of squared errors of hand_objective and its gradient dtheta[hand_n_theta(n_bones)]
 * (overwritten). */
ADB_FN double hand_objective_sq_grad(int n_bones, const int *parents, const double *base_relatives,
                                     const double *inverse_base_absolutes, int n_verts, const double *base_positions,
                                     const double *weights, int is_mirrored, int n_corr, const int *correspondences,
                                     const double *points, const double *theta, double *dtheta) {
    int ncols = n_bones + 3;
    double *pose = (double *)malloc(sizeof(double) * 3 * ncols);
    double *dpose = (double *)calloc(3 * ncols, sizeof(double));
    double *Reul = (double *)malloc(sizeof(double) * 9 * n_bones);
    double *rel = (double *)malloc(sizeof(double) * 16 * n_bones);
    double *absol = (double *)malloc(sizeof(double) * 16 * n_bones);
    double *dabsol = (double *)calloc(16 * n_bones, sizeof(double));
    double *transforms = (double *)malloc(sizeof(double) * 16 * n_bones);
    double *dtransforms = (double *)calloc(16 * n_bones, sizeof(double));
    double *skinned = (double *)calloc(3 * n_verts, sizeof(double));
    double *dskinned = (double *)calloc(3 * n_verts, sizeof(double));
    double *curr = (double *)malloc(sizeof(double) * 4 * n_verts);

    /* forward */
    hand_to_pose_params(n_bones, theta, pose);
    for (int i = 0; i < n_bones; i++) {
        double tr[16];
        hand_euler_angles_to_rotation_matrix(&pose[(i + 3) * 3], &Reul[9 * i]);
        hand_set_identity(4, tr);
        for (int cc = 0; cc < 3; cc++)
            for (int r = 0; r < 3; r++)
                tr[cc * 4 + r] = Reul[9 * i + cc * 3 + r];
        hand_mat_mult(4, 4, 4, &base_relatives[16 * i], tr, &rel[16 * i]);
    }
    hand_relatives_to_absolutes(n_bones, parents, rel, absol);
    for (int i = 0; i < n_bones; i++)
        hand_mat_mult(4, 4, 4, &absol[16 * i], &inverse_base_absolutes[16 * i], &transforms[16 * i]);
    for (int b = 0; b < n_bones; b++) {
        hand_mat_mult(4, 4, n_verts, &transforms[16 * b], base_positions, curr);
        for (int v = 0; v < n_verts; v++)
            for (int i = 0; i < 3; i++)
                skinned[v * 3 + i] += curr[v * 4 + i] * weights[v * n_bones + b];
    }
    if (is_mirrored)
        for (int v = 0; v < n_verts; v++)
            skinned[v * 3] *= -1;
    double Rg[9];
    hand_angle_axis_to_rotation_matrix(&pose[0], Rg);
    for (int cc = 0; cc < 3; cc++)
        for (int r = 0; r < 3; r++)
            Rg[cc * 3 + r] *= pose[3 + cc];
    double s = 0.0;
    double *dpos = (double *)calloc(3 * n_verts, sizeof(double));
    for (int j = 0; j < n_corr; j++) {
        int v = correspondences[j];
        for (int i = 0; i < 3; i++) {
            double pos = Rg[i] * skinned[v * 3] + Rg[3 + i] * skinned[v * 3 + 1] + Rg[6 + i] * skinned[v * 3 + 2] +
                         pose[6 + i];
            double e = points[j * 3 + i] - pos;
            s += e * e;
            dpos[v * 3 + i] -= 2 * e;
        }
    }

    /* reverse: global transform pos = Rg skinned + t (the scale column is the constant 1) */
    double dRg[9] = {0};
    hand_mat_mult_nt_acc(3, n_verts, 3, dpos, skinned, dRg); /* dRg = dpos skinned^T */
    hand_mat_mult_tn_acc(3, 3, n_verts, Rg, dpos, dskinned); /* dskinned = Rg^T dpos */
    for (int v = 0; v < n_verts; v++)
        for (int i = 0; i < 3; i++)
            dpose[6 + i] += dpos[v * 3 + i];
    for (int cc = 0; cc < 3; cc++)
        for (int r = 0; r < 3; r++)
            dRg[cc * 3 + r] *= pose[3 + cc];
    hand_angle_axis_to_rotation_matrix_rev(&pose[0], dRg, &dpose[0]);
    if (is_mirrored)
        for (int v = 0; v < n_verts; v++)
            dskinned[v * 3] *= -1;
    /* skinning: dT_b(0:3, :) = sum_v w(b, v) dskinned[:, v] base_positions[:, v]^T */
    for (int b = 0; b < n_bones; b++)
        for (int v = 0; v < n_verts; v++) {
            double wgt = weights[v * n_bones + b];
            if (wgt == 0.0)
                continue;
            for (int cc = 0; cc < 4; cc++)
                for (int r = 0; r < 3; r++)
                    dtransforms[16 * b + cc * 4 + r] += wgt * dskinned[v * 3 + r] * base_positions[v * 4 + cc];
        }
    /* transforms = absolutes inverse_base_absolutes */
    for (int b = 0; b < n_bones; b++)
        hand_mat_mult_nt_acc(4, 4, 4, &dtransforms[16 * b], &inverse_base_absolutes[16 * b], &dabsol[16 * b]);
    /* absolutes = absolutes[parent] relatives, children first */
    for (int b = n_bones - 1; b >= 0; b--) {
        double drel[16] = {0}, dtr[16] = {0}, dReul[9];
        if (parents[b] == -1) {
            for (int i = 0; i < 16; i++)
                drel[i] = dabsol[16 * b + i];
        } else {
            hand_mat_mult_nt_acc(4, 4, 4, &dabsol[16 * b], &rel[16 * b], &dabsol[16 * parents[b]]);
            hand_mat_mult_tn_acc(4, 4, 4, &absol[16 * parents[b]], &dabsol[16 * b], drel);
        }
        /* relatives = base_relatives tr(Reul) */
        hand_mat_mult_tn_acc(4, 4, 4, &base_relatives[16 * b], drel, dtr);
        for (int cc = 0; cc < 3; cc++)
            for (int r = 0; r < 3; r++)
                dReul[cc * 3 + r] = dtr[cc * 4 + r];
        hand_euler_angles_to_rotation_matrix_rev(&pose[(b + 3) * 3], dReul, &dpose[(b + 3) * 3]);
    }
    /* pose parameters back to theta */
    for (int i = 0; i < 3; i++) {
        dtheta[i] = dpose[i];
        dtheta[3 + i] = dpose[6 + i];
    }
    int i_theta = 6;
    for (int bone = 2; bone < n_bones; bone++) {
        int j = (bone - 2) % 4;
        const double *col = &dpose[(bone + 3) * 3];
        if (j < 3)
            dtheta[i_theta++] = col[0];
        if (j == 0)
            dtheta[i_theta++] = col[1];
    }

    free(pose);
    free(dpose);
    free(Reul);
    free(rel);
    free(absol);
    free(dabsol);
    free(transforms);
    free(dtransforms);
    free(skinned);
    free(dskinned);
    free(curr);
    free(dpos);
    return s;
}

#endif
