/*
 * The code clock-warp puts in a process: replacements for the vDSO's clock_gettime,
 * gettimeofday and time that read the real clock with a raw syscall and return it warped
 * by the page's parameters. Freestanding and position-independent (-fPIE, linked at 0 by
 * stub.ld): the page header is at offset 0, everything is reached RIP-relative.
 */
#include "page.h"

struct cw_timespec {
  int64_t sec;
  int64_t nsec;
};
struct cw_timeval {
  int64_t sec;
  int64_t usec;
};

long cw_clock_gettime(long id, struct cw_timespec *ts);
long cw_gettimeofday(struct cw_timeval *tv, void *tz);
long cw_time(int64_t *t);

__attribute__((section(".cwhead"), used)) struct cw_page cw_page = {
    .magic = CW_MAGIC,
    .version = CW_VERSION,
    .entry = {(uint64_t)&cw_clock_gettime, (uint64_t)&cw_gettimeofday, (uint64_t)&cw_time},
};

static inline long sys2(long nr, long a, long b) {
  long ret;
  __asm__ volatile("syscall" : "=a"(ret) : "0"(nr), "D"(a), "S"(b) : "rcx", "r11", "memory");
  return ret;
}

static int64_t warp(long id, int64_t ns) {
  if (id < 0 || id >= CW_CLOCKS) return ns;
  const struct cw_slot *s = &cw_page.slots[cw_page.active & 1];
  if (!(s->mask & (1u << id))) return ns;
  return ns + s->offset_ns[id] + (int64_t)((double)(ns - s->anchor_ns[id]) * s->rate);
}

static int64_t real_ns(long id, long *err) {
  struct cw_timespec ts;
  *err = sys2(228 /* clock_gettime */, id, (long)&ts);
  return ts.sec * 1000000000LL + ts.nsec;
}

static void split(int64_t ns, int64_t *sec, int64_t *frac) {
  int64_t s = ns / 1000000000LL, r = ns % 1000000000LL;
  if (r < 0) {
    r += 1000000000LL;
    s -= 1;
  }
  *sec = s;
  *frac = r;
}

long cw_clock_gettime(long id, struct cw_timespec *ts) {
  if (id < 0 || id >= CW_CLOCKS) return sys2(228, id, (long)ts);
  long err;
  int64_t ns = real_ns(id, &err);
  if (err) return err;
  split(warp(id, ns), &ts->sec, &ts->nsec);
  return 0;
}

long cw_gettimeofday(struct cw_timeval *tv, void *tz) {
  if (tz) {
    long err = sys2(96 /* gettimeofday */, 0, (long)tz);
    if (err) return err;
  }
  if (!tv) return 0;
  long err;
  int64_t ns = real_ns(0, &err);
  if (err) return err;
  int64_t frac;
  split(warp(0, ns), &tv->sec, &frac);
  tv->usec = frac / 1000;
  return 0;
}

long cw_time(int64_t *t) {
  long err;
  int64_t ns = real_ns(0, &err);
  int64_t sec, frac;
  split(err ? 0 : warp(0, ns), &sec, &frac);
  if (t) *t = sec;
  return sec;
}
