/* PEM encoding: see pem.h. */
#include <stdio.h>
#include <string.h>

#include "crypto/pem.h"

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

size_t pem_encode(const char *label, const uint8_t *der, size_t len, char *out, size_t cap)
{
	size_t body = (len + 2) / 3 * 4, lines = (body + 63) / 64;
	size_t need = 2 * strlen(label) + 2 * 17 + body + lines + 1;
	size_t o, col = 0;
	int n;

	if (need > cap)
		return 0;
	n = snprintf(out, cap, "-----BEGIN %s-----\n", label);
	o = (size_t)n;
	for (size_t i = 0; i < len; i += 3) {
		uint32_t v = (uint32_t)der[i] << 16;
		size_t k = len - i < 3 ? len - i : 3;

		if (k > 1)
			v |= (uint32_t)der[i + 1] << 8;
		if (k > 2)
			v |= der[i + 2];
		out[o++] = b64[(v >> 18) & 63];
		out[o++] = b64[(v >> 12) & 63];
		out[o++] = k > 1 ? b64[(v >> 6) & 63] : '=';
		out[o++] = k > 2 ? b64[v & 63] : '=';
		col += 4;
		if (col == 64 || i + 3 >= len) {
			out[o++] = '\n';
			col = 0;
		}
	}
	n = snprintf(out + o, cap - o, "-----END %s-----\n", label);
	return o + (size_t)n;
}
