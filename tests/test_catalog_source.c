/* test_catalog_source.c - name -> code (issue 38): every catalog row spells its
 * name literally in variants/ (*.c), records where its pack, prepare and compute
 * are defined ("file:function", files that exist and name the function), and
 * its family token maps to its kernel folder by the one rule of
 * variants/catalog.h; `mpbench list variants --source` prints the record.  Reads
 * the source tree (the tests run from the top of the checkout). */
#include <criterion/criterion.h>
#include <ctype.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "mp_test.h"
#include "../variants/mp_registry.h"

/* The whole file, NUL-terminated (caller frees), or NULL. */
static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    if (s && fread(s, 1, (size_t)n, f) != (size_t)n) {
        free(s);
        s = NULL;
    }
    if (s)
        s[n] = 0;
    fclose(f);
    return s;
}

/* 1 when word occurs in text with no identifier character on either side. */
static int has_word(const char *text, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = strstr(text, word); p; p = strstr(p + 1, word)) {
        int before = p > text && (isalnum((unsigned char)p[-1]) || p[-1] == '_');
        int after = isalnum((unsigned char)p[n]) || p[n] == '_';
        if (!before && !after)
            return 1;
    }
    return 0;
}

static int is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* A "file:function" record: the file exists and names the function. */
static void check_src(const mp_variant *v, const char *slot, const char *src)
{
    cr_assert(src && *src, "%s: no %s source recorded (MP_SOURCES in its catalog row)",
              v->name, slot);
    const char *colon = strrchr(src, ':');
    cr_assert(colon && colon > src && colon[1], "%s: %s source '%s' is not file:function",
              v->name, slot, src);
    char file[256];
    snprintf(file, sizeof file, "%.*s", (int)(colon - src), src);
    char *text = slurp(file);
    cr_assert(text, "%s: %s source file %s does not exist", v->name, slot, file);
    int named = has_word(text, colon + 1);
    free(text);
    cr_assert(named, "%s: %s function %s does not occur in %s", v->name, slot, colon + 1,
              file);
}

Test(catalog, every_row_records_its_sources)
{
    int n = mp_registry_catalog_count();
    cr_assert_gt(n, 0);
    for (int i = 0; i < n; i++) {
        const mp_variant *v = mp_registry_get(i);
        check_src(v, "pack", v->pack_src);
        check_src(v, "prepare", v->prepare_src);
        check_src(v, "compute", v->compute_src);
    }
}

Test(catalog, every_name_is_written_in_full_in_variants)
{
    glob_t g;
    cr_assert_eq(glob("variants/*.c", 0, NULL, &g), 0, "no variants/*.c (run from the top)");
    char *texts[64];
    size_t nt = g.gl_pathc < 64 ? g.gl_pathc : 64;
    for (size_t j = 0; j < nt; j++)
        cr_assert((texts[j] = slurp(g.gl_pathv[j])), "cannot read %s", g.gl_pathv[j]);
    for (int i = 0; i < mp_registry_catalog_count(); i++) {
        const mp_variant *v = mp_registry_get(i);
        char quoted[160];
        snprintf(quoted, sizeof quoted, "\"%s\"", v->name);
        int found = 0;
        for (size_t j = 0; j < nt && !found; j++)
            found = strstr(texts[j], quoted) != NULL;
        cr_assert(found, "%s is not written as the literal %s in variants/*.c", v->name,
                  quoted);
    }
    for (size_t j = 0; j < nt; j++)
        free(texts[j]);
    globfree(&g);
}

/* The folder of a family token (variants/catalog.h): the longest of the token
 * and its prefixes ending before a digit or '_' that is a folder of kernels/. */
static int kernel_folder(const char *name, char *dir, size_t len)
{
    size_t tok = strcspn(name, ".");
    for (size_t end = tok; end > 0; end--) {
        if (end < tok && !isdigit((unsigned char)name[end]) && name[end] != '_')
            continue;
        snprintf(dir, len, "kernels/%.*s", (int)end, name);
        if (is_dir(dir))
            return 0;
    }
    return -1;
}

Test(catalog, the_name_maps_to_its_kernel_folder)
{
    cr_assert(is_dir("kernels/i2_s") && is_dir("kernels/tl"), "run from the top of the tree");
    for (int i = 0; i < mp_registry_catalog_count(); i++) {
        const mp_variant *v = mp_registry_get(i);
        char dir[128], isa[32], tail[48];
        cr_assert_eq(kernel_folder(v->name, dir, sizeof dir), 0,
                     "%s: no kernels/ folder for its family token", v->name);
        if (v->family == MP_FAMILY_PEER) { /* adapters in variants/peer.c */
            cr_assert_str_eq(dir, "kernels/llamacpp", "%s", v->name);
            continue;
        }
        /* the compute of path ISA: kernels/D/...-ISA.c */
        size_t dl = strlen(dir);
        cr_assert(!strncmp(v->compute_src, dir, dl) && v->compute_src[dl] == '/',
                  "%s: compute %s is not in %s/", v->name, v->compute_src, dir);
        snprintf(tail, sizeof tail, "-%s.c:", mp_variant_isa_token(v, isa, sizeof isa));
        cr_assert(strstr(v->compute_src, tail), "%s: compute %s is not in a file ending %.*s",
                  v->name, v->compute_src, (int)strlen(tail) - 1, tail);
    }
}

Test(catalog, list_variants_source_prints_the_record)
{
    char out[4096];
    cr_assert_eq(mp_test_cli(out, sizeof out, "list variants --source 'tl2_1.avx512.bm16'"), 0,
                 "%s", out);
    cr_assert(strstr(out, "tl2_1.avx512.bm16"), "%s", out);
    cr_assert(strstr(out, "compute  kernels/tl/tl-avx512.c:mp_tl_gemm__avx512"), "%s", out);
    cr_assert(strstr(out, "prepare  kernels/tl/tl-avx2.c:mp_tl2_1_prepare__avx2"), "%s", out);
    cr_assert(strstr(out, "pack     kernels/tl/tl-scalar.c:mp_tl2_bm16_pack"), "%s", out);
    cr_assert(!strstr(out, "tl2_1.avx2.bm16"), "only the matching rows: %s", out);
    cr_assert_neq(mp_test_cli(out, sizeof out, "list variants --source 'nothing*'"), 0, "%s",
                  out);
    cr_assert(strstr(out, "no variant matches"), "%s", out);
}
