/* ADBench objective 4: hand tracking, the simple model (Srajer, Habib, Fitzgibbon 2018,
 * section 3.3; the reference is ADBench's hand_objective without `us`, in
 * src/cpp/shared/hand_light_matrix.h). Plain C over arrays; static functions only. All
 * matrices are column-major, as ADBench's LightMatrix: element (i, j) of an r x c matrix M
 * is M[j*r + i].
 *
 * The model (constant): a skeleton of n_bones bones, parents[n_bones] (-1 for the root; a
 * parent comes before its children), base_relatives[16 n_bones] (4x4 rest transform of each
 * bone relative to its parent), inverse_base_absolutes[16 n_bones] (inverse of each bone's
 * rest transform relative to the root), base_positions[4 n_verts] (homogeneous rest vertex
 * positions), weights[n_bones n_verts] (skinning weight of bone i for vertex v at
 * weights[v*n_bones + i]), is_mirrored. The data (constant): n_corr correspondences[n_corr]
 * (vertex indices) and points[3 n_corr].
 *
 * theta (active): 3 global rotation (angle-axis), 3 global translation, then per bone the
 * Euler angles its joint allows. ADBench's 22-bone hand has two fixed bones (0 and 1) and
 * then five fingers of four bones: the first bone of a finger takes flexion and abduction,
 * the next two flexion, the last none (26 parameters). We keep that rule for any number of
 * bones: bones 0 and 1 are fixed, and from bone 2 on the bones form fingers of four
 * (hand_n_theta gives the count); with 22 bones it is exactly ADBench's layout.
 *
 *   pose = 3 x (n_bones + 3): global rotation, scale (1), translation, per-bone Euler angles
 *   relatives[i] = base_relatives[i] * [R_euler(pose[:, 3+i]) 0; 0 1]
 *   absolutes[i] = absolutes[parent[i]] * relatives[i]
 *   transforms[i] = absolutes[i] * inverse_base_absolutes[i]
 *   vertex[v] = sum_i weights(i, v) (transforms[i] * base_positions[:, v])[0:3]
 *   (x negated when mirrored), then R(global rotation) * vertex + translation
 *   err[3 j + k] = points[3 j + k] - vertex[correspondences[j]][k]
 *
 * Scratch memory is malloc'ed inside hand_objective. */
#ifndef ZYG_ADBENCH_HAND_H
#define ZYG_ADBENCH_HAND_H
#include "common.h"

/* number of pose parameters theta of a hand with n_bones bones (26 for ADBench's 22) */
ADB_FN int hand_n_theta(int n_bones) {
    int n = 6;
    for (int i = 2; i < n_bones; i++) {
        int j = (i - 2) % 4;
        n += j == 0 ? 2 : j == 3 ? 0 : 1;
    }
    return n;
}

/* out (n x p) = lhs (n x m) * rhs (m x p), column-major */
ADB_FN void hand_mat_mult(int n, int m, int p, const double *lhs, const double *rhs, double *out) {
    for (int i = 0; i < n; i++)
        for (int k = 0; k < p; k++) {
            out[k * n + i] = lhs[i] * rhs[k * m];
            for (int j = 1; j < m; j++)
                out[k * n + i] += lhs[j * n + i] * rhs[k * m + j];
        }
}

ADB_FN void hand_angle_axis_to_rotation_matrix(const double *angle_axis, double *R) {
    double norm = sqrt(angle_axis[0] * angle_axis[0] + angle_axis[1] * angle_axis[1] + angle_axis[2] * angle_axis[2]);
    if (norm < .0001) {
        for (int j = 0; j < 3; j++)
            for (int i = 0; i < 3; i++)
                R[j * 3 + i] = i == j ? 1.0 : 0.0;
        return;
    }
    double x = angle_axis[0] / norm;
    double y = angle_axis[1] / norm;
    double z = angle_axis[2] / norm;
    double s = sin(norm);
    double c = cos(norm);
    /* R(i, j) = R[j*3 + i] */
    R[0] = x * x + (1 - x * x) * c;
    R[3] = x * y * (1 - c) - z * s;
    R[6] = x * z * (1 - c) + y * s;
    R[1] = x * y * (1 - c) + z * s;
    R[4] = y * y + (1 - y * y) * c;
    R[7] = y * z * (1 - c) - x * s;
    R[2] = x * z * (1 - c) - y * s;
    R[5] = z * y * (1 - c) + x * s;
    R[8] = z * z + (1 - z * z) * c;
}

