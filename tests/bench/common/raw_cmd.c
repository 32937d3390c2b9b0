/* The raw client's key commands (see raw_cmd.h). */
#include "raw_cmd.h"

#include <string.h>

#include <pqtpm/tpm2.h>

#include "marshal.h"

#define HDR 10	/* tag, size, code */

static TPM_RC cmd_begin(struct wr *w, uint16_t tag, uint32_t cc)
{
	TRY(wr_u16(w, tag));
	TRY(wr_u32(w, 0));	/* size, patched by cmd_send */
	return wr_u32(w, cc);
}

/* An empty password (TPM_RS_PW) authorization area of one session. */
static TPM_RC wr_password(struct wr *w)
{
	TRY(wr_u32(w, 4 + 2 + 1 + 2));
	TRY(wr_u32(w, TPM_RS_PW));
	TRY(wr_u16(w, 0));	/* nonce */
	TRY(wr_u8(w, 0));	/* session attributes */
	return wr_u16(w, 0);	/* hmac: the password */
}

/* Sends the command built in w (unless building it failed) and reads the response into rsp
 * (BENCH_RSP_CAP bytes), r positioned after its header. Returns the TPM's response code or -1. */
static long cmd_send(struct bench_conn *c, struct wr *w, TPM_RC built, uint8_t *rsp,
		     struct rd *r)
{
	const uint8_t *hdr;
	size_t n;
	long rc;

	if (built != TPM_RC_SUCCESS)
		return -1;
	wr_patch_u32(w, 2, (uint32_t)w->off);
	rc = bench_cmd(c, w->buf, w->off, rsp, BENCH_RSP_CAP, &n);
	if (rc != 0)
		return rc;
	rd_init(r, rsp, n);
	return rd_view(r, HDR, &hdr) == TPM_RC_SUCCESS ? 0 : -1;
}

/* The public area of the templates in tpm_bench's ESAPI rows: a signing key, fixed to the TPM,
 * user auth by password, empty auth policy and unique field. */
static TPM_RC wr_template(struct wr *w, enum bench_key key)
{
	size_t mark;

	TRY(wr_size_begin(w, &mark));
	TRY(wr_u16(w, key == BENCH_KEY_ECC_P256 ? TPM_ALG_ECC : TPM_ALG_RSA));
	TRY(wr_u16(w, TPM_ALG_SHA256));
	TRY(wr_u32(w, TPMA_OBJECT_SIGN_ENCRYPT | TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT |
			      TPMA_OBJECT_SENSITIVEDATAORIGIN | TPMA_OBJECT_USERWITHAUTH));
	TRY(wr_u16(w, 0));			/* authPolicy */
	TRY(wr_u16(w, TPM_ALG_NULL));		/* symmetric */
	if (key == BENCH_KEY_ECC_P256) {
		TRY(wr_u16(w, TPM_ALG_ECDSA));
		TRY(wr_u16(w, TPM_ALG_SHA256));
		TRY(wr_u16(w, TPM_ECC_NIST_P256));
		TRY(wr_u16(w, TPM_ALG_NULL));	/* kdf */
		TRY(wr_u16(w, 0));		/* unique x */
		TRY(wr_u16(w, 0));		/* unique y */
	} else {
		TRY(wr_u16(w, TPM_ALG_RSASSA));
		TRY(wr_u16(w, TPM_ALG_SHA256));
		TRY(wr_u16(w, 2048));
		TRY(wr_u32(w, 0));		/* exponent: the default */
		TRY(wr_u16(w, 0));		/* unique */
	}
	return wr_size_end(w, mark);
}

static TPM_RC build_create_primary(struct wr *w, enum bench_key key)
{
	TRY(cmd_begin(w, TPM_ST_SESSIONS, TPM_CC_CreatePrimary));
	TRY(wr_u32(w, TPM_RH_OWNER));
	TRY(wr_password(w));
	TRY(wr_u16(w, 4));	/* inSensitive: empty userAuth and data */
	TRY(wr_u32(w, 0));
	TRY(wr_template(w, key));
	TRY(wr_u16(w, 0));	/* outsideInfo */
	return wr_u32(w, 0);	/* creationPCR: no selection */
}

