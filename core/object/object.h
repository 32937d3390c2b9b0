/* Object semantics shared by the commands that create, load, use and save objects:
 * names, the protection of TPM2B_PRIVATE, primary derivation, key generation, public-area
 * checks. Part 1 §23-27 (objects, protected storage) and Part 3 (Create, Load ...). */
#ifndef PQTPM_OBJECT_H
#define PQTPM_OBJECT_H

#include "engine_int.h"

#define MLKEM_SEED_BYTES 64 /* TPM2B_PRIVATE_KEY_MLKEM: d || z */

/* Name = nameAlg || H(TPMT_PUBLIC). */
TPM_RC object_name(const struct tpmt_public *pub, struct tpm2b_name *name);
/* Qualified name = nameAlg || H(parent QN || name); a primary's parent QN is the hierarchy
 * handle (4 bytes). */
TPM_RC object_qualified_name(const struct tpm2b_name *parent_qn, const struct tpm2b_name *name,
			     TPM_ALG_ID name_alg, struct tpm2b_name *out);
void object_hierarchy_qn(TPM_HANDLE hierarchy, struct tpm2b_name *out);

/* Fill o->name and o->qualified_name (parent NULL: primary in o->hierarchy). */
TPM_RC object_set_names(struct object *o, const struct object *parent);

/* Check a template or loaded public area for consistency (attributes, schemes, sizes) as
 * Part 3 CreatePrimary/Create/Load say. is_template: unique may be anything. */
TPM_RC object_check_public(const struct tpmt_public *pub, bool is_template);
/* A parent must be a restricted decryption storage key with a private part. */
bool object_is_storage_parent(const struct object *o);
/* fixedTPM / fixedParent / encryptedDuplication against the parent (Create, Load);
 * parent NULL: a primary, whose parent is a seed (fixedTPM). TPM_RC_ATTRIBUTES. */
TPM_RC object_check_parent(const struct object *parent, const struct tpmt_public *pub);
/* Everything Part 3 checks in a creation template: object_check_public(pub, true),
 * object_check_parent, and sensitiveDataOrigin against the data given. Codes are about
 * inPublic; the caller checks userAuth's size against nameAlg itself (inSensitive). */
TPM_RC object_check_create(const struct object *parent, const struct tpmt_public *pub,
			   const struct tpms_sensitive_create *sc);

/* Generate the sensitive part (and the public unique) for a template. rng: the system DRBG
 * for Create, a KDFa stream for primaries. sc: the caller's sensitive.create (auth, data). */
TPM_RC object_generate(struct crypto_rng *rng, struct tpmt_public *pub,
		       const struct tpms_sensitive_create *sc, struct tpmt_sensitive *sens);

/* A primary in three steps (object/primary.c), so that its key generation can run without
 * the engine lock (compute.h): begin (locked) looks in the primary cache and copies the seed;
 * generate (unlocked, on m alone) makes the key from that copy when the cache had none; end
 * (locked) fails with TPM_RC_RETRY if the seed changed meanwhile, and caches what was made. */
struct primary_made {
	TPM_HANDLE hierarchy;
	bool cached;		/* from the cache: nothing to generate */
	bool cacheable;		/* key below is the cache key */
	uint8_t seed[PRIMARY_SEED_SIZE];
	uint8_t key[32];
	struct tpmt_public pub;	/* the template; with unique once made */
	struct tpmt_sensitive sens;
};
TPM_RC object_primary_begin(struct pqtpm_engine *e, TPM_HANDLE hierarchy,
			    const struct tpmt_public *tmpl, const struct tpms_sensitive_create *sc,
			    struct primary_made *m);
TPM_RC object_primary_generate(struct primary_made *m, const struct tpms_sensitive_create *sc);
TPM_RC object_primary_end(struct pqtpm_engine *e, struct primary_made *m);

/* Primary objects: deterministic from the hierarchy seed and the template (the three steps
 * above at once, under the lock). */
TPM_RC object_create_primary(struct pqtpm_engine *e, TPM_HANDLE hierarchy,
			     struct tpmt_public *pub, const struct tpms_sensitive_create *sc,
			     struct tpmt_sensitive *sens);

/* TPM2B_PRIVATE protection (Part 1 §23.3: integrity HMAC over the encrypted sensitive and
 * the object name, AES-CFB with keys from KDFa of the parent's seed). */
TPM_RC object_wrap(const struct object *parent, const struct tpmt_public *pub,
		   const struct tpmt_sensitive *sens, struct tpm2b_private *out);
/* TPM_RC_INTEGRITY if the blob was altered or belongs to another parent or Name,
 * TPM_RC_SENSITIVE if what the HMAC vouches for is no TPM2B_SENSITIVE of pub's type,
 * TPM_RC_SIZE for an empty blob. */
TPM_RC object_unwrap(const struct object *parent, const struct tpmt_public *pub,
		     const struct tpm2b_private *in, struct tpmt_sensitive *sens);

