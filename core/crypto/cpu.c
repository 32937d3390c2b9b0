/* CPU feature detection for the post-quantum code (cpu.h). */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "crypto/cpu.h"

enum { UNKNOWN, ABSENT, PRESENT };

static atomic_int detected = UNKNOWN;
static atomic_bool allowed = true;

/*
 * gcc's and clang's __builtin_cpu_supports reads cpuid, and reports AVX2 only where the operating
 * system saves the YMM registers (XGETBV), which is the check AVX2 code needs.
 */
static int detect(void)
{
	const char *off = getenv("PQTPM_NO_AVX2");

	if (off && *off && strcmp(off, "0") != 0)
		return ABSENT;
#if defined(__x86_64__) && defined(__GNUC__)
	__builtin_cpu_init();
	if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi") && __builtin_cpu_supports("bmi2"))
		return PRESENT;
#endif
	return ABSENT;
}

bool crypto_cpu_avx2(void)
{
	int d = atomic_load_explicit(&detected, memory_order_relaxed);

	/* two threads may both detect the first time; they store the same answer */
	if (d == UNKNOWN) {
		d = detect();
		atomic_store_explicit(&detected, d, memory_order_relaxed);
	}
	return d == PRESENT && atomic_load_explicit(&allowed, memory_order_relaxed);
}

void crypto_cpu_allow_avx2(bool allow)
{
	atomic_store_explicit(&allowed, allow, memory_order_relaxed);
}
