/* Wiping secrets and comparing them without leaking where they differ. */
#include <string.h>

#include "crypto.h"

/* Sees every wiped range, after the wipe; does nothing. Weak, so that a test program can
 * define its own and check that secrets are wiped where they should be (tests/unit/test_wipe.c);
 * an observer only ever sees zeros. */
__attribute__((weak, noinline)) void crypto_wipe_observed(const void *p, size_t n)
{
	(void)p;
	(void)n;
}

void crypto_wipe(void *p, size_t n)
{
	if (n) {
		explicit_bzero(p, n);
		crypto_wipe_observed(p, n);
	}
}

bool crypto_ct_equal(const void *a, const void *b, size_t n)
{
	const uint8_t *x = a, *y = b;
	uint8_t diff = 0;

	for (size_t i = 0; i < n; i++)
		diff |= x[i] ^ y[i];
	return diff == 0;
}

/* Hides x from the optimizer, which could otherwise turn mask arithmetic on a secret length
 * back into a comparison, or count the loop in steps of i - length (gcc -O2 does). */
static inline size_t value_barrier(size_t x)
{
	__asm__("" : "+r"(x));
	return x;
}

/* All ones when x != 0, else zero, without a branch. */
static size_t nonzero_mask(size_t x)
{
	return (size_t)0 - ((x | ((size_t)0 - x)) >> (sizeof(size_t) * 8 - 1));
}

size_t crypto_ct_trim(const uint8_t *p, size_t n)
{
	size_t len = 0;

	/* len becomes i + 1 at every non-zero octet, chosen by a mask rather than a branch */
	for (size_t i = 0; i < n; i++) {
		size_t m = nonzero_mask(p[i]);

		len = (len & ~m) | ((i + 1) & m);
	}
	return len;
}

bool crypto_ct_equal_trimmed(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen,
			     size_t cap)
{
	uint8_t diff = 0;

	/* octets past a length count as zero: a[i] & mask, where mask is all ones iff i < len */
	for (size_t i = 0; i < cap; i++) {
		size_t at = value_barrier(i);
		uint8_t ma = (uint8_t)(0u - value_barrier((at - alen) >> (sizeof(size_t) * 8 - 1)));
		uint8_t mb = (uint8_t)(0u - value_barrier((at - blen) >> (sizeof(size_t) * 8 - 1)));

		diff |= (uint8_t)((a[i] & ma) ^ (b[i] & mb));
	}
	return diff == 0;
}
