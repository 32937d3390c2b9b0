/* Attestation: Quote, Certify, GetTime, PCR_Read of one bank, and taking a TPMS_ATTEST apart. */
#include <string.h>

#include "tss_int.h"

#define MAX_QUALIFYING 66 /* TPM2B_DATA: sizeof(TPMT_HA) */
#define MAX_BANKS 8

static void scheme_params(struct tss_cmd *c, TPM_ALG_ID scheme, TPM_ALG_ID hash)
{
	scheme = scheme ? scheme : TPM_ALG_NULL;
	tss_u16(c, scheme);
	if (scheme != TPM_ALG_NULL && scheme != TPM_ALG_MLDSA)
		tss_u16(c, hash);
}

void tss_pcr_selection(struct tss_cmd *c, const struct pqtpm_tss_pcr_select *sel, size_t n)
{
	tss_u32(c, (uint32_t)n);
	for (size_t i = 0; i < n; i++) {
		tss_u16(c, sel[i].hash);
		tss_u8(c, 3);
		tss_u8(c, (uint8_t)sel[i].pcrs);
		tss_u8(c, (uint8_t)(sel[i].pcrs >> 8));
		tss_u8(c, (uint8_t)(sel[i].pcrs >> 16));
	}
}

/* TPML_PCR_SELECTION into up to cap banks. A TPM with more PCRs sends longer maps: taken,
 * as long as no PCR past 31 (which a pqtpm_tss_pcr_select cannot hold) is selected. */
static TPM_RC rd_selection(struct rd *r, struct pqtpm_tss_pcr_select *sel, size_t cap,
			   size_t *n)
{
	uint32_t count;

	if (rd_u32(r, &count) || count > cap)
		return PQTPM_TSS_RC_MALFORMED;
	for (uint32_t i = 0; i < count; i++) {
		uint8_t size, b;

		if (rd_u16(r, &sel[i].hash) || rd_u8(r, &size))
			return PQTPM_TSS_RC_MALFORMED;
		sel[i].pcrs = 0;
		for (unsigned j = 0; j < size; j++) {
			if (rd_u8(r, &b))
				return PQTPM_TSS_RC_MALFORMED;
			if (j < 4)
				sel[i].pcrs |= (uint32_t)b << (8 * j);
			else if (b)
				return PQTPM_TSS_RC_BAD_VALUE;
		}
	}
	*n = count;
	return TPM_RC_SUCCESS;
}

/* TPM2B_ATTEST, then TPMT_SIGNATURE (the NULL one of an unsigned structure too) */
static TPM_RC rd_attest(struct rd *r, struct pqtpm_tss_attest *a, struct pqtpm_tss_signature *s)
{
	TRY(tss_rd_tpm2b(r, a->b, sizeof(a->b), &a->size));
	TRY(tss_rd_signature(r, s));
	return tss_rd_end(r);
}

TPM_RC pqtpm_tss_quote(struct pqtpm_tss *t, TPM_HANDLE key, const char *key_auth,
		       const uint8_t *qualifying, size_t qlen, TPM_ALG_ID scheme,
		       TPM_ALG_ID scheme_hash, const struct pqtpm_tss_pcr_select *sel, size_t nsel,
		       struct pqtpm_tss_attest *quoted, struct pqtpm_tss_signature *sig)
{
	struct tss_cmd c;
	struct rd r;

	if (qlen > MAX_QUALIFYING || nsel > MAX_BANKS)
		return PQTPM_TSS_RC_BAD_VALUE;
	tss_begin(&c, t, TPM_CC_Quote);
	tss_param_enc(&c, TSS_ENC_IN | TSS_ENC_OUT);
	tss_handle(&c, key);
	tss_auth(&c, key_auth);
	tss_tpm2b(&c, qualifying, qlen);
	scheme_params(&c, scheme, scheme_hash);
	tss_pcr_selection(&c, sel, nsel);
	TRY(tss_run(&c, &r, NULL));
	return rd_attest(&r, quoted, sig);
}

TPM_RC pqtpm_tss_certify(struct pqtpm_tss *t, TPM_HANDLE object, const char *object_auth,
			 TPM_HANDLE key, const char *key_auth, const uint8_t *qualifying,
			 size_t qlen, TPM_ALG_ID scheme, TPM_ALG_ID scheme_hash,
			 struct pqtpm_tss_attest *attest, struct pqtpm_tss_signature *sig)
{
	struct tss_cmd c;
	struct rd r;

	if (qlen > MAX_QUALIFYING)
		return PQTPM_TSS_RC_BAD_VALUE;
	tss_begin(&c, t, TPM_CC_Certify);
	tss_param_enc(&c, TSS_ENC_IN | TSS_ENC_OUT);
	tss_handle(&c, object);
	tss_handle(&c, key);
	tss_auth(&c, object_auth);
	tss_auth(&c, key_auth);
	tss_tpm2b(&c, qualifying, qlen);
	scheme_params(&c, scheme, scheme_hash);
	TRY(tss_run(&c, &r, NULL));
	return rd_attest(&r, attest, sig);
}

