/* PCR_Extend (one bank or several), PCR_Event, PCR_Reset. PCR_Read is in cmd_attest.c. */
#include <string.h>

#include "tss_int.h"

/* TPML_DIGEST_VALUES */
static TPM_RC digest_values(struct tss_cmd *c, const struct pqtpm_tss_ha *d, size_t n)
{
	if (n == 0 || n > PQTPM_TSS_MAX_BANKS)
		return PQTPM_TSS_RC_BAD_VALUE;
	tss_u32(c, (uint32_t)n);
	for (size_t i = 0; i < n; i++) {
		if (tss_hash_size(d[i].hash) == 0 || d[i].size != tss_hash_size(d[i].hash))
			return PQTPM_TSS_RC_BAD_VALUE;
		tss_u16(c, d[i].hash);
		tss_bytes(c, d[i].b, d[i].size);
	}
	return TPM_RC_SUCCESS;
}

TPM_RC pqtpm_tss_pcr_extend_banks(struct pqtpm_tss *t, TPM_HANDLE pcr, const char *pcr_auth,
				  const struct pqtpm_tss_ha *digests, size_t n)
{
	struct tss_cmd c;
	struct rd r;

	tss_begin(&c, t, TPM_CC_PCR_Extend);
	tss_handle(&c, pcr);
	tss_auth(&c, pcr_auth);
	TRY(digest_values(&c, digests, n));
	TRY(tss_run(&c, &r, NULL));
	return tss_rd_end(&r);
}

TPM_RC pqtpm_tss_pcr_extend(struct pqtpm_tss *t, TPM_HANDLE pcr, TPM_ALG_ID hash_alg,
			    const uint8_t *digest, size_t len)
{
	struct pqtpm_tss_ha d = { .hash = hash_alg };

	if (len == 0 || len != tss_hash_size(hash_alg))
		return PQTPM_TSS_RC_BAD_VALUE;
	d.size = (uint16_t)len;
	memcpy(d.b, digest, len);
	return pqtpm_tss_pcr_extend_banks(t, pcr, "", &d, 1);
}

TPM_RC pqtpm_tss_pcr_event(struct pqtpm_tss *t, TPM_HANDLE pcr, const char *pcr_auth,
			   const uint8_t *data, size_t len, struct pqtpm_tss_ha *out, size_t cap,
			   size_t *n)
{
	struct tss_cmd c;
	struct rd r;
	uint32_t count;

	if (len > PQTPM_TSS_MAX_EVENT)
		return PQTPM_TSS_RC_BAD_VALUE;
	tss_begin(&c, t, TPM_CC_PCR_Event);
	tss_param_enc(&c, TSS_ENC_IN);
	tss_handle(&c, pcr);
	tss_auth(&c, pcr_auth);
	tss_tpm2b(&c, data, len);
	TRY(tss_run(&c, &r, NULL));
	if (rd_u32(&r, &count) || count > cap)
		return PQTPM_TSS_RC_MALFORMED;
	for (uint32_t i = 0; i < count; i++) {
		size_t size;

		if (rd_u16(&r, &out[i].hash))
			return PQTPM_TSS_RC_MALFORMED;
		size = tss_hash_size(out[i].hash);
		if (size == 0 || rd_bytes(&r, out[i].b, size))
			return PQTPM_TSS_RC_MALFORMED;
		out[i].size = (uint16_t)size;
	}
	*n = count;
	return tss_rd_end(&r);
}

TPM_RC pqtpm_tss_pcr_reset(struct pqtpm_tss *t, TPM_HANDLE pcr, const char *pcr_auth)
{
	struct tss_cmd c;
	struct rd r;

	tss_begin(&c, t, TPM_CC_PCR_Reset);
	tss_handle(&c, pcr);
	tss_auth(&c, pcr_auth);
	TRY(tss_run(&c, &r, NULL));
	return tss_rd_end(&r);
}
