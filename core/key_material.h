/* A loaded key's material as the schemes (scheme.h) and secret sharing (cmd/pq_secret.h) use
 * it: copies of its public and sensitive areas and a reference to the forms built from its
 * private part (an ML-DSA key's expanded secret key, an RSA key's wolfSSL private keys). Taken
 * from a loaded object under the engine lock; used and dropped with or without it
 * (docs/engine-concurrency.md): the object may be flushed, evicted or cleared meanwhile, and
 * its forms stay until the last reference to them goes.
 *
 * The forms are made at a key's first private operation and kept with the object (freed with
 * it: object_free_caches). A struct copy of an object (EvictControl, ContextLoad) neither uses
 * nor frees the original's: it makes its own at its first use. */
#ifndef PQTPM_KEY_MATERIAL_H
#define PQTPM_KEY_MATERIAL_H

#include "engine_int.h"

struct key_forms;
struct mldsa_expanded;

struct key_material {
	struct tpmt_public pub;
	struct tpmt_sensitive sens;	/* zero for a public-only key */
	bool has_sensitive;
	uint8_t mldsa_tr[MLDSA_TR_BYTES]; /* ML-DSA kinds (object_mldsa_tr) */
	struct key_forms *forms;	/* NULL: a key with nothing to build (ECC, HMAC, public) */
};

/* Under the engine lock. TPM_RC_MEMORY when the forms cannot be made (nothing taken then). */
TPM_RC key_material_of(struct key_material *k, const struct object *o);
/* An ML-DSA kind of key's tr = H(pk, 64), under the engine lock: hashed at the first use and
 * kept with the object, since it is ~100,000 instructions (a 1,952-byte ML-DSA-65 public key
 * through SHAKE256) that every sequence start and SignDigest spent under the lock. A struct
 * copy of the object keeps it: the public area never changes. */
const uint8_t *object_mldsa_tr(const struct object *o);
/* Wipe the sensitive copy and let go of the forms (the last reference frees them). */
void key_material_drop(struct key_material *k);

/* An ML-DSA key's expanded secret key, built at its first use (under the forms' own mutex,
 * without the engine lock) and read-only after. TPM_RC_AUTH_UNAVAILABLE without the private
 * part, TPM_RC_KEY for a seed or parameter set that does not fit. */
TPM_RC key_material_mldsa(const struct key_material *k, const struct mldsa_expanded **out);
/* An RSA key's pool of built private keys (crypto.h); NULL for a key without its private part. */
struct crypto_rsa_cache *key_material_rsa(const struct key_material *k);

#endif
