/* lu_bodies: the loop bodies of NPB LU as C text, one per NPB routine.
   Indices are 0-based (boundary points 0 and N-1); the component index m
   runs 0..4 (NPB's 1..5).  Every body is preceded by a head (lu_loops.c)
   that defines NX, NY, NZ, the constants C1..C5, the dissipation weights
   DX, DY, DZ, LU_UNROLL and, where needed, the exact solution LU_EXACT.
   The direction loops (d = 0, 1, 2 for x, y, z) are unrolled, so their
   offsets ex, ey, ez are constants in the compiled code.  The arithmetic
   follows NPB's order of operations so that results agree to rounding. */
#include "lu_bodies.h"

/* setbv + setiv: the exact solution on the six faces, inside the
   transfinite interpolation of the face values. */
const char *const lu_body_setiv =
    "const double xi = (double)i / (NX - 1), eta = (double)j / (NY - 1), zeta = (double)k / (NZ - 1);\n"
    "const int face = i == 0 || j == 0 || k == 0 || i == NX - 1 || j == NY - 1 || k == NZ - 1;\n"
    "LU_UNROLL for (int m = 0; m < 5; m++) {\n"
    "  if (face) { U(m,i,j,k) = LU_EXACT(m, xi, eta, zeta); continue; }\n"
    "  const double pxi = (1.0 - xi) * LU_EXACT(m, 0.0, eta, zeta) + xi * LU_EXACT(m, 1.0, eta, zeta);\n"
    "  const double peta = (1.0 - eta) * LU_EXACT(m, xi, 0.0, zeta) + eta * LU_EXACT(m, xi, 1.0, zeta);\n"
    "  const double pzeta = (1.0 - zeta) * LU_EXACT(m, xi, eta, 0.0) + zeta * LU_EXACT(m, xi, eta, 1.0);\n"
    "  U(m,i,j,k) = pxi + peta + pzeta - pxi * peta - peta * pzeta - pzeta * pxi + pxi * peta * pzeta;\n"
    "}\n";

/* erhs, first part: the exact solution everywhere. */
const char *const lu_body_exact =
    "const double xi = (double)i / (NX - 1), eta = (double)j / (NY - 1), zeta = (double)k / (NZ - 1);\n"
    "LU_UNROLL for (int m = 0; m < 5; m++) E(m,i,j,k) = LU_EXACT(m, xi, eta, zeta);\n";

/* rhs, first part: 1/rho and the kinetic energy per point. */
const char *const lu_body_prim =
    "const double tmp = 1.0 / U(0,i,j,k);\n"
    "R(i,j,k) = tmp;\n"
    "Q(i,j,k) = 0.5 * (U(1,i,j,k) * U(1,i,j,k) + U(2,i,j,k) * U(2,i,j,k) + U(3,i,j,k) * U(3,i,j,k)) * tmp;\n";

/* rhs (and erhs, with LU_START(m) = 0): for each direction the inviscid
   flux difference, the viscous fluxes with second differences, and the
   fourth-order dissipation, whose stencil is cut at the two points next to
   each boundary as in NPB. */