TPM_RC pqtpm_tss_get_time(struct pqtpm_tss *t, const char *endorsement_auth, TPM_HANDLE key,
			  const char *key_auth, const uint8_t *qualifying, size_t qlen,
			  TPM_ALG_ID scheme, TPM_ALG_ID scheme_hash,
			  struct pqtpm_tss_attest *attest, struct pqtpm_tss_signature *sig)
{
	struct tss_cmd c;
	struct rd r;

	if (qlen > MAX_QUALIFYING)
		return PQTPM_TSS_RC_BAD_VALUE;
	tss_begin(&c, t, TPM_CC_GetTime);
	tss_param_enc(&c, TSS_ENC_IN | TSS_ENC_OUT);
	tss_handle(&c, TPM_RH_ENDORSEMENT);
	tss_handle(&c, key);
	tss_auth(&c, endorsement_auth);
	tss_auth(&c, key_auth);
	tss_tpm2b(&c, qualifying, qlen);
	scheme_params(&c, scheme, scheme_hash);
	TRY(tss_run(&c, &r, NULL));
	return rd_attest(&r, attest, sig);
}

/* One PCR_Read: the PCRs of want it returned, appended in PCR order. */
static TPM_RC pcr_read_once(struct pqtpm_tss *t, TPM_ALG_ID hash, uint32_t *want, uint8_t *out,
			    size_t cap, size_t *len)
{
	struct pqtpm_tss_pcr_select sel = { hash, *want }, got[MAX_BANKS];
	uint32_t counter, ndig;
	size_t nsel;
	struct tss_cmd c;
	struct rd r;

	tss_begin(&c, t, TPM_CC_PCR_Read);
	tss_pcr_selection(&c, &sel, 1);
	TRY(tss_run(&c, &r, NULL));
	if (rd_u32(&r, &counter))
		return PQTPM_TSS_RC_MALFORMED;
	TRY(rd_selection(&r, got, MAX_BANKS, &nsel));
	/* nothing returned: a bank the TPM does not have */
	if (nsel != 1 || got[0].hash != hash || (got[0].pcrs & ~*want) || !got[0].pcrs)
		return nsel == 0 || !got[0].pcrs ? PQTPM_TSS_RC_BAD_VALUE : PQTPM_TSS_RC_MALFORMED;
	if (rd_u32(&r, &ndig))
		return PQTPM_TSS_RC_MALFORMED;
	for (uint32_t i = 0; i < ndig; i++) {
		uint16_t size;

		if (*len >= cap)
			return PQTPM_TSS_RC_BAD_VALUE;
		TRY(tss_rd_tpm2b(&r, out + *len, cap - *len, &size));
		*len += size;
	}
	*want &= ~got[0].pcrs;
	return tss_rd_end(&r);
}

TPM_RC pqtpm_tss_pcr_read(struct pqtpm_tss *t, TPM_ALG_ID hash, uint32_t pcrs, uint8_t *out,
			  size_t cap, size_t *len)
{
	uint32_t want = pcrs & 0xFFFFFF;

	*len = 0;
	/* at most 24 rounds: each returns at least one PCR */
	for (int round = 0; want && round < 24; round++)
		TRY(pcr_read_once(t, hash, &want, out, cap, len));
	return want ? PQTPM_TSS_RC_MALFORMED : TPM_RC_SUCCESS;
}

TPM_RC pqtpm_tss_attest_parse(const struct pqtpm_tss_attest *a,
			      struct pqtpm_tss_attest_info *info)
{
	struct rd r;

	memset(info, 0, sizeof(*info));
	rd_init(&r, a->b, a->size);
	if (rd_u32(&r, &info->magic) || rd_u16(&r, &info->type))
		return PQTPM_TSS_RC_MALFORMED;
	TRY(tss_rd_tpm2b(&r, info->signer.b, sizeof(info->signer.b), &info->signer.size));
	TRY(tss_rd_tpm2b(&r, info->extra, sizeof(info->extra), &info->extra_size));
	if (rd_u64(&r, &info->clock) || rd_u32(&r, &info->reset_count) ||
	    rd_u32(&r, &info->restart_count) || rd_u8(&r, &info->safe) ||
	    rd_u64(&r, &info->firmware_version))
		return PQTPM_TSS_RC_MALFORMED;
	if (info->magic != TPM_GENERATED_VALUE)
		return PQTPM_TSS_RC_MALFORMED;
	info->body_len = rd_left(&r);
	return rd_view(&r, info->body_len, &info->body) ? PQTPM_TSS_RC_MALFORMED
							: TPM_RC_SUCCESS;
}

TPM_RC pqtpm_tss_quote_info(const struct pqtpm_tss_attest_info *info,
			    struct pqtpm_tss_pcr_select *sel, size_t sel_cap, size_t *nsel,
			    struct pqtpm_tss_digest *pcr_digest)
{
	struct rd r;

	if (info->type != TPM_ST_ATTEST_QUOTE)
		return PQTPM_TSS_RC_BAD_VALUE;
	rd_init(&r, info->body, info->body_len);
	TRY(rd_selection(&r, sel, sel_cap, nsel));
	TRY(tss_rd_tpm2b(&r, pcr_digest->b, sizeof(pcr_digest->b), &pcr_digest->size));
	return tss_rd_end(&r);
}
