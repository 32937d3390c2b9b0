/* DER writer: see der.h. */
#include <string.h>

#include "crypto/der.h"

void der_init(struct der *d, uint8_t *buf, size_t cap)
{
	memset(d, 0, sizeof(*d));
	d->buf = buf;
	d->cap = cap;
}

void der_raw(struct der *d, const void *data, size_t len)
{
	if (d->failed || len > d->cap - d->off) {
		d->failed = true;
		return;
	}
	if (len)
		memcpy(d->buf + d->off, data, len);
	d->off += len;
}

void der_open(struct der *d, uint8_t tag)
{
	static const uint8_t placeholder = 0;

	if (d->depth == DER_MAX_DEPTH) {
		d->failed = true;
		return;
	}
	d->open[d->depth++] = d->off;
	der_raw(d, &tag, 1);
	der_raw(d, &placeholder, 1);
}

void der_close(struct der *d)
{
	size_t at, start, len, n;

	if (d->depth == 0) {
		d->failed = true;
		return;
	}
	at = d->open[--d->depth];
	if (d->failed)
		return;
	start = at + 2;
	len = d->off - start;
	n = len < 0x80 ? 1 : len < 0x100 ? 2 : len < 0x10000 ? 3 : 0;
	if (n == 0 || n - 1 > d->cap - d->off) {
		d->failed = true;
		return;
	}
	memmove(d->buf + start + n - 1, d->buf + start, len);
	d->off += n - 1;
	if (n == 1) {
		d->buf[at + 1] = (uint8_t)len;
	} else {
		d->buf[at + 1] = (uint8_t)(0x80 | (n - 1));
		if (n == 3)
			d->buf[at + 2] = (uint8_t)(len >> 8);
		d->buf[at + n] = (uint8_t)len;
	}
}

void der_tlv(struct der *d, uint8_t tag, const void *data, size_t len)
{
	der_open(d, tag);
	der_raw(d, data, len);
	der_close(d);
}

void der_uint(struct der *d, const uint8_t *be, size_t len)
{
	static const uint8_t zero = 0;

	while (len > 1 && be[0] == 0) {
		be++;
		len--;
	}
	der_open(d, DER_INTEGER);
	if (len == 0 || (be[0] & 0x80))
		der_raw(d, &zero, 1);
	der_raw(d, be, len);
	der_close(d);
}

void der_uint32(struct der *d, uint32_t v)
{
	uint8_t be[4] = { (uint8_t)(v >> 24), (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v };

	der_uint(d, be, sizeof(be));
}

void der_bits(struct der *d, const uint8_t *data, size_t len, unsigned unused)
{
	uint8_t u = (uint8_t)unused;

	if (unused > 7 || (len == 0 && unused) || (len && (data[len - 1] & ((1u << unused) - 1)))) {
		d->failed = true;
		return;
	}
	der_open(d, DER_BIT_STRING);
	der_raw(d, &u, 1);
	der_raw(d, data, len);
	der_close(d);
}

TPM_RC der_finish(const struct der *d, size_t *len)
{
	if (d->failed || d->depth)
		return TPM_RC_SIZE;
	*len = d->off;
	return TPM_RC_SUCCESS;
}