ADB_FN void hand_set_identity(int n, double *M) {
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++)
            M[j * n + i] = i == j ? 1.0 : 0.0;
}

/* R = Rz * Ry * Rx for the angles (x, z, y) = (xzy[0], xzy[1], xzy[2]) */
ADB_FN void hand_euler_angles_to_rotation_matrix(const double *xzy, double *R) {
    double tx = xzy[0], ty = xzy[2], tz = xzy[1];
    double Rx[9], Ry[9], Rz[9], tmp[9];
    hand_set_identity(3, Rx);
    Rx[4] = cos(tx);     /* (1, 1) */
    Rx[5] = sin(tx);     /* (2, 1) */
    Rx[7] = -Rx[5];      /* (1, 2) */
    Rx[8] = Rx[4];       /* (2, 2) */
    hand_set_identity(3, Ry);
    Ry[0] = cos(ty);     /* (0, 0) */
    Ry[6] = sin(ty);     /* (0, 2) */
    Ry[2] = -Ry[6];      /* (2, 0) */
    Ry[8] = Ry[0];       /* (2, 2) */
    hand_set_identity(3, Rz);
    Rz[0] = cos(tz);     /* (0, 0) */
    Rz[1] = sin(tz);     /* (1, 0) */
    Rz[3] = -Rz[1];      /* (0, 1) */
    Rz[4] = Rz[0];       /* (1, 1) */
    hand_mat_mult(3, 3, 3, Rz, Ry, tmp);
    hand_mat_mult(3, 3, 3, tmp, Rx, R);
}

/* pose_params (3 x (n_bones + 3)) from theta */
ADB_FN void hand_to_pose_params(int n_bones, const double *theta, double *pose_params) {
    int ncols = n_bones + 3;
    for (int i = 0; i < 3 * ncols; i++)
        pose_params[i] = 0.0;
    for (int i = 0; i < 3; i++) {
        pose_params[0 * 3 + i] = theta[i];     /* global rotation */
        pose_params[1 * 3 + i] = 1.0;          /* scale */
        pose_params[2 * 3 + i] = theta[3 + i]; /* global translation */
    }
    int i_theta = 6;
    for (int bone = 2; bone < n_bones; bone++) {
        int j = (bone - 2) % 4;
        double *col = &pose_params[(bone + 3) * 3];
        if (j < 3)
            col[0] = theta[i_theta++]; /* flexion */
        if (j == 0)
            col[1] = theta[i_theta++]; /* abduction */
    }
}

ADB_FN void hand_get_posed_relatives(int n_bones, const double *base_relatives, const double *pose_params,
                                     double *relatives) {
    const int offset = 3;
    for (int i = 0; i < n_bones; i++) {
        double tr[16], R[9];
        hand_set_identity(4, tr);
        hand_euler_angles_to_rotation_matrix(&pose_params[(i + offset) * 3], R);
        for (int c = 0; c < 3; c++)
            for (int r = 0; r < 3; r++)
                tr[c * 4 + r] = R[c * 3 + r];
        hand_mat_mult(4, 4, 4, &base_relatives[16 * i], tr, &relatives[16 * i]);
    }
}

ADB_FN void hand_relatives_to_absolutes(int n_bones, const int *parents, const double *relatives,
                                        double *absolutes) {
    for (int i = 0; i < n_bones; i++) {
        if (parents[i] == -1)
            for (int j = 0; j < 16; j++)
                absolutes[16 * i + j] = relatives[16 * i + j];
        else
            hand_mat_mult(4, 4, 4, &absolutes[16 * parents[i]], &relatives[16 * i], &absolutes[16 * i]);
    }
}

/* positions (3 x n_verts) = R(pose col 0) diag(pose col 1) positions + pose col 2 */
ADB_FN void hand_apply_global_transform(int n_verts, const double *pose_params, double *positions) {
    double R[9];
    hand_angle_axis_to_rotation_matrix(&pose_params[0], R);
    for (int c = 0; c < 3; c++)
        for (int r = 0; r < 3; r++)
            R[c * 3 + r] *= pose_params[3 + c];
    double *tmp = (double *)malloc(sizeof(double) * 3 * n_verts);
    hand_mat_mult(3, 3, n_verts, R, positions, tmp);
    for (int j = 0; j < n_verts; j++)
        for (int i = 0; i < 3; i++)
            positions[j * 3 + i] = tmp[j * 3 + i] + pose_params[6 + i];
    free(tmp);
}

