/* NIST P-521 in the TPM (issue 15), on the commands that use a curve and are not covered on
 * P-521 beside P-256 elsewhere (ECDH and ECC_Parameters: test_ecc; EC_Ephemeral, Commit,
 * ZGen_2Phase, ECDAA and EC Schnorr: test_ecc_commit; Quote and the ECDAA attestations:
 * test_attest): the RFC 6979 A.2.7 key loaded with LoadExternal, its public key derived by the
 * TPM and its published signature verified by VerifySignature; ECDSA signatures of the TPM
 * with each hash checked outside it; a primary made twice from one template is one key;
 * a P-521 storage parent (children, the outer wrapper of Duplicate / Import, whose seed
 * travels by ECDH); credentials with a P-521 EK; the size limits of a 66-byte coordinate. */
#include <string.h>

#include <CUnit/Basic.h>

#include "crypto/crypto.h"
#include "dup_util.h"
#include "harness.h"
#include "keys.h"
#include "unit_main.h"
#include "vectors.h"

#define SIGN TPMA_OBJECT_SIGN_ENCRYPT
#define DECRYPT TPMA_OBJECT_DECRYPT
#define RESTRICTED TPMA_OBJECT_RESTRICTED
#define STORAGE (KEY_BASE | RESTRICTED | DECRYPT)
#define P521 TPM_ECC_NIST_P521
#define LEN 66

/* RFC 6979 A.2.7: the key, and the signature of "sample" with SHA-512 */
#define RFC_D                                                                              \
	"00fad06daa62ba3b25d2fb40133da757205de67f5bb0018fee8c86e1b68c7e75"                 \
	"caa896eb32f1f47c70855836a6d16fcc1466f6d8fbec67db89ec0c08b0e996b83538"
#define RFC_UX                                                                             \
	"01894550d0785932e00eaa23b694f213f8c3121f86dc97a04e5a7167db4e5bcd"                 \
	"371123d46e45db6b5d5370a7f20fb633155d38ffa16d2bd761dcac474b9a2f5023a4"
#define RFC_UY                                                                             \
	"00493101c962cd4d2fddf782285e64584139c2f91b47f87ff82354d6630f746a"                 \
	"28a0db25741b5b34a828008b22acc23f924faafbd4d33f81ea66956dfeaa2bfdfcf5"
#define RFC_R                                                                              \
	"00c328fafcbd79dd77850370c46325d987cb525569fb63c5d3bc53950e6d4c5f"                 \
	"174e25a1ee9017b5d450606add152b534931d7d4e8455cc91f9b15bf05ec36e377fa"
#define RFC_S                                                                              \
	"00617cce7cf5064806c467f678d3b4080d6f1cc50af26ca209417308281b68af"                 \
	"282623eaa63e5b5c0723d8b8c37ff0777b1a20f8ccb1dccc43997f1ee0e44da4a67a"

static struct harness h;

static void setup(void)
{
	harness_open(&h);
}

static void teardown(void)
{
	harness_close(&h);
}

static void p521_template(struct tpmt_public *t, uint32_t attrs, TPM_ALG_ID scheme,
			  TPM_ALG_ID hash)
{
	key_template_attrs(t, TPM_ALG_ECC, attrs);
	t->curve_id = P521;
	t->scheme.scheme = scheme;
	t->scheme.hash_alg = hash;
	if ((attrs & STORAGE) == STORAGE) {
		t->symmetric.alg = TPM_ALG_AES;
		t->symmetric.key_bits = 256;
		t->symmetric.mode = TPM_ALG_CFB;
	}
}

static TPM_RC sign(TPM_HANDLE key, const uint8_t *digest, uint16_t dlen, TPM_ALG_ID hash,
		   struct tpmt_signature *sig)
{
	struct cmdbuf b;
	struct rd r;
	TPM_RC rc;

	cmd_begin(&b, TPM_CC_Sign);
	cmd_handle(&b, key);
	cmd_auth_pw(&b, "");
	wr_tpm2b(&b.params, digest, dlen);
	wr_u16(&b.params, TPM_ALG_ECDSA);
	wr_u16(&b.params, hash);
	wr_u16(&b.params, TPM_ST_HASHCHECK);
	wr_u32(&b.params, TPM_RH_NULL);
	wr_u16(&b.params, 0);
	rc = harness_run(&h, &b, &r, NULL);
	if (rc == TPM_RC_SUCCESS)
		CU_ASSERT_EQUAL(rd_signature(&r, sig), 0);
	return rc;
}

