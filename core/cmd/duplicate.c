/* Duplication commands (Part 3 §13): Duplicate, Rewrap, Import. The blobs are object/
 * duplicate.c's; the seed of an outer wrapper travels to the new parent with the secret
 * sharing of cmd/pq_secret.h under the label "DUPLICATE". Checks follow Part 3's order (and
 * the reference implementation's where Part 3 leaves it open). The inner wrapper is CFB
 * (Part 1 §23.3.2.3): symmetricAlg gives the cipher and key size, its mode is not used. */
#include <string.h>

#include "cmd/pq_secret.h"
#include "compute.h"
#include "object/object.h"

static const char dup_label[] = "DUPLICATE";

struct secret {
	uint16_t size;
	uint8_t b[SECRET_MAX];
};

struct seed {
	uint8_t b[MAX_DIGEST_SIZE];
	size_t size;
};

static TPM_RC rd_private(struct rd *r, struct tpm2b_private *p)
{
	return rd_tpm2b(r, p->b, sizeof(p->b), &p->size);
}

static TPM_RC rd_secret(struct rd *r, struct secret *s)
{
	return rd_tpm2b(r, s->b, sizeof(s->b), &s->size);
}

static TPM_RC rd_data(struct rd *r, struct tpm2b_data *d)
{
	return rd_tpm2b(r, d->b, sizeof(d->b), &d->size);
}

/* A new seed for the parent in handle slot `slot` and the secret that carries it (outSymSeed),
 * made without the engine lock (compute.h): c->obj[] found again afterwards. */
static TPM_RC seed_for(struct cmd *c, unsigned slot, struct seed *seed, struct secret *out)
{
	struct key_material k;
	size_t len = 0;
	TPM_RC rc;

	TRY(cmd_unlock_key(c, slot, &k));
	rc = rc_handle(secret_encrypt(&k, dup_label, seed->b, &seed->size, out->b,
				      sizeof(out->b), &len),
		       slot + 1);
	out->size = (uint16_t)len;
	return cmd_relock_key(c, &k, rc);
}

/* The seed that secret carries, recovered with the private key of the parent in handle slot
 * `slot` without the engine lock: c->obj[] found again afterwards. A failure to recover it is
 * parameter param's: secret_decrypt's code, or TPM_RC_VALUE for any (any_is_value). */
static TPM_RC seed_from(struct cmd *c, unsigned slot, const struct secret *in, struct seed *seed,
			unsigned param, bool any_is_value)
{
	struct key_material k;
	TPM_RC rc;

	TRY(cmd_unlock_key(c, slot, &k));
	rc = secret_decrypt(&k, dup_label, in->b, in->size, seed->b, &seed->size);
	if (rc != TPM_RC_SUCCESS)
		rc = rc_param(any_is_value ? TPM_RC_VALUE : rc, param);
	return cmd_relock_key(c, &k, rc);
}

/* Part 3's ObjectIsStorage for a new (or old) parent of a duplicate: a restricted decryption
 * key that can receive a seed (RSA, ECC, and here ML-KEM), no signing key. Its public part is
 * enough: a new parent is usually another TPM's key, loaded with LoadExternal. */
static bool is_storage(const struct object *o)
{
	uint32_t a = o ? o->pub.attributes : 0;

	if (!o || o->kind != OBJ_KEY || !(a & TPMA_OBJECT_RESTRICTED) ||
	    !(a & TPMA_OBJECT_DECRYPT) || (a & TPMA_OBJECT_SIGN_ENCRYPT))
		return false;
	return o->pub.type == TPM_ALG_RSA || o->pub.type == TPM_ALG_ECC ||
	       o->pub.type == TPM_ALG_MLKEM;
}

static size_t sym_key_bytes(const struct tpmt_sym_def *sym)
{
	return (sym->key_bits + 7u) / 8u;
}

/* ---- Duplicate ---- */

struct dup_in {
	struct tpm2b_data key;		/* encryptionKeyIn, then encryptionKeyOut */
	struct tpmt_sym_def sym;
	struct seed seed;
	struct secret secret;		/* outSymSeed */
	struct tpm2b_private blob;	/* duplicate */
};

static TPM_RC check_duplicate(const struct object *o, const struct object *np,
			      TPM_HANDLE np_handle, const struct dup_in *d)
{
	bool enc_dup = o->pub.attributes & TPMA_OBJECT_ENCRYPTEDDUPLICATION;

	if (o->kind != OBJ_KEY)
		return rc_handle(TPM_RC_TYPE, 1);
	if (!o->has_sensitive)
		return TPM_RC_AUTH_UNAVAILABLE;
	if (o->pub.attributes & TPMA_OBJECT_FIXEDPARENT)
		return rc_handle(TPM_RC_ATTRIBUTES, 1);
	if (o->pub.name_alg == TPM_ALG_NULL)
		return rc_handle(TPM_RC_TYPE, 1);
	if (np_handle != TPM_RH_NULL && !is_storage(np))
		return rc_handle(TPM_RC_TYPE, 2);
	if (enc_dup && d->sym.alg == TPM_ALG_NULL)
		return rc_param(TPM_RC_SYMMETRIC, 2);
	if (enc_dup && np_handle == TPM_RH_NULL)
		return rc_handle(TPM_RC_HIERARCHY, 2);
	if (d->sym.alg == TPM_ALG_NULL ? d->key.size != 0
				       : d->key.size != 0 && d->key.size != sym_key_bytes(&d->sym))
		return rc_param(TPM_RC_SIZE, 1);
	return TPM_RC_SUCCESS;
}

