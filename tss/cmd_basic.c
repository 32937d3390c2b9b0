/* Startup, GetRandom, StirRandom, GetCapability. */
#include <string.h>

#include "tss_int.h"

TPM_RC pqtpm_tss_startup(struct pqtpm_tss *t, uint16_t su)
{
	struct tss_cmd c;
	TPM_RC rc;

	tss_begin(&c, t, TPM_CC_Startup);
	tss_u16(&c, su);
	rc = tss_run(&c, NULL, NULL);
	if (rc == TPM_RC_SUCCESS)
		tss_names_clear(t); /* Startup(CLEAR) flushes transient objects */
	return rc == TPM_RC_INITIALIZE ? TPM_RC_SUCCESS : rc;
}

TPM_RC pqtpm_tss_get_random(struct pqtpm_tss *t, uint8_t *out, uint16_t len)
{
	uint8_t buf[64];
	uint16_t got = 0;

	while (len) {
		struct tss_cmd c;
		struct rd r;
		uint16_t want = len > sizeof(buf) ? sizeof(buf) : len;

		tss_begin(&c, t, TPM_CC_GetRandom);
		tss_param_enc(&c, TSS_ENC_OUT);
		tss_u16(&c, want);
		TRY(tss_run(&c, &r, NULL));
		TRY(tss_rd_tpm2b(&r, buf, sizeof(buf), &got));
		if (got == 0 || got > want)
			return PQTPM_TSS_RC_MALFORMED;
		memcpy(out, buf, got);
		out += got;
		len -= got;
	}
	return TPM_RC_SUCCESS;
}

TPM_RC pqtpm_tss_get_capability(struct pqtpm_tss *t, uint32_t cap, uint32_t property,
				uint32_t count, uint8_t *more, uint8_t *data, size_t cap_len,
				size_t *len)
{
	struct tss_cmd c;
	struct rd r;

	tss_begin(&c, t, TPM_CC_GetCapability);
	tss_u32(&c, cap);
	tss_u32(&c, property);
	tss_u32(&c, count);
	TRY(tss_run(&c, &r, NULL));
	if (rd_u8(&r, more) || rd_left(&r) > cap_len)
		return PQTPM_TSS_RC_MALFORMED;
	*len = rd_left(&r);
	memcpy(data, r.buf + r.off, *len);
	return TPM_RC_SUCCESS;
}

TPM_RC pqtpm_tss_get_property(struct pqtpm_tss *t, uint32_t property, uint32_t *value)
{
	uint8_t data[64], more;
	uint32_t cap, n, pt;
	size_t len;
	struct rd r;

	TRY(pqtpm_tss_get_capability(t, TPM_CAP_TPM_PROPERTIES, property, 1, &more, data,
				     sizeof(data), &len));
	rd_init(&r, data, len);
	if (rd_u32(&r, &cap) || rd_u32(&r, &n))
		return PQTPM_TSS_RC_MALFORMED;
	if (n == 0)
		return TPM_RC_VALUE;
	if (rd_u32(&r, &pt) || rd_u32(&r, value))
		return PQTPM_TSS_RC_MALFORMED;
	return pt == property ? TPM_RC_SUCCESS : TPM_RC_VALUE;
}

TPM_RC pqtpm_tss_stir_random(struct pqtpm_tss *t, const uint8_t *data, size_t len)
{
	struct tss_cmd c;

	if (len > PQTPM_TSS_MAX_STIR || (len && !data))
		return PQTPM_TSS_RC_BAD_VALUE;
	tss_begin(&c, t, TPM_CC_StirRandom);
	tss_param_enc(&c, TSS_ENC_IN);
	tss_tpm2b(&c, data, len);
	return tss_run(&c, NULL, NULL);
}
