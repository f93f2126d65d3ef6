/* mp_gguf.h - GGUF model files (issue 19): our own reader and writer, the
 * mapping from a GGUF file's metadata and tensors to mpbench's model and to the
 * end-to-end runner's weights, and a small loader of ggml's own gguf reader
 * (libggml-base.so, dlopen'ed) used to cross-check ours.
 *
 * Format (ggml's gguf.md, versions 2 and 3, little-endian only): "GGUF", u32
 * version, u64 tensor count, u64 key-value count; key-value pairs (string key,
 * u32 value type, value); tensor infos (string name, u32 n_dims, u64 ne[n_dims],
 * u32 ggml type, u64 offset relative to the data section); padding to
 * general.alignment (default 32); the data section.  Strings are u64 length +
 * bytes (no NUL).  ne[0] is the contiguous dimension: a linear layer with M
 * outputs and K inputs is ne = {K, M}.
 *
 * Every count, length, size and offset is checked against the file before it is
 * used; errors (MP_EUSAGE) read "FILE: FIELD at byte OFFSET: what is wrong". */
#ifndef MP_GGUF_H
#define MP_GGUF_H

#include <stddef.h>
#include <stdint.h>

#include "../core/mp_core.h"

/* ggml tensor types we read (ggml.h numbering; I2_S is bitnet.cpp's 36). */
enum {
    MP_GGML_F32 = 0, MP_GGML_F16 = 1, MP_GGML_Q4_0 = 2, MP_GGML_Q8_0 = 8,
    MP_GGML_BF16 = 30, MP_GGML_TQ1_0 = 34, MP_GGML_TQ2_0 = 35, MP_GGML_I2_S = 36,
};

/* GGUF value types. */
enum {
    MP_GGUF_U8 = 0, MP_GGUF_I8, MP_GGUF_U16, MP_GGUF_I16, MP_GGUF_U32, MP_GGUF_I32,
    MP_GGUF_F32, MP_GGUF_BOOL, MP_GGUF_STRING, MP_GGUF_ARRAY, MP_GGUF_U64, MP_GGUF_I64,
    MP_GGUF_F64, MP_GGUF_NTYPES
};

enum { MP_GGUF_DEFAULT_ALIGN = 32, MP_GGUF_MAX_DIMS = 4, MP_GGUF_MAX_NAME = 63 };

typedef struct mp_gguf_kv {
    char *key;
    int type;            /* MP_GGUF_* */
    int arr_type;        /* element type when type == ARRAY */
    uint64_t n;          /* array length (1 for a scalar) */
    union {
        uint64_t u;
        int64_t i;
        double f;
    } v;                 /* scalar value, widened */
    char *str;           /* STRING value (NUL-terminated copy) */
    const uint8_t *data; /* ARRAY: first element in the mapped file */
    uint64_t at;         /* byte offset of the key in the file */
} mp_gguf_kv;

typedef struct mp_gguf_tensor {
    char *name;
    int type;                       /* MP_GGML_* */
    int n_dims;
    int64_t ne[MP_GGUF_MAX_DIMS];   /* unused dims are 1 */
    uint64_t offset;                /* relative to the data section */
    size_t bytes;
    const uint8_t *data;            /* in the mapped file */
    uint64_t at;                    /* byte offset of the tensor info */
} mp_gguf_tensor;

typedef struct mp_gguf {
    char path[1024];
    int version;
    const uint8_t *base;
    size_t size;
    int mapped;
    uint64_t alignment, data_offset;
    int64_t n_kv, n_tensors;
    mp_gguf_kv *kv;
    mp_gguf_tensor *t;
} mp_gguf;

/* ---- types (harness/gguf-read.c) ------------------------------------------------ */
/* Name of a ggml type ("tq2_0"), or NULL when we do not know it. */
const char *mp_gguf_type_name(int type);
/* 1 when mpbench reads tensors of the type, 0 for ggml's others (listed only). */
int mp_gguf_type_runs(int type);
/* MP_EUSAGE naming the first tensor of a type mpbench does not read (e2e, run
 * and the shape readers refuse such a file; list gguf lists it), else 0. */
int mp_gguf_check_types(const mp_gguf *g, mp_err *e);
/* Elements per block of a type (bytes per block in *bytes); 0 when unknown. */
int mp_gguf_type_block(int type, int *bytes);
/* Bytes of a tensor of this type and element counts; 0 with why set when the
 * shape does not fit the type (row length not a multiple of the block). */
size_t mp_gguf_tensor_bytes(int type, const int64_t ne[MP_GGUF_MAX_DIMS], char *why, size_t wlen);
/* Dequantizes row r (ne[0] elements) of a 2-D tensor into floats.  For I2_S
 * the per-tensor scale of the trailer is applied. */
void mp_gguf_row_f32(const mp_gguf_tensor *t, int64_t r, float *out);

