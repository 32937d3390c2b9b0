/* GetCapability walked through moreData, and TestParms. */
#include <string.h>

#include "tss_int.h"

#define MAX_ROUNDS 4096 /* each round must return at least one entry past the last */

/* One entry of a capability's list: its length and the property the next round starts at. A
 * TPMS_TAGGED_PCR_SELECT has its own size byte; every other walkable list is of fixed-size
 * entries keyed by their first field. */
static TPM_RC entry(uint32_t cap, struct rd *r, size_t *len, uint64_t *next)
{
	size_t start = r->off;
	uint32_t key32, value;
	uint16_t key16;
	uint8_t size;

	switch (cap) {
	case TPM_CAP_ALGS:	 /* TPMS_ALG_PROPERTY */
	case TPM_CAP_ECC_CURVES: /* TPM_ECC_CURVE */
		if (rd_u16(r, &key16) || (cap == TPM_CAP_ALGS && rd_u32(r, &key32)))
			return PQTPM_TSS_RC_MALFORMED;
		*next = (uint64_t)key16 + 1;
		break;
	case TPM_CAP_COMMANDS: /* TPMA_CC: commandIndex and the vendor bit make the code */
		if (rd_u32(r, &key32))
			return PQTPM_TSS_RC_MALFORMED;
		*next = (uint64_t)(key32 & (TPMA_CC_COMMANDINDEX_MASK | TPMA_CC_V)) + 1;
		break;
	case TPM_CAP_HANDLES:	     /* TPM_HANDLE */
	case TPM_CAP_PP_COMMANDS:    /* TPM_CC */
	case TPM_CAP_AUDIT_COMMANDS: /* TPM_CC */
		if (rd_u32(r, &key32))
			return PQTPM_TSS_RC_MALFORMED;
		*next = (uint64_t)key32 + 1;
		break;
	case TPM_CAP_TPM_PROPERTIES: /* TPMS_TAGGED_PROPERTY */
		if (rd_u32(r, &key32) || rd_u32(r, &value))
			return PQTPM_TSS_RC_MALFORMED;
		*next = (uint64_t)key32 + 1;
		break;
	case TPM_CAP_PCR_PROPERTIES: /* TPMS_TAGGED_PCR_SELECT */
		if (rd_u32(r, &key32) || rd_u8(r, &size) || rd_left(r) < size)
			return PQTPM_TSS_RC_MALFORMED;
		r->off += size;
		*next = (uint64_t)key32 + 1;
		break;
	default:
		return PQTPM_TSS_RC_BAD_VALUE;
	}
	*len = r->off - start;
	return TPM_RC_SUCCESS;
}

TPM_RC pqtpm_tss_get_capability_all(struct pqtpm_tss *t, uint32_t cap, uint32_t property,
				    uint32_t limit, uint32_t per_round, uint8_t *data,
				    size_t cap_len, size_t *len, uint32_t *count)
{
	static const uint32_t walkable = 1u << TPM_CAP_ALGS | 1u << TPM_CAP_HANDLES |
					 1u << TPM_CAP_COMMANDS | 1u << TPM_CAP_PP_COMMANDS |
					 1u << TPM_CAP_AUDIT_COMMANDS |
					 1u << TPM_CAP_TPM_PROPERTIES |
					 1u << TPM_CAP_PCR_PROPERTIES | 1u << TPM_CAP_ECC_CURVES;
	uint64_t from = property;
	uint8_t more = 1;

	*len = 0;
	*count = 0;
	if (cap > TPM_CAP_ECC_CURVES || !(walkable & (1u << cap)) || limit < property)
		return PQTPM_TSS_RC_BAD_VALUE;
	for (int round = 0; more && from <= limit; round++) {
		uint64_t next = from;
		uint32_t got_cap, n;
		struct tss_cmd c;
		struct rd r;

		if (round == MAX_ROUNDS)
			return PQTPM_TSS_RC_MALFORMED;
		tss_begin(&c, t, TPM_CC_GetCapability);
		tss_u32(&c, cap);
		tss_u32(&c, (uint32_t)from);
		tss_u32(&c, per_round ? per_round : 0xFFFF);
		TRY(tss_run(&c, &r, NULL));
		if (rd_u8(&r, &more) || rd_u32(&r, &got_cap) || got_cap != cap || rd_u32(&r, &n))
			return PQTPM_TSS_RC_MALFORMED;
		if (n == 0) /* nothing at or after property */
			break;
		for (uint32_t i = 0; i < n; i++) {
			size_t start = r.off, elen;
			uint64_t key_next;

			TRY(entry(cap, &r, &elen, &key_next));
			if (key_next <= next) /* before what was asked for, or not ascending */
				return PQTPM_TSS_RC_MALFORMED;
			next = key_next;
			if (next - 1 > limit) /* past the range asked for */
				continue;
			if (elen > cap_len - *len)
				return PQTPM_TSS_RC_BAD_VALUE;
			memcpy(data + *len, r.buf + start, elen);
			*len += elen;
			(*count)++;
		}
		TRY(tss_rd_end(&r));
		from = next;
	}
	return TPM_RC_SUCCESS;
}

TPM_RC pqtpm_tss_test_parms(struct pqtpm_tss *t, const uint8_t *parms, size_t len)
{
	struct tss_cmd c;
	struct rd r;

	tss_begin(&c, t, TPM_CC_TestParms);
	tss_bytes(&c, parms, len);
	TRY(tss_run(&c, &r, NULL));
	return tss_rd_end(&r);
}
