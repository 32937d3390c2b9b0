/* Primary objects (Part 1 "Primary Objects"): every random value comes from a KDFa stream
 * keyed with the hierarchy's primary seed, over the template's Name and sensitive.data, so the
 * same template in the same hierarchy gives the same object for as long as the seed lives.
 *
 * That makes the result of an RSA primary's prime search (tens of milliseconds) worth keeping,
 * and an ECC primary's too (its public point is most of the ~20 us of the command): tools
 * create the same storage and endorsement keys again and again. The engine keeps the last
 * PRIMARY_CACHE_ENTRIES RSA and ECC primaries it made, each under SHA-256(hierarchy || seed ||
 * template || sensitive.data) with the seed it came from, and hands out the same public and
 * sensitive area again (with the caller's authValue, which no random value depends on). An
 * entry goes when its hierarchy's seed is not the one it came from any more (Clear, ChangeEPS,
 * ChangePPS, a TPM Reset for the NULL hierarchy, another process's change loaded): the
 * command's transaction sweeps after a change of the persistent state or a load of the state
 * file (txn.c), the only ways a seed changes. Everything is wiped when it goes. */
#include <stdlib.h>
#include <string.h>

#include "object.h"

#define PRIMARY_LABEL "Primary Object Creation"
#define PRIMARY_CACHE_ENTRIES 8
#define TEMPLATE_MAX 3072 /* a marshalled TPMT_PUBLIC (name.c's bound) */
#define KEY_ALG TPM_ALG_SHA256
#define KEY_SIZE 32

struct primary_entry {
	bool used;
	uint64_t last_use;
	TPM_HANDLE hierarchy;
	uint8_t seed[PRIMARY_SEED_SIZE];	/* the hierarchy's seed it was made from */
	uint8_t key[KEY_SIZE];
	struct tpmt_public pub;			/* as made: unique filled in */
	struct tpmt_sensitive sens;		/* as made, authValue empty */
};

struct primary_cache {
	uint64_t uses;
	struct primary_entry entry[PRIMARY_CACHE_ENTRIES];
};

/* SHA-256 over everything the object depends on: hierarchy, seed, the template as
 * marshalled (not its Name, whose hash may be SHA-1), sensitive.data. */
static TPM_RC cache_key(TPM_HANDLE hierarchy, const uint8_t *seed, const struct tpmt_public *pub,
			const struct tpms_sensitive_create *sc, uint8_t key[KEY_SIZE])
{
	uint8_t tmpl[TEMPLATE_MAX], head[4 + 2 + 2];
	struct crypto_hash_ctx h;
	struct wr w;
	TPM_RC rc;

	wr_init(&w, tmpl, TEMPLATE_MAX);
	rc = wr_public(&w, pub);
	head[0] = (uint8_t)(hierarchy >> 24);
	head[1] = (uint8_t)(hierarchy >> 16);
	head[2] = (uint8_t)(hierarchy >> 8);
	head[3] = (uint8_t)hierarchy;
	head[4] = (uint8_t)(w.off >> 8);
	head[5] = (uint8_t)w.off;
	head[6] = (uint8_t)(sc->data.size >> 8);
	head[7] = (uint8_t)sc->data.size;
	if (rc == TPM_RC_SUCCESS)
		rc = crypto_hash_start(&h, KEY_ALG);
	if (rc == TPM_RC_SUCCESS)
		rc = crypto_hash_update(&h, head, sizeof(head));
	if (rc == TPM_RC_SUCCESS)
		rc = crypto_hash_update(&h, seed, PRIMARY_SEED_SIZE);
	if (rc == TPM_RC_SUCCESS)
		rc = crypto_hash_update(&h, tmpl, w.off);
	if (rc == TPM_RC_SUCCESS)
		rc = crypto_hash_update(&h, sc->data.b, sc->data.size);
	if (rc == TPM_RC_SUCCESS)
		rc = crypto_hash_finish(&h, key);
	crypto_wipe(&h, sizeof(h));
	return rc;
}

static struct primary_entry *cache_find(struct primary_cache *pc, const uint8_t key[KEY_SIZE])
{
	for (int i = 0; pc && i < PRIMARY_CACHE_ENTRIES; i++)
		if (pc->entry[i].used && crypto_ct_equal(pc->entry[i].key, key, KEY_SIZE))
			return &pc->entry[i];
	return NULL;
}

/* Into the free or least recently used slot; nothing if there is no memory for the cache. */
static void cache_put(struct pqtpm_engine *e, TPM_HANDLE hierarchy, const uint8_t *seed,
		      const uint8_t key[KEY_SIZE], const struct tpmt_public *pub,
		      const struct tpmt_sensitive *sens)
{
	struct primary_cache *pc = e->primary_cache;
	struct primary_entry *slot;

	if (!pc) {
		pc = calloc(1, sizeof(*pc));
		if (!pc)
			return;
		e->primary_cache = pc;
	}
	slot = &pc->entry[0];
	for (int i = 0; i < PRIMARY_CACHE_ENTRIES; i++) {
		struct primary_entry *x = &pc->entry[i];

		if (!x->used) {
			slot = x;
			break;
		}
		if (x->last_use < slot->last_use)
			slot = x;
	}
	crypto_wipe(slot, sizeof(*slot));
	slot->used = true;
	slot->last_use = ++pc->uses;
	slot->hierarchy = hierarchy;
	memcpy(slot->seed, seed, PRIMARY_SEED_SIZE);
	memcpy(slot->key, key, KEY_SIZE);
	slot->pub = *pub;
	slot->sens = *sens;
	crypto_wipe(&slot->sens.auth_value, sizeof(slot->sens.auth_value));
}