/* positions (3 x n_verts): the skinned (and, if apply_global, globally transformed) vertices */
ADB_FN void hand_get_skinned_vertex_positions(int n_bones, const int *parents, const double *base_relatives,
                                              const double *inverse_base_absolutes, int n_verts,
                                              const double *base_positions, const double *weights,
                                              int is_mirrored, const double *pose_params, double *positions,
                                              int apply_global) {
    double *relatives = (double *)malloc(sizeof(double) * 16 * n_bones);
    double *absolutes = (double *)malloc(sizeof(double) * 16 * n_bones);
    double *transforms = (double *)malloc(sizeof(double) * 16 * n_bones);
    double *curr_positions = (double *)malloc(sizeof(double) * 4 * n_verts);
    hand_get_posed_relatives(n_bones, base_relatives, pose_params, relatives);
    hand_relatives_to_absolutes(n_bones, parents, relatives, absolutes);
    for (int i = 0; i < n_bones; i++)
        hand_mat_mult(4, 4, 4, &absolutes[16 * i], &inverse_base_absolutes[16 * i], &transforms[16 * i]);

    for (int i = 0; i < 3 * n_verts; i++)
        positions[i] = 0.0;
    for (int i_bone = 0; i_bone < n_bones; i_bone++) {
        hand_mat_mult(4, 4, n_verts, &transforms[16 * i_bone], base_positions, curr_positions);
        for (int i_vert = 0; i_vert < n_verts; i_vert++)
            for (int i = 0; i < 3; i++)
                positions[i_vert * 3 + i] += curr_positions[i_vert * 4 + i] * weights[i_vert * n_bones + i_bone];
    }
    if (is_mirrored)
        for (int i_vert = 0; i_vert < n_verts; i_vert++)
            positions[i_vert * 3] *= -1;
    if (apply_global)
        hand_apply_global_transform(n_verts, pose_params, positions);
    free(relatives);
    free(absolutes);
    free(transforms);
    free(curr_positions);
}

/* err[3 n_corr] = points - the posed model's vertices at the correspondences */
ADB_FN void hand_objective(int n_bones, const int *parents, const double *base_relatives,
                           const double *inverse_base_absolutes, int n_verts, const double *base_positions,
                           const double *weights, int is_mirrored, int n_corr, const int *correspondences,
                           const double *points, const double *theta, double *err) {
    double *pose_params = (double *)malloc(sizeof(double) * 3 * (n_bones + 3));
    double *positions = (double *)malloc(sizeof(double) * 3 * n_verts);
    hand_to_pose_params(n_bones, theta, pose_params);
    hand_get_skinned_vertex_positions(n_bones, parents, base_relatives, inverse_base_absolutes, n_verts,
                                      base_positions, weights, is_mirrored, pose_params, positions, 1);
    for (int i = 0; i < n_corr; i++)
        for (int j = 0; j < 3; j++)
            err[i * 3 + j] = points[i * 3 + j] - positions[correspondences[i] * 3 + j];
    free(pose_params);
    free(positions);
}

/* sum of squared errors of hand_objective */
ADB_FN double hand_objective_sq(int n_bones, const int *parents, const double *base_relatives,
                                const double *inverse_base_absolutes, int n_verts, const double *base_positions,
                                const double *weights, int is_mirrored, int n_corr, const int *correspondences,
                                const double *points, const double *theta) {
    double *err = (double *)malloc(sizeof(double) * 3 * n_corr);
    hand_objective(n_bones, parents, base_relatives, inverse_base_absolutes, n_verts, base_positions, weights,
                   is_mirrored, n_corr, correspondences, points, theta, err);
    double s = 0.0;
    for (int i = 0; i < 3 * n_corr; i++)
        s += err[i] * err[i];
    free(err);
    return s;
}

/* inverse of a rigid 4x4 transform [R t; 0 1]: [R^T -R^T t; 0 1] */
ADB_FN void hand_rigid_inverse(const double *M, double *inv) {
    hand_set_identity(4, inv);
    for (int c = 0; c < 3; c++)
        for (int r = 0; r < 3; r++)
            inv[c * 4 + r] = M[r * 4 + c];
    for (int r = 0; r < 3; r++) {
        double s = 0.0;
        for (int k = 0; k < 3; k++)
            s += M[r * 4 + k] * M[12 + k]; /* (R^T)(r, k) = R(k, r) = M[r*4 + k] */
        inv[12 + r] = -s;
    }
}

