/* PCR_Extend, PCR_Event, PCR_Read, PCR_Reset, PCR_Allocate (Part 3 §22). The PCR model and the
 * PC Client locality rules are in pcr.c. */
#include <string.h>

#include "pcr.h"

#define HASH_COUNT 4	    /* hashes the TPM implements (rd_hash_alg): TPML_DIGEST_VALUES max */
#define MAX_EVENT 1024	    /* TPM2B_EVENT */
#define MAX_READ_DIGESTS 8  /* TPML_DIGEST in PCR_Read */
#define ALL_PCRS ((1u << PCR_NUM) - 1)

/* TPML_DIGEST_VALUES */
struct digest_values {
	uint32_t count;
	struct {
		TPM_ALG_ID alg;
		uint8_t digest[MAX_DIGEST_SIZE];
	} v[HASH_COUNT];
};

static TPM_RC rd_digest_values(struct rd *r, struct digest_values *dv)
{
	TRY(rd_u32(r, &dv->count));
	if (dv->count > HASH_COUNT)
		return TPM_RC_SIZE;
	for (uint32_t i = 0; i < dv->count; i++) {
		TRY(rd_hash_alg(r, &dv->v[i].alg, false));
		TRY(rd_bytes(r, dv->v[i].digest, crypto_hash_size(dv->v[i].alg)));
	}
	return TPM_RC_SUCCESS;
}

/* Extend one digest if its bank is allocated; other digests are ignored (Part 3 §22.2). */
static TPM_RC extend_if_allocated(struct pqtpm_engine *e, unsigned pcr, TPM_ALG_ID alg,
				  const uint8_t *digest)
{
	if (!pcr_value(e, alg, pcr))
		return TPM_RC_SUCCESS;
	return pcr_extend_digest(e, pcr, alg, digest);
}

static TPM_RC pcr_extend(struct cmd *c)
{
	TPM_HANDLE pcr = c->handle[0];
	struct digest_values dv;

	TRYP(1, rd_digest_values(&c->in, &dv));
	TRY(cmd_params_done(c));
	if (pcr == TPM_RH_NULL)
		return TPM_RC_SUCCESS;
	if (!pcr_extend_allowed(pcr, c->locality))
		return TPM_RC_LOCALITY;
	for (uint32_t i = 0; i < dv.count; i++)
		TRY(extend_if_allocated(c->e, pcr, dv.v[i].alg, dv.v[i].digest));
	return TPM_RC_SUCCESS;
}

/* Answers the digest of eventData for every bank algorithm, allocated or not. */
static TPM_RC pcr_event(struct cmd *c)
{
	TPM_HANDLE pcr = c->handle[0];
	bool extend = pcr != TPM_RH_NULL;
	uint8_t data[MAX_EVENT];
	uint16_t len;

	TRYP(1, rd_tpm2b(&c->in, data, sizeof(data), &len));
	TRY(cmd_params_done(c));
	if (extend && !pcr_extend_allowed(pcr, c->locality))
		return TPM_RC_LOCALITY;
	TRY(wr_u32(&c->out, (uint32_t)pcr_bank_alg_count()));
	for (size_t i = 0; i < pcr_bank_alg_count(); i++) {
		TPM_ALG_ID alg = pcr_bank_alg(i);
		uint8_t digest[MAX_DIGEST_SIZE];

		TRY(crypto_hash(alg, data, len, digest));
		TRY(wr_u16(&c->out, alg));
		TRY(wr_bytes(&c->out, digest, crypto_hash_size(alg)));
		if (extend)
			TRY(extend_if_allocated(c->e, pcr, alg, digest));
	}
	return TPM_RC_SUCCESS;
}

/* At most eight values; the selection that goes back says which (Part 3 §22.4). */
static TPM_RC pcr_read(struct cmd *c)
{
	struct tpml_pcr_selection sel;
	struct {
		TPM_ALG_ID alg;
		unsigned pcr;
	} out[MAX_READ_DIGESTS];
	uint32_t n = 0;

	TRYP(1, rd_pcr_selection(&c->in, &sel));
	TRY(cmd_params_done(c));
	pcr_filter_selection(c->e, &sel);
	for (uint32_t i = 0; i < sel.count; i++) {
		struct tpms_pcr_selection *s = &sel.sel[i];

		for (unsigned pcr = 0; pcr < PCR_NUM; pcr++) {
			if (!pcr_is_selected(s, pcr))
				continue;
			if (n == MAX_READ_DIGESTS) {
				s->select[pcr / 8] &= (uint8_t)~(1u << (pcr % 8));
				continue;
			}
			out[n].alg = s->hash;
			out[n].pcr = pcr;
			n++;
		}
	}
	TRY(wr_u32(&c->out, c->e->pcr_update_counter));
	TRY(wr_pcr_selection(&c->out, &sel));
	TRY(wr_u32(&c->out, n));
	for (uint32_t i = 0; i < n; i++)
		TRY(wr_tpm2b(&c->out, pcr_value(c->e, out[i].alg, out[i].pcr),
			     (uint16_t)crypto_hash_size(out[i].alg)));
	return TPM_RC_SUCCESS;
}

