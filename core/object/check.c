/* Consistency of public areas (Part 3 Create/CreatePrimary/Load "Detailed Actions", Part 1
 * §25 object attributes): attribute combinations, schemes, storage-key symmetric definitions,
 * key sizes, and for loaded objects the size and validity of the public key itself. */
#include "crypto/mldsa.h"
#include "crypto/mlkem.h"
#include "object.h"

#define A_SIGN TPMA_OBJECT_SIGN_ENCRYPT
#define A_DECRYPT TPMA_OBJECT_DECRYPT
#define A_RESTRICTED TPMA_OBJECT_RESTRICTED

static bool has(uint32_t attrs, uint32_t bit)
{
	return (attrs & bit) != 0;
}

static bool is_storage(uint32_t attrs)
{
	return has(attrs, A_RESTRICTED) && has(attrs, A_DECRYPT);
}

static TPM_RC check_attributes(const struct tpmt_public *pub)
{
	uint32_t a = pub->attributes;

	if (has(a, A_SIGN) == has(a, A_DECRYPT)) {
		/* a restricted key is exactly one of sign and decrypt; only a data object
		 * (keyedHash) may be neither */
		if (has(a, A_RESTRICTED))
			return TPM_RC_ATTRIBUTES;
		if (pub->type != TPM_ALG_KEYEDHASH && !has(a, A_SIGN))
			return TPM_RC_ATTRIBUTES;
	}
	if ((pub->type == TPM_ALG_MLDSA || pub->type == TPM_ALG_HASH_MLDSA) && has(a, A_DECRYPT))
		return TPM_RC_ATTRIBUTES;
	if (pub->type == TPM_ALG_MLKEM && has(a, A_SIGN))
		return TPM_RC_ATTRIBUTES;
	/* nothing to duplicate, so nothing to encrypt on duplication */
	if (has(a, TPMA_OBJECT_FIXEDTPM) && has(a, TPMA_OBJECT_ENCRYPTEDDUPLICATION))
		return TPM_RC_ATTRIBUTES;
	/* an X.509 signing key signs certificates only */
	if (has(a, TPMA_OBJECT_X509SIGN) && (!has(a, A_SIGN) || has(a, A_RESTRICTED)))
		return TPM_RC_ATTRIBUTES;
	return TPM_RC_SUCCESS;
}

/* The symmetric definition of RSA, ECC and ML-KEM keys: a storage key protects its children
 * with a block cipher (AES, Camellia, TDES) in CFB; any other key has none. */
static TPM_RC check_storage_sym(const struct tpmt_public *pub)
{
	if (!is_storage(pub->attributes))
		return pub->symmetric.alg == TPM_ALG_NULL ? TPM_RC_SUCCESS : TPM_RC_SYMMETRIC;
	if (crypto_sym_block(pub->symmetric.alg) == 0)
		return TPM_RC_SYMMETRIC;
	if (pub->symmetric.mode != TPM_ALG_CFB)
		return TPM_RC_MODE;
	return TPM_RC_SUCCESS;
}

/* RSA and ECC schemes: a restricted signing key needs one, a storage key has none, an
 * unrestricted key that both signs and decrypts has none either, and any other key may leave
 * it NULL; what is given must suit the key's use. */
static bool alg_in(TPM_ALG_ID a, const TPM_ALG_ID *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (list[i] == a)
			return true;
	return false;
}

static TPM_RC check_asym_scheme(const struct tpmt_public *pub, const TPM_ALG_ID *sign,
				size_t nsign, const TPM_ALG_ID *dec, size_t ndec)
{
	TPM_ALG_ID s = pub->scheme.scheme;
	uint32_t a = pub->attributes;

	if (has(a, A_SIGN) && has(a, A_DECRYPT))
		return s == TPM_ALG_NULL ? TPM_RC_SUCCESS : TPM_RC_SCHEME;
	if (s == TPM_ALG_NULL)
		return has(a, A_SIGN) && has(a, A_RESTRICTED) ? TPM_RC_SCHEME : TPM_RC_SUCCESS;
	if (has(a, A_SIGN))
		return alg_in(s, sign, nsign) ? TPM_RC_SUCCESS : TPM_RC_SCHEME;
	if (has(a, A_RESTRICTED))
		return TPM_RC_SCHEME;
	return alg_in(s, dec, ndec) ? TPM_RC_SUCCESS : TPM_RC_SCHEME;
}