/* ---- reader (harness/gguf-read.c) ----------------------------------------------- */
/* Maps and parses path.  On error nothing is left open. */
int mp_gguf_open(const char *path, mp_gguf **out, mp_err *e);
/* Parses a buffer (not copied; must outlive the result); name is used in messages. */
int mp_gguf_parse(const uint8_t *buf, size_t size, const char *name, mp_gguf **out, mp_err *e);
void mp_gguf_close(mp_gguf *g);
const mp_gguf_kv *mp_gguf_find(const mp_gguf *g, const char *key);
const mp_gguf_tensor *mp_gguf_tensor_find(const mp_gguf *g, const char *name);
/* The i-th string of a string array (length in *len; not NUL-terminated). */
const char *mp_gguf_arr_str(const mp_gguf_kv *kv, uint64_t i, uint64_t *len);

/* ---- writer (harness/gguf-write.c) ---------------------------------------------- */
typedef struct mp_gguf_w mp_gguf_w;
/* Produces the bytes of one tensor (exactly its size) into out. */
typedef int (*mp_gguf_fill_fn)(void *ctx, int index, uint8_t *out, size_t bytes, mp_err *e);

mp_gguf_w *mp_gguf_w_new(void);
void mp_gguf_w_free(mp_gguf_w *w);
void mp_gguf_w_str(mp_gguf_w *w, const char *key, const char *val);
void mp_gguf_w_u32(mp_gguf_w *w, const char *key, uint32_t val);
void mp_gguf_w_i32(mp_gguf_w *w, const char *key, int32_t val);
void mp_gguf_w_f32(mp_gguf_w *w, const char *key, float val);
void mp_gguf_w_bool(mp_gguf_w *w, const char *key, int val);
/* A numeric array (elem type MP_GGUF_*, n elements of its size, copied). */
void mp_gguf_w_arr(mp_gguf_w *w, const char *key, int elem, const void *data, uint64_t n);
/* A string array (n strings, copied). */
void mp_gguf_w_arr_str(mp_gguf_w *w, const char *key, const char *const *s, uint64_t n);
/* Adds a tensor; its bytes come from fill(ctx, index) at write time (index is
 * the order of addition).  Returns the index, or -1 (message in e) when the
 * shape does not fit the type. */
int mp_gguf_w_tensor(mp_gguf_w *w, const char *name, int type, int n_dims, const int64_t *ne,
                     mp_gguf_fill_fn fill, void *ctx, mp_err *e);
/* Writes version 3 with the given alignment (power of two; 0: 32) to path via
 * a temporary file renamed at the end: nothing half-written on error. */
int mp_gguf_w_write(mp_gguf_w *w, const char *path, uint32_t alignment, mp_err *e);

/* ---- models (harness/gguf-model.c) ---------------------------------------------- */
/* The architecture of a GGUF file as an mp_model (name = the file's base name):
 * llama.cpp's `llama` (ternary linears; Q/K rows in llama.cpp's rope order),
 * `bitnet` and bitnet.cpp's `bitnet-b1.58` (sub-norms, tied head).  Checks
 * that every tensor the runner needs is present with the right shape; errors
 * name the file and what is missing. */
int mp_gguf_model(const mp_gguf *g, mp_model *m, mp_err *e);
/* mp_gguf_open + mp_gguf_model. */
int mp_gguf_model_load(const char *path, mp_model *m, mp_err *e);
/* Nonzero when path names a readable file that starts with "GGUF". */
int mp_gguf_is_file(const char *path);

struct mp_e2e_source;
/* A weight source for the end-to-end runner that hands out the file's real
 * weights: ternary tensors checked ternary (one scale per tensor), others
 * converted.  g must outlive the source; mp_gguf_source_free releases it. */
int mp_gguf_source(const mp_gguf *g, const mp_model *m, struct mp_e2e_source *src, mp_err *e);
void mp_gguf_source_free(struct mp_e2e_source *src);
/* Checks that the linears of the first `layers` layers are ternary (before any
 * work, so a bad file fails up front). */
int mp_gguf_check_ternary(const mp_gguf *g, const mp_model *m, int layers, mp_err *e);
/* Reads a ternary tensor (M x K, ne = {K, M}) into int8 {-1,0,1} and its
 * per-tensor scale, checking every value.  Errors name the tensor and byte. */
int mp_gguf_ternary(const mp_gguf *g, const mp_gguf_tensor *t, int8_t *w, float *scale, mp_err *e);

/* Writes a model of the architecture m with the e2e runner's seeded weights
 * (the synthetic source of seed), its linears in type (TQ2_0, TQ1_0, I2_S,
 * Q8_0, Q4_0, F16), embedding and untied head in head (BF16, F16, Q8_0,
 * Q4_0): `bitnet` when m has sub-norms, else `llama` (gguf-write-model.c). */
int mp_gguf_write_model(const char *path, const mp_model *m, uint64_t seed, int type, int head,
                        mp_err *e);
/* The same with the weights of src (ternary linears, bf16 embedding, f32
 * norms) and desc as general.description. */
int mp_gguf_write_model_src(const char *path, const mp_model *m,
                            const struct mp_e2e_source *src, const char *desc, int type, int head,
                            mp_err *e);
