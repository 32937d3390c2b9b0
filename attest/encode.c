/* base64url (RFC 4648 §5, no padding) and hex, strict both ways. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <pqtpm/attest.h>

static const char b64url[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

char *pqtpm_attest_b64url(const uint8_t *data, size_t len)
{
	char *out = malloc(len / 3 * 4 + 4 + 1);
	size_t o = 0;

	if (!out)
		return NULL;
	for (size_t i = 0; i < len; i += 3) {
		size_t k = len - i < 3 ? len - i : 3;
		uint32_t v = (uint32_t)data[i] << 16;

		if (k > 1)
			v |= (uint32_t)data[i + 1] << 8;
		if (k > 2)
			v |= data[i + 2];
		out[o++] = b64url[(v >> 18) & 63];
		out[o++] = b64url[(v >> 12) & 63];
		if (k > 1)
			out[o++] = b64url[(v >> 6) & 63];
		if (k > 2)
			out[o++] = b64url[v & 63];
	}
	out[o] = 0;
	return out;
}

static int b64_value(char c)
{
	const char *p = c ? strchr(b64url, c) : NULL;

	return p ? (int)(p - b64url) : -1;
}

int pqtpm_attest_unb64url(const char *text, uint8_t *out, size_t cap, size_t *len)
{
	size_t n = strlen(text), o = 0;

	if (n % 4 == 1)
		return -EINVAL;
	for (size_t i = 0; i < n; i += 4) {
		size_t k = n - i < 4 ? n - i : 4;
		uint32_t v = 0;

		for (size_t j = 0; j < 4; j++) {
			int d = j < k ? b64_value(text[i + j]) : 0;

			if (d < 0)
				return -EINVAL;
			v = v << 6 | (uint32_t)d;
		}
		/* the bits past the last byte must be zero: one encoding per value */
		if ((k == 2 && (v & 0xFFFF)) || (k == 3 && (v & 0xFF)))
			return -EINVAL;
		if (o + k - 1 > cap)
			return -EINVAL;
		out[o++] = (uint8_t)(v >> 16);
		if (k > 2)
			out[o++] = (uint8_t)(v >> 8);
		if (k > 3)
			out[o++] = (uint8_t)v;
	}
	*len = o;
	return 0;
}

char *pqtpm_attest_hex(const uint8_t *data, size_t len)
{
	static const char digits[] = "0123456789abcdef";
	char *out = malloc(2 * len + 1);

	if (!out)
		return NULL;
	for (size_t i = 0; i < len; i++) {
		out[2 * i] = digits[data[i] >> 4];
		out[2 * i + 1] = digits[data[i] & 15];
	}
	out[2 * len] = 0;
	return out;
}

static int hex_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int pqtpm_attest_unhex(const char *text, uint8_t *out, size_t cap, size_t *len)
{
	size_t n = strlen(text);

	if (n % 2 || n / 2 > cap)
		return -EINVAL;
	for (size_t i = 0; i < n; i += 2) {
		int hi = hex_value(text[i]), lo = hex_value(text[i + 1]);

		if (hi < 0 || lo < 0)
			return -EINVAL;
		out[i / 2] = (uint8_t)(hi << 4 | lo);
	}
	*len = n / 2;
	return 0;
}
