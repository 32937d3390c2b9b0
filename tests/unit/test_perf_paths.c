/* The fast paths (core/dispatch.c, core/state/file.c, core/crypto/rsa_key.c, core/scheme.c,
 * core/object/primary.c): an RSA key's private key built once and kept in the loaded object
 * (for Sign and RSA_Decrypt, also through ContextSave/ContextLoad and EvictControl copies, and
 * for two keys in one cache slot), the RSA and ECC primaries kept for CreatePrimary (same key again, the
 * caller's authValue, gone with the seed: Clear, TPM Reset), and commands that only read the
 * state (and PCR_Extend) running
 * without the directory's lock while another engine holds it, yet seeing what another engine
 * wrote, a changed ownerAuth included; a session bound to a DA-protected entity on such a
 * command still counts its failure; a forked child locks through its own lock file. */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CUnit/Basic.h>

#include "crypto/crypto.h"
#include "engine_int.h"
#include "harness.h"
#include "state/store.h"
#include "unit_main.h"

#define DSIZE 32
#define KEY_ATTRS                                                                          \
	(TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT | TPMA_OBJECT_SENSITIVEDATAORIGIN |  \
	 TPMA_OBJECT_USERWITHAUTH | TPMA_OBJECT_SIGN_ENCRYPT)
#define PERSISTENT 0x81000123u

static struct harness h;
static char tmp_root[] = "/tmp/pqtpm-test-perf-XXXXXX";
static unsigned dirs;

/* ---- commands ---- */

static void rsa_template(struct tpmt_public *p, uint16_t bits)
{
	memset(p, 0, sizeof(*p));
	p->type = TPM_ALG_RSA;
	p->name_alg = TPM_ALG_SHA256;
	p->attributes = KEY_ATTRS;
	p->symmetric.alg = TPM_ALG_NULL;
	p->scheme.scheme = p->scheme.hash_alg = p->scheme.kdf = TPM_ALG_NULL;
	p->kdf.scheme = p->kdf.hash_alg = p->kdf.kdf = TPM_ALG_NULL;
	p->pre_hash = TPM_ALG_NULL;
	p->key_bits = bits;
}

/* CreatePrimary from template t; its public area in *out (if not NULL). */
static TPM_RC primary_from(struct harness *x, TPM_HANDLE hier, const struct tpmt_public *t,
			   const char *auth, const char *data, TPM_HANDLE *handle,
			   struct tpmt_public *out)
{
	struct cmdbuf b;
	struct rd r;
	size_t mark;
	TPM_RC rc;

	cmd_begin(&b, TPM_CC_CreatePrimary);
	cmd_handle(&b, hier);
	cmd_auth_pw(&b, "");
	wr_size_begin(&b.params, &mark);
	wr_tpm2b(&b.params, auth, (uint16_t)strlen(auth));
	wr_tpm2b(&b.params, data, (uint16_t)strlen(data));
	wr_size_end(&b.params, mark);
	wr_tpm2b_public(&b.params, t);
	wr_u16(&b.params, 0);
	wr_u32(&b.params, 0);
	rc = harness_run(x, &b, &r, handle);
	if (rc == TPM_RC_SUCCESS && out)
		CU_ASSERT_EQUAL(rd_tpm2b_public(&r, out), TPM_RC_SUCCESS);
	return rc;
}

/* CreatePrimary of an RSA signing key. */
static TPM_RC primary(struct harness *x, TPM_HANDLE hier, const char *auth, const char *data,
		      TPM_HANDLE *handle, struct tpmt_public *out)
{
	struct tpmt_public t;

	rsa_template(&t, 2048);
	return primary_from(x, hier, &t, auth, data, handle, out);
}

static void flush(struct harness *x, TPM_HANDLE handle)
{
	struct cmdbuf b;

	cmd_begin(&b, TPM_CC_FlushContext);
	wr_u32(&b.params, handle);
	CU_ASSERT_EQUAL(harness_run(x, &b, NULL, NULL), TPM_RC_SUCCESS);
}

