/* machine.c - what the machine is: CPU model and the ISA flags that matter,
 * cores and caches from hwloc (sanity-checked: VMs report absurd sizes), memory,
 * and the environment that makes timings untrustworthy (load, governor,
 * hypervisor).  The fingerprint is coarse and stable across reboots: CPU model
 * name, core count, ISA flags, memory size, and the CPU's family and model
 * numbers (a VM names Zen 3 and Zen 4 alike "AMD EPYC", with the same flags when
 * the host hides AVX-512: without the numbers their tuned settings and probes
 * were filed under one fingerprint). */
#include <ctype.h>
#include <hwloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "mp_core.h"
#include "../../kernels/common/mp_isa.h"
#include "../../variants/mp_registry.h"

#ifndef MP_GIT_COMMIT
#define MP_GIT_COMMIT "unknown"
#endif

static void read_line(const char *path, char *buf, size_t len)
{
    buf[0] = 0;
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    if (fgets(buf, (int)len, f))
        buf[strcspn(buf, "\n")] = 0;
    fclose(f);
}

static int has_flag(const char *flags, const char *flag)
{
    size_t n = strlen(flag);
    for (const char *p = flags; (p = strstr(p, flag)); p += n)
        if ((p == flags || p[-1] == ' ') && (p[n] == ' ' || p[n] == 0 || p[n] == '\n'))
            return 1;
    return 0;
}

static long cache_kib(hwloc_topology_t topo, hwloc_obj_type_t type)
{
    hwloc_obj_t o = hwloc_get_next_obj_by_type(topo, type, NULL);
    return o && o->attr ? (long)(o->attr->cache.size / 1024) : 0;
}

/* "family 25 model 17" (x86: /proc/cpuinfo's decimal numbers) or "implementer
 * 0x41 part 0xd0c" (Arm) from the first processor's lines; "" when absent. */
static void cpu_numbers(const char *fam, const char *mod, const char *impl, const char *part,
                        char *out, size_t len)
{
    if (fam[0] && mod[0])
        snprintf(out, len, "family %.12s model %.12s", fam, mod);
    else if (impl[0] && part[0])
        snprintf(out, len, "implementer %.12s part %.12s", impl, part);
    else
        out[0] = 0;
}

/* The value after "KEY<spaces or tabs>:" into out when line is KEY's line. */
static void cpuinfo_value(const char *line, const char *key, char *out, size_t len)
{
    size_t n = strlen(key);
    if (out[0] || strncmp(line, key, n))
        return;
    const char *c = line + n + strspn(line + n, " \t"); /* "model name" is not "model" */
    if (*c != ':')
        return;
    for (c++; *c == ' '; c++)
        ;
    snprintf(out, len, "%.*s", (int)strcspn(c, "\n"), c);
}

