/* The PCR model (see pcr.h for the PC Client attribute table). */
#include <errno.h>
#include <string.h>

#include "pcr.h"

#define LOC(n) (1u << (n))
#define LOC_ALL 0x1Fu	/* localities 0-4 */
#define LOC_0_3 0x0Fu
#define LOC_DRTM LOC(4) /* reset by the D-RTM sequence; reset value all ones */

struct pcr_attr {
	bool state_save;	/* kept across Shutdown(STATE)/Startup(STATE) */
	bool no_increment;	/* changes do not bump pcrUpdateCounter (TCB group) */
	uint8_t reset;		/* localities allowed to reset it (bit n = locality n) */
	uint8_t extend;		/* localities allowed to extend it */
};

#define STATIC_RTM { true, false, 0, LOC_ALL }
static const struct pcr_attr attrs[PCR_NUM] = {
	STATIC_RTM, STATIC_RTM, STATIC_RTM, STATIC_RTM, STATIC_RTM, STATIC_RTM, STATIC_RTM,
	STATIC_RTM, STATIC_RTM, STATIC_RTM, STATIC_RTM, STATIC_RTM, STATIC_RTM, STATIC_RTM,
	STATIC_RTM, STATIC_RTM,
	{ false, false, LOC_0_3, LOC_ALL },			 /* 16: debug */
	{ false, false, LOC_DRTM, LOC(2) | LOC(3) | LOC(4) },	 /* 17: locality 4 (D-RTM) */
	{ false, false, LOC_DRTM, LOC(2) | LOC(3) | LOC(4) },	 /* 18: locality 3 */
	{ false, false, LOC_DRTM, LOC(2) | LOC(3) },		 /* 19: locality 2 */
	{ false, true, LOC_DRTM | LOC(2), LOC(1) | LOC(2) | LOC(3) }, /* 20: locality 1 */
	{ false, true, LOC_DRTM | LOC(2), LOC(2) },		 /* 21: dynamic OS */
	{ false, true, LOC_DRTM | LOC(2), LOC(2) },		 /* 22: dynamic OS */
	{ false, false, LOC_0_3, LOC_ALL },			 /* 23: application */
};

static const struct {
	TPM_ALG_ID alg;
	uint32_t bit;
} bank_algs[] = {
	{ TPM_ALG_SHA1, PQTPM_BANK_SHA1 },
	{ TPM_ALG_SHA256, PQTPM_BANK_SHA256 },
	{ TPM_ALG_SHA384, PQTPM_BANK_SHA384 },
	{ TPM_ALG_SHA512, PQTPM_BANK_SHA512 },
};
#define NBANK_ALGS (sizeof(bank_algs) / sizeof(bank_algs[0]))

_Static_assert(NBANK_ALGS <= MAX_PCR_BANKS, "every bank algorithm needs a slot");

/* ---- banks ---- */

TPM_ALG_ID pcr_bank_alg(size_t i)
{
	return i < NBANK_ALGS ? bank_algs[i].alg : 0;
}

size_t pcr_bank_alg_count(void)
{
	return NBANK_ALGS;
}

uint32_t pcr_bank_bit(TPM_ALG_ID alg)
{
	for (size_t i = 0; i < NBANK_ALGS; i++)
		if (bank_algs[i].alg == alg)
			return bank_algs[i].bit;
	return 0;
}

static struct pcr_bank *bank_find(struct pqtpm_engine *e, TPM_ALG_ID alg)
{
	for (unsigned i = 0; i < e->nbanks; i++)
		if (e->banks[i].alg == alg)
			return &e->banks[i];
	return NULL;
}

const uint8_t *pcr_value(const struct pqtpm_engine *e, TPM_ALG_ID alg, unsigned pcr)
{
	if (pcr >= PCR_NUM)
		return NULL;
	for (unsigned i = 0; i < e->nbanks; i++)
		if (e->banks[i].alg == alg)
			return e->banks[i].value[pcr];
	return NULL;
}

