/* Wiping secrets and comparing them without leaking where they differ. */
#include <string.h>

#include "crypto.h"

void crypto_wipe(void *p, size_t n)
{
	if (n)
		explicit_bzero(p, n);
}

bool crypto_ct_equal(const void *a, const void *b, size_t n)
{
	const uint8_t *x = a, *y = b;
	uint8_t diff = 0;

	for (size_t i = 0; i < n; i++)
		diff |= x[i] ^ y[i];
	return diff == 0;
}
