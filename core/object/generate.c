/* Key generation for a template: the sensitive part and the public unique field, drawn from
 * one random source in a fixed order (key material, then seedValue) so that a deterministic
 * source (primary objects) gives the same object every time. */
#include <string.h>

#include "crypto/mldsa.h"
#include "crypto/mlkem.h"
#include "object.h"

static TPM_RC gen_rsa(struct crypto_rng *rng, struct tpmt_public *pub, struct tpmt_sensitive *s)
{
	uint16_t nlen = pub->key_bits / 8;

	TRY(crypto_rsa_generate(rng, pub->key_bits, pub->exponent, pub->unique.b,
				s->sensitive.b));
	pub->unique.size = nlen;
	s->sensitive.size = nlen / 2;
	return TPM_RC_SUCCESS;
}

static TPM_RC gen_ecc(struct crypto_rng *rng, struct tpmt_public *pub, struct tpmt_sensitive *s)
{
	uint16_t len = (uint16_t)crypto_ecc_bytes(pub->curve_id);

	if (len == 0)
		return TPM_RC_CURVE;
	TRY(crypto_ecc_generate(rng, pub->curve_id, s->sensitive.b, pub->x.b, pub->y.b));
	s->sensitive.size = pub->x.size = pub->y.size = len;
	return TPM_RC_SUCCESS;
}

static TPM_RC gen_mldsa(struct crypto_rng *rng, struct tpmt_public *pub, struct tpmt_sensitive *s)
{
	uint8_t sk[MLDSA_MAX_SK_BYTES];
	size_t pklen = mldsa_pk_bytes(pub->parameter_set);
	int err;

	if (pklen == 0)
		return TPM_RC_PARMS;
	TRY(rng->read(rng, s->sensitive.b, MLDSA_SEED_BYTES));
	s->sensitive.size = MLDSA_SEED_BYTES;
	err = mldsa_keygen(pub->parameter_set, s->sensitive.b, pub->unique.b, sk);
	crypto_wipe(sk, sizeof(sk));
	if (err)
		return TPM_RC_FAILURE;
	pub->unique.size = (uint16_t)pklen;
	return TPM_RC_SUCCESS;
}

/* The private part kept is the seed d || z (64 bytes), as TPM2B_PRIVATE_KEY_MLKEM says. */
static TPM_RC gen_mlkem(struct crypto_rng *rng, struct tpmt_public *pub, struct tpmt_sensitive *s)
{
	uint8_t dk[MLKEM_MAX_DK_BYTES];
	size_t eklen = mlkem_ek_bytes(pub->parameter_set);
	int err;

	if (eklen == 0)
		return TPM_RC_PARMS;
	TRY(rng->read(rng, s->sensitive.b, MLKEM_SEED_BYTES));
	s->sensitive.size = MLKEM_SEED_BYTES;
	err = mlkem_keygen(pub->parameter_set, s->sensitive.b, s->sensitive.b + 32, pub->unique.b,
			   dk);
	crypto_wipe(dk, sizeof(dk));
	if (err)
		return TPM_RC_FAILURE;
	pub->unique.size = (uint16_t)eklen;
	return TPM_RC_SUCCESS;
}

/* The hash a keyedHash object's key goes with: its scheme's, else nameAlg. */
static TPM_ALG_ID keyedhash_alg(const struct tpmt_public *pub)
{
	return pub->scheme.scheme == TPM_ALG_NULL ? pub->name_alg : pub->scheme.hash_alg;
}

/* A TDES key the TPM makes: odd parity, drawn again while weak (as the reference
 * implementation's CryptGenerateKeyDes; a weak draw has odds of about 2^-52). */
#define TDES_DRAWS 8

static TPM_RC gen_tdes(struct crypto_rng *rng, size_t len, struct tpmt_sensitive *s)
{
	for (int i = 0; i < TDES_DRAWS; i++) {
		TRY(rng->read(rng, s->sensitive.b, len));
		crypto_tdes_set_parity(s->sensitive.b, len);
		if (crypto_tdes_key_ok(s->sensitive.b, len)) {
			s->sensitive.size = (uint16_t)len;
			return TPM_RC_SUCCESS;
		}
	}
	return TPM_RC_NO_RESULT;
}

