/* NV_Certify (Part 3 §31.16): signHandle 1, authHandle 2 (the index or a hierarchy that may
 * read it), nvIndex 3. With size and offset both zero it attests a digest of the whole index
 * (TPMS_NV_DIGEST_CERTIFY_INFO, the hash attest_hash names); otherwise the bytes in the range
 * (TPMS_NV_CERTIFY_INFO). */
#include <stdlib.h>

#include "attest.h"
#include "nv/nv.h"

#define BODY_MAX (2 + MAX_NAME_SIZE + 2 + 2 + NV_BUFFER_MAX)

/* The read checks of NV_Read, which take the authorizing handle from slot 0: here it is in
 * slot 1, so they see a view of the command with it there. */
static TPM_RC read_access(const struct cmd *c, const struct nv_index *idx)
{
	struct cmd view = *c;

	view.handle[0] = c->handle[1];
	return nv_read_access(&view, idx);
}

static TPM_RC digest_body(struct cmd *c, const struct nv_index *idx, TPM_ALG_ID hash,
			  struct wr *w)
{
	struct tpm2b_digest digest = { .size = (uint16_t)crypto_hash_size(hash) };
	uint8_t *data;
	TPM_RC rc = TPM_RC_SUCCESS;

	/* the NULL signer has no hash: an empty digest, as in the reference implementation */
	if (digest.size) {
		data = malloc(idx->pub.size ? idx->pub.size : 1);
		if (!data)
			return TPM_RC_MEMORY;
		nv_read_data(c->e, idx, 0, idx->pub.size, data);
		rc = crypto_hash(hash, data, idx->pub.size, digest.b);
		free(data);
	}
	TRY(rc);
	return wr_tpm2b_digest(w, &digest);
}

static TPM_RC nv_certify(struct cmd *c)
{
	const struct nv_index *idx = c->nv[2];
	struct attest_data qualifying;
	struct tpmt_scheme in, scheme;
	struct tpm2b_name name;
	uint16_t size, offset, type;
	uint8_t body[BODY_MAX], *out;
	struct wr w;

	TRYP(1, attest_rd_data(&c->in, &qualifying));
	TRYP(2, rd_sig_scheme(&c->in, &in, true));
	TRYP(3, rd_u16(&c->in, &size));
	TRYP(4, rd_u16(&c->in, &offset));
	TRY(cmd_params_done(c));
	TRY(read_access(c, idx));
	TRY(attest_scheme(c, 0, &in, 2, &scheme));
	if (size > NV_BUFFER_MAX)
		return rc_param(TPM_RC_VALUE, 3);
	TRY(nv_name(&idx->pub, &name));
	wr_init(&w, body, sizeof(body));
	TRY(wr_tpm2b_name(&w, &name));
	if (size == 0 && offset == 0) {
		type = TPM_ST_ATTEST_NV_DIGEST;
		TRY(digest_body(c, idx, attest_hash(c->obj[0], &scheme), &w));
	} else {
		if ((uint32_t)offset + size > idx->pub.size)
			return TPM_RC_NV_RANGE;
		type = TPM_ST_ATTEST_NV;
		TRY(wr_u16(&w, offset));
		TRY(wr_u16(&w, size));
		TRY(wr_reserve(&w, size, &out));
		nv_read_data(c->e, idx, offset, size, out);
	}
	return attest_sign(c, 0, &in, 2, &qualifying, type, body, w.off);
}

const struct cmd_def cmds_nv_certify[] = {
	{ .code = TPM_CC_NV_Certify, .name = "NV_Certify", .handles = 3,
	  .auth = { AUTH_USER, AUTH_USER, AUTH_NONE },
	  .htype = { HK_OBJECT | HK_NULL, HK_OWNER | HK_PLATFORM | HK_NV, HK_NV },
	  .flags = CMD_PARAM_IN | CMD_PARAM_OUT, .run = nv_certify },
	{ 0 },
};