static TPM_RC check_keyedhash(const struct tpmt_public *pub)
{
	TPM_ALG_ID s = pub->scheme.scheme;
	uint32_t a = pub->attributes;
	TPM_ALG_ID want;

	if (has(a, A_SIGN) == has(a, A_DECRYPT))
		return s == TPM_ALG_NULL ? TPM_RC_SUCCESS : TPM_RC_SCHEME;
	want = has(a, A_SIGN) ? TPM_ALG_HMAC : TPM_ALG_XOR;
	if (s == want || (s == TPM_ALG_NULL && !has(a, A_RESTRICTED)))
		return TPM_RC_SUCCESS;
	return TPM_RC_SCHEME;
}

static TPM_RC check_rsa(const struct tpmt_public *pub, bool is_template)
{
	static const TPM_ALG_ID sign[] = { TPM_ALG_RSASSA, TPM_ALG_RSAPSS };
	static const TPM_ALG_ID dec[] = { TPM_ALG_RSAES, TPM_ALG_OAEP };

	if (is_template) {
		/* we create 2048 and 3072; other sizes can only be loaded */
		if (pub->key_bits != 2048 && pub->key_bits != 3072)
			return TPM_RC_KEY_SIZE;
		if (pub->exponent != 0 && pub->exponent != 65537)
			return TPM_RC_RANGE;
	}
	TRY(check_storage_sym(pub));
	return check_asym_scheme(pub, sign, 2, dec, 2);
}

static TPM_RC check_ecc(const struct tpmt_public *pub)
{
	static const TPM_ALG_ID sign[] = { TPM_ALG_ECDSA, TPM_ALG_ECDAA, TPM_ALG_ECSCHNORR };
	static const TPM_ALG_ID dec[] = { TPM_ALG_ECDH, TPM_ALG_ECMQV };

	if (crypto_ecc_bytes(pub->curve_id) == 0)
		return TPM_RC_CURVE;
	TRY(check_storage_sym(pub));
	return check_asym_scheme(pub, sign, 3, dec, 2);
}

static TPM_RC check_params(const struct tpmt_public *pub, bool is_template)
{
	switch (pub->type) {
	case TPM_ALG_RSA:
		return check_rsa(pub, is_template);
	case TPM_ALG_ECC:
		return check_ecc(pub);
	case TPM_ALG_KEYEDHASH:
		return check_keyedhash(pub);
	case TPM_ALG_SYMCIPHER:
		/* A symmetric parent wraps its children in CFB whatever its own mode says (Part 1
		 * §23.3.2), so a storage key may leave the mode NULL, as tpm2_createprimary -G aes
		 * does; any other mode would promise what the protection does not do. */
		if (is_storage(pub->attributes) && pub->symmetric.mode != TPM_ALG_CFB &&
		    pub->symmetric.mode != TPM_ALG_NULL)
			return TPM_RC_MODE;
		return TPM_RC_SUCCESS;
	case TPM_ALG_MLDSA:
		return mldsa_pk_bytes(pub->parameter_set) ? TPM_RC_SUCCESS : TPM_RC_PARMS;
	case TPM_ALG_HASH_MLDSA:
		if (mldsa_pk_bytes(pub->parameter_set) == 0)
			return TPM_RC_PARMS;
		/* FIPS 204 §5.4.1 names pre-hash OIDs for SHA-2 only: SHA-1 is no PH (as TestParms) */
		return pub->pre_hash == TPM_ALG_SHA1 ? TPM_RC_HASH : TPM_RC_SUCCESS;
	case TPM_ALG_MLKEM:
		if (mlkem_ek_bytes(pub->parameter_set) == 0)
			return TPM_RC_PARMS;
		return check_storage_sym(pub);
	default:
		return TPM_RC_TYPE;
	}
}

/* A loaded public area carries its key: the right size, for ECC a point on the curve, for
 * ML-KEM an encapsulation key that passes FIPS 203's input check. */