/* A synthetic hand, deterministic from seed: bones 0 (root) and 1 (palm, child of 0) and
 * fingers of up to four bones from bone 2 on, each finger's first bone a child of bone 1;
 * rest transforms with small rotations and bone lengths 0.5..1.0 along y; each vertex near
 * the origin of one bone (offsets within 0.3), skinned to that bone and its parent with
 * weights summing to 1; correspondences to random vertices; theta with a global rotation of
 * norm 0.3..1.1, translation within 1 and joint angles within 0.5; points the model's
 * vertices at theta plus up to 0.05 of noise (so that the residuals are small, as in a fit).
 * parents[n_bones], base_relatives[16 n_bones], inverse_base_absolutes[16 n_bones],
 * base_positions[4 n_verts], weights[n_bones n_verts], correspondences[n_corr],
 * points[3 n_corr], theta[hand_n_theta(n_bones)]. */
ADB_FN void hand_generate(int n_bones, int n_verts, int n_corr, uint64_t seed, int *parents,
                          double *base_relatives, double *inverse_base_absolutes, double *base_positions,
                          double *weights, int *correspondences, double *points, double *theta) {
    adb_rng r = adb_rng_new(seed);
    double *base_absolutes = (double *)malloc(sizeof(double) * 16 * n_bones);
    for (int i = 0; i < n_bones; i++) {
        parents[i] = i == 0 ? -1 : i == 1 ? 0 : (i - 2) % 4 == 0 ? 1 : i - 1;
        double angles[3], R[9];
        for (int k = 0; k < 3; k++)
            angles[k] = adb_rng_uniform(&r, -0.3, 0.3);
        hand_euler_angles_to_rotation_matrix(angles, R);
        double *M = &base_relatives[16 * i];
        hand_set_identity(4, M);
        for (int c = 0; c < 3; c++)
            for (int rr = 0; rr < 3; rr++)
                M[c * 4 + rr] = R[c * 3 + rr];
        M[12] = i == 0 ? 0.0 : adb_rng_uniform(&r, -0.2, 0.2);
        M[13] = i == 0 ? 0.0 : adb_rng_uniform(&r, 0.5, 1.0);
        M[14] = i == 0 ? 0.0 : adb_rng_uniform(&r, -0.2, 0.2);
        if (parents[i] == -1)
            for (int j = 0; j < 16; j++)
                base_absolutes[16 * i + j] = M[j];
        else
            hand_mat_mult(4, 4, 4, &base_absolutes[16 * parents[i]], M, &base_absolutes[16 * i]);
        hand_rigid_inverse(&base_absolutes[16 * i], &inverse_base_absolutes[16 * i]);
    }
    for (int v = 0; v < n_verts; v++) {
        int bone = adb_rng_int(&r, n_bones);
        const double *A = &base_absolutes[16 * bone];
        for (int k = 0; k < 3; k++)
            base_positions[4 * v + k] = A[12 + k] + adb_rng_uniform(&r, -0.3, 0.3);
        base_positions[4 * v + 3] = 1.0;
        for (int i = 0; i < n_bones; i++)
            weights[v * n_bones + i] = 0.0;
        if (parents[bone] == -1) {
            weights[v * n_bones + bone] = 1.0;
        } else {
            double wgt = adb_rng_uniform(&r, 0.5, 1.0);
            weights[v * n_bones + bone] = wgt;
            weights[v * n_bones + parents[bone]] = 1.0 - wgt;
        }
    }
    for (int j = 0; j < n_corr; j++)
        correspondences[j] = adb_rng_int(&r, n_verts);
    int n_theta = hand_n_theta(n_bones);
    double axis[3], len = adb_rng_uniform(&r, 0.3, 1.1), norm = 0.0;
    for (int k = 0; k < 3; k++) {
        axis[k] = adb_rng_uniform(&r, -1.0, 1.0);
        norm += axis[k] * axis[k];
    }
    norm = sqrt(norm);
    for (int k = 0; k < 3; k++)
        theta[k] = axis[k] / norm * len;
    for (int k = 3; k < 6; k++)
        theta[k] = adb_rng_uniform(&r, -1.0, 1.0);
    for (int k = 6; k < n_theta; k++)
        theta[k] = adb_rng_uniform(&r, -0.5, 0.5);
    /* points: the model at theta, plus noise */
    double *zero = (double *)calloc(3 * n_corr, sizeof(double));
    hand_objective(n_bones, parents, base_relatives, inverse_base_absolutes, n_verts, base_positions, weights, 0,
                   n_corr, correspondences, zero, theta, points); /* points = -vertices */
    for (int j = 0; j < 3 * n_corr; j++)
        points[j] = -points[j] + adb_rng_uniform(&r, -0.05, 0.05);
    free(zero);
    free(base_absolutes);
}

#endif
