/* symbols.c -- ECL automatic instrumentation: the name, source file and line
 * of a code address, for function regions and OpenMP constructs. With
 * elfutils' libdwfl (configure: "libdw: yes") the executable's and every
 * shared library's symbol tables and DWARF line tables are read, so static
 * functions and file:line are found; without it dladdr names exported
 * symbols only. C++ names are demangled with the C++ runtime's
 * __cxa_demangle, looked up at run time (a C++ program has it loaded; a C
 * program has no mangled names). Lookups are serialised by one lock. */
#include <config.h>

#include "ecl/auto/auto.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if HAVE_LIBDW
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#endif

typedef char *(*demangle_fn)(const char *, char *, size_t *, int *);

static void set_name(ecl_auto_symbol *out, const char *name)
{
    static demangle_fn demangle;
    static int looked;
    if (name[0] == '_' && name[1] == 'Z') {
        if (!looked) {
            demangle = (demangle_fn)dlsym(RTLD_DEFAULT, "__cxa_demangle");
            looked = 1;
        }
        int status = -1;
        char *d = demangle != NULL ? demangle(name, NULL, NULL, &status) : NULL;
        if (d != NULL && status == 0) {
            snprintf(out->name, sizeof out->name, "%s", d);
            free(d);
            return;
        }
        free(d);
    }
    snprintf(out->name, sizeof out->name, "%s", name);
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s != NULL ? s + 1 : path;
}

#if HAVE_LIBDW
static Dwfl *dwfl;
static char *debuginfo_path;
static const Dwfl_Callbacks callbacks = {
    .find_elf = dwfl_linux_proc_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
    .debuginfo_path = &debuginfo_path,
};

/* (Re)reads the process's modules from /proc/self/maps: at the first lookup,
 * and when an address is in none of them (a library loaded since). */
static int report(void)
{
    if (dwfl == NULL && (dwfl = dwfl_begin(&callbacks)) == NULL)
        return -1;
    dwfl_report_begin(dwfl);
    int r = dwfl_linux_proc_report(dwfl, getpid());
    dwfl_report_end(dwfl, NULL, NULL);
    return r == 0 ? 0 : -1;
}

static int from_dwfl(uintptr_t addr, ecl_auto_symbol *out)
{
    static int reported;
    if (!reported) {
        reported = 1;
        if (report() != 0)
            return -1;
    }
    Dwfl_Module *m = dwfl_addrmodule(dwfl, addr);
    if (m == NULL && (report() != 0 || (m = dwfl_addrmodule(dwfl, addr)) == NULL))
        return -1;
    Dwarf_Addr base = 0;
    const char *mod = dwfl_module_info(m, NULL, &base, NULL, NULL, NULL, NULL, NULL);
    snprintf(out->module, sizeof out->module, "%s", mod != NULL ? mod : "");
    GElf_Off off = 0;
    GElf_Sym sym;
    const char *name = dwfl_module_addrinfo(m, addr, &off, &sym, NULL, NULL, NULL);
    if (name != NULL) {
        set_name(out, name);
        out->start = addr - off;
    } else {
        snprintf(out->name, sizeof out->name, "%s+0x%llx", base_name(out->module),
                 (unsigned long long)(addr - base));
    }
    Dwfl_Line *l = dwfl_module_getsrc(m, addr);
    int line = 0;
    const char *file = NULL;
    if (l != NULL) {
        file = dwfl_lineinfo(l, NULL, &line, NULL, NULL, NULL);
    } else {
        /* No .debug_aranges (clang emits none): find the unit by its ranges. */
        Dwarf_Addr bias = 0;
        for (Dwarf_Die *cu = NULL; (cu = dwfl_module_nextcu(m, cu, &bias)) != NULL;) {
            if (dwarf_haspc(cu, addr - bias) != 1)
                continue;
            Dwarf_Line *dl = dwarf_getsrc_die(cu, addr - bias);
            if (dl != NULL && (file = dwarf_linesrc(dl, NULL, NULL)) != NULL)
                dwarf_lineno(dl, &line);
            break;
        }
    }
    if (file != NULL) {
        snprintf(out->file, sizeof out->file, "%s", file);
        out->line = line > 0 ? (unsigned)line : 0;
    }
    return 0;
}
#endif

static pthread_mutex_t sym_lock = PTHREAD_MUTEX_INITIALIZER;

static void lookup(uintptr_t addr, ecl_auto_symbol *out)
{
#if HAVE_LIBDW
    if (from_dwfl(addr, out) == 0)
        return;
#endif
    Dl_info info;
    if (dladdr((void *)addr, &info) != 0) {
        snprintf(out->module, sizeof out->module, "%s", info.dli_fname ? info.dli_fname : "");
        if (info.dli_sname != NULL) {
            set_name(out, info.dli_sname);
            out->start = (uintptr_t)info.dli_saddr;
            return;
        }
        snprintf(out->name, sizeof out->name, "%s+0x%llx", base_name(out->module),
                 (unsigned long long)(addr - (uintptr_t)info.dli_fbase));
        return;
    }
    snprintf(out->name, sizeof out->name, "0x%llx", (unsigned long long)addr);
}

void ecl_auto_symbol_of(uintptr_t addr, ecl_auto_symbol *out)
{
    memset(out, 0, sizeof *out);
    ecl_buf_in_tool++;           /* libdw's own file reads are not the program's I/O */
    pthread_mutex_lock(&sym_lock);
    lookup(addr, out);
    pthread_mutex_unlock(&sym_lock);
    ecl_buf_in_tool--;
}

const char *ecl_auto_symbol_backend(void)
{
    return HAVE_LIBDW ? "libdw" : "dladdr";
}
