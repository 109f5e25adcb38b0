/* librett_cases: LibreTT (the cuTT successor, public source fetched into
   peers/librett for measuring; never part of libfdx) on the cases that
   `fdx bench transform --list` prints, read from stdin, one JSON record per
   case on stdout, for issue 22's comparison in the same device call:
     {"case", "peer": "librett", "supported", "verified", "time_ms",
      "effective_gbps", "copy_same_size_gbps", "ratio_same_size"}
   LibreTT takes 4-, 8- and 16-byte elements only.  The plan is LibreTT's
   best (librettPlanMeasure); the result is checked at 65536 sampled points
   (and every point of arrays below 1 Mi elements), both permutation
   conventions tried so that the transform measured is the one fdx runs.
   Built by tools/gpu-check.d/transform_peers.sh:
     nvcc -O3 -arch=sm_90 -DLIBRETT_USES_CUDA -I peers/librett/src librett_cases.cu librett.a */
#include "librett.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>
#include <vector>

#define CK(call)                                                                              \
    do {                                                                                      \
        cudaError_t e_ = (call);                                                              \
        if (e_ != cudaSuccess) {                                                              \
            fprintf(stderr, "librett_cases: %s: %s\n", #call, cudaGetErrorString(e_));        \
            exit(3);                                                                          \
        }                                                                                     \
    } while (0)

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33, x *= 0xff51afd7ed558ccdULL, x ^= x >> 33, x *= 0xc4ceb9fe1a85ec53ULL;
    return x ^ (x >> 33);
}

/* Timed repetitions: 20, or enough that about 2 ms is timed at copy speed
   (at most 1000): the rule of fdx's own transform timings (timed_reps in
   tools/fdx/cmd_transform.c), so that small cases are measured alike. */
static int timed_reps(size_t bytes)
{
    const double est_ms = 2.0 * (double)bytes / 2.5e9 + 0.005, want = 2.0 / est_ms;
    return want > 1000 ? 1000 : want > 20 ? (int)want + 1 : 20;
}

static float median_ms(std::vector<float> t)
{
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

/* out axis i holds in axis p[i] (out_from_in), or in axis i goes to out
   position p[i] (the inverse): the output offset of input index x. */
static int64_t out_offset(int rank, const int64_t *dim, const int *p, int out_from_in, const int64_t *x)
{
    int q[8];
    for (int i = 0; i < rank; i++) q[i] = p[i];
    if (!out_from_in)
        for (int i = 0; i < rank; i++) q[p[i]] = i;
    int64_t off = 0, stride = 1;
    for (int i = 0; i < rank; i++) off += x[q[i]] * stride, stride *= dim[q[i]];
    return off;
}

static int check(const unsigned char *in, const unsigned char *out, int rank, const int64_t *dim, const int *p,
                 int out_from_in, size_t elem, int64_t n)
{
    int64_t samples = n < (1 << 20) ? n : 65536;
    for (int64_t s = 0; s < samples; s++) {
        int64_t q = samples == n ? s : (int64_t)(mix((uint64_t)s) % (uint64_t)n), r = q, x[8];
        for (int a = 0; a < rank; a++) x[a] = r % dim[a], r /= dim[a];
        if (memcmp(out + (size_t)out_offset(rank, dim, p, out_from_in, x) * elem, in + (size_t)q * elem, elem))
            return 0;
    }
    return 1;
}

int main()
{
    char line[512];
    cudaStream_t stream = 0;
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    while (fgets(line, sizeof line, stdin)) {
        char name[64], shape[128], perm[64];
        size_t elem;
        if (sscanf(line, "%63s %127s perm %63s elem %zu", name, shape, perm, &elem) != 4) continue;
        int rank = 0, p[8];
        int64_t dim[8], n = 1;
        for (char *t = strtok(shape, "x"); t && rank < 8; t = strtok(NULL, "x")) n *= dim[rank++] = atoll(t);
        int pr = 0;
        for (char *t = strtok(perm, ","); t && pr < 8; t = strtok(NULL, ",")) p[pr++] = atoi(t);
        if (pr != rank) continue;
        if (elem != 4 && elem != 8 && elem != 16) {
            printf("{\"case\": \"%s\", \"peer\": \"librett\", \"supported\": false}\n", name);
            continue;
        }
        size_t bytes = (size_t)n * elem;
        std::vector<unsigned char> hin(bytes), hout(bytes);
        for (size_t b = 0; b < bytes; b += 8) {
            uint64_t v = mix(b + 12345);
            memcpy(&hin[b], &v, std::min<size_t>(8, bytes - b));
        }
        void *din, *dout;
        CK(cudaMalloc(&din, bytes));
        CK(cudaMalloc(&dout, bytes));
        CK(cudaMemcpy(din, hin.data(), bytes, cudaMemcpyHostToDevice));
        int idim[8];
        for (int a = 0; a < rank; a++) idim[a] = (int)dim[a];
        int verified = 0, convention = -1;
        float ms = 0;
        for (int out_from_in = 1; out_from_in >= 0 && !verified; out_from_in--) {
            int pp[8];
            for (int i = 0; i < rank; i++) pp[i] = p[i];
            librettHandle plan;
            if (librettPlanMeasure(&plan, rank, idim, pp, elem, stream, din, dout) != LIBRETT_SUCCESS) break;
            CK(cudaMemset(dout, 0xFF, bytes));
            if (librettExecute(plan, din, dout) != LIBRETT_SUCCESS) break;
            CK(cudaDeviceSynchronize());
            CK(cudaMemcpy(hout.data(), dout, bytes, cudaMemcpyDeviceToHost));
            verified = check(hin.data(), hout.data(), rank, dim, p, out_from_in, elem, n);
            if (verified) {
                convention = out_from_in;
                std::vector<float> t;
                for (int r = 0; r < 3 + timed_reps(bytes); r++) {
                    CK(cudaEventRecord(e0, stream));
                    librettExecute(plan, din, dout);
                    CK(cudaEventRecord(e1, stream));
                    CK(cudaEventSynchronize(e1));
                    float x;
                    CK(cudaEventElapsedTime(&x, e0, e1));
                    if (r >= 3) t.push_back(x);
                }
                ms = median_ms(t);
            }
            librettDestroy(plan);
        }
        std::vector<float> tc;
        for (int r = 0; r < 3 + timed_reps(bytes); r++) {
            CK(cudaEventRecord(e0, stream));
            CK(cudaMemcpyAsync(dout, din, bytes, cudaMemcpyDeviceToDevice, stream));
            CK(cudaEventRecord(e1, stream));
            CK(cudaEventSynchronize(e1));
            float x;
            CK(cudaEventElapsedTime(&x, e0, e1));
            if (r >= 3) tc.push_back(x);
        }
        double copy = 2.0 * (double)bytes / (median_ms(tc) * 1e-3) / 1e9;
        double eff = verified ? 2.0 * (double)bytes / (ms * 1e-3) / 1e9 : 0;
        printf("{\"case\": \"%s\", \"peer\": \"librett\", \"supported\": true, \"verified\": %s, \"convention\": %d, "
               "\"time_ms\": %.9g, \"effective_gbps\": %.9g, \"copy_same_size_gbps\": %.9g, \"ratio_same_size\": %.9g}\n",
               name, verified ? "true" : "false", convention, ms, eff, copy, eff / copy);
        fflush(stdout);
        CK(cudaFree(din));
        CK(cudaFree(dout));
    }
    return 0;
}