static TPM_RC pcr_reset_cmd(struct cmd *c)
{
	TPM_HANDLE pcr = c->handle[0];

	TRY(cmd_params_done(c));
	if (!pcr_reset_allowed(pcr, c->locality))
		return TPM_RC_LOCALITY;
	return pcr_reset(c->e, pcr);
}

static uint32_t selection_map(const struct tpms_pcr_selection *s)
{
	uint32_t map = 0;

	for (unsigned pcr = 0; pcr < PCR_NUM; pcr++)
		if (pcr_is_selected(s, pcr))
			map |= 1u << pcr;
	return map;
}

static uint32_t popcount(uint32_t v)
{
	return (uint32_t)__builtin_popcount(v);
}

/* The new allocation is the pending one with each listed bank replaced (the last entry for a
 * bank wins); it takes effect at the next TPM Reset. Banks are allocated whole, so a partial
 * bank, or PCRs in a bank this TPM cannot have, give allocationSuccess NO. */
static TPM_RC pcr_allocate(struct cmd *c)
{
	struct pqtpm_engine *e = c->e;
	struct tpml_pcr_selection sel;
	uint32_t map[MAX_PCR_BANKS], all = 0, banks = 0, needed = 0, available = 0, extra = 0;
	bool whole = true;

	TRYP(1, rd_pcr_selection(&c->in, &sel));
	TRY(cmd_params_done(c));
	for (size_t b = 0; b < pcr_bank_alg_count(); b++)
		map[b] = e->ps.pcr_banks_pending & pcr_bank_bit(pcr_bank_alg(b)) ? ALL_PCRS : 0;
	for (uint32_t i = 0; i < sel.count; i++) {
		size_t b = 0;

		while (b < pcr_bank_alg_count() && pcr_bank_alg(b) != sel.sel[i].hash)
			b++;
		if (b < pcr_bank_alg_count())
			map[b] = selection_map(&sel.sel[i]);
		else
			extra |= selection_map(&sel.sel[i]);
	}
	for (size_t b = 0; b < pcr_bank_alg_count(); b++) {
		size_t size = crypto_hash_size(pcr_bank_alg(b));

		needed += popcount(map[b]) * size;
		available += PCR_NUM * size;
		whole &= map[b] == 0 || map[b] == ALL_PCRS;
		all |= map[b];
		if (map[b])
			banks |= pcr_bank_bit(pcr_bank_alg(b));
	}
	needed += popcount(extra) * MAX_DIGEST_SIZE;
	/* Some bank must keep the H-CRTM PCR and some the D-RTM PCR. */
	if (!(all & 1u << PCR_HCRTM) || !(all & 1u << PCR_DRTM))
		return TPM_RC_PCR;
	whole &= extra == 0;
	TRY(wr_u8(&c->out, whole));
	TRY(wr_u32(&c->out, PCR_NUM));
	TRY(wr_u32(&c->out, needed));
	TRY(wr_u32(&c->out, available));
	if (whole) {
		e->ps.pcr_banks_pending = banks;
		engine_dirty(e);
	}
	return TPM_RC_SUCCESS;
}

const struct cmd_def cmds_pcr[] = {
	{ .code = TPM_CC_PCR_Extend, .name = "PCR_Extend", .handles = 1,
	  .auth = { AUTH_USER }, .htype = { HK_PCR | HK_NULL }, .flags = CMD_READS_STATE,
	  .run = pcr_extend },
	{ .code = TPM_CC_PCR_Event, .name = "PCR_Event", .handles = 1, .auth = { AUTH_USER },
	  .htype = { HK_PCR | HK_NULL }, .flags = CMD_PARAM_IN | CMD_READS_STATE,
	  .run = pcr_event },
	{ .code = TPM_CC_PCR_Read, .name = "PCR_Read", .flags = CMD_READS_STATE, .run = pcr_read },
	{ .code = TPM_CC_PCR_Reset, .name = "PCR_Reset", .handles = 1, .auth = { AUTH_USER },
	  .htype = { HK_PCR }, .run = pcr_reset_cmd },
	{ .code = TPM_CC_PCR_Allocate, .name = "PCR_Allocate", .handles = 1,
	  .auth = { AUTH_USER }, .htype = { HK_PLATFORM }, .flags = CMD_PP, .run = pcr_allocate },
	{ 0 },
};