const char *const lu_body_rhs =
    "double r[5];\n"
    "LU_UNROLL for (int m = 0; m < 5; m++) r[m] = LU_START(m);\n"
    "LU_UNROLL for (int d = 0; d < 3; d++) {\n"
    "  const int ex = d == 0, ey = d == 1, ez = d == 2, n = d + 1;\n"
    "  const double t1 = d == 0 ? tx1 : d == 1 ? ty1 : tz1, t2 = d == 0 ? tx2 : d == 1 ? ty2 : tz2;\n"
    "  const double t3 = d == 0 ? tx3 : d == 1 ? ty3 : tz3, dd = d == 0 ? DX : d == 1 ? DY : DZ;\n"
    "  const long long q = d == 0 ? i : d == 1 ? j : k, nn = d == 0 ? NX : d == 1 ? NY : NZ;\n"
    "  double w[5][5], rho[5], qq[5];\n"
    "  LU_UNROLL for (int o = -2; o <= 2; o++) {\n"
    "    const int a = o + 2;\n"
    "    rho[a] = qq[a] = 0.0;\n"
    "    if ((o == -2 && q < 2) || (o == 2 && q > nn - 3)) {\n"
    "      LU_UNROLL for (int m = 0; m < 5; m++) w[a][m] = 0.0;\n"
    "      continue;\n"
    "    }\n"
    "    LU_UNROLL for (int m = 0; m < 5; m++) w[a][m] = U(m, i + o * ex, j + o * ey, k + o * ez);\n"
    "    if (o >= -1 && o <= 1) {\n"
    "      rho[a] = R(i + o * ex, j + o * ey, k + o * ez);\n"
    "      qq[a] = Q(i + o * ex, j + o * ey, k + o * ez);\n"
    "    }\n"
    "  }\n"
    "  double f[2][5];\n"
    "  LU_UNROLL for (int h = 0; h < 2; h++) {\n"
    "    const int a = 1 + 2 * h;\n"
    "    const double un = w[a][n] * rho[a];\n"
    "    f[h][0] = w[a][n];\n"
    "    LU_UNROLL for (int c = 1; c < 4; c++) f[h][c] = c == n ? w[a][c] * un + C2 * (w[a][4] - qq[a]) : w[a][c] * un;\n"
    "    f[h][4] = (C1 * w[a][4] - C2 * qq[a]) * un;\n"
    "  }\n"
    "  LU_UNROLL for (int m = 0; m < 5; m++) r[m] = r[m] - t2 * (f[1][m] - f[0][m]);\n"
    "  double g[2][5];\n"
    "  LU_UNROLL for (int h = 0; h < 2; h++) {\n"
    "    const int a = 2 + h, b = 1 + h;\n"
    "    double va[5], vb[5];\n"
    "    LU_UNROLL for (int c = 1; c < 5; c++) { va[c] = rho[a] * w[a][c]; vb[c] = rho[b] * w[b][c]; }\n"
    "    LU_UNROLL for (int c = 1; c < 4; c++) g[h][c] = (c == n ? 4.0 / 3.0 : 1.0) * t3 * (va[c] - vb[c]);\n"
    "    g[h][4] = 0.5 * (1.0 - C1 * C5) * t3 * ((va[1] * va[1] + va[2] * va[2] + va[3] * va[3])\n"
    "                                       - (vb[1] * vb[1] + vb[2] * vb[2] + vb[3] * vb[3]))\n"
    "            + (1.0 / 6.0) * t3 * (va[n] * va[n] - vb[n] * vb[n]) + C1 * C5 * t3 * (va[4] - vb[4]);\n"
    "  }\n"
    "  r[0] = r[0] + dd * t1 * (w[1][0] - 2.0 * w[2][0] + w[3][0]);\n"
    "  LU_UNROLL for (int m = 1; m < 5; m++)\n"
    "    r[m] = r[m] + t3 * C3 * C4 * (g[1][m] - g[0][m]) + dd * t1 * (w[1][m] - 2.0 * w[2][m] + w[3][m]);\n"
    "  LU_UNROLL for (int m = 0; m < 5; m++) {\n"
    "    double s;\n"
    "    if (q == 1) s = 5.0 * w[2][m] - 4.0 * w[3][m] + w[4][m];\n"
    "    else if (q == 2) s = -4.0 * w[1][m] + 6.0 * w[2][m] - 4.0 * w[3][m] + w[4][m];\n"
    "    else if (q == nn - 3) s = w[0][m] - 4.0 * w[1][m] + 6.0 * w[2][m] - 4.0 * w[3][m];\n"
    "    else if (q == nn - 2) s = w[0][m] - 4.0 * w[1][m] + 5.0 * w[2][m];\n"
    "    else s = w[0][m] - 4.0 * w[1][m] + 6.0 * w[2][m] - 4.0 * w[3][m] + w[4][m];\n"
    "    r[m] = r[m] - dssp * s;\n"
    "  }\n"
    "}\n"
    "LU_UNROLL for (int m = 0; m < 5; m++) O(m,i,j,k) = r[m];\n";

/* The flux Jacobian block of the neighbour at offset (ex,ey,ez) in
   direction d (NPB's jacld a, b, c with s = -1; jacu's with s = +1), from
   its state w, 1/rho tmp1 and kinetic energy q, into A[d]. */