static TPM_RC make_duplicate(struct cmd *c, struct dup_in *d)
{
	const struct object *o, *np;
	bool made_key = false;

	d->seed.size = 0;
	d->secret.size = 0;
	if (c->obj[1])
		TRY(seed_for(c, 1, &d->seed, &d->secret));
	o = c->obj[0];
	np = c->obj[1];
	/* no encryptionKeyIn: the TPM makes one and returns it, else encryptionKeyOut is empty */
	if (d->sym.alg != TPM_ALG_NULL && d->key.size == 0) {
		d->key.size = (uint16_t)sym_key_bytes(&d->sym);
		TRY(crypto_random(d->key.b, d->key.size));
		made_key = true;
	}
	TRY(object_dup_wrap(&o->pub, &o->sens, np, d->seed.b, d->seed.size, &d->sym, &d->key,
			    &d->blob));
	if (!made_key)
		d->key.size = 0;
	TRY(wr_tpm2b(&c->out, d->key.b, d->key.size));
	TRY(wr_tpm2b(&c->out, d->blob.b, d->blob.size));
	return wr_tpm2b(&c->out, d->secret.b, d->secret.size);
}

static TPM_RC duplicate(struct cmd *c)
{
	struct dup_in d;
	TPM_RC rc;

	rc = rc_param(rd_data(&c->in, &d.key), 1);
	if (rc == TPM_RC_SUCCESS)
		rc = rc_param(rd_sym_def_object(&c->in, &d.sym, true), 2);
	if (rc == TPM_RC_SUCCESS)
		rc = cmd_params_done(c);
	if (rc == TPM_RC_SUCCESS)
		rc = check_duplicate(c->obj[0], c->obj[1], c->handle[1], &d);
	if (rc == TPM_RC_SUCCESS)
		rc = make_duplicate(c, &d);
	crypto_wipe(&d, sizeof(d));
	return rc;
}

/* ---- Rewrap ---- */

struct rewrap_in {
	struct tpm2b_private in;	/* inDuplicate */
	struct tpm2b_name name;
	struct secret secret;		/* inSymSeed, then outSymSeed */
	struct seed seed;
	uint8_t inner[MAX_PRIVATE_BLOB];
	size_t inner_len;
	struct tpm2b_private out;	/* outDuplicate */
};

/* Take the outer wrapper of oldParent off, or the blob as it is (oldParent TPM_RH_NULL). */
static TPM_RC rewrap_open(struct cmd *c, struct rewrap_in *w)
{
	if ((w->secret.size == 0) != (c->handle[0] == TPM_RH_NULL))
		return rc_handle(TPM_RC_HANDLE, 1);
	if (c->handle[0] == TPM_RH_NULL) {
		memcpy(w->inner, w->in.b, w->in.size);
		w->inner_len = w->in.size;
		return TPM_RC_SUCCESS;
	}
	if (!is_storage(c->obj[0]))
		return rc_handle(TPM_RC_TYPE, 1);
	TRY(seed_from(c, 0, &w->secret, &w->seed, 3, true));
	return rc_param(object_outer_unwrap(c->obj[0], &w->name, w->seed.b, w->seed.size, &w->in,
					    w->inner, &w->inner_len),
			1);
}

/* Put the outer wrapper of newParent on, or none (newParent TPM_RH_NULL). */
static TPM_RC rewrap_close(struct cmd *c, struct rewrap_in *w)
{
	const struct object *np;

	w->secret.size = 0;
	if (c->handle[1] == TPM_RH_NULL) {
		memcpy(w->out.b, w->inner, w->inner_len);
		w->out.size = (uint16_t)w->inner_len;
		return TPM_RC_SUCCESS;
	}
	if (!is_storage(c->obj[1]))
		return rc_handle(TPM_RC_TYPE, 2);
	TRY(seed_for(c, 1, &w->seed, &w->secret));
	np = c->obj[1];
	if (w->inner_len + 2 + crypto_hash_size(np->pub.name_alg) > sizeof(w->out.b))
		return rc_param(TPM_RC_VALUE, 1);
	return object_outer_wrap(np, &w->name, w->seed.b, w->seed.size, w->inner, w->inner_len,
				 &w->out);
}

