/* Duplication with ML-KEM parents (core/cmd/duplicate.c with cmd/pq_secret.c): the seed of the
 * outer wrapper is encapsulated to the new parent's ML-KEM key (label "DUPLICATE") and
 * decapsulated by the importing parent. ML-DSA and ECC keys go to ML-KEM-768 and ML-KEM-1024
 * parents (their public parts, as another TPM's would be), are imported there and sign; a blob
 * wrapped by this file's own code (Part 1 §23.3 with the ML-KEM seed) imports; Rewrap
 * takes the outer wrapper off with ML-KEM; tampered, short and foreign ciphertexts are refused
 * with their codes. */
#include <string.h>

#include <CUnit/Basic.h>

#include "crypto/crypto.h"
#include "crypto/mlkem.h"
#include "dup_util.h"
#include "object/object.h"
#include "pq_util.h"
#include "unit_main.h"

#define DSIZE 32 /* SHA-256 everywhere here */
#define DUPLICABLE                                                                         \
	(TPMA_OBJECT_USERWITHAUTH | TPMA_OBJECT_SENSITIVEDATAORIGIN | TPMA_OBJECT_SIGN_ENCRYPT)

static struct harness h;
static struct pq_key ecc_parent, kem768, kem1024, kem_other;
static const uint8_t msg[] = "signed by a key that moved to an ML-KEM parent";
#define MSGLEN ((uint16_t)(sizeof(msg) - 1))

static const struct tpmt_sym_def aes128 = { TPM_ALG_AES, 128, TPM_ALG_CFB };
static const struct tpmt_sym_def no_sym = { TPM_ALG_NULL, 0, 0 };

static void storage_primary(TPM_ALG_ID type, uint16_t set, const char *unique, struct pq_key *k)
{
	struct tpmt_public t;

	pq_tmpl(&t, type, set, PQ_STORAGE);
	if (unique) {
		t.unique.size = (uint16_t)strlen(unique);
		memcpy(t.unique.b, unique, t.unique.size);
	}
	CU_ASSERT_EQUAL_FATAL(pq_primary(&h, TPM_RH_OWNER, &t, "", k), TPM_RC_SUCCESS);
}

static void setup(void)
{
	harness_open(&h);
	storage_primary(TPM_ALG_ECC, 0, NULL, &ecc_parent);
	storage_primary(TPM_ALG_MLKEM, TPM_MLKEM_768, NULL, &kem768);
	storage_primary(TPM_ALG_MLKEM, TPM_MLKEM_1024, NULL, &kem1024);
	storage_primary(TPM_ALG_MLKEM, TPM_MLKEM_768, "other", &kem_other);
}

static void teardown(void)
{
	harness_close(&h);
}

/* use: 0 for a signing key, else the decryption attributes (a storage key gets AES-CFB) */
static void duplicable_use(TPM_ALG_ID type, uint16_t set, uint32_t use, struct pq_key *k)
{
	struct tpmt_public t;

	pq_tmpl(&t, type, set, use);
	t.attributes = use ? (DUPLICABLE & ~(uint32_t)TPMA_OBJECT_SIGN_ENCRYPT) | use : DUPLICABLE;
	if (type == TPM_ALG_ECC) {
		t.scheme.scheme = TPM_ALG_ECDSA;
		t.scheme.hash_alg = TPM_ALG_SHA256;
	}
	dup_policy(&t.auth_policy);
	CU_ASSERT_EQUAL_FATAL(pq_create_load(&h, ecc_parent.handle, &t, "", k), TPM_RC_SUCCESS);
}

static void duplicable_key(TPM_ALG_ID type, uint16_t set, struct pq_key *k)
{
	duplicable_use(type, set, 0, k);
}

/* Duplicate k to new parent np; sym: the inner wrapper (the TPM makes its key). */
static TPM_RC duplicate(const struct pq_key *k, const struct pq_key *np,
			const struct tpmt_sym_def *sym, struct dup_blob *out)
{
	static const struct tpm2b_data none;

	return dup_duplicate(&h, k->handle, &k->name, np->handle, &np->name, &none, sym, true,
			     NULL, out);
}

