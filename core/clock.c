/* The TPM's Clock and time (clock.h). */
#include <time.h>

#include "clock.h"
#include "engine_int.h"

uint64_t clock_monotonic_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* Elapsed host time as Clock sees it, after ClockRateAdjust (parts per million). */
static uint64_t clock_elapsed(const struct pqtpm_engine *e, uint64_t now)
{
	/* CLOCK_MONOTONIC does not go back on Linux, but a time-faking shim can make it: Clock
	 * then stands still instead of wrapping around */
	uint64_t d = now > e->clock_base_ms ? now - e->clock_base_ms : 0;

	return d * (uint64_t)(CLOCK_PPM_NOMINAL + e->clock_ppm) / CLOCK_PPM_NOMINAL;
}

uint64_t engine_clock_ms(struct pqtpm_engine *e)
{
	return e->ps.clock + clock_elapsed(e, clock_monotonic_ms());
}

uint64_t engine_time_ms(struct pqtpm_engine *e)
{
	uint64_t now = clock_monotonic_ms();

	return now > e->power_on_ms ? now - e->power_on_ms : 0;
}

void engine_clock_sync(struct pqtpm_engine *e)
{
	uint64_t now = clock_monotonic_ms();

	e->ps.clock += clock_elapsed(e, now);
	e->clock_base_ms = now;
}
