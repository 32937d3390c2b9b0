/* Key material and the forms built from it (key_material.h). */
#include <stdlib.h>
#include <string.h>

#include "crypto/mldsa.h"
#include "key_material.h"
#include "scheme.h"

struct key_forms {
	unsigned refs;			/* atomic: the object's and each key_material's */
	pthread_mutex_t lock;		/* building mldsa */
	struct mldsa_expanded *mldsa;	/* ML-DSA kinds: NULL until the first signature */
	struct crypto_rsa_cache *rsa;	/* RSA: its own lock */
};

static bool has_forms(const struct object *o)
{
	switch (o->pub.type) {
	case TPM_ALG_RSA:
	case TPM_ALG_MLDSA:
	case TPM_ALG_HASH_MLDSA:
		return o->has_sensitive;
	default:
		return false;
	}
}

static struct key_forms *forms_new(TPM_ALG_ID type)
{
	struct key_forms *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	if (pthread_mutex_init(&f->lock, NULL) != 0) {
		free(f);
		return NULL;
	}
	if (type == TPM_ALG_RSA) {
		f->rsa = crypto_rsa_cache_new();
		if (!f->rsa) {
			pthread_mutex_destroy(&f->lock);
			free(f);
			return NULL;
		}
	}
	f->refs = 1;
	return f;
}

static void forms_unref(struct key_forms *f)
{
	if (!f || __atomic_sub_fetch(&f->refs, 1, __ATOMIC_ACQ_REL) != 0)
		return;
	if (f->mldsa) {
		mldsa_expanded_wipe(f->mldsa);
		free(f->mldsa);
	}
	crypto_rsa_cache_free(f->rsa);
	pthread_mutex_destroy(&f->lock);
	free(f);
}

void object_free_caches(struct object *o)
{
	if (o->forms_owner == o)
		forms_unref(o->forms);
	o->forms = NULL;
	o->forms_owner = NULL;
}

static bool is_mldsa_kind(const struct object *o)
{
	return o->pub.type == TPM_ALG_MLDSA || o->pub.type == TPM_ALG_HASH_MLDSA;
}

const uint8_t *object_mldsa_tr(const struct object *o)
{
	/* made through a const pointer, as the forms are (key_material_of) */
	struct object *w = (struct object *)o;

	if (!w->mldsa_tr_known) {
		scheme_mldsa_tr(&o->pub, w->mldsa_tr);
		w->mldsa_tr_known = true;
	}
	return w->mldsa_tr;
}

TPM_RC key_material_of(struct key_material *k, const struct object *o)
{
	/* The forms are kept in the object but are no part of its value: objects are never
	 * const where they are defined (object_alloc, state/codec.c), only in the handlers'
	 * view, so they may be made through a const pointer. */
	struct object *w = (struct object *)o;

	if (w->forms_owner != w) { /* a struct copy's view of another object's */
		w->forms = NULL;
		w->forms_owner = w;
	}
	if (!w->forms && has_forms(o)) {
		w->forms = forms_new(o->pub.type);
		if (!w->forms)
			return TPM_RC_MEMORY;
	}
	k->pub = o->pub;
	k->has_sensitive = o->has_sensitive;
	if (o->has_sensitive)
		k->sens = o->sens;
	else
		memset(&k->sens, 0, sizeof(k->sens));
	if (is_mldsa_kind(o))
		memcpy(k->mldsa_tr, object_mldsa_tr(o), sizeof(k->mldsa_tr));
	k->forms = w->forms;
	if (k->forms)
		__atomic_add_fetch(&k->forms->refs, 1, __ATOMIC_RELAXED);
	return TPM_RC_SUCCESS;
}

void key_material_drop(struct key_material *k)
{
	crypto_wipe(&k->sens, sizeof(k->sens));
	forms_unref(k->forms);
	k->forms = NULL;
}

/* Expand from the seed; the forms' lock held. */
static TPM_RC expand(const struct key_material *k, struct mldsa_expanded **out)
{
	uint8_t pk[MLDSA_MAX_PK_BYTES], sk[MLDSA_MAX_SK_BYTES];
	struct mldsa_expanded *x;
	int err;

	if (k->sens.sensitive.size != MLDSA_SEED_BYTES || !mldsa_pk_bytes(k->pub.parameter_set))
		return TPM_RC_KEY;
	x = malloc(mldsa_expanded_size());
	if (!x)
		return TPM_RC_MEMORY;
	err = mldsa_keygen(k->pub.parameter_set, k->sens.sensitive.b, pk, sk);
	if (!err)
		err = mldsa_expand(k->pub.parameter_set, sk, x);
	crypto_wipe(sk, sizeof(sk));
	if (err) {
		mldsa_expanded_wipe(x);
		free(x);
		return TPM_RC_FAILURE;
	}
	*out = x;
	return TPM_RC_SUCCESS;
}

TPM_RC key_material_mldsa(const struct key_material *k, const struct mldsa_expanded **out)
{
	struct key_forms *f = k->forms;
	TPM_RC rc = TPM_RC_SUCCESS;

	if (!k->has_sensitive)
		return TPM_RC_AUTH_UNAVAILABLE;
	if (!f)
		return TPM_RC_KEY;
	pthread_mutex_lock(&f->lock);
	if (!f->mldsa)
		rc = expand(k, &f->mldsa);
	*out = f->mldsa;
	pthread_mutex_unlock(&f->lock);
	return rc;
}

struct crypto_rsa_cache *key_material_rsa(const struct key_material *k)
{
	return k->forms ? k->forms->rsa : NULL;
}
