/* Bounded reader/writer primitives (see marshal.h). */
#include <string.h>

#include "marshal.h"

static TPM_RC rd_need(const struct rd *r, size_t n)
{
	return rd_left(r) < n ? TPM_RC_INSUFFICIENT : TPM_RC_SUCCESS;
}

TPM_RC rd_u8(struct rd *r, uint8_t *v)
{
	TRY(rd_need(r, 1));
	*v = r->buf[r->off++];
	return TPM_RC_SUCCESS;
}

TPM_RC rd_u16(struct rd *r, uint16_t *v)
{
	const uint8_t *p;

	TRY(rd_need(r, 2));
	p = r->buf + r->off;
	*v = (uint16_t)((p[0] << 8) | p[1]);
	r->off += 2;
	return TPM_RC_SUCCESS;
}

TPM_RC rd_u32(struct rd *r, uint32_t *v)
{
	const uint8_t *p;

	TRY(rd_need(r, 4));
	p = r->buf + r->off;
	*v = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
	r->off += 4;
	return TPM_RC_SUCCESS;
}

TPM_RC rd_u64(struct rd *r, uint64_t *v)
{
	uint32_t hi, lo;

	TRY(rd_need(r, 8));
	TRY(rd_u32(r, &hi));
	TRY(rd_u32(r, &lo));
	*v = (uint64_t)hi << 32 | lo;
	return TPM_RC_SUCCESS;
}

TPM_RC rd_bytes(struct rd *r, void *out, size_t n)
{
	TRY(rd_need(r, n));
	if (n)
		memcpy(out, r->buf + r->off, n);
	r->off += n;
	return TPM_RC_SUCCESS;
}

TPM_RC rd_view(struct rd *r, size_t n, const uint8_t **out)
{
	TRY(rd_need(r, n));
	*out = r->buf + r->off;
	r->off += n;
	return TPM_RC_SUCCESS;
}

TPM_RC rd_tpm2b(struct rd *r, uint8_t *buf, uint16_t max, uint16_t *size)
{
	uint16_t n;

	TRY(rd_u16(r, &n));
	if (n > max)
		return TPM_RC_SIZE;
	TRY(rd_bytes(r, buf, n));
	*size = n;
	return TPM_RC_SUCCESS;
}

TPM_RC rd_sub(struct rd *r, struct rd *sub, uint16_t *size)
{
	uint16_t n;
	const uint8_t *p;

	TRY(rd_u16(r, &n));
	TRY(rd_view(r, n, &p));
	rd_init(sub, p, n);
	*size = n;
	return TPM_RC_SUCCESS;
}

static TPM_RC wr_need(const struct wr *w, size_t n)
{
	return w->cap - w->off < n ? TPM_RC_SIZE : TPM_RC_SUCCESS;
}

TPM_RC wr_u8(struct wr *w, uint8_t v)
{
	TRY(wr_need(w, 1));
	w->buf[w->off++] = v;
	return TPM_RC_SUCCESS;
}

TPM_RC wr_u16(struct wr *w, uint16_t v)
{
	TRY(wr_need(w, 2));
	w->buf[w->off] = (uint8_t)(v >> 8);
	w->buf[w->off + 1] = (uint8_t)v;
	w->off += 2;
	return TPM_RC_SUCCESS;
}

TPM_RC wr_u32(struct wr *w, uint32_t v)
{
	TRY(wr_need(w, 4));
	wr_patch_u32(w, w->off, v);
	w->off += 4;
	return TPM_RC_SUCCESS;
}

TPM_RC wr_u64(struct wr *w, uint64_t v)
{
	TRY(wr_need(w, 8));
	TRY(wr_u32(w, (uint32_t)(v >> 32)));
	return wr_u32(w, (uint32_t)v);
}

TPM_RC wr_bytes(struct wr *w, const void *data, size_t n)
{
	TRY(wr_need(w, n));
	if (n)
		memcpy(w->buf + w->off, data, n);
	w->off += n;
	return TPM_RC_SUCCESS;
}

TPM_RC wr_tpm2b(struct wr *w, const void *data, uint16_t size)
{
	TRY(wr_need(w, 2 + (size_t)size));
	TRY(wr_u16(w, size));
	return wr_bytes(w, data, size);
}

TPM_RC wr_reserve(struct wr *w, size_t n, uint8_t **out)
{
	TRY(wr_need(w, n));
	*out = w->buf + w->off;
	w->off += n;
	return TPM_RC_SUCCESS;
}

TPM_RC wr_size_begin(struct wr *w, size_t *mark)
{
	*mark = w->off;
	return wr_u16(w, 0);
}

TPM_RC wr_size_end(struct wr *w, size_t mark)
{
	size_t n = w->off - mark - 2;

	if (n > UINT16_MAX)
		return TPM_RC_SIZE;
	w->buf[mark] = (uint8_t)(n >> 8);
	w->buf[mark + 1] = (uint8_t)n;
	return TPM_RC_SUCCESS;
}

void wr_patch_u32(struct wr *w, size_t at, uint32_t v)
{
	w->buf[at] = (uint8_t)(v >> 24);
	w->buf[at + 1] = (uint8_t)(v >> 16);
	w->buf[at + 2] = (uint8_t)(v >> 8);
	w->buf[at + 3] = (uint8_t)v;
}

/* Little-endian, for formats outside TPM 2.0 that carry TPM data (the TCG PC Client event
 * log); the same bounds. */
TPM_RC rd_u16le(struct rd *r, uint16_t *v)
{
	uint8_t b[2];

	TRY(rd_bytes(r, b, sizeof(b)));
	*v = (uint16_t)(b[0] | b[1] << 8);
	return TPM_RC_SUCCESS;
}

TPM_RC rd_u32le(struct rd *r, uint32_t *v)
{
	uint8_t b[4];

	TRY(rd_bytes(r, b, sizeof(b)));
	*v = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
	return TPM_RC_SUCCESS;
}

TPM_RC wr_u16le(struct wr *w, uint16_t v)
{
	uint8_t b[2] = { (uint8_t)v, (uint8_t)(v >> 8) };

	return wr_bytes(w, b, sizeof(b));
}

TPM_RC wr_u32le(struct wr *w, uint32_t v)
{
	uint8_t b[4] = { (uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24) };

	return wr_bytes(w, b, sizeof(b));
}
