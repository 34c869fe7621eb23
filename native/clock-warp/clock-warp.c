/*
 * clock-warp: makes one running process read a clock that lies, without restarting it.
 *
 *   clock-warp attach PID [--offset-ms N] [--rate R]   patch the vDSO, then set
 *   clock-warp set PID [--offset-ms N | --jump-ms N] [--rate R]
 *   clock-warp read PID                                 the warp in place now
 *   clock-warp restore PID                              the original vDSO back
 *
 * attach stops every thread (ptrace), maps one page in the process by making its main
 * thread run an mmap syscall, copies the stub (stub.c) there and overwrites the start of
 * the vDSO's clock_gettime, gettimeofday and time with a jump to it. The clock id C then
 * reads real + offset + (real - anchor) * rate: an offset (a jump) and a rate (the clock
 * runs at 1 + rate). The parameters live in the process's page, so set is a write
 * through /proc/PID/mem; the page's header keeps the original vDSO bytes, so restore
 * needs nothing but the pid. Every command prints one JSON line; bad input or a failure
 * prints one line on stderr and exits non-zero (2: usage, 1: failed).
 *
 * What it does not move: a raw clock_gettime syscall (code that bypasses the vDSO), and
 * clocks of a time namespace other than the helper's (anchors are read here).
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "page.h"

#ifndef STUB_BIN
#error "STUB_BIN (the stub's binary image) must be defined"
#endif

__asm__(".section .rodata\n"
        ".global cw_stub_start\n"
        ".global cw_stub_end\n"
        ".balign 16\n"
        "cw_stub_start:\n"
        ".incbin \"" STUB_BIN "\"\n"
        "cw_stub_end:\n"
        ".previous\n");
extern const unsigned char cw_stub_start[], cw_stub_end[];

static const char *const site_names[CW_SITES] = {"clock_gettime", "gettimeofday", "time"};

static void release_all(void);

/* Lets go of every thread stopped (their signal masks back) and exits with one line. */
static void fail(int code, const char *fmt, ...) {
  release_all();
  va_list ap;
  va_start(ap, fmt);
  fputs("clock-warp: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  exit(code);
}

/* ---- the process's memory ---- */

static int mem_fd = -1;

static void open_mem(int pid) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/mem", pid);
  mem_fd = open(path, O_RDWR);
  if (mem_fd < 0) fail(1, "cannot open %s: %s (the helper must run as root, or with CAP_SYS_PTRACE over the process)", path, strerror(errno));
}

static int peek(uint64_t addr, void *buf, size_t len) {
  return pread(mem_fd, buf, len, (off_t)addr) == (ssize_t)len ? 0 : -1;
}

static void poke(uint64_t addr, const void *buf, size_t len) {
  if (pwrite(mem_fd, buf, len, (off_t)addr) != (ssize_t)len)
    fail(1, "cannot write the process's memory at 0x%llx: %s", (unsigned long long)addr, strerror(errno));
}

/* ---- the vDSO ---- */

struct vdso {
  uint64_t start, end;
  unsigned char *image;
  uint64_t fn[CW_SITES];
  uint64_t size[CW_SITES];
};

static void find_vdso(int pid, struct vdso *v) {
  char path[64], line[512];
  snprintf(path, sizeof path, "/proc/%d/maps", pid);
  FILE *f = fopen(path, "r");
  if (!f) fail(1, "no process %d (%s)", pid, strerror(errno));
  v->start = v->end = 0;
  while (fgets(line, sizeof line, f)) {
    if (strstr(line, "[vdso]")) {
      unsigned long long s, e;
      if (sscanf(line, "%llx-%llx", &s, &e) == 2) v->start = s, v->end = e;
    }
  }
  fclose(f);
  if (!v->start) fail(1, "process %d has no [vdso] mapping", pid);
  v->image = malloc(v->end - v->start);
  if (!v->image || peek(v->start, v->image, v->end - v->start))
    fail(1, "cannot read process %d's vDSO: %s", pid, strerror(errno));
}