/* keyedHash and symCipher: the caller's data, or a fresh key when the TPM is the origin. */
static TPM_RC gen_secret(struct crypto_rng *rng, const struct tpmt_public *pub,
			 const struct tpms_sensitive_create *sc, struct tpmt_sensitive *s)
{
	bool tdes = pub->type == TPM_ALG_SYMCIPHER && pub->symmetric.alg == TPM_ALG_TDES;
	size_t want = pub->type == TPM_ALG_SYMCIPHER ? pub->symmetric.key_bits / 8u
						     : crypto_hash_size(keyedhash_alg(pub));

	if (!(pub->attributes & TPMA_OBJECT_SENSITIVEDATAORIGIN)) {
		if (pub->type == TPM_ALG_SYMCIPHER && sc->data.size != want)
			return TPM_RC_KEY_SIZE;
		if (tdes && !crypto_tdes_key_ok(sc->data.b, sc->data.size))
			return TPM_RC_KEY;
		memcpy(s->sensitive.b, sc->data.b, sc->data.size);
		s->sensitive.size = sc->data.size;
		return TPM_RC_SUCCESS;
	}
	if (want == 0 || want > sizeof(s->sensitive.b))
		return TPM_RC_KEY_SIZE;
	if (tdes)
		return gen_tdes(rng, want, s);
	TRY(rng->read(rng, s->sensitive.b, want));
	s->sensitive.size = (uint16_t)want;
	return TPM_RC_SUCCESS;
}

/* unique = H_nameAlg(seedValue || sensitive) for keyedHash and symCipher (Part 1 §27.2). */
static TPM_RC symmetric_unique(struct tpmt_public *pub, const struct tpmt_sensitive *s)
{
	struct crypto_hash_ctx h;
	TPM_RC rc;

	rc = crypto_hash_start(&h, pub->name_alg);
	if (rc == TPM_RC_SUCCESS)
		rc = crypto_hash_update(&h, s->seed_value.b, s->seed_value.size);
	if (rc == TPM_RC_SUCCESS)
		rc = crypto_hash_update(&h, s->sensitive.b, s->sensitive.size);
	if (rc == TPM_RC_SUCCESS)
		rc = crypto_hash_finish(&h, pub->unique.b);
	crypto_wipe(&h, sizeof(h));
	if (rc == TPM_RC_SUCCESS)
		pub->unique.size = (uint16_t)crypto_hash_size(pub->name_alg);
	return rc;
}

static TPM_RC generate(struct crypto_rng *rng, struct tpmt_public *pub,
		       const struct tpms_sensitive_create *sc, struct tpmt_sensitive *s)
{
	size_t dlen = crypto_hash_size(pub->name_alg);

	if (dlen == 0)
		return TPM_RC_HASH;
	s->type = pub->type;
	s->auth_value = sc->user_auth;
	switch (pub->type) {
	case TPM_ALG_RSA:
		TRY(gen_rsa(rng, pub, s));
		break;
	case TPM_ALG_ECC:
		TRY(gen_ecc(rng, pub, s));
		break;
	case TPM_ALG_MLDSA:
	case TPM_ALG_HASH_MLDSA:
		TRY(gen_mldsa(rng, pub, s));
		break;
	case TPM_ALG_MLKEM:
		TRY(gen_mlkem(rng, pub, s));
		break;
	case TPM_ALG_KEYEDHASH:
	case TPM_ALG_SYMCIPHER:
		TRY(gen_secret(rng, pub, sc, s));
		break;
	default:
		return TPM_RC_TYPE;
	}
	/* a parent's seed, or the obfuscation value of any other object */
	TRY(rng->read(rng, s->seed_value.b, dlen));
	s->seed_value.size = (uint16_t)dlen;
	if (pub->type == TPM_ALG_KEYEDHASH || pub->type == TPM_ALG_SYMCIPHER)
		return symmetric_unique(pub, s);
	return TPM_RC_SUCCESS;
}

TPM_RC object_generate(struct crypto_rng *rng, struct tpmt_public *pub,
		       const struct tpms_sensitive_create *sc, struct tpmt_sensitive *sens)
{
	TPM_RC rc;

	memset(sens, 0, sizeof(*sens));
	rc = generate(rng, pub, sc, sens);
	if (rc != TPM_RC_SUCCESS)
		crypto_wipe(sens, sizeof(*sens));
	return rc;
}