/* Sign with scheme (SHA-256). */
static TPM_RC sign_as(TPM_HANDLE key, const char *pw, TPM_ALG_ID scheme,
		      const uint8_t digest[DSIZE], struct tpmt_signature *sig)
{
	struct cmdbuf b;
	struct rd r;
	TPM_RC rc;

	cmd_begin(&b, TPM_CC_Sign);
	cmd_handle(&b, key);
	cmd_auth_pw(&b, pw);
	wr_tpm2b(&b.params, digest, DSIZE);
	wr_u16(&b.params, scheme);
	wr_u16(&b.params, TPM_ALG_SHA256);
	wr_u16(&b.params, TPM_ST_HASHCHECK);
	wr_u32(&b.params, TPM_RH_NULL);
	wr_u16(&b.params, 0);
	rc = harness_run(&h, &b, &r, NULL);
	if (rc == TPM_RC_SUCCESS)
		CU_ASSERT_EQUAL(rd_signature(&r, sig), TPM_RC_SUCCESS);
	return rc;
}

static TPM_RC sign(TPM_HANDLE key, const char *pw, const uint8_t digest[DSIZE],
		   struct tpmt_signature *sig)
{
	return sign_as(key, pw, TPM_ALG_RSASSA, digest, sig);
}

static TPM_RC verify(TPM_HANDLE key, const uint8_t digest[DSIZE], const struct tpmt_signature *sig)
{
	struct cmdbuf b;

	cmd_begin(&b, TPM_CC_VerifySignature);
	cmd_handle(&b, key);
	wr_tpm2b(&b.params, digest, DSIZE);
	wr_signature(&b.params, sig);
	return harness_run(&h, &b, NULL, NULL);
}