/* The three functions' addresses, from the vDSO's dynamic symbols. */
static void vdso_symbols(struct vdso *v) {
  size_t len = v->end - v->start;
  const Elf64_Ehdr *eh = (const Elf64_Ehdr *)v->image;
  if (len < sizeof *eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) || eh->e_ident[EI_CLASS] != ELFCLASS64)
    fail(1, "the vDSO is not a 64-bit ELF image");
  if (eh->e_shoff + (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr) > len) fail(1, "the vDSO's section table is out of bounds");
  if (eh->e_phoff + (uint64_t)eh->e_phnum * sizeof(Elf64_Phdr) > len) fail(1, "the vDSO's program headers are out of bounds");
  uint64_t load_vaddr = 0;
  const Elf64_Phdr *ph = (const Elf64_Phdr *)(v->image + eh->e_phoff);
  for (int i = 0; i < eh->e_phnum; i++)
    if (ph[i].p_type == PT_LOAD) {
      load_vaddr = ph[i].p_vaddr - ph[i].p_offset;
      break;
    }
  const Elf64_Shdr *sh = (const Elf64_Shdr *)(v->image + eh->e_shoff);
  memset(v->fn, 0, sizeof v->fn);
  for (int i = 0; i < eh->e_shnum; i++) {
    if (sh[i].sh_type != SHT_DYNSYM) continue;
    if (sh[i].sh_link >= eh->e_shnum) continue;
    const Elf64_Shdr *strs = &sh[sh[i].sh_link];
    if (sh[i].sh_offset + sh[i].sh_size > len || strs->sh_offset + strs->sh_size > len) continue;
    const Elf64_Sym *sym = (const Elf64_Sym *)(v->image + sh[i].sh_offset);
    size_t n = sh[i].sh_size / sizeof(Elf64_Sym);
    for (size_t k = 0; k < n; k++) {
      if (sym[k].st_name >= strs->sh_size || ELF64_ST_TYPE(sym[k].st_info) != STT_FUNC || !sym[k].st_value) continue;
      const char *name = (const char *)v->image + strs->sh_offset + sym[k].st_name;
      if (!memchr(name, 0, strs->sh_size - sym[k].st_name)) continue;
      if (!strncmp(name, "__vdso_", 7)) name += 7;
      for (int s = 0; s < CW_SITES; s++)
        if (!strcmp(name, site_names[s])) {
          v->fn[s] = v->start + sym[k].st_value - load_vaddr;
          v->size[s] = sym[k].st_size;
        }
    }
  }
  if (!v->fn[0]) fail(1, "the vDSO exports no clock_gettime");
}

/* A `syscall` instruction's address in the vDSO: where the injected mmap runs. */
static uint64_t vdso_syscall(const struct vdso *v) {
  for (size_t i = 0; i + 1 < v->end - v->start; i++)
    if (v->image[i] == 0x0f && v->image[i + 1] == 0x05) return v->start + i;
  return 0;
}

/* The page a patched vDSO function jumps to, or 0 when it is not patched. */
static uint64_t jump_target(const unsigned char *code, uint64_t addr) {
  if (code[0] == 0xe9) {
    int32_t rel;
    memcpy(&rel, code + 1, 4);
    return addr + 5 + (int64_t)rel;
  }
  if (code[0] == 0x48 && code[1] == 0xb8 && code[10] == 0xff && code[11] == 0xe0) {
    uint64_t t;
    memcpy(&t, code + 2, 8);
    return t;
  }
  return 0;
}

/* The warp page the process already has (through its patched clock_gettime), or 0. */
static uint64_t find_page(const struct vdso *v, struct cw_page *page) {
  const unsigned char *code = v->image + (v->fn[0] - v->start);
  uint64_t target = jump_target(code, v->fn[0]);
  if (!target) return 0;
  uint64_t base = target & ~0xfffULL;
  if (peek(base, page, sizeof *page) || page->magic != CW_MAGIC) return 0;
  if (page->version != CW_VERSION) fail(1, "process's warp page is version %llu, this helper is %d", (unsigned long long)page->version, CW_VERSION);
  return base;
}

/* ---- stopping every thread ---- */