static TPM_RC import(const struct pq_key *parent, const struct tpmt_public *pub,
		     const struct dup_blob *bl, struct tpm2b_private *out)
{
	return dup_import(&h, parent->handle, pub, bl, NULL, out);
}

static TPM_RC rewrap(const struct pq_key *oldp, const struct pq_key *np,
		     const struct tpm2b_name *name, const struct dup_blob *in, struct dup_blob *out)
{
	return dup_rewrap(&h, oldp->handle, np->handle, name, in, out);
}

/* The imported key signs msg with a sign sequence; the original key verifies it. */
static void signs_like(TPM_HANDLE imported, const struct pq_key *orig)
{
	struct tpmt_signature sig;
	struct tpmt_ticket t;
	TPM_HANDLE seq;

	CU_ASSERT_EQUAL_FATAL(pq_sign_start(&h, imported, "", NULL, 0, &seq), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(pq_sign_complete(&h, seq, "", imported, "", msg, MSGLEN, &sig),
			      TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(pq_verify_start(&h, orig->handle, "", NULL, 0, &seq),
			      TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(pq_update(&h, seq, "", msg, MSGLEN), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(pq_verify_complete(&h, seq, "", orig->handle, &sig, &t), TPM_RC_SUCCESS);
}

/* Import under parent and Load. */
static TPM_HANDLE import_load(const struct pq_key *parent, const struct pq_key *orig,
			      const struct dup_blob *bl)
{
	struct tpm2b_private priv;
	struct cmdbuf b;
	TPM_HANDLE k = 0;

	CU_ASSERT_EQUAL_FATAL(import(parent, &orig->pub, bl, &priv), TPM_RC_SUCCESS);
	cmd_begin(&b, TPM_CC_Load);
	cmd_handle(&b, parent->handle);
	cmd_auth_pw(&b, "");
	wr_tpm2b(&b.params, priv.b, priv.size);
	wr_tpm2b_public(&b.params, &orig->pub);
	CU_ASSERT_EQUAL_FATAL(harness_run(&h, &b, NULL, &k), TPM_RC_SUCCESS);
	return k;
}

/* Import under parent, Load, sign. */
static void import_and_sign(const struct pq_key *parent, const struct pq_key *orig,
			    const struct dup_blob *bl)
{
	TPM_HANDLE k = import_load(parent, orig, bl);

	signs_like(k, orig);
	CU_ASSERT_EQUAL(pq_flush(&h, k), TPM_RC_SUCCESS);
}

/* ML-DSA-65 and ECC keys to ML-KEM-768 and ML-KEM-1024 parents, with and without the inner
 * wrapper; the outSymSeed is the parameter set's ciphertext. */
static void test_round_trips(void)
{
	struct pq_key mldsa, ecc;
	struct dup_blob bl;

	duplicable_key(TPM_ALG_MLDSA, TPM_MLDSA_65, &mldsa);
	duplicable_key(TPM_ALG_ECC, 0, &ecc);
	CU_ASSERT_EQUAL_FATAL(duplicate(&mldsa, &kem768, &no_sym, &bl), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(bl.secret_len, mlkem_ct_bytes(TPM_MLKEM_768));
	CU_ASSERT_EQUAL(bl.key.size, 0);
	import_and_sign(&kem768, &mldsa, &bl);
	CU_ASSERT_EQUAL_FATAL(duplicate(&mldsa, &kem1024, &aes128, &bl), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(bl.secret_len, mlkem_ct_bytes(TPM_MLKEM_1024));
	CU_ASSERT_EQUAL(bl.key.size, 16);
	import_and_sign(&kem1024, &mldsa, &bl);
	CU_ASSERT_EQUAL_FATAL(duplicate(&ecc, &kem768, &aes128, &bl), TPM_RC_SUCCESS);
	import_and_sign(&kem768, &ecc, &bl);
	CU_ASSERT_EQUAL(pq_flush(&h, mldsa.handle), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(pq_flush(&h, ecc.handle), TPM_RC_SUCCESS);
}

/* ML-KEM keys travel too: a decryption key decapsulates after the move what was
 * encapsulated to it before; a storage key (its seedValue in the blob) parents new keys and
 * loads the ones it had. */
static void test_kem_keys(void)
{
	uint8_t ss[32], got[32], m[32] = { 5 }, ct[MLKEM_MAX_CT_BYTES];
	struct pq_key kem, store, child, moved;
	struct tpm2b_private priv;
	struct tpmt_public t;
	struct cmdbuf b;
	struct dup_blob bl;
	struct rd rsp;
	TPM_HANDLE k;
	uint16_t n = 0;

	duplicable_use(TPM_ALG_MLKEM, TPM_MLKEM_1024, TPMA_OBJECT_DECRYPT, &kem);
	CU_ASSERT_EQUAL_FATAL(mlkem_encaps(TPM_MLKEM_1024, kem.pub.unique.b, m, ct, ss), 0);
	CU_ASSERT_EQUAL_FATAL(duplicate(&kem, &kem768, &aes128, &bl), TPM_RC_SUCCESS);
	k = import_load(&kem768, &kem, &bl);
	cmd_begin(&b, TPM_CC_Decapsulate);
	cmd_handle(&b, k);
	cmd_auth_pw(&b, "");
	wr_tpm2b(&b.params, ct, (uint16_t)mlkem_ct_bytes(TPM_MLKEM_1024));
	CU_ASSERT_EQUAL_FATAL(harness_run(&h, &b, &rsp, NULL), TPM_RC_SUCCESS);
	CU_ASSERT(rd_tpm2b(&rsp, got, sizeof(got), &n) == 0 && n == 32 &&
		  memcmp(got, ss, 32) == 0);
	CU_ASSERT_EQUAL(pq_flush(&h, k), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(pq_flush(&h, kem.handle), TPM_RC_SUCCESS);

	/* a storage key with a child made before the move */
	duplicable_use(TPM_ALG_MLKEM, TPM_MLKEM_768, PQ_STORAGE, &store);
	pq_tmpl(&t, TPM_ALG_MLDSA, TPM_MLDSA_44, TPMA_OBJECT_SIGN_ENCRYPT);
	t.attributes &= ~(uint32_t)TPMA_OBJECT_FIXEDTPM;
	cmd_begin(&b, TPM_CC_Create);
	cmd_handle(&b, store.handle);
	cmd_auth_pw(&b, "");
	wr_u16(&b.params, 4); /* TPM2B_SENSITIVE_CREATE: empty auth and data */
	wr_u32(&b.params, 0);
	wr_tpm2b_public(&b.params, &t);
	wr_u16(&b.params, 0);
	wr_u32(&b.params, 0);
	CU_ASSERT_EQUAL_FATAL(harness_run(&h, &b, &rsp, NULL), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(rd_tpm2b(&rsp, priv.b, sizeof(priv.b), &priv.size), 0);
	CU_ASSERT_EQUAL_FATAL(rd_tpm2b_public(&rsp, &child.pub), 0);
	CU_ASSERT_EQUAL(object_name(&child.pub, &child.name), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(duplicate(&store, &kem1024, &no_sym, &bl), TPM_RC_SUCCESS);
	moved = store;
	moved.handle = import_load(&kem1024, &store, &bl);
	CU_ASSERT_EQUAL(pq_flush(&h, store.handle), TPM_RC_SUCCESS);
	/* the child's blob, made under the original, loads under the moved key and signs */
	cmd_begin(&b, TPM_CC_Load);
	cmd_handle(&b, moved.handle);
	cmd_auth_pw(&b, "");
	wr_tpm2b(&b.params, priv.b, priv.size);
	wr_tpm2b_public(&b.params, &child.pub);
	CU_ASSERT_EQUAL_FATAL(harness_run(&h, &b, NULL, &child.handle), TPM_RC_SUCCESS);
	signs_like(child.handle, &child);
	CU_ASSERT_EQUAL(pq_flush(&h, child.handle), TPM_RC_SUCCESS);
	/* and it makes new children */
	CU_ASSERT_EQUAL_FATAL(pq_create_load(&h, moved.handle, &t, "", &child), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(pq_flush(&h, child.handle), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(pq_flush(&h, moved.handle), TPM_RC_SUCCESS);
}

/* ---- the sender's side written here (Part 1 §23.3), to check the formula itself ---- */

static const uint8_t hmac_key[32] = "an hmac key of thirty-two bytes!";

/* An HMAC key from outside: public and sensitive areas built here. */
static void outside_hmac_key(struct tpmt_public *pub, struct tpmt_sensitive *sens,
			     struct tpm2b_name *name)
{
	struct crypto_hash_ctx hc;

	pq_tmpl(pub, TPM_ALG_KEYEDHASH, 0, 0);
	pub->attributes = TPMA_OBJECT_USERWITHAUTH | TPMA_OBJECT_SIGN_ENCRYPT;
	pub->scheme.scheme = TPM_ALG_HMAC;
	pub->scheme.hash_alg = TPM_ALG_SHA256;
	memset(sens, 0, sizeof(*sens));
	sens->type = TPM_ALG_KEYEDHASH;
	sens->seed_value.size = DSIZE;
	memset(sens->seed_value.b, 0xa5, DSIZE);
	sens->sensitive.size = sizeof(hmac_key);
	memcpy(sens->sensitive.b, hmac_key, sizeof(hmac_key));
	crypto_hash_start(&hc, TPM_ALG_SHA256);
	crypto_hash_update(&hc, sens->seed_value.b, DSIZE);
	crypto_hash_update(&hc, hmac_key, sizeof(hmac_key));
	crypto_hash_finish(&hc, pub->unique.b);
	pub->unique.size = DSIZE;
	CU_ASSERT_EQUAL_FATAL(object_name(pub, name), TPM_RC_SUCCESS);
}

/* Outer wrapper only, to an ML-KEM parent with AES-128 children: seed by encapsulation with
 * the label "DUPLICATE", then Part 1's STORAGE key and INTEGRITY HMAC. */
static void wrap_to_kem(const struct pq_key *p, const struct tpmt_sensitive *sens,
			const struct tpm2b_name *name, struct dup_blob *bl)
{
	uint8_t plain[512], m[32], k[32], seed[DSIZE], sym[16], hkey[DSIZE], iv[16] = { 0 };
	struct crypto_hmac_ctx mac;
	size_t mark, len, ctlen = mlkem_ct_bytes(p->pub.parameter_set);
	struct wr w;

	memset(bl, 0, sizeof(*bl));
	wr_init(&w, plain, sizeof(plain));
	wr_size_begin(&w, &mark);
	CU_ASSERT_EQUAL_FATAL(wr_sensitive(&w, sens), TPM_RC_SUCCESS);
	wr_size_end(&w, mark);
	len = w.off;
	CU_ASSERT_EQUAL_FATAL(crypto_random(m, sizeof(m)), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(mlkem_encaps(p->pub.parameter_set, p->pub.unique.b, m, bl->secret,
					   k),
			      0);
	bl->secret_len = (uint16_t)ctlen;
	CU_ASSERT_EQUAL(crypto_kdfa(TPM_ALG_SHA256, k, sizeof(k), "DUPLICATE", bl->secret, ctlen,
				    p->pub.unique.b, p->pub.unique.size, DSIZE * 8, seed),
			TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(crypto_kdfa(TPM_ALG_SHA256, seed, DSIZE, "STORAGE", name->b, name->size,
				    NULL, 0, 128, sym),
			TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(crypto_kdfa(TPM_ALG_SHA256, seed, DSIZE, "INTEGRITY", NULL, 0, NULL, 0,
				    DSIZE * 8, hkey),
			TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(crypto_aes(TPM_ALG_CFB, true, sym, sizeof(sym), iv, plain,
				   bl->dup.b + 2 + DSIZE, len),
			TPM_RC_SUCCESS);
	crypto_hmac_start(&mac, TPM_ALG_SHA256, hkey, DSIZE);
	crypto_hmac_update(&mac, bl->dup.b + 2 + DSIZE, len);
	crypto_hmac_update(&mac, name->b, name->size);
	crypto_hmac_finish(&mac, bl->dup.b + 2);
	bl->dup.b[0] = 0;
	bl->dup.b[1] = DSIZE;
	bl->dup.size = (uint16_t)(2 + DSIZE + len);
}

/* A key wrapped here for the TPM's ML-KEM-768 and ML-KEM-1024 parents imports and computes
 * the HMAC the known key gives. */
static void test_outside_sender(void)
{
	const struct pq_key *parents[] = { &kem768, &kem1024 };
	static struct tpmt_public pub;
	uint8_t want[DSIZE];
	struct tpmt_sensitive sens;
	struct tpm2b_digest got;
	struct tpm2b_private priv;
	struct tpm2b_name name;
	struct cmdbuf b;
	struct dup_blob bl;
	struct rd rsp;
	TPM_HANDLE k;

	outside_hmac_key(&pub, &sens, &name);
	CU_ASSERT_EQUAL(crypto_hmac(TPM_ALG_SHA256, hmac_key, sizeof(hmac_key), name.b, name.size,
				    want),
			TPM_RC_SUCCESS);
	for (size_t i = 0; i < 2; i++) {
		wrap_to_kem(parents[i], &sens, &name, &bl);
		CU_ASSERT_EQUAL_FATAL(import(parents[i], &pub, &bl, &priv),
				      TPM_RC_SUCCESS);
		cmd_begin(&b, TPM_CC_Load);
		cmd_handle(&b, parents[i]->handle);
		cmd_auth_pw(&b, "");
		wr_tpm2b(&b.params, priv.b, priv.size);
		wr_tpm2b_public(&b.params, &pub);
		CU_ASSERT_EQUAL_FATAL(harness_run(&h, &b, NULL, &k), TPM_RC_SUCCESS);
		cmd_begin(&b, TPM_CC_HMAC);
		cmd_handle(&b, k);
		cmd_auth_pw(&b, "");
		wr_tpm2b(&b.params, name.b, name.size);
		wr_u16(&b.params, TPM_ALG_SHA256);
		CU_ASSERT_EQUAL_FATAL(harness_run(&h, &b, &rsp, NULL), TPM_RC_SUCCESS);
		CU_ASSERT(rd_tpm2b_digest(&rsp, &got) == 0 && got.size == DSIZE &&
			  memcmp(got.b, want, DSIZE) == 0);
		CU_ASSERT_EQUAL(pq_flush(&h, k), TPM_RC_SUCCESS);
	}
}

/* The new parent as a duplicator on another TPM has it: its public part alone. */
static void test_external_parent(void)
{
	struct pq_key mldsa, ext;
	struct tpm2b_private priv;
	struct dup_blob bl;

	duplicable_key(TPM_ALG_MLDSA, TPM_MLDSA_44, &mldsa);
	CU_ASSERT_EQUAL_FATAL(pq_load_public(&h, &kem768.pub, &ext), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(duplicate(&mldsa, &ext, &aes128, &bl), TPM_RC_SUCCESS);
	import_and_sign(&kem768, &mldsa, &bl);
	/* a public part cannot decapsulate */
	CU_ASSERT_EQUAL(import(&ext, &mldsa.pub, &bl, &priv), TPM_RC_AUTH_UNAVAILABLE);
	CU_ASSERT_EQUAL(pq_flush(&h, ext.handle), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(pq_flush(&h, mldsa.handle), TPM_RC_SUCCESS);
}

/* A ciphertext altered, shortened, or made for another parent. ML-KEM's implicit rejection
 * turns a wrong ciphertext of the right length into a wrong seed, which the outer HMAC
 * catches: TPM_RC_INTEGRITY on duplicate; a ciphertext of another length is TPM_RC_SIZE on
 * inSymSeed. */
static void test_tampered_seed(void)
{
	struct tpm2b_private priv;
	struct pq_key mldsa;
	struct dup_blob bl, bad;

	duplicable_key(TPM_ALG_MLDSA, TPM_MLDSA_44, &mldsa);
	CU_ASSERT_EQUAL_FATAL(duplicate(&mldsa, &kem768, &no_sym, &bl), TPM_RC_SUCCESS);
	bad = bl;
	bad.secret[0] ^= 0x01;
	CU_ASSERT_EQUAL(import(&kem768, &mldsa.pub, &bad, &priv), RC_P(TPM_RC_INTEGRITY, 3));
	bad = bl;
	bad.secret[bad.secret_len - 1] ^= 0x80;
	CU_ASSERT_EQUAL(import(&kem768, &mldsa.pub, &bad, &priv), RC_P(TPM_RC_INTEGRITY, 3));
	bad = bl;
	bad.secret_len--;
	CU_ASSERT_EQUAL(import(&kem768, &mldsa.pub, &bad, &priv), RC_P(TPM_RC_SIZE, 4));
	/* a seed for another ML-KEM-768 key, or for a key of another parameter set */
	CU_ASSERT_EQUAL(import(&kem_other, &mldsa.pub, &bl, &priv), RC_P(TPM_RC_INTEGRITY, 3));
	CU_ASSERT_EQUAL(import(&kem1024, &mldsa.pub, &bl, &priv), RC_P(TPM_RC_SIZE, 4));
	/* the untouched blob still imports */
	import_and_sign(&kem768, &mldsa, &bl);
	CU_ASSERT_EQUAL(pq_flush(&h, mldsa.handle), TPM_RC_SUCCESS);
}

/* Rewrap: ML-KEM old parent (decapsulation) to ECC, and ECC to ML-KEM (encapsulation). */
static void test_rewrap(void)
{
	struct dup_blob bl, to_ecc, to_kem, bad;
	struct pq_key mldsa;

	duplicable_key(TPM_ALG_MLDSA, TPM_MLDSA_87, &mldsa);
	CU_ASSERT_EQUAL_FATAL(duplicate(&mldsa, &kem1024, &aes128, &bl), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(rewrap(&kem1024, &ecc_parent, &mldsa.name, &bl, &to_ecc),
			      TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(to_ecc.secret_len, 4 + 2 * 32);
	import_and_sign(&ecc_parent, &mldsa, &to_ecc);
	CU_ASSERT_EQUAL_FATAL(rewrap(&ecc_parent, &kem768, &mldsa.name, &to_ecc, &to_kem),
			      TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(to_kem.secret_len, mlkem_ct_bytes(TPM_MLKEM_768));
	import_and_sign(&kem768, &mldsa, &to_kem);
	bad = bl;
	bad.secret[10] ^= 0x04;
	CU_ASSERT_EQUAL(rewrap(&kem1024, &ecc_parent, &mldsa.name, &bad, &to_ecc),
			RC_P(TPM_RC_INTEGRITY, 1));
	bad.secret_len--;
	CU_ASSERT_EQUAL(rewrap(&kem1024, &ecc_parent, &mldsa.name, &bad, &to_ecc),
			RC_P(TPM_RC_VALUE, 3));
	CU_ASSERT_EQUAL(pq_flush(&h, mldsa.handle), TPM_RC_SUCCESS);
}

int main(void)
{
	static const struct unit_test tests[] = {
		{ "ML-DSA and ECC keys to ML-KEM parents", test_round_trips },
		{ "ML-KEM keys moved to ML-KEM parents", test_kem_keys },
		{ "a blob wrapped outside the TPM", test_outside_sender },
		{ "new parent from another TPM", test_external_parent },
		{ "tampered, short and foreign seeds", test_tampered_seed },
		{ "Rewrap with ML-KEM parents", test_rewrap },
	};

	return UNIT_RUN("pq_dup", tests, setup, teardown);
}
