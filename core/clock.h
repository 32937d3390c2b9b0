/* The TPM's Clock and time (Part 1 §36): Clock counts the ms the TPM was powered, kept in
 * ps.clock plus what elapsed since clock_base_ms (after ClockRateAdjust); time counts from
 * the last _TPM_Init. */
#ifndef PQTPM_CLOCK_H
#define PQTPM_CLOCK_H

#include <stdint.h>

#define CLOCK_PPM_NOMINAL 1000000

struct pqtpm_engine;
/* CLOCK_MONOTONIC in ms: system-wide within a boot */
uint64_t clock_monotonic_ms(void);
uint64_t engine_clock_ms(struct pqtpm_engine *e);
/* Milliseconds since the last power on (_TPM_Init). */
uint64_t engine_time_ms(struct pqtpm_engine *e);
/* Fold the time elapsed since the last sync into ps.clock (before saving it). */
void engine_clock_sync(struct pqtpm_engine *e);

#endif