static TPM_RC rewrap(struct cmd *c)
{
	struct rewrap_in w;
	TPM_RC rc;

	TRYP(1, rd_private(&c->in, &w.in));
	rc = rc_param(rd_tpm2b_name(&c->in, &w.name), 2);
	if (rc == TPM_RC_SUCCESS)
		rc = rc_param(rd_secret(&c->in, &w.secret), 3);
	if (rc == TPM_RC_SUCCESS)
		rc = cmd_params_done(c);
	if (rc == TPM_RC_SUCCESS)
		rc = rewrap_open(c, &w);
	if (rc == TPM_RC_SUCCESS)
		rc = rewrap_close(c, &w);
	if (rc == TPM_RC_SUCCESS)
		rc = wr_tpm2b(&c->out, w.out.b, w.out.size);
	if (rc == TPM_RC_SUCCESS)
		rc = wr_tpm2b(&c->out, w.secret.b, w.secret.size);
	crypto_wipe(&w, sizeof(w));
	return rc;
}

/* ---- Import ---- */

struct import_in {
	struct tpm2b_data key;		/* encryptionKey */
	struct tpmt_public pub;		/* objectPublic */
	struct tpm2b_private blob;	/* duplicate */
	struct secret secret;		/* inSymSeed */
	struct tpmt_sym_def sym;	/* symmetricAlg */
	struct seed seed;
	struct tpmt_sensitive sens;
	struct tpm2b_private out;	/* outPrivate */
};

static TPM_RC rd_import(struct rd *r, struct import_in *m)
{
	TRYP(1, rd_data(r, &m->key));
	TRYP(2, rd_tpm2b_public(r, &m->pub));
	TRYP(3, rd_private(r, &m->blob));
	TRYP(4, rd_secret(r, &m->secret));
	TRYP(5, rd_sym_def_object(r, &m->sym, true));
	return TPM_RC_SUCCESS;
}

/* Everything about the inputs that needs no secret: attributes, parent, wrapper choices. */
static TPM_RC check_import(const struct object *parent, const struct import_in *m)
{
	uint32_t a = m->pub.attributes;
	bool enc_dup = a & TPMA_OBJECT_ENCRYPTEDDUPLICATION;

	if (a & (TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT))
		return rc_param(TPM_RC_ATTRIBUTES, 2);
	if (!object_is_storage_parent(parent))
		return rc_handle(TPM_RC_TYPE, 1);
	if (m->sym.alg != TPM_ALG_NULL) {
		if (m->key.size != sym_key_bytes(&m->sym))
			return rc_param(TPM_RC_SIZE, 1);
	} else {
		if (m->key.size != 0)
			return rc_param(TPM_RC_SIZE, 1);
		if (enc_dup)
			return rc_param(TPM_RC_ATTRIBUTES, 1);
	}
	if (m->secret.size != 0) {
		/* an outer wrapper needs a key exchange, which a symmetric parent cannot do */
		if (parent->pub.type == TPM_ALG_SYMCIPHER)
			return rc_handle(TPM_RC_TYPE, 1);
	} else if (enc_dup) {
		return rc_param(TPM_RC_ATTRIBUTES, 4);
	}
	if (m->pub.name_alg == TPM_ALG_NULL)
		return rc_param(TPM_RC_HASH, 2);
	return TPM_RC_SUCCESS;
}

static TPM_RC import_object(struct cmd *c, struct import_in *m)
{
	const struct object *parent;

	TRY(check_import(c->obj[0], m));
	m->seed.size = 0;
	if (m->secret.size != 0)
		TRY(seed_from(c, 0, &m->secret, &m->seed, 4, false));
	parent = c->obj[0];
	TRYP(3, object_dup_unwrap(parent, &m->pub, m->seed.b, m->seed.size, &m->sym, &m->key,
				  &m->blob, &m->sens));
	/* validated as Load would, so that what the TPM wraps is a consistent object */
	TRYP(2, object_check_public(&m->pub, false));
	TRYP(3, object_check_pair(&m->pub, &m->sens));
	TRY(object_wrap(parent, &m->pub, &m->sens, &m->out));
	return wr_tpm2b(&c->out, m->out.b, m->out.size);
}

static TPM_RC import(struct cmd *c)
{
	struct import_in m;
	TPM_RC rc;

	rc = rd_import(&c->in, &m);
	if (rc == TPM_RC_SUCCESS)
		rc = cmd_params_done(c);
	if (rc == TPM_RC_SUCCESS)
		rc = import_object(c, &m);
	crypto_wipe(&m, sizeof(m));
	return rc;
}

#define PARAMS_IO (CMD_PARAM_IN | CMD_PARAM_OUT)

const struct cmd_def cmds_duplicate[] = {
	{ .code = TPM_CC_Duplicate, .name = "Duplicate", .handles = 2,
	  .auth = { AUTH_DUP, AUTH_NONE }, .htype = { HK_OBJECT, HK_OBJECT | HK_NULL },
	  .flags = PARAMS_IO, .run = duplicate },
	{ .code = TPM_CC_Rewrap, .name = "Rewrap", .handles = 2,
	  .auth = { AUTH_USER, AUTH_NONE },
	  .htype = { HK_OBJECT | HK_NULL, HK_OBJECT | HK_NULL }, .flags = PARAMS_IO,
	  .run = rewrap },
	{ .code = TPM_CC_Import, .name = "Import", .handles = 1, .auth = { AUTH_USER },
	  .htype = { HK_OBJECT }, .flags = PARAMS_IO, .run = import },
	{ 0 },
};