/* Sign a fresh digest with key and check the signature with check_key. */
static void sign_and_verify(TPM_HANDLE key, TPM_HANDLE check_key, uint8_t tag)
{
	struct tpmt_signature sig;
	uint8_t digest[DSIZE];

	memset(digest, tag, sizeof(digest));
	CU_ASSERT_EQUAL_FATAL(sign(key, "", digest, &sig), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(verify(check_key, digest, &sig), TPM_RC_SUCCESS);
	digest[0] ^= 1;
	CU_ASSERT_NOT_EQUAL(verify(check_key, digest, &sig), TPM_RC_SUCCESS);
}

static struct object *loaded(TPM_HANDLE handle)
{
	return object_find(h.c, handle);
}

static uint32_t prop(struct harness *x, uint32_t pt)
{
	struct cmdbuf b;
	struct rd r;
	uint32_t cap, count, tag, v = 0xFFFFFFFFu;
	uint8_t more;

	cmd_begin(&b, TPM_CC_GetCapability);
	wr_u32(&b.params, TPM_CAP_TPM_PROPERTIES);
	wr_u32(&b.params, pt);
	wr_u32(&b.params, 1);
	CU_ASSERT_EQUAL_FATAL(harness_run(x, &b, &r, NULL), TPM_RC_SUCCESS);
	CU_ASSERT(rd_u8(&r, &more) == TPM_RC_SUCCESS && rd_u32(&r, &cap) == TPM_RC_SUCCESS &&
		  rd_u32(&r, &count) == TPM_RC_SUCCESS && count == 1 &&
		  rd_u32(&r, &tag) == TPM_RC_SUCCESS && tag == pt &&
		  rd_u32(&r, &v) == TPM_RC_SUCCESS);
	return v;
}

static void new_dir(char *out, size_t cap)
{
	snprintf(out, cap, "%s/d%u", tmp_root, dirs++);
}

/* ---- the RSA private key kept in the object ---- */

static void test_rsa_key_kept(void)
{
	TPM_HANDLE a, b2, copy;
	struct cmdbuf b;
	struct rd r;
	struct object *o;
	const struct key_forms *first;
	uint8_t ctx[2048];
	size_t n;

	CU_ASSERT_EQUAL_FATAL(primary(&h, TPM_RH_OWNER, "", "a", &a, NULL), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(primary(&h, TPM_RH_OWNER, "", "b", &b2, NULL), TPM_RC_SUCCESS);
	o = loaded(a);
	CU_ASSERT_PTR_NULL(o->forms);
	sign_and_verify(a, a, 1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(o->forms);
	CU_ASSERT_PTR_EQUAL(o->forms_owner, o);
	first = o->forms;
	/* kept: used again, not built again; another key has its own */
	sign_and_verify(a, a, 2);
	CU_ASSERT_PTR_EQUAL(o->forms, first);
	sign_and_verify(b2, b2, 3);
	CU_ASSERT_PTR_NOT_NULL(loaded(b2)->forms);
	CU_ASSERT_PTR_NOT_EQUAL(loaded(b2)->forms, first);
	sign_and_verify(a, a, 4);
	CU_ASSERT_PTR_EQUAL(o->forms, first);

	/* ContextSave / ContextLoad: the copy builds its own; the original goes first */
	cmd_begin(&b, TPM_CC_ContextSave);
	cmd_handle(&b, a);
	CU_ASSERT_EQUAL_FATAL(harness_run(&h, &b, &r, NULL), TPM_RC_SUCCESS);
	n = rd_left(&r);
	CU_ASSERT_FATAL(n <= sizeof(ctx));
	memcpy(ctx, r.buf + r.off, n);
	cmd_begin(&b, TPM_CC_ContextLoad);
	wr_bytes(&b.params, ctx, n);
	CU_ASSERT_EQUAL_FATAL(harness_run(&h, &b, NULL, &copy), TPM_RC_SUCCESS);
	flush(&h, a);
	sign_and_verify(copy, copy, 5);
	o = loaded(copy);
	CU_ASSERT_PTR_EQUAL(o->forms_owner, o);

	/* EvictControl: the persistent copy starts without one, the transient goes first */
	cmd_begin(&b, TPM_CC_EvictControl);
	cmd_handle(&b, TPM_RH_OWNER);
	cmd_handle(&b, copy);
	cmd_auth_pw(&b, "");
	wr_u32(&b.params, PERSISTENT);
	CU_ASSERT_EQUAL_FATAL(harness_run(&h, &b, NULL, NULL), TPM_RC_SUCCESS);
	o = loaded(PERSISTENT);
	CU_ASSERT_PTR_NOT_NULL_FATAL(o);
	CU_ASSERT_PTR_NOT_EQUAL(o->forms_owner, o);
	flush(&h, copy);
	sign_and_verify(PERSISTENT, PERSISTENT, 6);
	o = loaded(PERSISTENT);
	CU_ASSERT_PTR_EQUAL(o->forms_owner, o);
	CU_ASSERT_PTR_NOT_NULL(o->forms);
	cmd_begin(&b, TPM_CC_EvictControl);
	cmd_handle(&b, TPM_RH_OWNER);
	cmd_handle(&b, PERSISTENT);
	cmd_auth_pw(&b, "");
	wr_u32(&b.params, PERSISTENT);
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), TPM_RC_SUCCESS);
	flush(&h, b2);
}

/* RSA_Encrypt then RSA_Decrypt with OAEP; the message that comes back in *out. */
static TPM_RC rsa_round_trip(TPM_HANDLE key, const uint8_t *msg, uint16_t len,
			     struct tpm2b_digest *out)
{
	struct cmdbuf b;
	struct rd r;
	uint8_t cipher[256];
	uint16_t clen = 0;
	TPM_RC rc;

	cmd_begin(&b, TPM_CC_RSA_Encrypt);
	cmd_handle(&b, key);
	wr_tpm2b(&b.params, msg, len);
	wr_u16(&b.params, TPM_ALG_OAEP);
	wr_u16(&b.params, TPM_ALG_SHA256);
	wr_tpm2b(&b.params, "", 0);
	rc = harness_run(&h, &b, &r, NULL);
	if (rc != TPM_RC_SUCCESS)
		return rc;
	CU_ASSERT_EQUAL_FATAL(rd_tpm2b(&r, cipher, sizeof(cipher), &clen), TPM_RC_SUCCESS);
	cmd_begin(&b, TPM_CC_RSA_Decrypt);
	cmd_handle(&b, key);
	cmd_auth_pw(&b, "");
	wr_tpm2b(&b.params, cipher, clen);
	wr_u16(&b.params, TPM_ALG_OAEP);
	wr_u16(&b.params, TPM_ALG_SHA256);
	wr_tpm2b(&b.params, "", 0);
	rc = harness_run(&h, &b, &r, NULL);
	if (rc == TPM_RC_SUCCESS)
		CU_ASSERT_EQUAL(rd_tpm2b_digest(&r, out), TPM_RC_SUCCESS);
	return rc;
}

/* RSA_Decrypt uses the kept private key too: built at the first decryption, the same one
 * after, and it still decrypts what was encrypted to the key. */
static void test_rsa_decrypt_kept(void)
{
	const uint8_t msg1[] = "first secret", msg2[] = "second";
	const struct key_forms *first;
	struct tpm2b_digest out;
	struct tpmt_public t;
	struct object *o;
	TPM_HANDLE key;

	rsa_template(&t, 2048);
	t.attributes = TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT |
		       TPMA_OBJECT_SENSITIVEDATAORIGIN | TPMA_OBJECT_USERWITHAUTH |
		       TPMA_OBJECT_DECRYPT;
	CU_ASSERT_EQUAL_FATAL(primary_from(&h, TPM_RH_OWNER, &t, "", "dec", &key, NULL),
			      TPM_RC_SUCCESS);
	o = loaded(key);
	CU_ASSERT_PTR_NULL(o->forms);
	CU_ASSERT_EQUAL_FATAL(rsa_round_trip(key, msg1, sizeof(msg1), &out), TPM_RC_SUCCESS);
	CU_ASSERT(out.size == sizeof(msg1) && memcmp(out.b, msg1, sizeof(msg1)) == 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(o->forms);
	first = o->forms;
	CU_ASSERT_EQUAL_FATAL(rsa_round_trip(key, msg2, sizeof(msg2), &out), TPM_RC_SUCCESS);
	CU_ASSERT(out.size == sizeof(msg2) && memcmp(out.b, msg2, sizeof(msg2)) == 0);
	CU_ASSERT_PTR_EQUAL(o->forms, first);
	flush(&h, key);
}

/* crypto level: one cache for two keys in turn (each use drops the other key's and builds) */
static void test_crypto_cache_two_keys(void)
{
	struct crypto_rsa_cache *cache = crypto_rsa_cache_new();
	struct crypto_kdf_rng k;
	uint8_t seed[32] = { 7 }, n[2][128], p[2][64], digest[32] = { 1 }, sig[128];
	size_t len;

	CU_ASSERT_PTR_NOT_NULL_FATAL(cache);
	for (int i = 0; i < 2; i++) {
		seed[1] = (uint8_t)i;
		CU_ASSERT_EQUAL_FATAL(crypto_kdf_rng_init(&k, TPM_ALG_SHA256, seed, sizeof(seed),
							  "perf", NULL, 0, NULL, 0),
				      TPM_RC_SUCCESS);
		CU_ASSERT_EQUAL_FATAL(crypto_rsa_generate(&k.rng, 1024, 0, n[i], p[i]),
				      TPM_RC_SUCCESS);
		crypto_kdf_rng_wipe(&k);
	}
	/* the keys in turn: each signature verifies under its own key only */
	for (int round = 0; round < 4; round++) {
		int i = round & 1;
		struct crypto_rsa key = { .n = n[i], .nlen = 128, .p = p[i], .plen = 64 };
		struct crypto_rsa pub = { .n = n[i], .nlen = 128 };
		struct crypto_rsa other = { .n = n[!i], .nlen = 128 };

		digest[0] = (uint8_t)round;
		CU_ASSERT_EQUAL(crypto_rsa_sign_cached(&key, cache, TPM_ALG_RSASSA, TPM_ALG_SHA256,
						       digest, sizeof(digest), sig, &len),
				TPM_RC_SUCCESS);
		CU_ASSERT_EQUAL(crypto_rsa_verify(&pub, TPM_ALG_RSASSA, TPM_ALG_SHA256, digest,
						  sizeof(digest), sig, len),
				TPM_RC_SUCCESS);
		CU_ASSERT_EQUAL(crypto_rsa_verify(&other, TPM_ALG_RSASSA, TPM_ALG_SHA256, digest,
						  sizeof(digest), sig, len),
				TPM_RC_SIGNATURE);
	}
	/* a p that does not divide n is refused */
	{
		struct crypto_rsa bad = { .n = n[0], .nlen = 128, .p = p[1], .plen = 64 };

		CU_ASSERT_EQUAL(crypto_rsa_sign_cached(&bad, cache, TPM_ALG_RSASSA, TPM_ALG_SHA256,
						       digest, sizeof(digest), sig, &len),
				TPM_RC_BINDING);
	}
	crypto_rsa_cache_free(cache);
	crypto_rsa_cache_free(NULL);
}

/* ---- primaries kept ---- */

static void test_primary_kept(void)
{
	struct tpmt_public p1, p2, p3, p4;
	TPM_HANDLE k1, k2, k3;
	struct tpmt_signature sig;
	uint8_t digest[DSIZE] = { 9 };
	struct cmdbuf b;

	CU_ASSERT_EQUAL_FATAL(primary(&h, TPM_RH_OWNER, "one", "", &k1, &p1), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(primary_cache_count(h.e), 1);
	flush(&h, k1);
	/* the same key again, with the authValue given now */
	CU_ASSERT_EQUAL_FATAL(primary(&h, TPM_RH_OWNER, "two", "", &k2, &p2), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(p1.unique.size, p2.unique.size);
	CU_ASSERT(memcmp(p1.unique.b, p2.unique.b, p1.unique.size) == 0);
	CU_ASSERT_EQUAL(sign(k2, "two", digest, &sig), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(verify(k2, digest, &sig), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(sign(k2, "one", digest, &sig), RC_S(TPM_RC_AUTH_FAIL, 1));
	/* other sensitive data, another key */
	CU_ASSERT_EQUAL_FATAL(primary(&h, TPM_RH_OWNER, "two", "x", &k3, &p3), TPM_RC_SUCCESS);
	CU_ASSERT(memcmp(p1.unique.b, p3.unique.b, p1.unique.size) != 0);
	CU_ASSERT_EQUAL(primary_cache_count(h.e), 2);
	flush(&h, k2);
	flush(&h, k3);
	/* Clear: a new storage seed, so a new key, not the one kept */
	cmd_begin(&b, TPM_CC_DictionaryAttackLockReset);
	cmd_handle(&b, TPM_RH_LOCKOUT);
	cmd_auth_pw(&b, "");
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), TPM_RC_SUCCESS);
	cmd_begin(&b, TPM_CC_Clear);
	cmd_handle(&b, TPM_RH_LOCKOUT);
	cmd_auth_pw(&b, "");
	CU_ASSERT_EQUAL_FATAL(harness_run(&h, &b, NULL, NULL), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(primary_cache_count(h.e), 0); /* wiped with the old seed */
	CU_ASSERT_EQUAL_FATAL(primary(&h, TPM_RH_OWNER, "one", "", &k1, &p4), TPM_RC_SUCCESS);
	CU_ASSERT(memcmp(p1.unique.b, p4.unique.b, p1.unique.size) != 0);
	flush(&h, k1);
}

/* ECC primaries are kept too: the same point again, the authValue given now, a new key after
 * Clear. */
static void test_primary_ecc_kept(void)
{
	struct tpmt_public t, p1, p2, p3;
	struct tpmt_signature sig;
	uint8_t digest[DSIZE] = { 5 };
	TPM_HANDLE k;
	struct cmdbuf b;

	memset(&t, 0, sizeof(t));
	t.type = TPM_ALG_ECC;
	t.name_alg = TPM_ALG_SHA256;
	t.attributes = KEY_ATTRS;
	t.symmetric.alg = TPM_ALG_NULL;
	t.scheme.scheme = TPM_ALG_ECDSA;
	t.scheme.hash_alg = TPM_ALG_SHA256;
	t.scheme.kdf = TPM_ALG_NULL;
	t.kdf.scheme = t.kdf.hash_alg = t.kdf.kdf = TPM_ALG_NULL;
	t.pre_hash = TPM_ALG_NULL;
	t.curve_id = TPM_ECC_NIST_P256;
	CU_ASSERT_EQUAL_FATAL(primary_from(&h, TPM_RH_OWNER, &t, "one", "", &k, &p1),
			      TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(primary_cache_count(h.e), 1);
	flush(&h, k);
	CU_ASSERT_EQUAL_FATAL(primary_from(&h, TPM_RH_OWNER, &t, "two", "", &k, &p2),
			      TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(primary_cache_count(h.e), 1);
	CU_ASSERT(p1.x.size == 32 && p2.x.size == 32 && p1.y.size == 32 && p2.y.size == 32 &&
		  memcmp(p1.x.b, p2.x.b, 32) == 0 && memcmp(p1.y.b, p2.y.b, 32) == 0);
	CU_ASSERT_EQUAL(sign_as(k, "one", TPM_ALG_ECDSA, digest, &sig), RC_S(TPM_RC_AUTH_FAIL, 1));
	CU_ASSERT_EQUAL_FATAL(sign_as(k, "two", TPM_ALG_ECDSA, digest, &sig), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(verify(k, digest, &sig), TPM_RC_SUCCESS);
	flush(&h, k);
	cmd_begin(&b, TPM_CC_Clear);
	cmd_handle(&b, TPM_RH_LOCKOUT);
	cmd_auth_pw(&b, "");
	CU_ASSERT_EQUAL_FATAL(harness_run(&h, &b, NULL, NULL), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(primary_cache_count(h.e), 0);
	CU_ASSERT_EQUAL_FATAL(primary_from(&h, TPM_RH_OWNER, &t, "one", "", &k, &p3),
			      TPM_RC_SUCCESS);
	CU_ASSERT(p3.x.size == 32 && memcmp(p1.x.b, p3.x.b, 32) != 0);
	flush(&h, k);
}

/* The NULL hierarchy's seed changes at each TPM Reset: its primaries go with it. */
static void test_primary_null_reset(void)
{
	struct tpmt_public p1, p2, p3;
	TPM_HANDLE k;
	struct cmdbuf b;

	CU_ASSERT_EQUAL_FATAL(primary(&h, TPM_RH_NULL, "", "", &k, &p1), TPM_RC_SUCCESS);
	flush(&h, k);
	CU_ASSERT_EQUAL_FATAL(primary(&h, TPM_RH_NULL, "", "", &k, &p2), TPM_RC_SUCCESS);
	CU_ASSERT(memcmp(p1.unique.b, p2.unique.b, p1.unique.size) == 0);
	CU_ASSERT_EQUAL(pqtpm_engine_signal(h.e, PQTPM_SIGNAL_RESET), 0);
	cmd_begin(&b, TPM_CC_Startup);
	wr_u16(&b.params, TPM_SU_CLEAR);
	CU_ASSERT_EQUAL_FATAL(harness_run(&h, &b, NULL, NULL), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(primary_cache_count(h.e), 0);
	CU_ASSERT_EQUAL_FATAL(primary(&h, TPM_RH_NULL, "", "", &k, &p3), TPM_RC_SUCCESS);
	CU_ASSERT(memcmp(p1.unique.b, p3.unique.b, p1.unique.size) != 0);
	flush(&h, k);
}

/* ---- reading commands without the lock ---- */

static TPM_RC get_random(struct harness *x)
{
	struct cmdbuf b;

	cmd_begin(&b, TPM_CC_GetRandom);
	wr_u16(&b.params, 16);
	return harness_run(x, &b, NULL, NULL);
}

static TPM_RC nv_define(struct harness *x, TPM_HANDLE index, const char *owner_pw)
{
	struct cmdbuf b;
	size_t mark;

	cmd_begin(&b, TPM_CC_NV_DefineSpace);
	cmd_handle(&b, TPM_RH_OWNER);
	cmd_auth_pw(&b, owner_pw);
	wr_u16(&b.params, 0);
	wr_size_begin(&b.params, &mark);
	wr_u32(&b.params, index);
	wr_u16(&b.params, TPM_ALG_SHA256);
	wr_u32(&b.params, TPMA_NV_OWNERWRITE | TPMA_NV_OWNERREAD | TPMA_NV_AUTHREAD |
				  TPMA_NV_AUTHWRITE);
	wr_u16(&b.params, 0);
	wr_u16(&b.params, 8);
	wr_size_end(&b.params, mark);
	return harness_run(x, &b, NULL, NULL);
}

static TPM_RC nv_readpublic(struct harness *x, TPM_HANDLE index)
{
	struct cmdbuf b;

	cmd_begin(&b, TPM_CC_NV_ReadPublic);
	cmd_handle(&b, index);
	return harness_run(x, &b, NULL, NULL);
}

static TPM_RC pcr_extend(struct harness *x)
{
	uint8_t digest[DSIZE] = { 0x5a };
	struct cmdbuf b;

	cmd_begin(&b, TPM_CC_PCR_Extend);
	cmd_handle(&b, 16);
	cmd_auth_pw(&b, "");
	wr_u32(&b.params, 1);
	wr_u16(&b.params, TPM_ALG_SHA256);
	wr_bytes(&b.params, digest, sizeof(digest));
	return harness_run(x, &b, NULL, NULL);
}

/* In a child (so that a command that blocks cannot hang the test): the reading commands,
 * and PCR_Extend, answer while this process holds the directory's lock. */
static void reads_while_locked(struct harness *x, const char *dir)
{
	char lock[512];
	int fd, status = -1;
	pid_t pid;

	snprintf(lock, sizeof(lock), "%s/%s", dir, STATE_LOCK_FILE);
	fd = open(lock, O_RDONLY);
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_FATAL(flock(fd, LOCK_EX) == 0);
	pid = fork();
	CU_ASSERT_FATAL(pid >= 0);
	if (pid == 0) {
		alarm(10);
		_exit(get_random(x) == TPM_RC_SUCCESS &&
				      nv_readpublic(x, 0x01500100) == TPM_RC_SUCCESS &&
				      pcr_extend(x) == TPM_RC_SUCCESS &&
				      prop(x, TPM_PT_LOCKOUT_COUNTER) == 0
			      ? 0
			      : 1);
	}
	CU_ASSERT_EQUAL(waitpid(pid, &status, 0), pid);
	CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	close(fd);
}

static void test_reads_without_lock(void)
{
	char dir[512], seq[600];
	struct pqtpm_engine *w;
	struct harness a;
	struct stat st;

	new_dir(dir, sizeof(dir));
	harness_open_dir(&a, dir);
	snprintf(seq, sizeof(seq), "%s/%s", dir, STATE_SEQ_FILE);
	CU_ASSERT_FATAL(stat(seq, &st) == 0);
	CU_ASSERT_EQUAL(st.st_mode & 07777, 0600);
	CU_ASSERT_EQUAL(nv_define(&a, 0x01500100, ""), TPM_RC_SUCCESS);
	CU_ASSERT_TRUE(state_fresh(a.e));
	reads_while_locked(&a, dir);

	/* another writer of the state file (the state layer beside the owner, as a forked child
	 * of it would write): the engine is no longer fresh, and its next reading command
	 * catches up under the lock; a new ownerAuth holds at once */
	w = harness_disk_open(dir);
	w->ps.hier[HIER_OWNER].auth.size = 5;
	memcpy(w->ps.hier[HIER_OWNER].auth.b, "owner", 5);
	CU_ASSERT_EQUAL_FATAL(state_sync(w), 0);
	harness_disk_close(w);
	CU_ASSERT_FALSE(state_fresh(a.e));
	CU_ASSERT_EQUAL(nv_readpublic(&a, 0x01500100), TPM_RC_SUCCESS);
	CU_ASSERT_TRUE(state_fresh(a.e));
	CU_ASSERT_EQUAL(get_random(&a), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nv_define(&a, 0x01500102, ""), RC_S(TPM_RC_BAD_AUTH, 1));
	CU_ASSERT_EQUAL(nv_define(&a, 0x01500102, "owner"), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(nv_readpublic(&a, 0x01500102), TPM_RC_SUCCESS);
	reads_while_locked(&a, dir);
	harness_close(&a);
}

/* A forked child takes the lock through a lock file of its own (the process id it goes by is
 * kept, and forgotten at a fork): while the parent holds the lock on the descriptor they
 * share, the child's locked command (ReadClock) waits for it. */
static void test_fork_takes_own_lock(void)
{
	char dir[512], ch;
	struct harness a;
	struct cmdbuf b;
	int done[2], status = -1;
	pid_t pid;

	new_dir(dir, sizeof(dir));
	harness_open_dir(&a, dir);
	cmd_begin(&b, TPM_CC_ReadClock);
	CU_ASSERT_EQUAL_FATAL(harness_run(&a, &b, NULL, NULL), TPM_RC_SUCCESS);
	CU_ASSERT_FATAL(a.e->state_lock_open);
	CU_ASSERT_FATAL(pipe(done) == 0);
	CU_ASSERT_FATAL(flock(a.e->state_lock_fd, LOCK_EX) == 0);
	pid = fork();
	CU_ASSERT_FATAL(pid >= 0);
	if (pid == 0) {
		alarm(10);
		cmd_begin(&b, TPM_CC_ReadClock);
		_exit(harness_run(&a, &b, NULL, NULL) == TPM_RC_SUCCESS &&
				      write(done[1], "D", 1) == 1
			      ? 0
			      : 1);
	}
	usleep(200 * 1000);
	CU_ASSERT_FATAL(fcntl(done[0], F_SETFL, O_NONBLOCK) == 0);
	CU_ASSERT_EQUAL(read(done[0], &ch, 1), -1); /* still waiting for the lock */
	CU_ASSERT_EQUAL(flock(a.e->state_lock_fd, LOCK_UN), 0);
	CU_ASSERT_EQUAL(waitpid(pid, &status, 0), pid);
	CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	CU_ASSERT_EQUAL(read(done[0], &ch, 1), 1);
	close(done[0]);
	close(done[1]);
	/* and the parent still uses its own */
	cmd_begin(&b, TPM_CC_ReadClock);
	CU_ASSERT_EQUAL(harness_run(&a, &b, NULL, NULL), TPM_RC_SUCCESS);
	harness_close(&a);
}

/* The DA failure count in dir's state file, as it is on disk now. */
static uint32_t disk_failures(const char *dir)
{
	struct pqtpm_engine *disk = harness_disk_open(dir);
	uint32_t n = disk->ps.da.failed_tries;

	harness_disk_close(disk);
	return n;
}

/* GetRandom with an HMAC session bound to a DA-protected object and a wrong HMAC: the failure
 * counts, on disk before the answer. */
static void test_da_session_on_reading_command(void)
{
	char dir[512];
	struct harness a;
	struct cmdbuf b;
	struct rd r;
	struct tpm2b_digest nonce_tpm;
	uint8_t nonce[DSIZE] = { 1 }, hmac[DSIZE] = { 2 };
	TPM_HANDLE key, s;

	new_dir(dir, sizeof(dir));
	harness_open_dir(&a, dir);
	CU_ASSERT_EQUAL_FATAL(primary(&a, TPM_RH_OWNER, "pw", "", &key, NULL), TPM_RC_SUCCESS);
	cmd_begin(&b, TPM_CC_StartAuthSession);
	cmd_handle(&b, TPM_RH_NULL);
	cmd_handle(&b, key); /* bind: a DA-protected object */
	wr_tpm2b(&b.params, nonce, DSIZE);
	wr_u16(&b.params, 0);
	wr_u8(&b.params, TPM_SE_HMAC);
	wr_u16(&b.params, TPM_ALG_NULL);
	wr_u16(&b.params, TPM_ALG_SHA256);
	CU_ASSERT_EQUAL_FATAL(harness_run(&a, &b, &r, &s), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(rd_tpm2b_digest(&r, &nonce_tpm), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(disk_failures(dir), 0);

	cmd_begin(&b, TPM_CC_GetRandom);
	wr_u32(&b.auth, s);
	wr_tpm2b(&b.auth, nonce, DSIZE);
	/* a session that authorizes nothing must audit or encrypt (else TPM_RC_ATTRIBUTES) */
	wr_u8(&b.auth, TPMA_SESSION_CONTINUESESSION | TPMA_SESSION_AUDIT);
	wr_tpm2b(&b.auth, hmac, DSIZE);
	b.nauth = 1;
	wr_u16(&b.params, 16);
	CU_ASSERT_EQUAL(harness_run(&a, &b, NULL, NULL), RC_S(TPM_RC_AUTH_FAIL, 1));
	CU_ASSERT_EQUAL(prop(&a, TPM_PT_LOCKOUT_COUNTER), 1);
	CU_ASSERT_EQUAL(disk_failures(dir), 1);
	harness_close(&a);
}

static void fresh(void)
{
	harness_close(&h);
	harness_open(&h);
}

int main(void)
{
	static const struct unit_test tests[] = {
		{ "an RSA key's private key kept in the object, and its copies",
		  test_rsa_key_kept },
		{ "RSA_Decrypt keeps the private key too", test_rsa_decrypt_kept },
		{ "(fresh TPM)", fresh },
		{ "one cache slot, two RSA keys in turn", test_crypto_cache_two_keys },
		{ "primaries kept: same key, new authValue, gone with Clear", test_primary_kept },
		{ "(fresh TPM)", fresh },
		{ "ECC primaries kept too", test_primary_ecc_kept },
		{ "(fresh TPM)", fresh },
		{ "NULL hierarchy primaries go at TPM Reset", test_primary_null_reset },
		{ "reading commands: no lock, yet the newest state", test_reads_without_lock },
		{ "a forked child takes the lock through its own lock file",
		  test_fork_takes_own_lock },
		{ "a DA-bound session on a reading command counts its failure",
		  test_da_session_on_reading_command },
	};
	int failed;

	if (!mkdtemp(tmp_root)) {
		perror("mkdtemp");
		return 2;
	}
	harness_open(&h);
	failed = UNIT_RUN("perf paths", tests, NULL, NULL);
	harness_close(&h);
	harness_rm_tree(tmp_root);
	return failed;
}
