/* gguf-edit.c - the bad-input battery's GGUF tool (scripts/battery.sh, issue
 * 40): it finds the integer fields of a GGUF file so that the battery can set
 * each to a bad value, and rewrites a file with one tensor retyped (a K-quant,
 * say) so that the battery has valid files of types mpbench does not run.
 * Written apart from harness/gguf on purpose: the battery must not trust the
 * reader it tests.  Little-endian GGUF v2/v3 only (ggml's gguf.md).
 *
 *   gguf-edit fields FILE            one line per integer field: NAME OFFSET BYTES VALUE
 *   gguf-edit set FILE OFFSET BYTES VALUE   writes VALUE (decimal, may be negative) there
 *   gguf-edit retype IN OUT TENSOR TYPE     OUT = IN with TENSOR of ggml type TYPE
 *                                           (zero data of the new size, offsets redone)
 * Exit 0, or 1 with a message (a file this tool cannot walk). */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned char *buf;
static size_t size;

static void die(const char *msg, const char *arg)
{
    fprintf(stderr, "gguf-edit: %s%s%s\n", msg, arg ? ": " : "", arg ? arg : "");
    exit(1);
}

static void slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        die("cannot open", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    if (n < 24)
        die("too short", path);
    size = (size_t)n;
    buf = malloc(size);
    if (!buf || fread(buf, 1, size, f) != size)
        die("cannot read", path);
    fclose(f);
}

static uint64_t rd(size_t at, int bytes)
{
    if (at + (size_t)bytes > size)
        die("field past the end of the file", NULL);
    uint64_t v = 0;
    for (int i = bytes - 1; i >= 0; i--)
        v = v << 8 | buf[at + (size_t)i];
    return v;
}

/* Bytes of one scalar of GGUF value type t (0: string/array/unknown). */
static int scalar_bytes(uint32_t t)
{
    static const int b[] = {1, 1, 2, 2, 4, 4, 4, 1, 0, 0, 8, 8, 8};
    return t < sizeof b / sizeof b[0] ? b[t] : -1;
}

typedef struct tinfo {
    size_t at;          /* offset of the tensor info */
    size_t name_at;
    uint64_t name_len;
    uint32_t n_dims;
    uint64_t ne[4];
    uint32_t type;
    uint64_t offset;
} tinfo;

static int emit; /* print the fields while walking */
static uint64_t n_tensors, n_kv, alignment = 32;
static size_t kv_begin, kv_end, data_at;
static tinfo *tensors;

static void field(const char *name, size_t at, int bytes)
{
    if (emit)
        printf("%s %zu %d %" PRIu64 "\n", name, at, bytes, rd(at, bytes));
}

/* Walks a string (u64 length + bytes); returns the offset after it. */
static size_t walk_str(const char *name, size_t at)
{
    uint64_t n = rd(at, 8);
    field(name, at, 8);
    if (n > size - at - 8)
        die("string past the end of the file", name);
    return at + 8 + (size_t)n;
}

