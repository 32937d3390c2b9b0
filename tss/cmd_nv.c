/* NV_DefineSpace, NV_UndefineSpace, NV_Write and NV_Read (chunked by the TPM's
 * TPM_PT_NV_BUFFER_MAX), NV_ReadPublic, NV_Increment. */
#include <string.h>

#include "tss_int.h"

/* TPM2B_NV_PUBLIC: nvIndex, nameAlg, attributes, authPolicy, dataSize */
static void nv_public(struct tss_cmd *c, const struct pqtpm_tss_nv_public *p)
{
	tss_u16(c, (uint16_t)(4 + 2 + 4 + 2 + p->policy_size + 2));
	tss_u32(c, p->index);
	tss_u16(c, p->name_alg ? p->name_alg : TPM_ALG_SHA256);
	tss_u32(c, p->attributes);
	tss_tpm2b(c, p->policy, p->policy_size);
	tss_u16(c, p->data_size);
}

/* Any nameAlg and attributes: the TPM's to decide, not ours. */
static TPM_RC rd_nv_public(struct rd *r, struct pqtpm_tss_nv_public *p)
{
	struct rd sub;
	uint16_t size;

	if (rd_sub(r, &sub, &size) || rd_u32(&sub, &p->index) || rd_u16(&sub, &p->name_alg) ||
	    rd_u32(&sub, &p->attributes))
		return PQTPM_TSS_RC_MALFORMED;
	TRY(tss_rd_tpm2b(&sub, p->policy, sizeof(p->policy), &p->policy_size));
	if (rd_u16(&sub, &p->data_size))
		return PQTPM_TSS_RC_MALFORMED;
	return tss_rd_end(&sub);
}

TPM_RC pqtpm_tss_nv_define_space(struct pqtpm_tss *t, TPM_HANDLE auth_handle,
				 const char *hierarchy_auth, const char *index_auth,
				 const struct pqtpm_tss_nv_public *pub)
{
	struct tss_cmd c;
	struct rd r;

	if (pub->policy_size > sizeof(pub->policy))
		return PQTPM_TSS_RC_BAD_VALUE;
	tss_begin(&c, t, TPM_CC_NV_DefineSpace);
	tss_param_enc(&c, TSS_ENC_IN);
	tss_handle(&c, auth_handle);
	tss_auth(&c, hierarchy_auth);
	tss_tpm2b_str(&c, index_auth);
	nv_public(&c, pub);
	TRY(tss_run(&c, &r, NULL));
	return tss_rd_end(&r);
}

TPM_RC pqtpm_tss_nv_undefine_space(struct pqtpm_tss *t, TPM_HANDLE auth_handle,
				   const char *hierarchy_auth, TPM_HANDLE index)
{
	struct tss_cmd c;
	struct rd r;

	tss_begin(&c, t, TPM_CC_NV_UndefineSpace);
	tss_handle(&c, auth_handle);
	tss_handle(&c, index);
	tss_auth(&c, hierarchy_auth);
	TRY(tss_run(&c, &r, NULL));
	return tss_rd_end(&r);
}

TPM_RC pqtpm_tss_nv_read_public(struct pqtpm_tss *t, TPM_HANDLE index,
				struct pqtpm_tss_nv_public *pub, struct pqtpm_tss_name *name)
{
	struct tss_cmd c;
	struct rd r;

	tss_begin(&c, t, TPM_CC_NV_ReadPublic);
	tss_param_enc(&c, TSS_ENC_OUT);
	tss_handle(&c, index);
	TRY(tss_run(&c, &r, NULL));
	TRY(rd_nv_public(&r, pub));
	TRY(tss_rd_tpm2b(&r, name->b, sizeof(name->b), &name->size));
	return tss_rd_end(&r);
}

/* How much one NV_Write or NV_Read may carry: the TPM's own limit, within ours. */
static TPM_RC chunk_size(struct pqtpm_tss *t, size_t *chunk)
{
	uint32_t v;

	TRY(pqtpm_tss_get_property(t, TPM_PT_NV_BUFFER_MAX, &v));
	if (v == 0)
		return PQTPM_TSS_RC_MALFORMED;
	*chunk = v < PQTPM_TSS_MAX_BUFFER ? v : PQTPM_TSS_MAX_BUFFER;
	return TPM_RC_SUCCESS;
}

TPM_RC pqtpm_tss_nv_write(struct pqtpm_tss *t, TPM_HANDLE auth_handle, const char *auth,
			  TPM_HANDLE index, uint16_t offset, const uint8_t *data, size_t len)
{
	size_t chunk, done = 0;

	if (offset + len > UINT16_MAX + 1u)
		return PQTPM_TSS_RC_BAD_VALUE;
	TRY(chunk_size(t, &chunk));
	do {
		size_t n = len - done < chunk ? len - done : chunk;
		struct tss_cmd c;
		struct rd r;

		tss_begin(&c, t, TPM_CC_NV_Write);
		tss_param_enc(&c, TSS_ENC_IN);
		tss_handle(&c, auth_handle);
		tss_handle(&c, index);
		tss_auth(&c, auth);
		tss_tpm2b(&c, data + done, n);
		tss_u16(&c, (uint16_t)(offset + done));
		TRY(tss_run(&c, &r, NULL));
		TRY(tss_rd_end(&r));
		done += n;
	} while (done < len);
	return TPM_RC_SUCCESS;
}

TPM_RC pqtpm_tss_nv_read(struct pqtpm_tss *t, TPM_HANDLE auth_handle, const char *auth,
			 TPM_HANDLE index, uint16_t offset, uint8_t *out, size_t len)
{
	size_t chunk, done = 0;

	if (offset + len > UINT16_MAX + 1u)
		return PQTPM_TSS_RC_BAD_VALUE;
	TRY(chunk_size(t, &chunk));
	while (done < len) {
		size_t n = len - done < chunk ? len - done : chunk;
		struct tss_cmd c;
		struct rd r;
		uint16_t got;

		tss_begin(&c, t, TPM_CC_NV_Read);
		tss_param_enc(&c, TSS_ENC_OUT);
		tss_handle(&c, auth_handle);
		tss_handle(&c, index);
		tss_auth(&c, auth);
		tss_u16(&c, (uint16_t)n);
		tss_u16(&c, (uint16_t)(offset + done));
		TRY(tss_run(&c, &r, NULL));
		TRY(tss_rd_tpm2b(&r, out + done, n, &got));
		if (got != n)
			return PQTPM_TSS_RC_MALFORMED;
		TRY(tss_rd_end(&r));
		done += n;
	}
	return TPM_RC_SUCCESS;
}

TPM_RC pqtpm_tss_nv_increment(struct pqtpm_tss *t, TPM_HANDLE auth_handle, const char *auth,
			      TPM_HANDLE index)
{
	struct tss_cmd c;
	struct rd r;

	tss_begin(&c, t, TPM_CC_NV_Increment);
	tss_handle(&c, auth_handle);
	tss_handle(&c, index);
	tss_auth(&c, auth);
	TRY(tss_run(&c, &r, NULL));
	return tss_rd_end(&r);
}
