// SPDX-License-Identifier: MIT
// Golden writer only (never built into the product): ggml's quantize_q{2..6}_K and quantize_iq* from
// ggml-quants.c, after ggml_quantize_init's table set-up (iq2xs_init_impl / iq3xs_init_impl):
// argv: ggml_type_id rows n_per_row in.f32 out.bin [weights.f32]
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
typedef size_t (*quantize_fn)(const float *, void *, int64_t, int64_t, const float *);
size_t quantize_q2_K(const float *, void *, int64_t, int64_t, const float *);
size_t quantize_q3_K(const float *, void *, int64_t, int64_t, const float *);
size_t quantize_q4_K(const float *, void *, int64_t, int64_t, const float *);
size_t quantize_q5_K(const float *, void *, int64_t, int64_t, const float *);
size_t quantize_q6_K(const float *, void *, int64_t, int64_t, const float *);
size_t quantize_iq2_xxs(const float *, void *, int64_t, int64_t, const float *);
size_t quantize_iq2_xs(const float *, void *, int64_t, int64_t, const float *);
size_t quantize_iq2_s(const float *, void *, int64_t, int64_t, const float *);
size_t quantize_iq3_xxs(const float *, void *, int64_t, int64_t, const float *);
size_t quantize_iq3_s(const float *, void *, int64_t, int64_t, const float *);
size_t quantize_iq1_s(const float *, void *, int64_t, int64_t, const float *);
size_t quantize_iq1_m(const float *, void *, int64_t, int64_t, const float *);
size_t quantize_iq4_nl(const float *, void *, int64_t, int64_t, const float *);
size_t quantize_iq4_xs(const float *, void *, int64_t, int64_t, const float *);
void iq2xs_init_impl(int type);
void iq3xs_init_impl(int grid_size);
static void *slurp(const char *p, size_t n) { FILE *f = fopen(p, "rb"); void *b = malloc(n); if (!f || fread(b, 1, n, f) != n) { fprintf(stderr, "read %s\n", p); exit(1);} fclose(f); return b; }
int main(int argc, char **argv) {
    int t = atoi(argv[1]); int64_t rows = atoll(argv[2]), n = atoll(argv[3]);
    float *x = slurp(argv[4], rows * n * 4);
    float *w = argc > 6 ? slurp(argv[6], n * 4) : NULL;
    void *out = calloc(rows * n, 4);
    quantize_fn f = NULL;
    switch (t) {  // ggml_type ids (ggml.h)
    case 10: f = quantize_q2_K; break;
    case 11: f = quantize_q3_K; break;
    case 12: f = quantize_q4_K; break;
    case 13: f = quantize_q5_K; break;
    case 14: f = quantize_q6_K; break;
    case 16: f = quantize_iq2_xxs; iq2xs_init_impl(t); break;
    case 17: f = quantize_iq2_xs; iq2xs_init_impl(t); break;
    case 18: f = quantize_iq3_xxs; iq3xs_init_impl(256); break;
    case 19: f = quantize_iq1_s; iq2xs_init_impl(t); break;
    case 20: f = quantize_iq4_nl; break;
    case 21: f = quantize_iq3_s; iq3xs_init_impl(512); break;
    case 22: f = quantize_iq2_s; iq2xs_init_impl(t); break;
    case 23: f = quantize_iq4_xs; break;
    case 29: f = quantize_iq1_m; iq2xs_init_impl(t); break;
    default: fprintf(stderr, "type %d\n", t); return 1;
    }
    size_t sz = f(x, out, rows, n, w);
    FILE *o = fopen(argv[5], "wb"); fwrite(out, 1, sz, o); fclose(o);
    return 0;
}

// Stubs of ggml.c the K-quant functions reach: sizes of Q2_K..Q6_K only.
#include <stdarg.h>
static size_t tsize(int t) { switch (t) { case 10: return 84; case 11: return 110; case 12: return 144; case 13: return 176; case 14: return 210; } fprintf(stderr, "type %d\n", t); abort(); }
size_t ggml_type_size(int t) { return tsize(t); }
size_t ggml_row_size(int t, int64_t ne) { return tsize(t) * (size_t)(ne / 256); }
const char *ggml_type_name(int t) { (void)t; return "?"; }
void ggml_abort(const char *file, int line, const char *fmt, ...) { fprintf(stderr, "abort %s:%d\n", file, line); abort(); }