#define LU_JACOBIAN                                                                                               \
    "  {\n"                                                                                                       \
    "    const double tmp2 = tmp1 * tmp1, tmp3 = tmp1 * tmp2, c34 = C3 * C4, c1345 = C1 * C3 * C4 * C5;\n"        \
    "    const double r43 = 4.0 / 3.0, st2 = s * dt * t2, dt1 = dt * t1;\n"                                       \
    "    LU_UNROLL for (int m = 0; m < 5; m++) LU_UNROLL for (int c = 0; c < 5; c++) A[d][m][c] = 0.0;\n"         \
    "    A[d][0][0] = -dt1 * dd;\n"                                                                               \
    "    A[d][0][n] = st2;\n"                                                                                     \
    "    LU_UNROLL for (int m = 1; m < 4; m++) {\n"                                                               \
    "      if (m == n) {\n"                                                                                       \
    "        A[d][m][0] = st2 * (-(w[n] * tmp1) * (w[n] * tmp1) + C2 * q * tmp1) - dt1 * (-r43 * c34 * tmp2 * w[n]);\n" \
    "        LU_UNROLL for (int c = 1; c < 4; c++) if (c != n) A[d][m][c] = st2 * (-C2 * (w[c] * tmp1));\n"       \
    "        A[d][m][m] = st2 * ((2.0 - C2) * (w[n] * tmp1)) - dt1 * (r43 * c34 * tmp1) - dt1 * dd;\n"            \
    "        A[d][m][4] = st2 * C2;\n"                                                                            \
    "      } else {\n"                                                                                            \
    "        A[d][m][0] = st2 * (-(w[m] * w[n]) * tmp2) - dt1 * (-c34 * tmp2 * w[m]);\n"                          \
    "        A[d][m][n] = st2 * (w[m] * tmp1);\n"                                                                 \
    "        A[d][m][m] = st2 * (w[n] * tmp1) - dt1 * (c34 * tmp1) - dt1 * dd;\n"                                 \
    "      }\n"                                                                                                   \
    "    }\n"                                                                                                     \
    "    const double v1 = (n == 1 ? r43 * c34 : c34) - c1345, v2 = (n == 2 ? r43 * c34 : c34) - c1345;\n"      \
    "    const double v3 = (n == 3 ? r43 * c34 : c34) - c1345;\n"                                                \
    "    A[d][4][0] = st2 * ((C2 * 2.0 * q - C1 * w[4]) * w[n] * tmp2)\n"                                         \
    "               - dt1 * (-v1 * tmp3 * (w[1] * w[1]) - v2 * tmp3 * (w[2] * w[2]) - v3 * tmp3 * (w[3] * w[3])\n" \
    "                        - c1345 * tmp2 * w[4]);\n"                                                           \
    "    LU_UNROLL for (int c = 1; c < 4; c++)\n"                                                                 \
    "      if (c != n) A[d][4][c] = st2 * (-C2 * (w[c] * w[n]) * tmp2) - dt1 * (c34 - c1345) * tmp2 * w[c];\n"   \
    "    A[d][4][n] = st2 * (C1 * (w[4] * tmp1) - C2 * (w[n] * w[n] * tmp2 + q * tmp1))\n"                        \
    "               - dt1 * (r43 * c34 - c1345) * tmp2 * w[n];\n"                                                 \
    "    A[d][4][4] = st2 * (C1 * (w[n] * tmp1)) - dt1 * c1345 * tmp1 - dt1 * dd;\n"                              \
    "  }\n"

/* The diagonal block D at the point itself (jacld's and jacu's d, lower
   triangular), from w0 and 1/rho r0. */
#define LU_DIAGONAL                                                                                               \
    "double D[5][5];\n"                                                                                           \
    "{\n"                                                                                                         \
    "  const double tmp1 = r0, tmp2 = tmp1 * tmp1, tmp3 = tmp1 * tmp2, c34 = C3 * C4, c1345 = C1 * C3 * C4 * C5;\n" \
    "  const double r43 = 4.0 / 3.0, diss = dt * 2.0 * (tx1 * DX + ty1 * DY + tz1 * DZ);\n"                       \
    "  LU_UNROLL for (int m = 0; m < 5; m++) LU_UNROLL for (int c = 0; c < 5; c++) D[m][c] = 0.0;\n"              \
    "  D[0][0] = 1.0 + diss;\n"                                                                                   \
    "  double v[4];\n"                                                                                            \
    "  LU_UNROLL for (int m = 1; m < 4; m++) {\n"                                                                 \
    "    const double sm = (m == 1 ? tx1 * r43 : tx1) + (m == 2 ? ty1 * r43 : ty1) + (m == 3 ? tz1 * r43 : tz1);\n" \
    "    D[m][0] = -dt * 2.0 * sm * c34 * tmp2 * w0[m];\n"                                                         \
    "    D[m][m] = 1.0 + dt * 2.0 * c34 * tmp1 * sm + diss;\n"                                                     \
    "    v[m] = tx1 * ((m == 1 ? r43 * c34 : c34) - c1345) + ty1 * ((m == 2 ? r43 * c34 : c34) - c1345)\n"          \
    "         + tz1 * ((m == 3 ? r43 * c34 : c34) - c1345);\n"                                                     \
    "    D[4][m] = dt * 2.0 * tmp2 * w0[m] * v[m];\n"                                                              \
    "  }\n"                                                                                                       \
    "  D[4][0] = -dt * 2.0 * ((v[1] * (w0[1] * w0[1]) + v[2] * (w0[2] * w0[2]) + v[3] * (w0[3] * w0[3])) * tmp3\n"  \
    "                        + (tx1 + ty1 + tz1) * c1345 * tmp2 * w0[4]);\n"                                    \
    "  D[4][4] = 1.0 + dt * 2.0 * (tx1 + ty1 + tz1) * c1345 * tmp1 + diss;\n"                                     \
    "}\n"