/* A trained model's raw weights (models/trained/NAME.mptw, scripts/train/FORMAT.md,
 * gguf/mptw.c): its architecture into *m (name = the file's base name) and a
 * weight source with its exact codes, scales, bf16 embedding and f32 norms;
 * only ternary bitnet files.  mp_mptw_close releases the source. */
int mp_mptw_open(const char *path, mp_model *m, struct mp_e2e_source *src, mp_err *e);
void mp_mptw_close(struct mp_e2e_source *src);

/* ---- models by name or file (gguf/model-file.c) ---------------------------------- */
/* A GGUF file (by name or magic) through mp_gguf_model_load, else a model text
 * file (mp_model_load_text): what --model and --gguf take. */
int mp_model_load(const char *name_or_path, mp_model *m, mp_err *e);

/* ---- helpers of the commands that take a GGUF file -------------------------------- */
/* Validates a --gguf FILE argument (a runnable GGUF model); 0 or the exit code
 * after printing the error. */
int mp_gguf_arg(const char *path);
/* e2e --gguf: opens path, checks the first `layers` layers' linears ternary and
 * makes the weight source (*src, valid until exit); 0 or the exit code after
 * printing the error. */
struct mp_e2e_source;
int mp_gguf_e2e_source(const char *path, const mp_model *m, int layers,
                       const struct mp_e2e_source **src);

/* ---- ggml's own reader, dlopen'ed (harness/gguf-ggml.c) ------------------------- */
/* Directory of the peer libraries: $MPBENCH_GGML_DIR, else third_party/ggml's
 * package lib dir (next to the binary or the working directory); NULL if absent. */
const char *mp_ggml_dir(void);
/* One entry point of a dlopen'ed library: its symbol, looked up in the
 * handle numbered lib, stored at offset off of a struct of function pointers. */
typedef struct mp_dl_sym {
    int lib;
    size_t off;
    const char *name;
} mp_dl_sym;
/* Fills api from syms[0..n) (handles[sym.lib] each); NULL, or the first name
 * its library lacks. */
const char *mp_dl_syms(void *const *handles, const mp_dl_sym *syms, int n, void *api);
/* Opens path with ggml's gguf_init_from_file and compares every key (type,
 * value) and tensor (name, type, shape, offset, size) with our reader's view.
 * MP_OK when they agree; MP_ERUN with the first difference; MP_EUSAGE with
 * ggml's refusal when ggml cannot read it; -1 when the library is absent.
 * report (may be NULL) gets a one-line summary of what ggml read. */
int mp_ggml_crosscheck(const char *path, char *report, size_t rlen, mp_err *e);

/* ---- llama.cpp itself, dlopen'ed (harness/gguf-llama.c) ------------------------- */
/* Greedy decoding of each prompt through llama.cpp's own loader and graph:
 * out[p * gen + i] is the i-th generated token of prompt p; first_logits (may
 * be NULL) gets the vocab logits after each prompt (p * vocab).  MP_EUSAGE with
 * llama.cpp's message when its loader refuses the file; -1 when the library is
 * absent. */
int mp_llama_greedy(const char *path, const int *const *prompts, const int *plen, int nprompts,
                    int gen, int *out, float *first_logits, mp_err *e);

/* A llama.cpp session (issue 39): the file loaded by llama.cpp, one context of
 * max_seqs sequences of max_ctx positions each taking up to max_tokens tokens
 * per call, run on a ggml threadpool of `threads` threads attached to it (as
 * llama.cpp's own tools run).  MP_EUSAGE with llama.cpp's message when its
 * loader refuses the file; -1 when the library is absent; MP_ERUN otherwise. */
enum { MP_LLAMA_MAX_SEQS = 64 };
typedef struct mp_llama mp_llama;
int mp_llama_open(const char *path, int threads, int max_ctx, int max_tokens, int max_seqs,
                  mp_llama **out, mp_err *e);
void mp_llama_close(mp_llama *l);
/* Puts its threadpool's workers to sleep (pause 1) or wakes them (0): between
 * graphs they spin, taking the CPUs a measurement beside the steps needs.
 * -1 when the library has no ggml_threadpool_pause/resume. */
int mp_llama_pause(mp_llama *l, int pause);
/* Empties every sequence's KV cache. */
void mp_llama_reset(mp_llama *l);
int mp_llama_vocab(const mp_llama *l);
/* Bytes of the model's tensors as llama.cpp holds them (llama_model_size). */
size_t mp_llama_model_bytes(const mp_llama *l);
/* llama.cpp's one-line description of the model (llama_model_desc). */
void mp_llama_describe(const mp_llama *l, char *buf, size_t len);
/* One llama_decode over n tokens, tok[i] appended to sequence seq[i] (seq NULL:
 * all sequence 0) at its next position; next[] gets the argmax of the logits
 * of each token with want[i] != 0 (want NULL: all), in order. */
int mp_llama_forward(mp_llama *l, const int *tok, const int *seq, int n, const unsigned char *want,
                     int *next, mp_err *e);
/* The logits of batch row i of the last forward call (want[i] set). */
const float *mp_llama_logits(const mp_llama *l, int i);

#endif