long bench_create_primary(struct bench_conn *c, enum bench_key key, uint32_t *handle)
{
	uint8_t cmd[256], rsp[BENCH_RSP_CAP];
	struct wr w;
	struct rd r, pub;
	uint32_t h, psize;
	uint16_t size, type;
	long rc;

	wr_init(&w, cmd, sizeof(cmd));
	rc = cmd_send(c, &w, build_create_primary(&w, key), rsp, &r);
	if (rc != 0)
		return rc;
	if (rd_u32(&r, &h) != TPM_RC_SUCCESS || rd_u32(&r, &psize) != TPM_RC_SUCCESS ||
	    psize > rd_left(&r) || rd_sub(&r, &pub, &size) != TPM_RC_SUCCESS ||
	    rd_u16(&pub, &type) != TPM_RC_SUCCESS || h >> 24 != TPM_HT_TRANSIENT ||
	    type != (key == BENCH_KEY_ECC_P256 ? TPM_ALG_ECC : TPM_ALG_RSA))
		return -1;
	*handle = h;
	return 0;
}

static TPM_RC build_sign(struct wr *w, uint32_t handle)
{
	uint8_t digest[32];

	memset(digest, 0xa5, sizeof(digest));
	TRY(cmd_begin(w, TPM_ST_SESSIONS, TPM_CC_Sign));
	TRY(wr_u32(w, handle));
	TRY(wr_password(w));
	TRY(wr_tpm2b(w, digest, sizeof(digest)));
	TRY(wr_u16(w, TPM_ALG_NULL));		/* inScheme: the key's */
	TRY(wr_u16(w, TPM_ST_HASHCHECK));	/* validation: a null ticket */
	TRY(wr_u32(w, TPM_RH_NULL));
	return wr_u16(w, 0);
}

long bench_sign(struct bench_conn *c, uint32_t handle, enum bench_key key)
{
	uint8_t cmd[128], rsp[BENCH_RSP_CAP], part[256];
	struct wr w;
	struct rd r;
	uint32_t psize;
	uint16_t alg, hash, n1, n2;
	long rc;

	wr_init(&w, cmd, sizeof(cmd));
	rc = cmd_send(c, &w, build_sign(&w, handle), rsp, &r);
	if (rc != 0)
		return rc;
	if (rd_u32(&r, &psize) != TPM_RC_SUCCESS || psize > rd_left(&r) ||
	    rd_u16(&r, &alg) != TPM_RC_SUCCESS || rd_u16(&r, &hash) != TPM_RC_SUCCESS ||
	    hash != TPM_ALG_SHA256 || rd_tpm2b(&r, part, sizeof(part), &n1) != TPM_RC_SUCCESS)
		return -1;
	if (key == BENCH_KEY_ECC_P256)	/* r and s, each at most the curve's size */
		return alg == TPM_ALG_ECDSA && n1 > 0 && n1 <= 32 &&
		       rd_tpm2b(&r, part, sizeof(part), &n2) == TPM_RC_SUCCESS && n2 > 0 &&
		       n2 <= 32 ? 0 : -1;
	return alg == TPM_ALG_RSASSA && n1 == 256 ? 0 : -1;
}

long bench_flush(struct bench_conn *c, uint32_t handle)
{
	uint8_t cmd[16], rsp[BENCH_RSP_CAP];
	struct wr w;
	struct rd r;
	TPM_RC built;

	wr_init(&w, cmd, sizeof(cmd));
	built = cmd_begin(&w, TPM_ST_NO_SESSIONS, TPM_CC_FlushContext);
	if (built == TPM_RC_SUCCESS)
		built = wr_u32(&w, handle);
	return cmd_send(c, &w, built, rsp, &r);
}
