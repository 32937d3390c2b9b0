/* Helpers shared by the fuzz targets: building and running TPM commands on an engine client.
 * Header-only (static functions); include after <pqtpm/engine.h>. */
#ifndef PQTPM_FUZZ_UTIL_H
#define PQTPM_FUZZ_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pqtpm/engine.h>

#include "crypto/crypto.h"

/* run.sh builds everything with a deterministic crypto_random (core/crypto/rng.c) */
#ifndef PQTPM_FUZZ_DETERMINISTIC_RNG
#error "build the fuzz targets with tests/fuzz/run.sh (-DPQTPM_FUZZ_DETERMINISTIC_RNG)"
#endif

#define FZ_ST_NO_SESSIONS 0x8001u
#define FZ_ST_SESSIONS 0x8002u
#define FZ_RH_OWNER 0x40000001u
#define FZ_RH_NULL 0x40000007u
#define FZ_RH_ENDORSEMENT 0x4000000Bu
#define FZ_RH_PLATFORM 0x4000000Cu
#define FZ_RS_PW 0x40000009u

struct fz_cmd {
	uint8_t b[PQTPM_MAX_COMMAND_SIZE];
	size_t n;
};

/* At the start of every input: the random stream starts over, so that an input replays
 * exactly (with PQTPM_FUZZ_RESET=1 for the targets that keep an engine between inputs). */
static inline void fz_input_start(void)
{
	crypto_fuzz_rng_reset();
}

__attribute__((noreturn)) static inline void fz_die(const char *who, const char *what)
{
	fprintf(stderr, "%s: %s\n", who, what);
	abort();
}

static inline void fz_u8(struct fz_cmd *c, uint8_t v)
{
	if (c->n < sizeof(c->b))
		c->b[c->n++] = v;
}

static inline void fz_u16(struct fz_cmd *c, uint16_t v)
{
	fz_u8(c, (uint8_t)(v >> 8));
	fz_u8(c, (uint8_t)v);
}

static inline void fz_u32(struct fz_cmd *c, uint32_t v)
{
	fz_u16(c, (uint16_t)(v >> 16));
	fz_u16(c, (uint16_t)v);
}

static inline void fz_bytes(struct fz_cmd *c, const void *p, size_t n)
{
	if (n > sizeof(c->b) - c->n)
		n = sizeof(c->b) - c->n;
	memcpy(c->b + c->n, p, n);
	c->n += n;
}

static inline void fz_begin(struct fz_cmd *c, uint16_t tag, uint32_t cc)
{
	c->n = 0;
	fz_u16(c, tag);
	fz_u32(c, 0);
	fz_u32(c, cc);
}

/* The empty password session (TPM_RS_PW, no nonce, continueSession, empty hmac). */
static inline void fz_pw_auth(struct fz_cmd *c)
{
	fz_u32(c, 9);
	fz_u32(c, FZ_RS_PW);
	fz_u16(c, 0);
	fz_u8(c, 1);
	fz_u16(c, 0);
}

static inline uint32_t fz_get_u32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* Runs c (its size patched in); returns the response code, the response in rsp. */
static inline uint32_t fz_run(struct pqtpm_client *cl, struct fz_cmd *c, uint8_t *rsp,
			      size_t *rsp_len)
{
	c->b[2] = (uint8_t)(c->n >> 24);
	c->b[3] = (uint8_t)(c->n >> 16);
	c->b[4] = (uint8_t)(c->n >> 8);
	c->b[5] = (uint8_t)c->n;
	*rsp_len = 0;
	if (pqtpm_engine_execute(cl, 0, c->b, c->n, rsp, PQTPM_MAX_RESPONSE_SIZE, rsp_len) != 0 ||
	    *rsp_len < 10 || fz_get_u32(rsp + 2) != *rsp_len)
		fz_die("fuzz", "malformed response");
	return fz_get_u32(rsp + 6);
}

/* CreatePrimary under hierarchy: an ECC P-256 ECDSA signing key (keyedhash = 0) or an HMAC
 * key (keyedhash = 1), empty auth. Returns the rc; *h the handle. */
static inline uint32_t fz_create_primary(struct pqtpm_client *cl, uint32_t hierarchy,
					 int keyedhash, uint32_t *h)
{
	static struct fz_cmd c;
	static uint8_t rsp[PQTPM_MAX_RESPONSE_SIZE];
	size_t len, at;
	uint32_t rc;

	fz_begin(&c, FZ_ST_SESSIONS, 0x131);
	fz_u32(&c, hierarchy);
	fz_pw_auth(&c);
	fz_u16(&c, 4);	/* inSensitive: empty userAuth and data */
	fz_u16(&c, 0);
	fz_u16(&c, 0);
	at = c.n;
	fz_u16(&c, 0);	/* inPublic size, patched */
	if (keyedhash) {
		fz_u16(&c, 0x0008);	/* TPM_ALG_KEYEDHASH */
		fz_u16(&c, 0x000b);	/* SHA-256 */
		fz_u32(&c, 0x00040072);	/* sign, userWithAuth, sensitiveDataOrigin, fixed* */
		fz_u16(&c, 0);		/* authPolicy */
		fz_u16(&c, 0x0005);	/* scheme HMAC */
		fz_u16(&c, 0x000b);
		fz_u16(&c, 0);		/* unique */
	} else {
		fz_u16(&c, 0x0023);	/* TPM_ALG_ECC */
		fz_u16(&c, 0x000b);
		fz_u32(&c, 0x00040072);
		fz_u16(&c, 0);
		fz_u16(&c, 0x0010);	/* symmetric NULL */
		fz_u16(&c, 0x0018);	/* ECDSA */
		fz_u16(&c, 0x000b);
		fz_u16(&c, 0x0003);	/* NIST P-256 */
		fz_u16(&c, 0x0010);	/* kdf NULL */
		fz_u16(&c, 0);		/* unique x, y */
		fz_u16(&c, 0);
	}
	c.b[at] = (uint8_t)((c.n - at - 2) >> 8);
	c.b[at + 1] = (uint8_t)(c.n - at - 2);
	fz_u16(&c, 0);	/* outsideInfo */
	fz_u32(&c, 0);	/* creationPCR */
	rc = fz_run(cl, &c, rsp, &len);
	if (rc == 0 && len >= 14)
		*h = fz_get_u32(rsp + 10);
	return rc;
}

#endif