static void changed(struct pqtpm_engine *e, unsigned pcr)
{
	volatile_dirty(e);
	if (!attrs[pcr].no_increment)
		e->pcr_update_counter++;
}

/* ---- lifecycle ---- */

static void set_reset_value(struct pqtpm_engine *e, struct pcr_bank *b, unsigned pcr)
{
	size_t n = crypto_hash_size(b->alg);

	memset(b->value[pcr], attrs[pcr].reset & LOC_DRTM ? 0xFF : 0x00, n);
	if (pcr == PCR_HCRTM)
		b->value[pcr][n - 1] = e->startup_locality;
}

/* PCR 0 after an H-CRTM sequence: 0...04 extended with the sequence's digest. */
static void hcrtm_into_pcr0(struct pqtpm_engine *e)
{
	for (size_t i = 0; i < NBANK_ALGS; i++) {
		struct pcr_bank *b = bank_find(e, bank_algs[i].alg);
		size_t n = crypto_hash_size(bank_algs[i].alg);
		uint8_t digest[MAX_DIGEST_SIZE];
		TPM_RC rc;

		if (!b)
			continue;
		memset(b->value[PCR_HCRTM], 0, n);
		b->value[PCR_HCRTM][n - 1] = 4;
		rc = crypto_hash_finish(&e->hcrtm[i], digest);
		if (rc == TPM_RC_SUCCESS)
			rc = pcr_extend_digest(e, PCR_HCRTM, b->alg, digest);
		if (rc != TPM_RC_SUCCESS)
			engine_log(e, PQTPM_LOG_ERROR, "H-CRTM: extending PCR 0 failed: 0x%x", rc);
	}
}

static void hcrtm_discard(struct pqtpm_engine *e)
{
	volatile_dirty(e);
	crypto_wipe(e->hcrtm, sizeof(e->hcrtm));
	e->hcrtm_active = false;
	e->hcrtm_pre_startup = false;
}

void pcr_reset_all(struct pqtpm_engine *e, bool startup_clear)
{
	volatile_dirty(e);
	if (startup_clear || e->nbanks == 0) {
		e->nbanks = 0;
		for (size_t i = 0; i < NBANK_ALGS; i++)
			if (e->ps.pcr_banks & bank_algs[i].bit)
				e->banks[e->nbanks++].alg = bank_algs[i].alg;
		for (unsigned b = 0; b < e->nbanks; b++)
			for (unsigned pcr = 0; pcr < PCR_NUM; pcr++)
				set_reset_value(e, &e->banks[b], pcr);
		e->pcr_update_counter = 0;
		/* the group's authValue is EmptyAuth after a TPM Reset or Restart (Part 1 §17.6) */
		crypto_wipe(&e->pcr_group_auth, sizeof(e->pcr_group_auth));
		if (e->hcrtm_pre_startup)
			hcrtm_into_pcr0(e);
	} else {
		for (unsigned b = 0; b < e->nbanks; b++)
			for (unsigned pcr = 0; pcr < PCR_NUM; pcr++)
				if (!attrs[pcr].state_save)
					set_reset_value(e, &e->banks[b], pcr);
		/* PCRs changed under any policy session that recorded them */
		e->pcr_update_counter++;
	}
	if (e->hcrtm_pre_startup)
		hcrtm_discard(e);
}

/* ---- changes ---- */

TPM_RC pcr_extend_digest(struct pqtpm_engine *e, unsigned pcr, TPM_ALG_ID alg,
			 const uint8_t *digest)
{
	size_t n = crypto_hash_size(alg);
	struct crypto_hash_ctx h;
	struct pcr_bank *b;

	if (pcr >= PCR_NUM)
		return TPM_RC_VALUE;
	if (!pcr_bank_bit(alg) || n == 0)
		return TPM_RC_HASH;
	b = bank_find(e, alg);
	if (!b)
		return TPM_RC_SUCCESS;
	TRY(crypto_hash_start(&h, alg));
	TRY(crypto_hash_update(&h, b->value[pcr], n));
	TRY(crypto_hash_update(&h, digest, n));
	TRY(crypto_hash_finish(&h, b->value[pcr]));
	changed(e, pcr);
	return TPM_RC_SUCCESS;
}

