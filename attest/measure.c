/* measure: a PCR extended in every allocated bank, and its event log record. */
#include <string.h>

#include "attest_int.h"
#include "crypto/crypto.h"

/* The allocated banks: TPM_CAP_PCRS, the hashes with any PCR selected */
static TPM_RC allocated_banks(struct pqtpm_tss *t, TPM_ALG_ID *banks, size_t *n)
{
	uint8_t data[256], more;
	uint32_t cap, count;
	size_t len;
	struct rd r;

	TRY(pqtpm_tss_get_capability(t, TPM_CAP_PCRS, 0, 1, &more, data, sizeof(data), &len));
	rd_init(&r, data, len);
	if (rd_u32(&r, &cap) || cap != TPM_CAP_PCRS || rd_u32(&r, &count))
		return PQTPM_TSS_RC_MALFORMED;
	*n = 0;
	for (uint32_t i = 0; i < count; i++) {
		uint8_t size, sel[8] = { 0 }, any = 0;
		uint16_t hash;

		if (rd_u16(&r, &hash) || rd_u8(&r, &size) || size > sizeof(sel) ||
		    rd_bytes(&r, sel, size))
			return PQTPM_TSS_RC_MALFORMED;
		for (uint8_t k = 0; k < size; k++)
			any |= sel[k];
		if (any && crypto_hash_size(hash) && *n < PQTPM_TSS_MAX_BANKS)
			banks[(*n)++] = hash;
	}
	return TPM_RC_SUCCESS;
}

TPM_RC pqtpm_attest_measure(struct pqtpm_tss *t, uint32_t pcr, uint32_t type, const uint8_t *data,
			    size_t len, const struct pqtpm_tss_ha *digest, int header,
			    uint8_t *out, size_t cap, size_t *outlen)
{
	TPM_ALG_ID banks[PQTPM_TSS_MAX_BANKS];
	struct pqtpm_tss_ha d[PQTPM_TSS_MAX_BANKS];
	size_t nbanks, nd = 0, head = 0, rec;

	if (pcr > 23)
		return PQTPM_TSS_RC_BAD_VALUE;
	TRY(allocated_banks(t, banks, &nbanks));
	if (digest) {
		bool allocated = false;

		for (size_t i = 0; i < nbanks; i++)
			allocated |= banks[i] == digest->hash;
		if (!allocated || digest->size != crypto_hash_size(digest->hash))
			return PQTPM_TSS_RC_BAD_VALUE;
		d[nd++] = *digest;
	} else {
		for (size_t i = 0; i < nbanks; i++, nd++) {
			d[nd].hash = banks[i];
			d[nd].size = (uint16_t)crypto_hash_size(banks[i]);
			TRY(crypto_hash(banks[i], data, len, d[nd].b));
		}
	}
	if (header)
		TRY(pqtpm_attest_log_header(banks, nbanks, out, cap, &head));
	TRY(pqtpm_attest_log_event(pcr, type, d, nd, data, len, out + head, cap - head, &rec));
	TRY(pqtpm_tss_pcr_extend_banks(t, pcr, "", d, nd));
	*outlen = head + rec;
	return TPM_RC_SUCCESS;
}