static void walk(void)
{
    if (memcmp(buf, "GGUF", 4))
        die("not a GGUF file", NULL);
    field("header.version", 4, 4);
    n_tensors = rd(8, 8);
    field("header.n_tensors", 8, 8);
    n_kv = rd(16, 8);
    field("header.n_kv", 16, 8);
    size_t at = 24;
    kv_begin = at;
    char name[512];
    for (uint64_t i = 0; i < n_kv; i++) {
        uint64_t kl = rd(at, 8);
        char key[200];
        snprintf(key, sizeof key, "%.*s", (int)(kl < 150 ? kl : 150), (const char *)buf + at + 8);
        snprintf(name, sizeof name, "kv.%s.key_len", key);
        at = walk_str(name, at);
        uint32_t t = (uint32_t)rd(at, 4);
        snprintf(name, sizeof name, "kv.%s.type", key);
        field(name, at, 4);
        at += 4;
        if (t == 8) {
            snprintf(name, sizeof name, "kv.%s.str_len", key);
            at = walk_str(name, at);
        } else if (t == 9) {
            uint32_t et = (uint32_t)rd(at, 4);
            snprintf(name, sizeof name, "kv.%s.arr_type", key);
            field(name, at, 4);
            uint64_t n = rd(at + 4, 8);
            snprintf(name, sizeof name, "kv.%s.arr_len", key);
            field(name, at + 4, 8);
            at += 12;
            if (et == 8) {
                int was = emit;
                emit = 0; /* the vocabulary's strings: too many to list */
                for (uint64_t j = 0; j < n; j++)
                    at = walk_str("", at);
                emit = was;
            } else {
                int b = scalar_bytes(et);
                if (b <= 0 || n > (size - at) / (uint64_t)b)
                    die("array past the end of the file", key);
                at += (size_t)n * (size_t)b;
            }
        } else {
            int b = scalar_bytes(t);
            if (b <= 0)
                die("unknown value type", key);
            snprintf(name, sizeof name, "kv.%s.value", key);
            if (t != 6 && t != 12 && t != 7) /* integers only */
                field(name, at, b);
            if (!strcmp(key, "general.alignment"))
                alignment = rd(at, b);
            at += (size_t)b;
        }
    }
    kv_end = at;
    if (n_tensors > size / 24)
        die("tensor count absurd", NULL);
    tensors = calloc((size_t)n_tensors + 1, sizeof *tensors);
    for (uint64_t i = 0; i < n_tensors; i++) {
        tinfo *ti = &tensors[i];
        ti->at = at;
        ti->name_len = rd(at, 8);
        ti->name_at = at + 8;
        char tn[200];
        snprintf(tn, sizeof tn, "%.*s", (int)(ti->name_len < 150 ? ti->name_len : 150),
                 (const char *)buf + at + 8);
        snprintf(name, sizeof name, "tensor.%s.name_len", tn);
        at = walk_str(name, at);
        ti->n_dims = (uint32_t)rd(at, 4);
        snprintf(name, sizeof name, "tensor.%s.n_dims", tn);
        field(name, at, 4);
        at += 4;
        if (ti->n_dims > 4)
            die("more than 4 dims", tn);
        for (uint32_t d = 0; d < ti->n_dims; d++) {
            ti->ne[d] = rd(at, 8);
            snprintf(name, sizeof name, "tensor.%s.ne%u", tn, d);
            field(name, at, 8);
            at += 8;
        }
        ti->type = (uint32_t)rd(at, 4);
        snprintf(name, sizeof name, "tensor.%s.type", tn);
        field(name, at, 4);
        at += 4;
        ti->offset = rd(at, 8);
        snprintf(name, sizeof name, "tensor.%s.offset", tn);
        field(name, at, 8);
        at += 8;
    }
    if (!alignment || alignment & (alignment - 1))
        die("alignment not a power of two", NULL);
    data_at = (at + alignment - 1) / alignment * alignment;
}

/* ggml's block size and bytes per block of a type; 0 when unknown. */
static int type_block(uint32_t t, int *bytes)
{
    static const struct { uint32_t t; int blck, bytes; } tt[] = {
        {0, 1, 4},      {1, 1, 2},      {2, 32, 18},    {3, 32, 20},   {6, 32, 22},
        {7, 32, 24},    {8, 32, 34},    {9, 32, 36},    {10, 256, 84}, {11, 256, 110},
        {12, 256, 144}, {13, 256, 176}, {14, 256, 210}, {15, 256, 292}, {16, 256, 66},
        {17, 256, 74},  {18, 256, 98},  {19, 256, 50},  {20, 32, 18},  {21, 256, 110},
        {22, 256, 82},  {23, 256, 136}, {24, 1, 1},     {25, 1, 2},    {26, 1, 4},
        {27, 1, 8},     {28, 1, 8},     {29, 256, 56},  {30, 1, 2},    {34, 256, 54},
        {35, 256, 66},
    };
    for (size_t i = 0; i < sizeof tt / sizeof tt[0]; i++)
        if (tt[i].t == t)
            return *bytes = tt[i].bytes, tt[i].blck;
    return 0;
}

/* Bytes of tensor ti's data: the gap to the next offset (or the file's end)
 * in the input, the type's size in the output. */