TPM_RC pcr_extend_all(struct pqtpm_engine *e, unsigned pcr, const uint8_t *data, size_t len)
{
	uint8_t digest[MAX_DIGEST_SIZE];

	if (pcr >= PCR_NUM)
		return TPM_RC_VALUE;
	for (unsigned i = 0; i < e->nbanks; i++) {
		TRY(crypto_hash(e->banks[i].alg, data, len, digest));
		TRY(pcr_extend_digest(e, pcr, e->banks[i].alg, digest));
	}
	return TPM_RC_SUCCESS;
}

TPM_RC pcr_reset(struct pqtpm_engine *e, unsigned pcr)
{
	if (pcr >= PCR_NUM)
		return TPM_RC_VALUE;
	for (unsigned i = 0; i < e->nbanks; i++)
		memset(e->banks[i].value[pcr], 0, crypto_hash_size(e->banks[i].alg));
	changed(e, pcr);
	return TPM_RC_SUCCESS;
}

/* ---- locality rules ---- */

/* Localities 0-4 only: an extended locality (32-255) may not touch any PCR. */
static bool locality_in(uint8_t set, uint8_t locality)
{
	return locality <= 4 && (set & LOC(locality));
}

bool pcr_extend_allowed(unsigned pcr, uint8_t locality)
{
	return pcr < PCR_NUM && locality_in(attrs[pcr].extend, locality);
}

bool pcr_reset_allowed(unsigned pcr, uint8_t locality)
{
	/* A D-RTM TPM takes no TPM2_PCR_Reset from locality 4 (reference implementation). */
	return pcr < PCR_NUM && locality != 4 && locality_in(attrs[pcr].reset, locality);
}

bool pcr_in_auth_group(unsigned pcr)
{
	return pcr >= PCR_AUTH_GROUP_FIRST && pcr <= PCR_AUTH_GROUP_LAST;
}

bool pcr_property_map(uint32_t property, uint32_t *map)
{
	*map = 0;
	for (unsigned pcr = 0; pcr < PCR_NUM; pcr++) {
		const struct pcr_attr *a = &attrs[pcr];
		bool set;

		switch (property) {
		case TPM_PT_PCR_SAVE:
			set = a->state_save;
			break;
		case TPM_PT_PCR_EXTEND_L0:
		case TPM_PT_PCR_EXTEND_L1:
		case TPM_PT_PCR_EXTEND_L2:
		case TPM_PT_PCR_EXTEND_L3:
		case TPM_PT_PCR_EXTEND_L4:
			set = a->extend & LOC((property - TPM_PT_PCR_EXTEND_L0) / 2);
			break;
		case TPM_PT_PCR_RESET_L0:
		case TPM_PT_PCR_RESET_L1:
		case TPM_PT_PCR_RESET_L2:
		case TPM_PT_PCR_RESET_L3:
		case TPM_PT_PCR_RESET_L4:
			set = a->reset & LOC((property - TPM_PT_PCR_RESET_L0) / 2);
			break;
		case TPM_PT_PCR_NO_INCREMENT:
			set = a->no_increment;
			break;
		case TPM_PT_PCR_DRTM_RESET:
			set = a->reset & LOC_DRTM;
			break;
		case TPM_PT_PCR_POLICY:
		case TPM_PT_PCR_AUTH:
			set = pcr_in_auth_group(pcr);
			break;
		default:
			return false;
		}
		if (set)
			*map |= 1u << pcr;
	}
	return true;
}

/* ---- selections ---- */

bool pcr_is_selected(const struct tpms_pcr_selection *s, unsigned pcr)
{
	return pcr < PCR_NUM && pcr / 8 < s->size_of_select &&
	       (s->select[pcr / 8] & (1u << (pcr % 8)));
}