#define MAX_THREADS 4096
static int tids[MAX_THREADS];
static int pending_sig[MAX_THREADS];
/*
 * Each thread's signal mask while stopped: all blocked, so that no signal stops a step of
 * ours before it runs (a postmaster's SIGCHLD, any program's timer); they stay pending and
 * arrive once the mask is put back, as we let go.
 */
static uint64_t saved_mask[MAX_THREADS];
static int mask_blocked[MAX_THREADS];
static int ntids;

static int seized(int tid) {
  for (int i = 0; i < ntids; i++)
    if (tids[i] == tid) return 1;
  return 0;
}

static void stop_all(int pid) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/task", pid);
  for (int found = 1; found;) {
    found = 0;
    DIR *d = opendir(path);
    if (!d) fail(1, "no process %d", pid);
    struct dirent *e;
    while ((e = readdir(d))) {
      int tid = atoi(e->d_name);
      if (tid <= 0 || seized(tid)) continue;
      if (ntids == MAX_THREADS) fail(1, "process %d has more than %d threads", pid, MAX_THREADS);
      if (ptrace(PTRACE_SEIZE, tid, 0, 0)) {
        if (errno == ESRCH) continue;
        fail(1, "cannot ptrace thread %d of process %d: %s", tid, pid, strerror(errno));
      }
      tids[ntids] = tid;
      pending_sig[ntids] = 0;
      ntids++;
      found = 1;
      ptrace(PTRACE_INTERRUPT, tid, 0, 0);
      int st;
      if (waitpid(tid, &st, __WALL) < 0 || !WIFSTOPPED(st)) {
        ntids--; /* it ended */
        continue;
      }
      /* A signal that arrived as we stopped it: delivered again when we let go. */
      if (st >> 16 == 0 && WSTOPSIG(st) != SIGTRAP) pending_sig[ntids - 1] = WSTOPSIG(st);
      uint64_t all = ~0ULL;
      mask_blocked[ntids - 1] = ptrace(PTRACE_GETSIGMASK, tid, sizeof saved_mask[0], &saved_mask[ntids - 1]) == 0 &&
                                ptrace(PTRACE_SETSIGMASK, tid, sizeof all, &all) == 0;
    }
    closedir(d);
  }
}

/*
 * A stop that was a signal's delivery, not our step's trap: the thread ran nothing, and the
 * signal would be lost on the next step. It is kept, for delivery when we let go.
 */
static void keep_signal(int tid, int st) {
  if (!WIFSTOPPED(st) || WSTOPSIG(st) == SIGTRAP) return;
  for (int i = 0; i < ntids; i++) {
    if (tids[i] != tid) continue;
    if (pending_sig[i] == 0) pending_sig[i] = WSTOPSIG(st);
    return;
  }
}

static void release_all(void) {
  for (int i = 0; i < ntids; i++) {
    if (mask_blocked[i]) ptrace(PTRACE_SETSIGMASK, tids[i], sizeof saved_mask[i], &saved_mask[i]);
    ptrace(PTRACE_DETACH, tids[i], 0, pending_sig[i]);
  }
  ntids = 0;
}

/* Moves every thread that is in the middle of [addr, addr+len) past it, one instruction at a time. */
static void clear_of(uint64_t addr, uint64_t len) {
  for (int i = 0; i < ntids; i++) {
    for (int step = 0; step < 64; step++) {
      struct user_regs_struct r;
      if (ptrace(PTRACE_GETREGS, tids[i], 0, &r)) break;
      if (!(r.rip > addr && r.rip < addr + len)) break;
      int st;
      if (ptrace(PTRACE_SINGLESTEP, tids[i], 0, 0) || waitpid(tids[i], &st, __WALL) < 0) break;
      keep_signal(tids[i], st);
    }
  }
}