static uint64_t tensor_bytes(const tinfo *ti)
{
    if (ti->type == 36) { /* bitnet.cpp's I2_S: 4 per byte + a 32-byte trailer */
        uint64_t n = 1;
        for (uint32_t d = 0; d < ti->n_dims; d++)
            n *= ti->ne[d];
        return n / 4 + 32;
    }
    int bytes, blck = type_block(ti->type, &bytes);
    if (!blck)
        die("unknown ggml type in the input", NULL);
    if (ti->ne[0] % (uint64_t)blck)
        die("row length not a multiple of the new type's block", NULL);
    uint64_t n = 1;
    for (uint32_t d = 0; d < ti->n_dims; d++)
        n *= ti->ne[d];
    return n / (uint64_t)blck * (uint64_t)bytes;
}

static void put(FILE *f, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; i++)
        fputc((int)(v >> (8 * i) & 0xff), f);
}

static void pad(FILE *f, long to)
{
    while (ftell(f) < to)
        fputc(0, f);
}

static void retype(const char *out, const char *tname, uint32_t type)
{
    tinfo *hit = NULL;
    for (uint64_t i = 0; i < n_tensors; i++)
        if (tensors[i].name_len == strlen(tname) &&
            !memcmp(buf + tensors[i].name_at, tname, strlen(tname)))
            hit = &tensors[i];
    if (!hit)
        die("no such tensor", tname);
    uint64_t *old_bytes = calloc((size_t)n_tensors, sizeof *old_bytes);
    for (uint64_t i = 0; i < n_tensors; i++)
        old_bytes[i] = tensor_bytes(&tensors[i]);
    hit->type = type;
    FILE *f = fopen(out, "wb");
    if (!f)
        die("cannot write", out);
    fwrite(buf, 1, kv_end, f); /* header and key-values, unchanged */
    uint64_t off = 0;
    for (uint64_t i = 0; i < n_tensors; i++) {
        tinfo *ti = &tensors[i];
        put(f, ti->name_len, 8);
        fwrite(buf + ti->name_at, 1, (size_t)ti->name_len, f);
        put(f, ti->n_dims, 4);
        for (uint32_t d = 0; d < ti->n_dims; d++)
            put(f, ti->ne[d], 8);
        put(f, ti->type, 4);
        put(f, off, 8);
        off = (off + tensor_bytes(ti) + alignment - 1) / alignment * alignment;
    }
    long data = (ftell(f) + (long)alignment - 1) / (long)alignment * (long)alignment;
    pad(f, data);
    off = 0;
    for (uint64_t i = 0; i < n_tensors; i++) {
        tinfo *ti = &tensors[i];
        uint64_t nb = tensor_bytes(ti);
        pad(f, data + (long)off);
        if (ti == hit)
            for (uint64_t j = 0; j < nb; j++)
                fputc(0, f);
        else
            fwrite(buf + data_at + ti->offset, 1, (size_t)old_bytes[i], f);
        off = (off + nb + alignment - 1) / alignment * alignment;
    }
    if (fclose(f))
        die("cannot write", out);
    free(old_bytes);
}

int main(int argc, char **argv)
{
    if (argc == 3 && !strcmp(argv[1], "fields")) {
        slurp(argv[2]);
        emit = 1;
        walk();
        return 0;
    }
    if (argc == 6 && !strcmp(argv[1], "set")) {
        slurp(argv[2]);
        size_t at = strtoull(argv[3], NULL, 10);
        int bytes = atoi(argv[4]);
        uint64_t v = argv[5][0] == '-' ? (uint64_t)strtoll(argv[5], NULL, 10)
                                       : strtoull(argv[5], NULL, 10);
        if (bytes < 1 || bytes > 8 || at + (size_t)bytes > size)
            die("bad offset or width", NULL);
        FILE *f = fopen(argv[2], "r+b");
        if (!f)
            die("cannot write", argv[2]);
        fseek(f, (long)at, SEEK_SET);
        put(f, v, bytes);
        return fclose(f) ? 1 : 0;
    }
    if (argc == 6 && !strcmp(argv[1], "retype")) {
        slurp(argv[2]);
        walk();
        retype(argv[3], argv[4], (uint32_t)strtoul(argv[5], NULL, 10));
        return 0;
    }
    fprintf(stderr, "usage: gguf-edit fields FILE | set FILE OFFSET BYTES VALUE | "
                    "retype IN OUT TENSOR TYPE\n");
    return 1;
}