/* ---- duplication blobs (duplicate.c, Part 1 §23.3) ----
 * A duplicate is the object's TPM2B_SENSITIVE, under an inner wrapper when sym->alg is not
 * TPM_ALG_NULL (AES-CFB with key, IV 0, over TPM2B(H_nameAlg(sensitive || Name)) || sensitive)
 * and under an outer wrapper when seed_len is not 0 (object_wrap's construction with seed in
 * place of the parent's seedValue: KDFa of parent's nameAlg, parent's AES key size). The
 * caller has checked key->size against sym->key_bits. Codes carry no numbers. */
TPM_RC object_outer_wrap(const struct object *parent, const struct tpm2b_name *name,
			 const uint8_t *seed, size_t seed_len, const uint8_t *in, size_t len,
			 struct tpm2b_private *out);
/* out (MAX_PRIVATE_BLOB) gets the inner data. TPM_RC_INSUFFICIENT / TPM_RC_SIZE for a blob
 * whose integrity field does not parse, TPM_RC_INTEGRITY if the HMAC does not match. */
TPM_RC object_outer_unwrap(const struct object *parent, const struct tpm2b_name *name,
			   const uint8_t *seed, size_t seed_len, const struct tpm2b_private *in,
			   uint8_t *out, size_t *len);
TPM_RC object_dup_wrap(const struct tpmt_public *pub, const struct tpmt_sensitive *sens,
		       const struct object *parent, const uint8_t *seed, size_t seed_len,
		       const struct tpmt_sym_def *sym, const struct tpm2b_data *key,
		       struct tpm2b_private *out);
/* TPM_RC_INTEGRITY (either wrapper), TPM_RC_INSUFFICIENT / TPM_RC_SIZE for a blob that does
 * not parse, the unmarshalling codes of TPMT_SENSITIVE. The sensitive area is not checked
 * against pub (object_check_pair). */
TPM_RC object_dup_unwrap(const struct object *parent, const struct tpmt_public *pub,
			 const uint8_t *seed, size_t seed_len, const struct tpmt_sym_def *sym,
			 const struct tpm2b_data *key, const struct tpm2b_private *in,
			 struct tpmt_sensitive *sens);

/* Check that the sensitive part matches the public part (LoadExternal): TPM_RC_TYPE,
 * TPM_RC_SIZE (authValue longer than nameAlg), TPM_RC_KEY_SIZE, TPM_RC_BINDING. The public
 * part must have passed object_check_public(pub, false). */
TPM_RC object_check_pair(const struct tpmt_public *pub, const struct tpmt_sensitive *sens);

/* ---- new objects (new.c) ----
 * The checks every creation command (Create, CreatePrimary, CreateLoaded) makes on its
 * inSensitive (parameter 1: userAuth no longer than nameAlg's digest) and inPublic
 * (parameter 2: object_check_create), with the parameter numbers added. */
TPM_RC object_check_inputs(const struct object *parent, const struct tpmt_public *pub,
			   const struct tpms_sensitive_create *sc);
/* A new loaded object for c->client from a checked template: a primary of hierarchy derived
 * from its seed when parent is NULL, else an ordinary key under parent from the system DRBG.
 * On failure nothing is left allocated. */
TPM_RC object_new(struct cmd *c, const struct object *parent, TPM_HANDLE hierarchy,
		  const struct tpmt_public *tmpl, const struct tpms_sensitive_create *sc,
		  struct object **out);
/* The same for a key already made (pub with its unique, sens): loaded for c->client. */
TPM_RC object_load_made(struct cmd *c, const struct object *parent, TPM_HANDLE hierarchy,
			const struct tpmt_public *pub, const struct tpmt_sensitive *sens,
			struct object **out);

/* ---- creation data (creation.c) ----
 * Write creationData (TPM2B_CREATION_DATA), creationHash and creationTicket to c->out for a
 * new object of hierarchy with Name name (Part 3 Create/CreatePrimary). parent NULL: a
 * primary (parentName = the hierarchy handle). pcrs is filtered to the allocated banks. */
TPM_RC object_write_creation(struct cmd *c, const struct object *parent, TPM_HANDLE hierarchy,
			     const struct tpmt_public *pub, const struct tpm2b_name *name,
			     struct tpml_pcr_selection *pcrs, const struct tpm2b_data *outside);
/* TPMT_TK_CREATION: HMAC_TICKET_HASH(proof, TPM_ST_CREATION || name || creationHash); the NULL
 * Ticket in the NULL hierarchy. CertifyCreation recomputes it with this. */
TPM_RC object_creation_ticket(struct pqtpm_engine *e, TPM_HANDLE hierarchy,
			      const struct tpm2b_name *name, const struct tpm2b_digest *creation_hash,
			      struct tpmt_ticket *t);

#endif