/* Runs mmap(hint, len, PROT_READ|PROT_EXEC, MAP_PRIVATE|MAP_ANONYMOUS) in thread `tid`. */
static uint64_t remote_mmap(int tid, uint64_t at_syscall, uint64_t hint, uint64_t len) {
  struct user_regs_struct saved, r;
  if (ptrace(PTRACE_GETREGS, tid, 0, &saved)) fail(1, "cannot read thread %d's registers: %s", tid, strerror(errno));
  r = saved;
  r.rax = 9; /* mmap */
  r.rdi = hint;
  r.rsi = len;
  r.rdx = 5;    /* PROT_READ | PROT_EXEC: the helper writes through /proc/PID/mem */
  r.r10 = 0x22; /* MAP_PRIVATE | MAP_ANONYMOUS */
  r.r8 = (uint64_t)-1;
  r.r9 = 0;
  r.orig_rax = (uint64_t)-1; /* no syscall restart of whatever it was interrupted in */
  r.rip = at_syscall;
  if (ptrace(PTRACE_SETREGS, tid, 0, &r)) fail(1, "cannot set thread %d's registers: %s", tid, strerror(errno));
  /*
   * The step ran the syscall once the thread is past the 2-byte `syscall`. A signal the
   * mask cannot hold (or a thread whose mask we could not set) stops the step before it
   * runs anything, its registers still ours: the signal is kept and the step tried again.
   */
  for (int tries = 0;; tries++) {
    int st;
    if (ptrace(PTRACE_SINGLESTEP, tid, 0, 0) || waitpid(tid, &st, __WALL) < 0 || ptrace(PTRACE_GETREGS, tid, 0, &r)) {
      ptrace(PTRACE_SETREGS, tid, 0, &saved);
      fail(1, "cannot run mmap in thread %d: %s", tid, strerror(errno));
    }
    if (r.rip == at_syscall + 2) break;
    keep_signal(tid, st);
    if (tries == 16) {
      ptrace(PTRACE_SETREGS, tid, 0, &saved);
      fail(1, "thread %d did not run the injected mmap in 16 steps (it stopped at 0x%llx)", tid,
           (unsigned long long)r.rip);
    }
  }
  ptrace(PTRACE_SETREGS, tid, 0, &saved);
  if (r.rax > (uint64_t)-4096) {
    fail(1, "mmap in the process failed: %s", strerror((int)-r.rax));
  }
  return r.rax;
}

/* ---- the warp's parameters ---- */

