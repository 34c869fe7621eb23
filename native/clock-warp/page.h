/*
 * The page clock-warp maps into a process: a header the helper finds again from the
 * patched vDSO (magic, the stub's entry points, the original vDSO bytes it replaced) and
 * the warp parameters the stub reads on every call. Shared by the stub (compiled into the
 * page) and the helper (which writes it through /proc/<pid>/mem).
 */
#ifndef CLOCK_WARP_PAGE_H
#define CLOCK_WARP_PAGE_H

#include <stdint.h>

#define CW_MAGIC 0x70726177636b6c63ULL /* "clckwarp" */
#define CW_VERSION 1
/* Clock ids the warp applies to: REALTIME 0, MONOTONIC 1, MONOTONIC_RAW 4,
 * REALTIME_COARSE 5, MONOTONIC_COARSE 6, BOOTTIME 7, REALTIME_ALARM 8,
 * BOOTTIME_ALARM 9, TAI 11. The CPU-time clocks (2, 3, negative ids) are left alone. */
#define CW_CLOCKS 12
#define CW_WARPED_MASK ((1u << 0) | (1u << 1) | (1u << 4) | (1u << 5) | (1u << 6) | (1u << 7) | (1u << 8) | (1u << 9) | (1u << 11))
#define CW_SITES 3
#define CW_SITE_BYTES 16

/* One set of parameters: the clock `id` reads real + offset[id] + (real - anchor[id]) * rate. */
struct cw_slot {
  double rate;
  uint32_t mask; /* the clock ids warped; 0 once restored */
  uint32_t pad;
  int64_t offset_ns[CW_CLOCKS];
  int64_t anchor_ns[CW_CLOCKS];
};

/* A vDSO function's first bytes, replaced by a jump to the stub. */
struct cw_site {
  uint64_t addr; /* 0: unused */
  uint32_t len;
  uint32_t which; /* 0 clock_gettime, 1 gettimeofday, 2 time */
  uint8_t orig[CW_SITE_BYTES];
};

struct cw_page {
  uint64_t magic;
  uint64_t version;
  uint64_t entry[CW_SITES]; /* offsets in the page: clock_gettime, gettimeofday, time */
  uint64_t size;            /* bytes of the page's image */
  struct cw_site sites[CW_SITES];
  /* Two slots, so that a live change never shows a half-written set: the helper writes
   * the one not in use, then flips `active` (one aligned 4-byte store). */
  volatile uint32_t active;
  uint32_t pad;
  struct cw_slot slots[2];
};

#endif