static TPM_RC verify(TPM_HANDLE key, const uint8_t *digest, uint16_t dlen,
		     const struct tpmt_signature *sig)
{
	struct cmdbuf b;

	cmd_begin(&b, TPM_CC_VerifySignature);
	cmd_handle(&b, key);
	wr_tpm2b(&b.params, digest, dlen);
	wr_signature(&b.params, sig);
	return harness_run(&h, &b, NULL, NULL);
}

static TPM_RC load_external(const struct tpmt_sensitive *sens, const struct tpmt_public *pub,
			    TPM_HANDLE *out)
{
	struct cmdbuf b;
	size_t mark;

	cmd_begin(&b, TPM_CC_LoadExternal);
	wr_size_begin(&b.params, &mark);
	if (sens)
		wr_sensitive(&b.params, sens);
	wr_size_end(&b.params, mark);
	wr_tpm2b_public(&b.params, pub);
	wr_u32(&b.params, TPM_RH_NULL);
	return harness_run(&h, &b, NULL, out);
}

/* The RFC 6979 key through LoadExternal: a public point off the curve is refused; with the
 * right one, its private part and with
 * the public part alone, the published signature verifies, a changed one does not; the TPM's
 * own signature with this key verifies outside it. */
static void test_rfc6979_key(void)
{
	uint8_t digest[64];
	struct tpmt_public pub;
	struct tpmt_sensitive sens;
	struct tpmt_signature sig, mine;
	TPM_HANDLE pub_only, pair;

	p521_template(&pub, TPMA_OBJECT_USERWITHAUTH | SIGN, TPM_ALG_ECDSA, TPM_ALG_SHA512);
	pub.x.size = (uint16_t)vec_unhex(RFC_UX, pub.x.b);
	pub.y.size = (uint16_t)vec_unhex(RFC_UY, pub.y.b);
	memset(&sens, 0, sizeof(sens));
	sens.type = TPM_ALG_ECC;
	sens.sensitive.size = (uint16_t)vec_unhex(RFC_D, sens.sensitive.b);
	CU_ASSERT_EQUAL(pub.x.size, LEN);
	CU_ASSERT_EQUAL(sens.sensitive.size, LEN);

	pub.y.b[LEN - 1] ^= 1; /* off the curve: refused as a public key */
	CU_ASSERT_EQUAL(load_external(&sens, &pub, &pair), RC_P(TPM_RC_ECC_POINT, 2));
	pub.y.b[LEN - 1] ^= 1;
	CU_ASSERT_EQUAL_FATAL(load_external(&sens, &pub, &pair), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(load_external(NULL, &pub, &pub_only), TPM_RC_SUCCESS);

	memset(&sig, 0, sizeof(sig));
	sig.sig_alg = TPM_ALG_ECDSA;
	sig.hash = TPM_ALG_SHA512;
	sig.r.size = (uint16_t)vec_unhex(RFC_R, sig.r.b);
	sig.s.size = (uint16_t)vec_unhex(RFC_S, sig.s.b);
	CU_ASSERT_EQUAL(crypto_hash(TPM_ALG_SHA512, "sample", 6, digest), 0);
	CU_ASSERT_EQUAL(verify(pub_only, digest, 64, &sig), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(verify(pair, digest, 64, &sig), TPM_RC_SUCCESS);
	sig.s.b[LEN - 1] ^= 1;
	CU_ASSERT_EQUAL(verify(pub_only, digest, 64, &sig), RC_P(TPM_RC_SIGNATURE, 2));

	CU_ASSERT_EQUAL_FATAL(sign(pair, digest, 64, TPM_ALG_SHA512, &mine), TPM_RC_SUCCESS);
	CU_ASSERT(mine.r.size == LEN && mine.s.size == LEN);
	CU_ASSERT_EQUAL(crypto_ecdsa_verify(P521, pub.x.b, pub.y.b, digest, 64, mine.r.b, LEN,
					    mine.s.b, LEN),
			TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(verify(pub_only, digest, 64, &mine), TPM_RC_SUCCESS);
}

/* A key created under a P-521 parent signs with each hash; one primary template twice gives
 * one key (Part 1 primary derivation); a different template another. */
static void test_keys_and_primaries(void)
{
	static const TPM_ALG_ID hashes[] = { TPM_ALG_SHA1, TPM_ALG_SHA256, TPM_ALG_SHA384,
					     TPM_ALG_SHA512 };
	struct tpmt_public t, pub;
	struct tpm2b_private priv;
	struct tpm2b_name name;
	struct key parent, again, other;
	TPM_HANDLE k;

	p521_template(&t, STORAGE, TPM_ALG_NULL, TPM_ALG_NULL);
	key_primary(&h, &t, NULL, 0, &parent);
	CU_ASSERT(parent.pub.x.size == LEN && parent.pub.y.size == LEN);
	CU_ASSERT_EQUAL(crypto_ecc_check_point(P521, parent.pub.x.b, LEN, parent.pub.y.b, LEN), 0);
	key_primary(&h, &t, NULL, 0, &again);
	CU_ASSERT(memcmp(parent.pub.x.b, again.pub.x.b, LEN) == 0 &&
		  memcmp(parent.pub.y.b, again.pub.y.b, LEN) == 0);
	t.name_alg = TPM_ALG_SHA512;
	key_primary(&h, &t, NULL, 0, &other);
	CU_ASSERT(memcmp(parent.pub.x.b, other.pub.x.b, LEN) != 0);

	p521_template(&t, KEY_BASE | SIGN | TPMA_OBJECT_SENSITIVEDATAORIGIN, TPM_ALG_NULL,
		      TPM_ALG_NULL);
	CU_ASSERT_EQUAL_FATAL(key_create(&h, parent.handle, &t, "", NULL, 0, &priv, &pub),
			      TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(key_load(&h, parent.handle, &priv, &pub, &k, &name), TPM_RC_SUCCESS);
	for (size_t i = 0; i < 4; i++) {
		uint8_t digest[64];
		uint16_t dlen = (uint16_t)crypto_hash_size(hashes[i]);
		struct tpmt_signature sig;

		CU_ASSERT_EQUAL(crypto_hash(hashes[i], "message", 7, digest), 0);
		CU_ASSERT_EQUAL_FATAL(sign(k, digest, dlen, hashes[i], &sig), TPM_RC_SUCCESS);
		CU_ASSERT_EQUAL(crypto_ecdsa_verify(P521, pub.x.b, pub.y.b, digest, dlen, sig.r.b,
						    sig.r.size, sig.s.b, sig.s.size),
				TPM_RC_SUCCESS);
		CU_ASSERT_EQUAL(verify(k, digest, dlen, &sig), TPM_RC_SUCCESS);
	}
	/* a P-521 point in a P-256 key's public area is refused */
	key_template(&t, TPM_ALG_ECC, SIGN);
	t.x = parent.pub.x;
	t.y = parent.pub.y;
	CU_ASSERT_EQUAL(load_external(NULL, &t, &k), RC_P(TPM_RC_KEY, 2));
}

/* Duplicate an object to a P-521 storage parent (outer wrapper: its seed shared by ECDH on
 * P-521 with KDFe), Import it there, load and sign with it. */
static void test_duplicate_import(void)
{
	static const struct tpmt_sym_def none = { TPM_ALG_NULL, 0, 0 };
	struct tpmt_public t, pub;
	struct tpm2b_private priv, imported;
	struct tpm2b_digest policy;
	struct tpm2b_name name;
	struct tpmt_signature sig;
	struct dup_blob bl;
	struct key from, to;
	uint8_t digest[32] = { 5 };
	TPM_HANDLE obj;

	p521_template(&t, STORAGE, TPM_ALG_NULL, TPM_ALG_NULL);
	key_primary(&h, &t, NULL, 0, &to);
	t.name_alg = TPM_ALG_SHA384;
	key_primary(&h, &t, NULL, 0, &from);

	dup_policy(&policy);
	p521_template(&t, TPMA_OBJECT_USERWITHAUTH | SIGN | TPMA_OBJECT_SENSITIVEDATAORIGIN,
		      TPM_ALG_ECDSA, TPM_ALG_SHA256);
	t.auth_policy = policy;
	CU_ASSERT_EQUAL_FATAL(key_create(&h, from.handle, &t, "", NULL, 0, &priv, &pub),
			      TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(key_load(&h, from.handle, &priv, &pub, &obj, &name), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(dup_duplicate(&h, obj, &name, to.handle, &to.name,
					    &(struct tpm2b_data){ 0 }, &none, true, NULL, &bl),
			      TPM_RC_SUCCESS);
	/* TPM2B_ENCRYPTED_SECRET of an ECC parent: a TPMS_ECC_POINT of 2 + 66 + 2 + 66 */
	CU_ASSERT_EQUAL(bl.secret_len, 2 + LEN + 2 + LEN);
	CU_ASSERT_EQUAL_FATAL(dup_import(&h, to.handle, &pub, &bl, &none, &imported),
			      TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(key_load(&h, to.handle, &imported, &pub, &obj, &name),
			      TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(sign(obj, digest, 32, TPM_ALG_SHA256, &sig), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(crypto_ecdsa_verify(P521, pub.x.b, pub.y.b, digest, 32, sig.r.b,
					    sig.r.size, sig.s.b, sig.s.size),
			TPM_RC_SUCCESS);
	/* under the wrong parent the seed does not come out right */
	CU_ASSERT_EQUAL(dup_import(&h, from.handle, &pub, &bl, &none, &imported),
			RC_P(TPM_RC_INTEGRITY, 3));
}

/* MakeCredential / ActivateCredential with a P-521 EK-style key */
static void test_credential(void)
{
	static const char cred[] = "for a P-521 EK";
	uint8_t blob[256], secret[512];
	uint16_t blen, slen;
	struct tpmt_public t;
	struct tpm2b_digest out;
	struct key ek, ak;
	struct cmdbuf b;
	struct rd r;

	p521_template(&t, STORAGE, TPM_ALG_NULL, TPM_ALG_NULL);
	key_primary(&h, &t, NULL, 0, &ek);
	p521_template(&t, KEY_BASE | SIGN | RESTRICTED, TPM_ALG_ECDSA, TPM_ALG_SHA512);
	key_primary(&h, &t, NULL, 0, &ak);

	cmd_begin(&b, TPM_CC_MakeCredential);
	cmd_handle(&b, ek.handle);
	wr_tpm2b(&b.params, cred, sizeof(cred) - 1);
	wr_tpm2b_name(&b.params, &ak.name);
	CU_ASSERT_EQUAL_FATAL(harness_run(&h, &b, &r, NULL), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(rd_tpm2b(&r, blob, sizeof(blob), &blen), 0);
	CU_ASSERT_EQUAL(rd_tpm2b(&r, secret, sizeof(secret), &slen), 0);
	CU_ASSERT_EQUAL(slen, 2 + LEN + 2 + LEN);

	cmd_begin(&b, TPM_CC_ActivateCredential);
	cmd_handle(&b, ak.handle);
	cmd_handle(&b, ek.handle);
	cmd_auth_pw(&b, "");
	cmd_auth_pw(&b, "");
	wr_tpm2b(&b.params, blob, blen);
	wr_tpm2b(&b.params, secret, slen);
	CU_ASSERT_EQUAL_FATAL(harness_run(&h, &b, &r, NULL), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(rd_tpm2b_digest(&r, &out), 0);
	CU_ASSERT(out.size == sizeof(cred) - 1 && memcmp(out.b, cred, out.size) == 0);
}

/* A coordinate of 67 bytes is no TPM2B_ECC_PARAMETER (TPM_RC_SIZE in the public area's
 * unique); 66 with the top bits set is off the field (x >= p: TPM_RC_ECC_POINT on load). */
static void test_sizes(void)
{
	struct tpmt_public t;
	struct cmdbuf b;
	uint8_t big[LEN + 1] = { 0 };
	size_t mark;
	TPM_HANDLE k;

	p521_template(&t, TPMA_OBJECT_USERWITHAUTH | SIGN, TPM_ALG_ECDSA, TPM_ALG_SHA512);
	t.x.size = t.y.size = LEN;
	memset(t.x.b, 0xff, LEN);
	memset(t.y.b, 0x01, LEN);
	CU_ASSERT_EQUAL(load_external(NULL, &t, &k), RC_P(TPM_RC_ECC_POINT, 2));

	cmd_begin(&b, TPM_CC_LoadExternal);
	wr_u16(&b.params, 0);
	wr_size_begin(&b.params, &mark);
	t.x.size = t.y.size = 0;
	wr_public(&b.params, &t);
	b.params.off -= 4; /* the empty x and y */
	wr_tpm2b(&b.params, big, sizeof(big));
	wr_tpm2b(&b.params, big, LEN);
	wr_size_end(&b.params, mark);
	wr_u32(&b.params, TPM_RH_NULL);
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), RC_P(TPM_RC_SIZE, 2));
}

int main(void)
{
	static const struct unit_test tests[] = {
		{ "RFC 6979 A.2.7 key: LoadExternal, VerifySignature, Sign", test_rfc6979_key },
		{ "keys, primaries, ECDSA with each hash", test_keys_and_primaries },
		{ "Duplicate / Import to a P-521 parent", test_duplicate_import },
		{ "MakeCredential / ActivateCredential", test_credential },
		{ "coordinate sizes", test_sizes },
	};

	return UNIT_RUN("ecc_p521", tests, setup, teardown);
}