void primary_cache_sweep(struct pqtpm_engine *e)
{
	struct primary_cache *pc = e->primary_cache;

	for (int i = 0; pc && i < PRIMARY_CACHE_ENTRIES; i++) {
		struct primary_entry *x = &pc->entry[i];
		const uint8_t *seed;

		if (!x->used)
			continue;
		seed = hier_seed(e, x->hierarchy);
		if (!seed || !crypto_ct_equal(seed, x->seed, PRIMARY_SEED_SIZE))
			crypto_wipe(x, sizeof(*x));
	}
}

unsigned primary_cache_count(const struct pqtpm_engine *e)
{
	unsigned n = 0;

	for (int i = 0; e->primary_cache && i < PRIMARY_CACHE_ENTRIES; i++)
		n += e->primary_cache->entry[i].used;
	return n;
}

void primary_cache_free(struct pqtpm_engine *e)
{
	if (!e->primary_cache)
		return;
	crypto_wipe(e->primary_cache, sizeof(*e->primary_cache));
	free(e->primary_cache);
	e->primary_cache = NULL;
}

TPM_RC object_primary_begin(struct pqtpm_engine *e, TPM_HANDLE hierarchy,
			    const struct tpmt_public *tmpl, const struct tpms_sensitive_create *sc,
			    struct primary_made *m)
{
	const uint8_t *seed = hier_seed(e, hierarchy);
	struct primary_entry *hit;

	memset(m, 0, sizeof(*m));
	if (!seed)
		return TPM_RC_HIERARCHY;
	m->hierarchy = hierarchy;
	m->pub = *tmpl;
	memcpy(m->seed, seed, PRIMARY_SEED_SIZE);
	if (tmpl->type == TPM_ALG_RSA || tmpl->type == TPM_ALG_ECC)
		m->cacheable = cache_key(hierarchy, seed, tmpl, sc, m->key) == TPM_RC_SUCCESS;
	hit = m->cacheable ? cache_find(e->primary_cache, m->key) : NULL;
	if (hit) {
		hit->last_use = ++e->primary_cache->uses;
		m->pub = hit->pub;
		m->sens = hit->sens;
		m->sens.auth_value = sc->user_auth; /* as object_generate sets it */
		m->cached = true;
	}
	return TPM_RC_SUCCESS;
}

TPM_RC object_primary_generate(struct primary_made *m, const struct tpms_sensitive_create *sc)
{
	struct crypto_kdf_rng k;
	struct tpm2b_name tmpl;
	TPM_RC rc;

	/* the Name of the template as given, unique included */
	TRY(object_name(&m->pub, &tmpl));
	rc = crypto_kdf_rng_init(&k, m->pub.name_alg, m->seed, PRIMARY_SEED_SIZE, PRIMARY_LABEL,
				 tmpl.b, tmpl.size, sc->data.b, sc->data.size);
	if (rc == TPM_RC_SUCCESS)
		rc = object_generate(&k.rng, &m->pub, sc, &m->sens);
	crypto_kdf_rng_wipe(&k);
	return rc;
}

TPM_RC object_primary_end(struct pqtpm_engine *e, struct primary_made *m)
{
	const uint8_t *seed = hier_seed(e, m->hierarchy);

	if (m->cached)
		return TPM_RC_SUCCESS;
	/* Clear, ChangePPS/EPS or a TPM Reset replaced the seed while the key was being made:
	 * the key belongs to no hierarchy that exists now */
	if (!seed || !crypto_ct_equal(seed, m->seed, PRIMARY_SEED_SIZE))
		return TPM_RC_RETRY;
	if (m->cacheable)
		cache_put(e, m->hierarchy, m->seed, m->key, &m->pub, &m->sens);
	return TPM_RC_SUCCESS;
}

TPM_RC object_create_primary(struct pqtpm_engine *e, TPM_HANDLE hierarchy,
			     struct tpmt_public *pub, const struct tpms_sensitive_create *sc,
			     struct tpmt_sensitive *sens)
{
	struct primary_made m;
	TPM_RC rc;

	rc = object_primary_begin(e, hierarchy, pub, sc, &m);
	if (rc == TPM_RC_SUCCESS && !m.cached)
		rc = object_primary_generate(&m, sc);
	if (rc == TPM_RC_SUCCESS)
		rc = object_primary_end(e, &m);
	if (rc == TPM_RC_SUCCESS) {
		*pub = m.pub;
		*sens = m.sens;
	}
	crypto_wipe(&m, sizeof(m));
	return rc;
}