static int64_t now_ns(int id) {
  struct timespec ts;
  if (clock_gettime(id, &ts)) return 0;
  return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* What clock `id` reads under slot `s` at real time `real`, minus `real`. */
static int64_t warp_of(const struct cw_slot *s, int id, int64_t real) {
  if (!(s->mask & (1u << id))) return 0;
  return s->offset_ns[id] + (int64_t)((double)(real - s->anchor_ns[id]) * s->rate);
}

struct request {
  int has_offset, has_jump, has_rate;
  double offset_ms, jump_ms, rate;
};

/* Writes the new parameters into the free slot, then makes it the active one. */
static void apply(uint64_t base, struct cw_page *page, const struct request *q) {
  const struct cw_slot *cur = &page->slots[page->active & 1];
  uint32_t next = (page->active + 1) & 1;
  struct cw_slot s;
  memset(&s, 0, sizeof s);
  s.mask = CW_WARPED_MASK;
  s.rate = q->has_rate ? q->rate : (cur->mask ? cur->rate : 0);
  for (int id = 0; id < CW_CLOCKS; id++) {
    if (!(CW_WARPED_MASK & (1u << id))) continue;
    int64_t real = now_ns(id);
    s.anchor_ns[id] = real;
    /* Continuity: without an offset the clock goes on from where it reads now. */
    int64_t keep = warp_of(cur, id, real);
    if (q->has_offset) keep = (int64_t)(q->offset_ms * 1e6);
    if (q->has_jump) keep += (int64_t)(q->jump_ms * 1e6);
    s.offset_ns[id] = keep;
  }
  page->slots[next] = s;
  poke(base + offsetof(struct cw_page, slots) + next * sizeof s, &s, sizeof s);
  page->active = next;
  uint32_t a = next;
  poke(base + offsetof(struct cw_page, active), &a, sizeof a);
}

static void print_state(int pid, uint64_t base, const struct cw_page *page, const char *what) {
  const struct cw_slot *s = &page->slots[page->active & 1];
  printf("{\"pid\":%d,\"action\":\"%s\",\"warped\":%s,\"page\":\"0x%llx\"", pid, what, s->mask ? "true" : "false",
         (unsigned long long)base);
  /* The true monotonic time the offsets are for: a runner on this host maps the process's
     stamps back to true time from there, not from when this line reaches it. */
  int64_t mono = now_ns(1);
  printf(",\"offsetMs\":{\"realtime\":%.6f,\"monotonic\":%.6f,\"boottime\":%.6f},\"rate\":%.9g,\"atMonotonicNs\":%lld",
         warp_of(s, 0, now_ns(0)) / 1e6, warp_of(s, 1, mono) / 1e6, warp_of(s, 7, now_ns(7)) / 1e6, s->mask ? s->rate : 0.0,
         (long long)mono);
  printf(",\"sites\":[");
  int first = 1;
  for (int i = 0; i < CW_SITES; i++) {
    const struct cw_site *site = &page->sites[i];
    if (!site->addr) continue;
    printf("%s{\"symbol\":\"%s\",\"addr\":\"0x%llx\",\"original\":\"", first ? "" : ",", site_names[site->which],
           (unsigned long long)site->addr);
    for (uint32_t k = 0; k < site->len; k++) printf("%02x", site->orig[k]);
    printf("\"}");
    first = 0;
  }
  printf("]}\n");
}

/* ---- commands ---- */

static void patch_site(uint64_t base, struct cw_page *page, int slot, uint64_t addr, uint64_t size, int which, const unsigned char *image, uint64_t vstart) {
  uint64_t target = base + page->entry[which];
  unsigned char code[CW_SITE_BYTES];
  uint32_t len;
  int64_t rel = (int64_t)(target - (addr + 5));
  if (rel >= INT32_MIN && rel <= INT32_MAX) {
    code[0] = 0xe9;
    int32_t r32 = (int32_t)rel;
    memcpy(code + 1, &r32, 4);
    len = 5;
  } else {
    code[0] = 0x48, code[1] = 0xb8;
    memcpy(code + 2, &target, 8);
    code[10] = 0xff, code[11] = 0xe0;
    len = 12;
  }
  if (size && size < len) fail(1, "the vDSO's %s is %llu bytes, too short for a jump", site_names[which], (unsigned long long)size);
  struct cw_site *site = &page->sites[slot];
  site->addr = addr;
  site->len = len;
  site->which = which;
  memcpy(site->orig, image + (addr - vstart), len);
  poke(base + offsetof(struct cw_page, sites) + slot * sizeof *site, site, sizeof *site);
  clear_of(addr, len);
  poke(addr, code, len);
}

static void cmd_attach(int pid, const struct request *q) {
  struct vdso v;
  find_vdso(pid, &v);
  vdso_symbols(&v);
  struct cw_page page;
  uint64_t base = find_page(&v, &page);
  if (base) { /* warped already: a set */
    apply(base, &page, q);
    print_state(pid, base, &page, "set");
    return;
  }
  uint64_t at = vdso_syscall(&v);
  if (!at) fail(1, "the vDSO has no syscall instruction to run mmap with");
  size_t image = (size_t)(cw_stub_end - cw_stub_start);
  if (image < sizeof page) fail(1, "the embedded stub is smaller than its header");
  uint64_t len = (image + 0xfff) & ~0xfffULL;
  stop_all(pid);
  int main_tid = seized(pid) ? pid : tids[0];
  /* Near the vDSO, so that a 5-byte jump reaches it. */
  base = remote_mmap(main_tid, at, v.start > 0x40000000ULL ? v.start - 0x10000000ULL : 0, len);
  memcpy(&page, cw_stub_start, sizeof page);
  if (page.magic != CW_MAGIC) fail(1, "the embedded stub has no header");
  poke(base, cw_stub_start, image);
  apply(base, &page, q);
  int slot = 0;
  for (int i = 0; i < CW_SITES; i++) {
    if (!v.fn[i]) continue;
    int dup = 0;
    for (int k = 0; k < i; k++) dup |= v.fn[k] == v.fn[i];
    if (!dup) patch_site(base, &page, slot++, v.fn[i], v.size[i], i, v.image, v.start);
  }
  release_all();
  print_state(pid, base, &page, "attach");
}

static void cmd_set(int pid, const struct request *q) {
  struct vdso v;
  find_vdso(pid, &v);
  vdso_symbols(&v);
  struct cw_page page;
  uint64_t base = find_page(&v, &page);
  if (!base) fail(1, "process %d is not warped (run attach first)", pid);
  apply(base, &page, q);
  print_state(pid, base, &page, "set");
}

static void cmd_read(int pid) {
  struct vdso v;
  find_vdso(pid, &v);
  vdso_symbols(&v);
  struct cw_page page;
  uint64_t base = find_page(&v, &page);
  if (!base) {
    printf("{\"pid\":%d,\"action\":\"read\",\"warped\":false}\n", pid);
    return;
  }
  print_state(pid, base, &page, "read");
}

static void cmd_restore(int pid) {
  struct vdso v;
  find_vdso(pid, &v);
  vdso_symbols(&v);
  struct cw_page page;
  uint64_t base = find_page(&v, &page);
  if (!base) {
    printf("{\"pid\":%d,\"action\":\"restore\",\"warped\":false,\"restored\":0}\n", pid);
    return;
  }
  stop_all(pid);
  int restored = 0;
  for (int i = 0; i < CW_SITES; i++) {
    const struct cw_site *site = &page.sites[i];
    if (!site->addr || site->len > CW_SITE_BYTES || site->addr < v.start || site->addr + site->len > v.end) continue;
    clear_of(site->addr, site->len);
    poke(site->addr, site->orig, site->len);
    restored++;
  }
  /* A thread still inside the stub returns the true time too. (The page stays mapped:
   * a thread may be in it; it is one page.) */
  uint32_t zero = 0;
  for (int s = 0; s < 2; s++) poke(base + offsetof(struct cw_page, slots) + s * sizeof(struct cw_slot) + offsetof(struct cw_slot, mask), &zero, sizeof zero);
  release_all();
  printf("{\"pid\":%d,\"action\":\"restore\",\"warped\":false,\"restored\":%d,\"page\":\"0x%llx\"}\n", pid, restored,
         (unsigned long long)base);
}

static double number(const char *flag, const char *text) {
  char *end;
  errno = 0;
  double d = strtod(text ? text : "", &end);
  if (!text || !*text || *end || errno || d != d) fail(2, "%s needs a number, got \"%s\"", flag, text ? text : "");
  return d;
}

static void usage(void) {
  fail(2, "usage: clock-warp attach|set|read|restore PID [--offset-ms N] [--jump-ms N] [--rate R]");
}

int main(int argc, char **argv) {
  if (argc < 3) usage();
  const char *cmd = argv[1];
  char *end;
  long pid = strtol(argv[2], &end, 10);
  if (!*argv[2] || *end || pid <= 0 || pid > 0x3fffffff) fail(2, "PID must be a positive process id, got \"%s\"", argv[2]);
  struct request q = {0};
  for (int i = 3; i < argc; i++) {
    const char *flag = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(flag, "--offset-ms")) q.has_offset = 1, q.offset_ms = number(flag, val), i++;
    else if (!strcmp(flag, "--jump-ms")) q.has_jump = 1, q.jump_ms = number(flag, val), i++;
    else if (!strcmp(flag, "--rate")) {
      q.has_rate = 1, q.rate = number(flag, val), i++;
      if (q.rate <= -1) fail(2, "--rate must be above -1 (the clock would stop or run backwards), got %s", val);
    } else fail(2, "unknown option \"%s\" (options: --offset-ms, --jump-ms, --rate)", flag);
  }
  int changes = q.has_offset || q.has_jump || q.has_rate;
  if (q.has_offset && q.has_jump) fail(2, "--offset-ms and --jump-ms exclude each other");
  if (!strcmp(cmd, "read") || !strcmp(cmd, "restore")) {
    if (changes) fail(2, "%s takes no options", cmd);
  } else if (strcmp(cmd, "attach") && strcmp(cmd, "set")) usage();
  open_mem((int)pid);
  if (!strcmp(cmd, "attach")) cmd_attach((int)pid, &q);
  else if (!strcmp(cmd, "set")) cmd_set((int)pid, &q);
  else if (!strcmp(cmd, "read")) cmd_read((int)pid);
  else cmd_restore((int)pid);
  return 0;
}