/* D x = tv for the lower triangular D: the operations of NPB's Gaussian
   elimination without the terms whose factor is an exact zero. */
#define LU_SOLVE                                                                                                  \
    "double x[5];\n"                                                                                              \
    "{\n"                                                                                                         \
    "  const double p1 = 1.0 / D[0][0];\n"                                                                        \
    "  LU_UNROLL for (int m = 1; m < 5; m++) tv[m] = tv[m] - tv[0] * (p1 * D[m][0]);\n"                           \
    "  LU_UNROLL for (int m = 1; m < 4; m++) tv[4] = tv[4] - tv[m] * ((1.0 / D[m][m]) * D[4][m]);\n"             \
    "  LU_UNROLL for (int m = 0; m < 5; m++) x[m] = tv[m] / D[m][m];\n"                                           \
    "}\n"

/* Per direction: its coefficients, the neighbour's state, 1/rho and q (at
   P = the neighbour's indices), then its block; the neighbours' solved
   values (offset OFF in one index: the form ACROSS accesses must have). */
#define LU_NEIGHBOURS(P, SIGN, OFF)                                                                               \
    "double A[3][5][5], vn[3][5];\n"                                                                              \
    "LU_UNROLL for (int d = 0; d < 3; d++) {\n"                                                                   \
    "  const int ex = d == 0, ey = d == 1, ez = d == 2, n = d + 1;\n"                                             \
    "  const double s = " SIGN ", t1 = d == 0 ? tx1 : d == 1 ? ty1 : tz1, t2 = d == 0 ? tx2 : d == 1 ? ty2 : tz2;\n" \
    "  const double dd = d == 0 ? DX : d == 1 ? DY : DZ;\n"                                                        \
    "  double w[5];\n"                                                                                            \
    "  LU_UNROLL for (int c = 0; c < 5; c++) w[c] = U(c, " P ");\n"                                               \
    "  const double tmp1 = R(" P "), q = Q(" P ");\n" LU_JACOBIAN "}\n"                                             \
    "LU_UNROLL for (int c = 0; c < 5; c++) {\n"                                                                   \
    "  vn[0][c] = V(c, i " OFF ", j, k); vn[1][c] = V(c, i, j " OFF ", k); vn[2][c] = V(c, i, j, k " OFF ");\n"    \
    "}\n"

/* jacld + blts at one point: rsd is scaled by dt here (NPB's ssor does it
   in a loop before blts; the neighbours read here are already solved). */
const char *const lu_body_blts =
    LU_NEIGHBOURS("i - ex, j - ey, k - ez", "-1.0", "- 1")
    "double w0[5];\n"
    "LU_UNROLL for (int c = 0; c < 5; c++) w0[c] = U(c,i,j,k);\n"
    "const double r0 = R(i,j,k);\n" LU_DIAGONAL
    "double tv[5];\n"
    "LU_UNROLL for (int m = 0; m < 5; m++)\n"
    "  tv[m] = dt * V(m,i,j,k) - omega * (A[2][m][0] * vn[2][0] + A[2][m][1] * vn[2][1] + A[2][m][2] * vn[2][2]\n"
    "                                    + A[2][m][3] * vn[2][3] + A[2][m][4] * vn[2][4]);\n"
    "LU_UNROLL for (int m = 0; m < 5; m++)\n"
    "  tv[m] = tv[m] - omega * (A[1][m][0] * vn[1][0] + A[0][m][0] * vn[0][0] + A[1][m][1] * vn[1][1]\n"
    "                           + A[0][m][1] * vn[0][1] + A[1][m][2] * vn[1][2] + A[0][m][2] * vn[0][2]\n"
    "                           + A[1][m][3] * vn[1][3] + A[0][m][3] * vn[0][3] + A[1][m][4] * vn[1][4]\n"
    "                           + A[0][m][4] * vn[0][4]);\n" LU_SOLVE
    "LU_UNROLL for (int m = 0; m < 5; m++) V(m,i,j,k) = x[m];\n";

/* jacu + buts at one point; the loop runs every index in descending order
   (fdx_loop_order), as NPB's buts. */
