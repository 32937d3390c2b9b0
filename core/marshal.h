/* The one bounded reader/writer. Every byte a handler reads or writes goes through these;
 * nothing else in the engine does pointer arithmetic on a command or response buffer.
 *
 * Readers fail with TPM_RC_INSUFFICIENT when fewer bytes remain than asked, and with
 * TPM_RC_SIZE when a size field exceeds the destination's maximum. Writers fail with
 * TPM_RC_SIZE (response too big). Dispatch adds the parameter number to the code.
 */
#ifndef PQTPM_MARSHAL_H
#define PQTPM_MARSHAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <pqtpm/tpm2.h>

#define TRY(expr)                                   \
	do {                                        \
		TPM_RC try_rc_ = (expr);            \
		if (try_rc_ != TPM_RC_SUCCESS)      \
			return try_rc_;             \
	} while (0)

struct rd {
	const uint8_t *buf;
	size_t len;
	size_t off;
};

struct wr {
	uint8_t *buf;
	size_t cap;
	size_t off;
};

static inline void rd_init(struct rd *r, const uint8_t *buf, size_t len)
{
	r->buf = buf;
	r->len = len;
	r->off = 0;
}

static inline size_t rd_left(const struct rd *r)
{
	return r->len - r->off;
}

static inline void wr_init(struct wr *w, uint8_t *buf, size_t cap)
{
	w->buf = buf;
	w->cap = cap;
	w->off = 0;
}

TPM_RC rd_u8(struct rd *r, uint8_t *v);
TPM_RC rd_u16(struct rd *r, uint16_t *v);
TPM_RC rd_u32(struct rd *r, uint32_t *v);
TPM_RC rd_u64(struct rd *r, uint64_t *v);
TPM_RC rd_bytes(struct rd *r, void *out, size_t n);
/* Borrow n bytes in place (valid while the buffer lives). */
TPM_RC rd_view(struct rd *r, size_t n, const uint8_t **out);
/* A TPM2B: u16 size then size bytes; size > max gives TPM_RC_SIZE. */
TPM_RC rd_tpm2b(struct rd *r, uint8_t *buf, uint16_t max, uint16_t *size);
/* A sub-reader over a TPM2B's content (for sized structures such as TPM2B_PUBLIC). */
TPM_RC rd_sub(struct rd *r, struct rd *sub, uint16_t *size);

TPM_RC wr_u8(struct wr *w, uint8_t v);
TPM_RC wr_u16(struct wr *w, uint16_t v);
TPM_RC wr_u32(struct wr *w, uint32_t v);
TPM_RC wr_u64(struct wr *w, uint64_t v);
TPM_RC wr_bytes(struct wr *w, const void *data, size_t n);
TPM_RC wr_tpm2b(struct wr *w, const void *data, uint16_t size);
/* Reserve n bytes and return where they are, for a producer that fills them directly. */
TPM_RC wr_reserve(struct wr *w, size_t n, uint8_t **out);
/* Sized structures: wr_size_begin leaves room for a u16 size, wr_size_end fills it in. */
TPM_RC wr_size_begin(struct wr *w, size_t *mark);
TPM_RC wr_size_end(struct wr *w, size_t mark);
/* Patch a u32 written earlier (response size, parameterSize). */
void wr_patch_u32(struct wr *w, size_t at, uint32_t v);

/* Little-endian integers, for formats outside TPM 2.0 (the TCG PC Client event log). */
TPM_RC rd_u16le(struct rd *r, uint16_t *v);
TPM_RC rd_u32le(struct rd *r, uint32_t *v);
TPM_RC wr_u16le(struct wr *w, uint16_t v);
TPM_RC wr_u32le(struct wr *w, uint32_t v);

#endif