static TPM_RC check_unique(const struct tpmt_public *pub)
{
	size_t want;

	switch (pub->type) {
	case TPM_ALG_RSA:
		want = pub->key_bits / 8u;
		break;
	case TPM_ALG_ECC:
		want = crypto_ecc_bytes(pub->curve_id);
		if (pub->x.size != want || pub->y.size != want)
			return TPM_RC_KEY;
		return crypto_ecc_check_point(pub->curve_id, pub->x.b, pub->x.size, pub->y.b,
					      pub->y.size);
	case TPM_ALG_KEYEDHASH:
	case TPM_ALG_SYMCIPHER:
		if (pub->name_alg == TPM_ALG_NULL)
			return TPM_RC_SUCCESS;
		want = crypto_hash_size(pub->name_alg);
		break;
	case TPM_ALG_MLDSA:
	case TPM_ALG_HASH_MLDSA:
		want = mldsa_pk_bytes(pub->parameter_set);
		break;
	case TPM_ALG_MLKEM:
		/* FIPS 203 §7.2: every coefficient below q, as for an ECC point on its curve */
		return mlkem_check_ek(pub->parameter_set, pub->unique.b, pub->unique.size)
			       ? TPM_RC_KEY
			       : TPM_RC_SUCCESS;
	default:
		return TPM_RC_TYPE;
	}
	return pub->unique.size == want ? TPM_RC_SUCCESS : TPM_RC_KEY;
}

TPM_RC object_check_public(const struct tpmt_public *pub, bool is_template)
{
	if (pub->attributes & TPMA_OBJECT_RESERVED)
		return TPM_RC_RESERVED_BITS;
	if (pub->name_alg == TPM_ALG_NULL) {
		/* only a public key loaded with LoadExternal may have no Name */
		if (is_template)
			return TPM_RC_HASH;
		if (pub->auth_policy.size)
			return TPM_RC_SIZE;
	} else if (crypto_hash_size(pub->name_alg) == 0) {
		return TPM_RC_HASH;
	} else if (pub->auth_policy.size && pub->auth_policy.size != crypto_hash_size(pub->name_alg)) {
		return TPM_RC_SIZE;
	}
	TRY(check_attributes(pub));
	TRY(check_params(pub, is_template));
	return is_template ? TPM_RC_SUCCESS : check_unique(pub);
}

TPM_RC object_check_parent(const struct object *parent, const struct tpmt_public *pub)
{
	uint32_t a = pub->attributes;
	uint32_t pa;

	/* a primary's parent is a seed, which is fixedTPM */
	if (!parent || has(parent->pub.attributes, TPMA_OBJECT_FIXEDTPM)) {
		if (has(a, TPMA_OBJECT_FIXEDTPM) != has(a, TPMA_OBJECT_FIXEDPARENT))
			return TPM_RC_ATTRIBUTES;
		return TPM_RC_SUCCESS;
	}
	pa = parent->pub.attributes;
	if (has(a, TPMA_OBJECT_FIXEDTPM))
		return TPM_RC_ATTRIBUTES;
	if (has(a, TPMA_OBJECT_ENCRYPTEDDUPLICATION) != has(pa, TPMA_OBJECT_ENCRYPTEDDUPLICATION))
		return TPM_RC_ATTRIBUTES;
	return TPM_RC_SUCCESS;
}

TPM_RC object_check_create(const struct object *parent, const struct tpmt_public *pub,
			   const struct tpms_sensitive_create *sc)
{
	uint32_t a = pub->attributes;
	bool origin = has(a, TPMA_OBJECT_SENSITIVEDATAORIGIN);

	TRY(object_check_public(pub, true));
	TRY(object_check_parent(parent, pub));
	/* the caller who says it provides the data must provide some */
	if (!origin && sc->data.size == 0)
		return TPM_RC_ATTRIBUTES;
	switch (pub->type) {
	case TPM_ALG_KEYEDHASH:
		/* the TPM cannot make up the content of a data object */
		if (!has(a, A_SIGN) && !has(a, A_DECRYPT) && origin)
			return TPM_RC_ATTRIBUTES;
		/* fall through */
	case TPM_ALG_SYMCIPHER:
		/* a restricted key of the caller's making cannot look TPM-made */
		if (has(a, A_RESTRICTED) && !origin &&
		    (has(a, TPMA_OBJECT_FIXEDPARENT) || has(a, TPMA_OBJECT_FIXEDTPM)))
			return TPM_RC_ATTRIBUTES;
		return TPM_RC_SUCCESS;
	default:
		/* asymmetric private keys are always the TPM's */
		return origin ? TPM_RC_SUCCESS : TPM_RC_ATTRIBUTES;
	}
}

bool object_is_storage_parent(const struct object *o)
{
	if (!o || o->kind != OBJ_KEY || !o->has_sensitive || o->external)
		return false;
	if (!is_storage(o->pub.attributes) || has(o->pub.attributes, A_SIGN))
		return false;
	if (o->pub.type == TPM_ALG_KEYEDHASH) /* a derivation parent, which we do not support */
		return false;
	return crypto_sym_block(o->pub.symmetric.alg) != 0 && o->sens.seed_value.size > 0;
}