static uint64_t fnv1a(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

void mp_machine_probe_info(mp_machine *m)
{
    memset(m, 0, sizeof *m);
    char line[8192], flags[8192] = "";
    char fam[16] = "", mod[16] = "", impl[16] = "", part[16] = "";
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f) {
        while (fgets(line, sizeof line, f)) {
            cpuinfo_value(line, "cpu family", fam, sizeof fam);
            cpuinfo_value(line, "model", mod, sizeof mod);
            cpuinfo_value(line, "CPU implementer", impl, sizeof impl);
            cpuinfo_value(line, "CPU part", part, sizeof part);
            if (!m->cpu_model[0] && !strncmp(line, "model name", 10)) {
                char *c = strchr(line, ':');
                if (c) {
                    c++;
                    while (*c == ' ')
                        c++;
                    c[strcspn(c, "\n")] = 0;
                    snprintf(m->cpu_model, sizeof m->cpu_model, "%s", c);
                }
            } else if (!flags[0] && (!strncmp(line, "flags", 5) ||
                                     !strncmp(line, "Features", 8))) { /* Arm: Features */
                char *c = strchr(line, ':');
                if (c)
                    snprintf(flags, sizeof flags, "%s", c + 1);
            }
        }
        fclose(f);
    }
    if (!m->cpu_model[0])
        snprintf(m->cpu_model, sizeof m->cpu_model, "unknown");
    cpu_numbers(fam, mod, impl, part, m->cpu_id, sizeof m->cpu_id);
    static const char *const wanted[] = {"avx2", "fma", "f16c", "avx512f", "avx512bw",
                                         "avx512vl", "avx512dq", "avx512_vnni", "avx_vnni",
                                         "avx_vnni_int8", "avx512_bf16", "amx_int8",
                                         "asimd", "asimddp", "i8mm", "sve"}; /* Arm */
    for (size_t i = 0; i < sizeof wanted / sizeof wanted[0]; i++)
        if (has_flag(flags, wanted[i])) {
            size_t len = strlen(m->isa_flags);
            snprintf(m->isa_flags + len, sizeof m->isa_flags - len, "%s%s", len ? " " : "",
                     wanted[i]);
        }
    if (has_flag(flags, "hypervisor")) {
        char vendor[64];
        read_line("/sys/hypervisor/type", vendor, sizeof vendor);
        if (!vendor[0])
            read_line("/sys/class/dmi/id/sys_vendor", vendor, sizeof vendor);
        snprintf(m->hypervisor, sizeof m->hypervisor, "yes%s%s", vendor[0] ? ": " : "", vendor);
    } else {
        snprintf(m->hypervisor, sizeof m->hypervisor, "no");
    }

    hwloc_topology_t topo;
    if (hwloc_topology_init(&topo) == 0 && hwloc_topology_load(topo) == 0) {
        m->cores = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
        m->pus = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
        m->l1d_kib = cache_kib(topo, HWLOC_OBJ_L1CACHE);
        m->l2_kib = cache_kib(topo, HWLOC_OBJ_L2CACHE);
        m->l3_kib = cache_kib(topo, HWLOC_OBJ_L3CACHE);
        hwloc_topology_destroy(topo);
    }
    if (m->cores <= 0)
        m->cores = (int)sysconf(_SC_NPROCESSORS_ONLN);
    if (m->pus <= 0)
        m->pus = m->cores;
    long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
    m->mem_gib = (int)(((double)pages * (double)psz) / (1024.0 * 1024 * 1024) + 0.5);
    /* sanity: keep a size only if it is plausible for its level.  An L3 above
     * 256 MiB (no CPU has one per socket; this VM's hwloc says 508 MiB on an
     * EPYC whose CCD has 32) or above 1/16 of the memory is taken as unknown:
     * the probe's "L3" buffers and the rotation would be DRAM-sized with it */
    long l3_hi = 256 * 1024, mem_kib = (long)((double)pages * (double)psz / 1024.0);
    if (mem_kib > 0 && mem_kib / 16 < l3_hi)
        l3_hi = mem_kib / 16 > 1024 ? mem_kib / 16 : 1024;
    struct {
        long *v;
        long lo, hi, fallback;
        const char *name;
    } chk[] = {{&m->l1d_kib, 8, 256, 48, "L1d"},
               {&m->l2_kib, 128, 16384, 1024, "L2"},
               {&m->l3_kib, 1024, l3_hi, 32768, "L3"}};
    for (size_t i = 0; i < 3; i++) {
        if (*chk[i].v < chk[i].lo || *chk[i].v > chk[i].hi) {
            size_t len = strlen(m->caches_note);
            snprintf(m->caches_note + len, sizeof m->caches_note - len,
                     "%s%s reported %ld KiB, implausible: assumed %ld KiB", len ? "; " : "",
                     chk[i].name, *chk[i].v, chk[i].fallback);
            *chk[i].v = chk[i].fallback;
        }
    }

    read_line("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", m->governor,
              sizeof m->governor);
    if (!m->governor[0])
        snprintf(m->governor, sizeof m->governor, "unreadable");
    double la[1];
    m->load_avg = getloadavg(la, 1) == 1 ? la[0] : -1.0;
    struct utsname u;
    if (uname(&u) == 0)
        snprintf(m->kernel, sizeof m->kernel, "%s %s", u.sysname, u.release);
    snprintf(m->compiler, sizeof m->compiler, "gcc %s", __VERSION__);
    snprintf(m->git_commit, sizeof m->git_commit, "%s", MP_GIT_COMMIT);

    char id[512];
    snprintf(id, sizeof id, "%s|%d|%s|%d|%s", m->cpu_model, m->cores, m->isa_flags, m->mem_gib,
             m->cpu_id);
    char prefix[24];
    size_t j = 0;
    for (const char *p = m->cpu_model; *p && j < sizeof prefix - 1; p++)
        if (isalnum((unsigned char)*p))
            prefix[j++] = (char)tolower((unsigned char)*p);
        else if (j && prefix[j - 1] != '-')
            prefix[j++] = '-';
    while (j && prefix[j - 1] == '-')
        j--;
    prefix[j] = 0;
    snprintf(m->fingerprint, sizeof m->fingerprint, "%s-%dc-%08llx", prefix, m->cores,
             (unsigned long long)(fnv1a(id) & 0xffffffffull));
    mp_registry_peers_describe(m->peers, sizeof m->peers);
    /* MPBENCH_MACHINE_TAG: machines the probe cannot tell apart (same CPU, other
     * BIOS, SMT or turbo settings) kept apart by the user; ignored unless it is a
     * short [a-z0-9_.] word, so a fingerprint stays a file name.  Every command
     * probes the machine before it opens the store: a bad tag exits 2 with nothing
     * written. */
    const char *tag = getenv("MPBENCH_MACHINE_TAG");
    if (tag && *tag) {
        size_t tl = strlen(tag);
        if (tl <= 16 && strspn(tag, "abcdefghijklmnopqrstuvwxyz0123456789_.") == tl)
            snprintf(m->fingerprint + strlen(m->fingerprint),
                     sizeof m->fingerprint - strlen(m->fingerprint), "-%s", tag);
        else {
            fprintf(stderr, "mpbench: MPBENCH_MACHINE_TAG '%s': not a word of at most 16 "
                            "characters in [a-z0-9_.]\n", tag);
            exit(2);
        }
    }
}

size_t mp_machine_llc_bytes(const mp_machine *m)
{
    long kib = m->l3_kib > m->l2_kib ? m->l3_kib : m->l2_kib;
    return (size_t)kib * 1024;
}

void mp_machine_warn(const mp_machine *m)
{
    if (m->load_avg > 0.5 * m->cores)
        fprintf(stderr, "mpbench: warning: load average %.2f on %d cores at start: timings "
                        "will be noisy\n", m->load_avg, m->cores);
    if (strncmp(m->hypervisor, "no", 2))
        fprintf(stderr, "mpbench: note: running under a hypervisor: expect noise; results "
                        "with a high spread are marked unstable\n");
    char emu[256]; /* issue 22 */
    if (mp_cpu_emulated(emu, sizeof emu))
        fprintf(stderr, "mpbench: warning: emulated CPU (%s): the timings below mean "
                        "nothing; only the correctness columns do\n", emu);
}