const char *const lu_body_buts =
    LU_NEIGHBOURS("i + ex, j + ey, k + ez", "1.0", "+ 1")
    "double w0[5];\n"
    "LU_UNROLL for (int c = 0; c < 5; c++) w0[c] = U(c,i,j,k);\n"
    "const double r0 = R(i,j,k);\n" LU_DIAGONAL
    "double tv[5];\n"
    "LU_UNROLL for (int m = 0; m < 5; m++)\n"
    "  tv[m] = omega * (A[2][m][0] * vn[2][0] + A[2][m][1] * vn[2][1] + A[2][m][2] * vn[2][2]\n"
    "                   + A[2][m][3] * vn[2][3] + A[2][m][4] * vn[2][4]);\n"
    "LU_UNROLL for (int m = 0; m < 5; m++)\n"
    "  tv[m] = tv[m] + omega * (A[1][m][0] * vn[1][0] + A[0][m][0] * vn[0][0] + A[1][m][1] * vn[1][1]\n"
    "                           + A[0][m][1] * vn[0][1] + A[1][m][2] * vn[1][2] + A[0][m][2] * vn[0][2]\n"
    "                           + A[1][m][3] * vn[1][3] + A[0][m][3] * vn[0][3] + A[1][m][4] * vn[1][4]\n"
    "                           + A[0][m][4] * vn[0][4]);\n" LU_SOLVE
    "LU_UNROLL for (int m = 0; m < 5; m++) V(m,i,j,k) -= x[m];\n";

/* ssor's update. */
const char *const lu_body_add = "LU_UNROLL for (int m = 0; m < 5; m++) U(m,i,j,k) += tmp * V(m,i,j,k);\n";

/* l2norm: five sums of squares. */
const char *const lu_body_l2norm =
    "s0 = V(0,i,j,k) * V(0,i,j,k); s1 = V(1,i,j,k) * V(1,i,j,k); s2 = V(2,i,j,k) * V(2,i,j,k);\n"
    "s3 = V(3,i,j,k) * V(3,i,j,k); s4 = V(4,i,j,k) * V(4,i,j,k);\n";

/* error: five sums of squared differences from the exact solution. */
const char *const lu_body_error =
    "const double xi = (double)i / (NX - 1), eta = (double)j / (NY - 1), zeta = (double)k / (NZ - 1);\n"
    "double e[5];\n"
    "LU_UNROLL for (int m = 0; m < 5; m++) e[m] = LU_EXACT(m, xi, eta, zeta) - U(m,i,j,k);\n"
    "s0 = e[0] * e[0]; s1 = e[1] * e[1]; s2 = e[2] * e[2]; s3 = e[3] * e[3]; s4 = e[4] * e[4];\n";

/* pintgr: the pressure phi on two opposite faces, summed over the cells of
   a 2D loop (a, b); LU_FI/LU_FJ/LU_FK(a, b, f) give the point of face f
   (lu_loops.c defines them per face pair). */
const char *const lu_body_pintgr =
    "double sum = 0.0;\n"
    "LU_UNROLL for (int f = 0; f < 2; f++)\n"
    "  LU_UNROLL for (int c = 0; c < 4; c++) {\n"
    "    const long long a1 = a + (c & 1), b1 = b + (c >> 1);\n"
    "    const long long pi = LU_FI(a1, b1, f), pj = LU_FJ(a1, b1, f), pk = LU_FK(a1, b1, f);\n"
    "    sum += C2 * (U(4,pi,pj,pk) - 0.5 * (U(1,pi,pj,pk) * U(1,pi,pj,pk) + U(2,pi,pj,pk) * U(2,pi,pj,pk)\n"
    "                                     + U(3,pi,pj,pk) * U(3,pi,pj,pk)) / U(0,pi,pj,pk));\n"
    "  }\n"
    "s = sum;\n";

/* pintgr on one face (distributed runs): phi at the four corners of the
   cell at (i, j, k); LU_DI/LU_DJ/LU_DK(c) give corner c's offsets. */
const char *const lu_body_pint_face =
    "double sum = 0.0;\n"
    "LU_UNROLL for (int c = 0; c < 4; c++) {\n"
    "  const long long pi = i + LU_DI(c), pj = j + LU_DJ(c), pk = k + LU_DK(c);\n"
    "  sum += C2 * (U(4,pi,pj,pk) - 0.5 * (U(1,pi,pj,pk) * U(1,pi,pj,pk) + U(2,pi,pj,pk) * U(2,pi,pj,pk)\n"
    "                                   + U(3,pi,pj,pk) * U(3,pi,pj,pk)) / U(0,pi,pj,pk));\n"
    "}\n"
    "s = sum;\n";