void pcr_filter_selection(const struct pqtpm_engine *e, struct tpml_pcr_selection *sel)
{
	for (uint32_t i = 0; i < sel->count && i < MAX_PCR_BANKS; i++) {
		struct tpms_pcr_selection *s = &sel->sel[i];

		if (!pcr_value(e, s->hash, 0))
			memset(s->select, 0, sizeof(s->select));
	}
}

TPM_RC pcr_digest(const struct pqtpm_engine *e, const struct tpml_pcr_selection *sel,
		  TPM_ALG_ID hash, uint8_t *out, size_t *outlen)
{
	struct crypto_hash_ctx h;

	TRY(crypto_hash_start(&h, hash));
	for (uint32_t i = 0; i < sel->count && i < MAX_PCR_BANKS; i++) {
		const struct tpms_pcr_selection *s = &sel->sel[i];

		for (unsigned pcr = 0; pcr < PCR_NUM; pcr++) {
			const uint8_t *v = pcr_value(e, s->hash, pcr);

			if (v && pcr_is_selected(s, pcr))
				TRY(crypto_hash_update(&h, v, crypto_hash_size(s->hash)));
		}
	}
	TRY(crypto_hash_finish(&h, out));
	*outlen = crypto_hash_size(hash);
	return TPM_RC_SUCCESS;
}

/* ---- platform hash signals ---- */

int pcr_hcrtm_start(struct pqtpm_engine *e)
{
	/* A new sequence replaces any unfinished or not yet measured one. */
	hcrtm_discard(e);
	for (size_t i = 0; i < NBANK_ALGS; i++) {
		if (crypto_hash_start(&e->hcrtm[i], bank_algs[i].alg) != TPM_RC_SUCCESS) {
			hcrtm_discard(e);
			return -EIO;
		}
	}
	e->hcrtm_active = true;
	return 0;
}

int pcr_hcrtm_data(struct pqtpm_engine *e, const uint8_t *data, size_t len)
{
	if (!e->hcrtm_active)
		return -EINVAL;
	for (size_t i = 0; i < NBANK_ALGS; i++) {
		if (crypto_hash_update(&e->hcrtm[i], data, len) != TPM_RC_SUCCESS) {
			hcrtm_discard(e);
			return -EIO;
		}
	}
	return 0;
}

/* D-RTM: PCRs 17-22 to zero, PCR 17 extended with the sequence's digest. */
static int drtm_end(struct pqtpm_engine *e)
{
	int rc = 0;

	for (unsigned b = 0; b < e->nbanks; b++) {
		size_t n = crypto_hash_size(e->banks[b].alg);

		for (unsigned pcr = 0; pcr < PCR_NUM; pcr++)
			if (attrs[pcr].reset & LOC_DRTM)
				memset(e->banks[b].value[pcr], 0, n);
	}
	for (size_t i = 0; i < NBANK_ALGS; i++) {
		uint8_t digest[MAX_DIGEST_SIZE];

		if (crypto_hash_finish(&e->hcrtm[i], digest) != TPM_RC_SUCCESS ||
		    pcr_extend_digest(e, PCR_DRTM, bank_algs[i].alg, digest) != TPM_RC_SUCCESS)
			rc = -EIO;
	}
	/* restartCount counts _TPM_Hash_Start sequences too (Part 2, TPMS_CLOCK_INFO) */
	e->ps.restart_count++;
	hcrtm_discard(e);
	return rc;
}

int pcr_hcrtm_end(struct pqtpm_engine *e)
{
	if (!e->hcrtm_active)
		return -EINVAL;
	if (e->started)
		return drtm_end(e);
	/* H-CRTM: the contexts wait for Startup, which knows the banks (pcr_reset_all). */
	e->hcrtm_active = false;
	e->hcrtm_pre_startup = true;
	volatile_dirty(e);
	return 0;
}
