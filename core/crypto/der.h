/* The one DER writer (X.690 distinguished encoding) of the project: certificates of the
 * manufacturer CA and the EKs (core/endorse), public keys as PEM (attest/). A bottom-layer
 * service beside the crypto wrappers, so that TPM clients may use it too. Bounded by its buffer; a failure is sticky, so a builder
 * writes a whole structure and checks once with der_finish.
 *
 * Constructed values nest: der_open writes the tag and a one-byte placeholder for the length,
 * der_close fills the length in (moving the content up when the length needs more bytes).
 * Lengths up to 65535 bytes. */
#ifndef PQTPM_CRYPTO_DER_H
#define PQTPM_CRYPTO_DER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "marshal.h"

#define DER_MAX_DEPTH 10

#define DER_BOOLEAN 0x01
#define DER_INTEGER 0x02
#define DER_BIT_STRING 0x03
#define DER_OCTET_STRING 0x04
#define DER_NULL 0x05
#define DER_OID 0x06
#define DER_UTF8_STRING 0x0C
#define DER_UTC_TIME 0x17
#define DER_GENERALIZED_TIME 0x18
#define DER_SEQUENCE 0x30
#define DER_SET 0x31
#define DER_CONTEXT(n) (0xA0 | (n))	     /* [n] constructed (EXPLICIT) */
#define DER_CONTEXT_PRIM(n) (0x80 | (n)) /* [n] primitive (IMPLICIT of a primitive) */

struct der {
	uint8_t *buf;
	size_t cap;
	size_t off;
	size_t open[DER_MAX_DEPTH]; /* offset of each open value's tag */
	unsigned depth;
	bool failed;
};

void der_init(struct der *d, uint8_t *buf, size_t cap);
void der_open(struct der *d, uint8_t tag);
void der_close(struct der *d);
/* Bytes as they are (an encoding made elsewhere, the unused-bits octet of a BIT STRING). */
void der_raw(struct der *d, const void *data, size_t len);
/* A primitive value: tag, length, content. */
void der_tlv(struct der *d, uint8_t tag, const void *data, size_t len);
/* INTEGER of an unsigned big-endian number: leading zeros dropped, a 0x00 added when the top
 * bit is set (the value stays positive). */
void der_uint(struct der *d, const uint8_t *be, size_t len);
void der_uint32(struct der *d, uint32_t v);
/* BIT STRING whose last unused bits (0-7) are zero. */
void der_bits(struct der *d, const uint8_t *data, size_t len, unsigned unused);
/* TPM_RC_SUCCESS with the length written, or TPM_RC_SIZE if the buffer was too small, a
 * length too large or a value left open. */
TPM_RC der_finish(const struct der *d, size_t *len);

#endif
