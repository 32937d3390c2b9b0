/* The PKCS#11 module with many threads (docs/pkcs11.md, "Concurrency"), through its function
 * lists (dlopen): threads signing at once with keys of their own and with one shared key (every
 * signature verified), every hot path in parallel (ML-KEM through the 3.2 interface), and,
 * with the application's mutex callbacks (which let the test step in at the moment a thread's
 * TPM step starts), another thread's calls while a signature is in the TPM: a
 * C_GetSessionInfo and a signature of its own complete meanwhile, a C_DestroyObject of the
 * key, a C_CloseSession, a C_Logout and a C_Finalize each get the specification's answer and
 * the signature its own (no crash, no use after free: run under ASan and ThreadSanitizer), a
 * second call on the same session is CKR_OPERATION_ACTIVE. Then a fork while another thread
 * holds the module lock, the process that runs the TPM exiting while this one's threads sign as
 * its clients, and
 * C_DestroyObject, C_CloseSession and C_Finalize racing signing threads. Worker threads record
 * what they got; only the main thread asserts (CUnit is not thread-safe). */
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <CUnit/Basic.h>

#include "harness.h"
#include "p11_token.h"
#include "pk3.h"
#include "unit_main.h"

static char tmp_root[] = "/tmp/pqtpm-test-pkcs11-threads-XXXXXX";
static char dir[PATH_MAX];
static CK_FUNCTION_LIST *f;
static CK_FUNCTION_LIST_3_2 *f32; /* the same module through the 3.2 interface (ML-KEM) */
static void *lib;
static int counter;
static CK_SLOT_ID slot;
static CK_SESSION_HANDLE s;

#define SO_PIN "so-secret"
#define USER_PIN "1234"
#define WAIT_S 30 /* the most a test waits for another thread (a bound, not a measurement) */

static const uint8_t OID_P256[] = { 0x06, 0x08, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07 };
static const uint8_t DIGEST[32] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 };
static CK_BBOOL yes = CK_TRUE, no = CK_FALSE;

static void setup(void)
{
	snprintf(dir, sizeof(dir), "%s/state%d", tmp_root, counter++);
	setenv("PQTPM_STATE_DIR", dir, 1);
}

static void teardown(void)
{
	f->C_Finalize(NULL);
	harness_rm_tree(dir);
}

/* ---- keys, signatures ---- */

static CK_RV gen_ec(CK_SESSION_HANDLE h, CK_BBOOL token, const char *label, CK_OBJECT_HANDLE *pub,
		    CK_OBJECT_HANDLE *priv)
{
	CK_MECHANISM m = { CKM_EC_KEY_PAIR_GEN, NULL, 0 };
	CK_ATTRIBUTE pt[] = { { CKA_EC_PARAMS, (void *)OID_P256, sizeof(OID_P256) },
			      { CKA_TOKEN, &token, sizeof(token) },
			      { CKA_LABEL, (void *)label, strlen(label) } };
	CK_ATTRIBUTE kt[] = { { CKA_SIGN, &yes, sizeof(yes) },
			      { CKA_DERIVE, &yes, sizeof(yes) },
			      { CKA_TOKEN, &token, sizeof(token) },
			      { CKA_LABEL, (void *)label, strlen(label) } };

	return f->C_GenerateKeyPair(h, &m, pt, 3, kt, 4, pub, priv);
}

static CK_RV gen_rsa(CK_SESSION_HANDLE h, CK_OBJECT_HANDLE *pub, CK_OBJECT_HANDLE *priv)
{
	CK_MECHANISM m = { CKM_RSA_PKCS_KEY_PAIR_GEN, NULL, 0 };
	CK_ULONG bits = 2048;
	CK_ATTRIBUTE pt[] = { { CKA_MODULUS_BITS, &bits, sizeof(bits) },
			      { CKA_ENCRYPT, &yes, sizeof(yes) } };
	CK_ATTRIBUTE kt[] = { { CKA_SIGN, &yes, sizeof(yes) }, { CKA_DECRYPT, &yes, sizeof(yes) } };

	return f->C_GenerateKeyPair(h, &m, pt, 2, kt, 2, pub, priv);
}

static CK_RV gen_mldsa(CK_SESSION_HANDLE h, CK_OBJECT_HANDLE *pub, CK_OBJECT_HANDLE *priv)
{
	CK_MECHANISM m = { CKM_ML_DSA_KEY_PAIR_GEN, NULL, 0 };
	CK_ULONG set = CKP_ML_DSA_44;
	CK_ATTRIBUTE pt[] = { { CKA_PARAMETER_SET, &set, sizeof(set) } };
	CK_ATTRIBUTE kt[] = { { CKA_SIGN, &yes, sizeof(yes) } };

	return f->C_GenerateKeyPair(h, &m, pt, 1, kt, 1, pub, priv);
}

/* Sign msg in session h and verify the signature there: the first failure's CK_RV, and a
 * changed message must not verify. */
static CK_RV sign_verify(CK_SESSION_HANDLE h, CK_MECHANISM_TYPE mt, CK_OBJECT_HANDLE pub,
			 CK_OBJECT_HANDLE priv, const uint8_t *msg, size_t len)
{
	CK_MECHANISM m = { mt, NULL, 0 };
	uint8_t sig[4096], bad[64];
	CK_ULONG n = sizeof(sig);
	CK_RV rv = f->C_SignInit(h, &m, priv);

	if (rv == CKR_OK)
		rv = f->C_Sign(h, (CK_BYTE *)msg, len, sig, &n);
	if (rv == CKR_OK)
		rv = f->C_VerifyInit(h, &m, pub);
	if (rv == CKR_OK)
		rv = f->C_Verify(h, (CK_BYTE *)msg, len, sig, n);
	if (rv != CKR_OK)
		return rv;
	memcpy(bad, msg, len);
	bad[len - 1] ^= 1;
	rv = f->C_VerifyInit(h, &m, pub);
	if (rv == CKR_OK)
		rv = f->C_Verify(h, bad, len, sig, n);
	return rv == CKR_SIGNATURE_INVALID ? CKR_OK : (rv == CKR_OK ? CKR_GENERAL_ERROR : rv);
}

static CK_RV verify(CK_SESSION_HANDLE h, CK_OBJECT_HANDLE pub, const uint8_t *sig, CK_ULONG n)
{
	CK_MECHANISM m = { CKM_ECDSA, NULL, 0 };
	CK_RV rv = f->C_VerifyInit(h, &m, pub);

	return rv == CKR_OK ? f->C_Verify(h, (CK_BYTE *)DIGEST, 32, (CK_BYTE *)sig, n) : rv;
}

static CK_SESSION_HANDLE open_session(void)
{
	CK_SESSION_HANDLE h = 0;

	CU_ASSERT_EQUAL_FATAL(f->C_OpenSession(slot, CKF_SERIAL_SESSION | CKF_RW_SESSION, NULL,
					       NULL, &h),
			      CKR_OK);
	return h;
}

/* ---- threads signing at once ---- */

#define ROUNDS 12

struct signer {
	CK_SESSION_HANDLE s;
	CK_MECHANISM_TYPE mech;
	CK_OBJECT_HANDLE pub, priv;
	const uint8_t *msg;
	size_t len;
	unsigned ok;
	CK_RV bad;
};

static void *sign_rounds(void *arg)
{
	struct signer *w = arg;

	for (unsigned i = 0; i < ROUNDS && !w->bad; i++) {
		CK_RV rv = sign_verify(w->s, w->mech, w->pub, w->priv, w->msg, w->len);

		if (rv == CKR_OK)
			w->ok++;
		else
			w->bad = rv;
	}
	return NULL;
}

static void run_signers(struct signer *w, unsigned n)
{
	pthread_t th[8];
	unsigned i;

	for (i = 0; i < n; i++)
		CU_ASSERT_EQUAL_FATAL(pthread_create(&th[i], NULL, sign_rounds, &w[i]), 0);
	for (i = 0; i < n; i++) {
		pthread_join(th[i], NULL);
		CU_ASSERT_EQUAL(w[i].bad, CKR_OK);
		CU_ASSERT_EQUAL(w[i].ok, ROUNDS);
	}
}

static void init_os(void)
{
	CK_C_INITIALIZE_ARGS args = { .flags = CKF_OS_LOCKING_OK };

	p11_token_user_session_args(f, &args, "threads", SO_PIN, USER_PIN, &slot, &s);
}

/* Five threads, each its own session: an EC, an RSA and an ML-DSA key of their own, and two on
 * one EC key. */
static void test_parallel_signing(void)
{
	static const uint8_t digest_info[19 + 32] = { 0x30, 0x31, 0x30, 0x0d, 0x06, 0x09, 0x60,
						      0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02,
						      0x01, 0x05, 0x00, 0x04, 0x20, 0x77 };
	struct signer w[5];
	unsigned i;

	init_os();
	memset(w, 0, sizeof(w));
	for (i = 0; i < 5; i++) {
		w[i].s = open_session();
		w[i].mech = CKM_ECDSA;
		w[i].msg = DIGEST;
		w[i].len = sizeof(DIGEST);
	}
	CU_ASSERT_EQUAL_FATAL(gen_ec(s, CK_FALSE, "own", &w[0].pub, &w[0].priv), CKR_OK);
	CU_ASSERT_EQUAL_FATAL(gen_rsa(s, &w[1].pub, &w[1].priv), CKR_OK);
	w[1].mech = CKM_RSA_PKCS;
	w[1].msg = digest_info;
	w[1].len = sizeof(digest_info);
	CU_ASSERT_EQUAL_FATAL(gen_mldsa(s, &w[2].pub, &w[2].priv), CKR_OK);
	w[2].mech = CKM_ML_DSA;
	CU_ASSERT_EQUAL_FATAL(gen_ec(s, CK_FALSE, "shared", &w[3].pub, &w[3].priv), CKR_OK);
	w[4].pub = w[3].pub;
	w[4].priv = w[3].priv;
	w[4].mech = CKM_ECDSA_SHA256; /* the TPM hashes first: two steps on one connection */
	run_signers(w, 5);
}

/* One connection (`connections = 1`, for a TPM that serves one at a time): the five threads
 * take turns on it, each waiting for the connection's lock, and all their signatures come
 * out; a number out of 1-8 is refused at C_Initialize. */
static void test_one_connection(void)
{
	CK_C_INITIALIZE_ARGS args = { .flags = CKF_OS_LOCKING_OK };
	char conf[PATH_MAX + 16];
	struct signer w[5];
	FILE *c;
	unsigned i;

	snprintf(conf, sizeof(conf), "%s.conf", dir);
	for (i = 0; i < 3; i++) {
		c = fopen(conf, "w");
		CU_ASSERT_PTR_NOT_NULL_FATAL(c);
		fprintf(c, "tpm = embedded:%s\nconnections = %s\n", dir,
			i == 0 ? "0" : i == 1 ? "9" : "1");
		fclose(c);
		setenv("PQTPM_PKCS11_CONF", conf, 1);
		if (i < 2)
			CU_ASSERT_EQUAL(f->C_Initialize(&args), CKR_GENERAL_ERROR);
	}
	init_os();
	memset(w, 0, sizeof(w));
	for (i = 0; i < 5; i++) {
		w[i] = (struct signer){ .s = open_session(), .mech = CKM_ECDSA, .msg = DIGEST,
					.len = sizeof(DIGEST) };
		if (i < 3)
			CU_ASSERT_EQUAL_FATAL(gen_ec(s, CK_FALSE, "one", &w[i].pub, &w[i].priv),
					      CKR_OK);
	}
	w[3].pub = w[4].pub = w[0].pub;
	w[3].priv = w[4].priv = w[0].priv;
	run_signers(w, 5);
	unsetenv("PQTPM_PKCS11_CONF");
	unlink(conf);
}

/* ---- every hot path at once ---- */

struct mixed {
	CK_SESSION_HANDLE s;
	int kind;
	CK_OBJECT_HANDLE a_pub, a_priv, b_priv; /* RSA: a; ECDH: a and b */
	uint8_t b_point[80];
	CK_ULONG b_point_len;
	unsigned ok;
	CK_RV bad;
};

static CK_RV one_digest(CK_SESSION_HANDLE h)
{
	static const uint8_t abc_sha256[32] = {
		0xba, 0x78, 0x16, 0xbf, 0x8f, 0x01, 0xcf, 0xea, 0x41, 0x41, 0x40,
		0xde, 0x5d, 0xae, 0x22, 0x23, 0xb0, 0x03, 0x61, 0xa3, 0x96, 0x17,
		0x7a, 0x9c, 0xb4, 0x10, 0xff, 0x61, 0xf2, 0x00, 0x15, 0xad,
	};
	CK_MECHANISM m = { CKM_SHA256, NULL, 0 };
	uint8_t d[32];
	CK_ULONG n = sizeof(d);
	CK_RV rv = f->C_DigestInit(h, &m);

	if (rv == CKR_OK)
		rv = f->C_Digest(h, (CK_BYTE *)"abc", 3, d, &n);
	return rv == CKR_OK && (n != 32 || memcmp(d, abc_sha256, 32)) ? CKR_GENERAL_ERROR : rv;
}

static CK_RV one_random(CK_SESSION_HANDLE h)
{
	uint8_t a[48], b[48];
	CK_RV rv = f->C_GenerateRandom(h, a, sizeof(a));

	if (rv == CKR_OK)
		rv = f->C_GenerateRandom(h, b, sizeof(b));
	return rv == CKR_OK && !memcmp(a, b, sizeof(a)) ? CKR_GENERAL_ERROR : rv;
}

static CK_RV one_keygen(CK_SESSION_HANDLE h)
{
	CK_OBJECT_HANDLE pub, priv;
	CK_RV rv = gen_ec(h, CK_FALSE, "made", &pub, &priv);

	if (rv == CKR_OK)
		rv = sign_verify(h, CKM_ECDSA, pub, priv, DIGEST, sizeof(DIGEST));
	if (rv == CKR_OK)
		rv = f->C_DestroyObject(h, priv);
	if (rv == CKR_OK)
		rv = f->C_DestroyObject(h, pub);
	return rv;
}

static CK_RV one_rsa(struct mixed *w)
{
	static const uint8_t msg[] = "a secret";
	CK_RSA_PKCS_OAEP_PARAMS p = { CKM_SHA256, CKG_MGF1_SHA256, CKZ_DATA_SPECIFIED, NULL, 0 };
	CK_MECHANISM m = { CKM_RSA_PKCS_OAEP, &p, sizeof(p) };
	uint8_t ct[256], pt[256];
	CK_ULONG cn = sizeof(ct), pn = sizeof(pt);
	CK_RV rv = f->C_EncryptInit(w->s, &m, w->a_pub);

	if (rv == CKR_OK)
		rv = f->C_Encrypt(w->s, (CK_BYTE *)msg, sizeof(msg), ct, &cn);
	if (rv == CKR_OK)
		rv = f->C_DecryptInit(w->s, &m, w->a_priv);
	if (rv == CKR_OK)
		rv = f->C_Decrypt(w->s, ct, cn, pt, &pn);
	return rv == CKR_OK && (pn != sizeof(msg) || memcmp(pt, msg, pn)) ? CKR_GENERAL_ERROR
									  : rv;
}

/* ECDH of a with b's point: the secret is read back and must be the same each time. */
static CK_RV one_derive(struct mixed *w, uint8_t *first, bool *have)
{
	CK_ECDH1_DERIVE_PARAMS p = { CKD_NULL, 0, NULL, w->b_point_len, w->b_point };
	CK_MECHANISM m = { CKM_ECDH1_DERIVE, &p, sizeof(p) };
	CK_OBJECT_CLASS cls = CKO_SECRET_KEY;
	CK_KEY_TYPE kt = CKK_GENERIC_SECRET;
	CK_ATTRIBUTE t[] = { { CKA_CLASS, &cls, sizeof(cls) },
			     { CKA_KEY_TYPE, &kt, sizeof(kt) },
			     { CKA_SENSITIVE, &no, sizeof(no) },
			     { CKA_EXTRACTABLE, &yes, sizeof(yes) } };
	uint8_t z[64];
	CK_ATTRIBUTE v = { CKA_VALUE, z, sizeof(z) };
	CK_OBJECT_HANDLE k;
	CK_RV rv = f->C_DeriveKey(w->s, &m, w->a_priv, t, 4, &k);

	if (rv == CKR_OK)
		rv = f->C_GetAttributeValue(w->s, k, &v, 1);
	if (rv == CKR_OK)
		rv = f->C_DestroyObject(w->s, k);
	if (rv != CKR_OK)
		return rv;
	if (v.ulValueLen != 32 || (*have && memcmp(first, z, 32)))
		return CKR_GENERAL_ERROR;
	memcpy(first, z, 32);
	*have = true;
	return CKR_OK;
}

/* ML-KEM: encapsulate to a's public half, decapsulate with its private half: one secret. */
static CK_RV one_kem(struct mixed *w)
{
	static _Thread_local uint8_t ct[1600];
	CK_MECHANISM m = { CKM_ML_KEM, NULL, 0 };
	CK_KEY_TYPE kt = CKK_GENERIC_SECRET;
	CK_ATTRIBUTE t[] = { { CKA_SENSITIVE, &no, sizeof(no) },
			     { CKA_EXTRACTABLE, &yes, sizeof(yes) },
			     { CKA_KEY_TYPE, &kt, sizeof(kt) } };
	uint8_t za[64], zb[64];
	CK_ATTRIBUTE va = { CKA_VALUE, za, sizeof(za) }, vb = { CKA_VALUE, zb, sizeof(zb) };
	CK_OBJECT_HANDLE a, b;
	CK_ULONG n = sizeof(ct);
	CK_RV rv = f32->C_EncapsulateKey(w->s, &m, w->a_pub, t, 3, ct, &n, &a);

	if (rv == CKR_OK)
		rv = f32->C_DecapsulateKey(w->s, &m, w->a_priv, t, 3, ct, n, &b);
	if (rv == CKR_OK)
		rv = f->C_GetAttributeValue(w->s, a, &va, 1);
	if (rv == CKR_OK)
		rv = f->C_GetAttributeValue(w->s, b, &vb, 1);
	if (rv == CKR_OK)
		rv = f->C_DestroyObject(w->s, a);
	if (rv == CKR_OK)
		rv = f->C_DestroyObject(w->s, b);
	return rv == CKR_OK && (va.ulValueLen != 32 || vb.ulValueLen != 32 || memcmp(za, zb, 32))
		       ? CKR_GENERAL_ERROR
		       : rv;
}

static void *mixed_rounds(void *arg)
{
	struct mixed *w = arg;
	uint8_t first[32];
	bool have = false;

	for (unsigned i = 0; i < ROUNDS && !w->bad; i++) {
		CK_RV rv = w->kind == 0 ? one_digest(w->s)
			   : w->kind == 1 ? one_random(w->s)
			   : w->kind == 2 ? one_keygen(w->s)
			   : w->kind == 3 ? one_rsa(w)
			   : w->kind == 4 ? one_derive(w, first, &have)
					  : one_kem(w);

		if (rv == CKR_OK)
			w->ok++;
		else
			w->bad = rv;
	}
	return NULL;
}

static void test_mixed(void)
{
	CK_ATTRIBUTE point = { CKA_EC_POINT, NULL, 0 };
	CK_MECHANISM kem_gen = { CKM_ML_KEM_KEY_PAIR_GEN, NULL, 0 };
	CK_ULONG kem_set = CKP_ML_KEM_512;
	CK_ATTRIBUTE kem_pt[] = { { CKA_PARAMETER_SET, &kem_set, sizeof(kem_set) } };
	CK_OBJECT_HANDLE b_pub;
	struct mixed w[6];
	pthread_t th[6];
	unsigned i;

	init_os();
	memset(w, 0, sizeof(w));
	for (i = 0; i < 6; i++) {
		w[i].s = open_session();
		w[i].kind = (int)i;
	}
	CU_ASSERT_EQUAL_FATAL(gen_rsa(s, &w[3].a_pub, &w[3].a_priv), CKR_OK);
	CU_ASSERT_EQUAL_FATAL(gen_ec(s, CK_FALSE, "a", &w[4].a_pub, &w[4].a_priv), CKR_OK);
	CU_ASSERT_EQUAL_FATAL(gen_ec(s, CK_FALSE, "b", &b_pub, &w[4].b_priv), CKR_OK);
	point.pValue = w[4].b_point;
	point.ulValueLen = sizeof(w[4].b_point);
	CU_ASSERT_EQUAL_FATAL(f->C_GetAttributeValue(s, b_pub, &point, 1), CKR_OK);
	w[4].b_point_len = point.ulValueLen;
	CU_ASSERT_EQUAL_FATAL(f->C_GenerateKeyPair(s, &kem_gen, kem_pt, 1, NULL, 0, &w[5].a_pub,
						   &w[5].a_priv),
			      CKR_OK);
	for (i = 0; i < 6; i++)
		CU_ASSERT_EQUAL_FATAL(pthread_create(&th[i], NULL, mixed_rounds, &w[i]), 0);
	for (i = 0; i < 6; i++) {
		pthread_join(th[i], NULL);
		CU_ASSERT_EQUAL(w[i].bad, CKR_OK);
		CU_ASSERT_EQUAL(w[i].ok, ROUNDS);
	}
}

/* ---- the application's mutexes, and a step into a signature's TPM step ----
 * The module's locks are these callbacks. The main thread signs (thread A); its second lock
 * taken while it holds none of the module's locks is the lock of the connection for its TPM
 * step, taken without the module lock: there the callback runs `meanwhile` on thread B and
 * waits until B is done (or, for C_Finalize, until B waits for A). A module that held one lock
 * through the whole call never gets there, and B never runs. */

struct tmutex {
	pthread_mutex_t m;
};

static atomic_uint created, destroyed, locks, unlocks;
static _Thread_local unsigned held_here, free_locks;
static _Thread_local bool is_b, is_parker;
static bool parked, resumed; /* hook_m */
static atomic_bool armed;
static pthread_t a_thread, b_thread;
static atomic_uint b_locks;
static pthread_mutex_t hook_m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t hook_c = PTHREAD_COND_INITIALIZER;
static bool b_started, b_done, b_timed_out;
static void (*meanwhile)(void);
static unsigned b_locks_wanted; /* 0: wait until B is done; n: until B took n locks */

static void *b_main(void *arg)
{
	is_b = true;
	meanwhile();
	pthread_mutex_lock(&hook_m);
	b_done = true;
	pthread_cond_broadcast(&hook_c);
	pthread_mutex_unlock(&hook_m);
	return NULL;
}

/* On thread A, holding none of the module's locks, about to take the connection's. */
static void step_in(void)
{
	struct timespec until;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += WAIT_S;
	pthread_mutex_lock(&hook_m);
	b_started = pthread_create(&b_thread, NULL, b_main, NULL) == 0;
	while (b_started && !b_done && !(b_locks_wanted && b_locks >= b_locks_wanted))
		if (pthread_cond_timedwait(&hook_c, &hook_m, &until) != 0) {
			b_timed_out = true;
			break;
		}
	pthread_mutex_unlock(&hook_m);
}

static CK_RV t_create(void **m)
{
	struct tmutex *x = calloc(1, sizeof(*x));

	if (!x)
		return CKR_HOST_MEMORY;
	pthread_mutex_init(&x->m, NULL);
	*m = x;
	created++;
	return CKR_OK;
}

static CK_RV t_destroy(void *m)
{
	struct tmutex *x = m;

	pthread_mutex_destroy(&x->m);
	free(x);
	destroyed++;
	return CKR_OK;
}

static CK_RV t_lock(void *m)
{
	struct tmutex *x = m;

	if (atomic_load(&armed) && pthread_equal(a_thread, pthread_self()) && !held_here &&
	    ++free_locks == 2) {
		atomic_store(&armed, false);
		step_in();
	}
	pthread_mutex_lock(&x->m);
	held_here++;
	locks++;
	if (is_parker) { /* its first lock (the module's): it stays there, holding it */
		is_parker = false;
		pthread_mutex_lock(&hook_m);
		parked = true;
		pthread_cond_broadcast(&hook_c);
		while (!resumed)
			pthread_cond_wait(&hook_c, &hook_m);
		pthread_mutex_unlock(&hook_m);
	}
	if (is_b) {
		pthread_mutex_lock(&hook_m);
		b_locks++;
		pthread_cond_broadcast(&hook_c);
		pthread_mutex_unlock(&hook_m);
	}
	return CKR_OK;
}

static CK_RV t_unlock(void *m)
{
	struct tmutex *x = m;

	held_here--;
	unlocks++;
	pthread_mutex_unlock(&x->m);
	return CKR_OK;
}

/* A's signature: key pub/priv in session sa; B does `b` while it is in the TPM. */
static CK_SESSION_HANDLE sa, sb;
static CK_OBJECT_HANDLE a_pub, a_priv, b_pub, b_priv;

static void init_app(CK_BBOOL token_keys)
{
	CK_C_INITIALIZE_ARGS args = { .CreateMutex = t_create,
				      .DestroyMutex = t_destroy,
				      .LockMutex = t_lock,
				      .UnlockMutex = t_unlock };

	created = destroyed = locks = unlocks = b_locks = 0;
	b_started = b_done = b_timed_out = false;
	b_locks_wanted = 0;
	p11_token_user_session_args(f, &args, "app mutexes", SO_PIN, USER_PIN, &slot, &s);
	sa = open_session();
	sb = open_session();
	CU_ASSERT_EQUAL_FATAL(gen_ec(s, token_keys, "a", &a_pub, &a_priv), CKR_OK);
	CU_ASSERT_EQUAL_FATAL(gen_ec(s, CK_FALSE, "b", &b_pub, &b_priv), CKR_OK);
	/* both keys signed with once already: the connection is open, the keys are loaded */
	CU_ASSERT_EQUAL(sign_verify(sa, CKM_ECDSA, a_pub, a_priv, DIGEST, 32), CKR_OK);
	CU_ASSERT_EQUAL(sign_verify(sb, CKM_ECDSA, b_pub, b_priv, DIGEST, 32), CKR_OK);
}

/* The next call of this thread runs `b` on thread B when its TPM step starts (disarm after). */
static void arm(void (*b)(void))
{
	meanwhile = b;
	a_thread = pthread_self();
	free_locks = 0;
	atomic_store(&armed, true);
}

static void disarm(void)
{
	atomic_store(&armed, false);
	CU_ASSERT(b_started); /* the module released its lock for the TPM step */
	CU_ASSERT(!b_timed_out);
	if (b_started)
		CU_ASSERT_EQUAL(pthread_join(b_thread, NULL), 0);
}

/* A signs in sa with `b` on thread B meanwhile: A's CK_RV, the signature in sig / *n. */
static CK_RV sign_meanwhile(void (*b)(void), uint8_t *sig, CK_ULONG *n)
{
	CK_MECHANISM m = { CKM_ECDSA, NULL, 0 };
	CK_RV rv;

	*n = 64;
	CU_ASSERT_EQUAL_FATAL(f->C_SignInit(sa, &m, a_priv), CKR_OK);
	arm(b);
	rv = f->C_Sign(sa, (CK_BYTE *)DIGEST, 32, sig, n);
	disarm();
	return rv;
}

/* The application's mutexes: every one made was destroyed, every lock released. */
static void finalize_app(void)
{
	CU_ASSERT_EQUAL(f->C_Finalize(NULL), CKR_OK);
	CU_ASSERT(created >= 2);
	CU_ASSERT_EQUAL(created, destroyed);
	CU_ASSERT_EQUAL(locks, unlocks);
}

static CK_RV b_rv[4];

static void b_info_and_sign(void)
{
	CK_MECHANISM m = { CKM_ECDSA, NULL, 0 };
	CK_SESSION_INFO info;
	uint8_t sig[64];
	CK_ULONG n = sizeof(sig);

	b_rv[0] = f->C_GetSessionInfo(sa, &info);
	b_rv[1] = f->C_SignInit(sb, &m, b_priv);
	if (b_rv[1] == CKR_OK)
		b_rv[1] = f->C_Sign(sb, (CK_BYTE *)DIGEST, 32, sig, &n);
	b_rv[2] = b_rv[1] == CKR_OK ? verify(sb, b_pub, sig, n) : b_rv[1];
}

static void test_meanwhile_calls(void)
{
	uint8_t sig[64];
	CK_ULONG n;

	init_app(CK_FALSE);
	memset(b_rv, 0xff, sizeof(b_rv));
	CU_ASSERT_EQUAL(sign_meanwhile(b_info_and_sign, sig, &n), CKR_OK);
	CU_ASSERT_EQUAL(b_rv[0], CKR_OK);
	CU_ASSERT_EQUAL(b_rv[1], CKR_OK); /* a whole signature of B while A's was in the TPM */
	CU_ASSERT_EQUAL(b_rv[2], CKR_OK);
	CU_ASSERT_EQUAL(verify(sa, a_pub, sig, n), CKR_OK);
	finalize_app();
}

static void b_destroy(void)
{
	b_rv[0] = f->C_DestroyObject(sb, a_priv);
}

static void test_meanwhile_destroy(void)
{
	CK_MECHANISM m = { CKM_ECDSA, NULL, 0 };
	uint8_t sig[64];
	CK_ULONG n;

	init_app(CK_FALSE);
	CU_ASSERT_EQUAL(sign_meanwhile(b_destroy, sig, &n), CKR_OK);
	CU_ASSERT_EQUAL(b_rv[0], CKR_OK);
	CU_ASSERT_EQUAL(verify(sa, a_pub, sig, n), CKR_OK);
	CU_ASSERT_EQUAL(f->C_SignInit(sa, &m, a_priv), CKR_KEY_HANDLE_INVALID);
	/* the other key, on the same connection, still signs */
	CU_ASSERT_EQUAL(sign_verify(sb, CKM_ECDSA, b_pub, b_priv, DIGEST, 32), CKR_OK);
	finalize_app();
}

static void b_close(void)
{
	b_rv[0] = f->C_CloseSession(sa);
}

static void test_meanwhile_close(void)
{
	CK_SESSION_INFO info;
	uint8_t sig[64];
	CK_ULONG n;

	init_app(CK_FALSE);
	CU_ASSERT_EQUAL(sign_meanwhile(b_close, sig, &n), CKR_SESSION_CLOSED);
	CU_ASSERT_EQUAL(b_rv[0], CKR_OK);
	CU_ASSERT_EQUAL(f->C_GetSessionInfo(sa, &info), CKR_SESSION_HANDLE_INVALID);
	CU_ASSERT_EQUAL(sign_verify(sb, CKM_ECDSA, b_pub, b_priv, DIGEST, 32), CKR_OK);
	finalize_app();
}

static void b_logout(void)
{
	b_rv[0] = f->C_Logout(sb);
}

static void test_meanwhile_logout(void)
{
	CK_MECHANISM m = { CKM_ECDSA, NULL, 0 };
	CK_SESSION_INFO info;
	uint8_t sig[64];
	CK_ULONG n;

	init_app(CK_FALSE);
	/* a signature under way when the user logs out is finished (PKCS#11 §5.6: it may be) */
	CU_ASSERT_EQUAL(sign_meanwhile(b_logout, sig, &n), CKR_OK);
	CU_ASSERT_EQUAL(b_rv[0], CKR_OK);
	CU_ASSERT_EQUAL(verify(sa, a_pub, sig, n), CKR_OK);
	CU_ASSERT_EQUAL(f->C_GetSessionInfo(sa, &info), CKR_OK);
	CU_ASSERT_EQUAL(info.state, CKS_RW_PUBLIC_SESSION);
	CU_ASSERT_EQUAL(f->C_SignInit(sa, &m, a_priv), CKR_KEY_HANDLE_INVALID);
	finalize_app();
}

/* An ECDH derivation whose ZGen is in the TPM when the user logs out: the secret key would
 * be made with the wrapping secret gone (an empty authValue, usable without the PIN). */
static void test_meanwhile_logout_derive(void)
{
	uint8_t point[80];
	CK_ATTRIBUTE pa = { CKA_EC_POINT, point, sizeof(point) };
	CK_ECDH1_DERIVE_PARAMS p = { CKD_NULL, 0, NULL, 0, point };
	CK_MECHANISM m = { CKM_ECDH1_DERIVE, &p, sizeof(p) };
	CK_OBJECT_CLASS cls = CKO_SECRET_KEY;
	CK_KEY_TYPE kt = CKK_GENERIC_SECRET;
	CK_ATTRIBUTE t[] = { { CKA_CLASS, &cls, sizeof(cls) },
			     { CKA_KEY_TYPE, &kt, sizeof(kt) } };
	CK_OBJECT_HANDLE k = CK_INVALID_HANDLE;
	CK_RV rv;

	init_app(CK_FALSE);
	CU_ASSERT_EQUAL_FATAL(f->C_GetAttributeValue(sa, b_pub, &pa, 1), CKR_OK);
	p.ulPublicDataLen = pa.ulValueLen;
	arm(b_logout);
	rv = f->C_DeriveKey(sa, &m, a_priv, t, 2, &k);
	disarm();
	CU_ASSERT_EQUAL(b_rv[0], CKR_OK);
	CU_ASSERT_EQUAL(rv, CKR_USER_NOT_LOGGED_IN);
	CU_ASSERT_EQUAL(k, CK_INVALID_HANDLE);
	finalize_app();
}

static void b_same_session(void)
{
	CK_MECHANISM m = { CKM_ECDSA, NULL, 0 };
	uint8_t sig[64];
	CK_ULONG n = sizeof(sig);

	b_rv[0] = f->C_Sign(sa, (CK_BYTE *)DIGEST, 32, sig, &n);
	b_rv[1] = f->C_SignUpdate(sa, (CK_BYTE *)DIGEST, 32);
	b_rv[2] = f->C_SignFinal(sa, sig, &n);
	b_rv[3] = f->C_SignInit(sa, &m, a_priv);
}

static void test_meanwhile_same_session(void)
{
	uint8_t sig[64];
	CK_ULONG n;

	init_app(CK_FALSE);
	CU_ASSERT_EQUAL(sign_meanwhile(b_same_session, sig, &n), CKR_OK);
	for (int i = 0; i < 4; i++)
		CU_ASSERT_EQUAL(b_rv[i], CKR_OPERATION_ACTIVE);
	CU_ASSERT_EQUAL(verify(sa, a_pub, sig, n), CKR_OK);
	/* and the operation is over, as after any signature */
	n = sizeof(sig);
	CU_ASSERT_EQUAL(f->C_Sign(sa, (CK_BYTE *)DIGEST, 32, sig, &n),
			CKR_OPERATION_NOT_INITIALIZED);
	finalize_app();
}

static void b_finalize(void)
{
	b_rv[0] = f->C_Finalize(NULL);
}

/* C_Finalize waits for the signature in the TPM; B is let go on once it waits (it took the
 * module lock a second time: its wait's first turn). */
static void test_meanwhile_finalize(void)
{
	CK_C_INITIALIZE_ARGS args = { .flags = CKF_OS_LOCKING_OK };
	CK_ATTRIBUTE by_label[] = { { CKA_LABEL, "a", 1 } };
	CK_OBJECT_CLASS cls = CKO_PUBLIC_KEY;
	CK_ATTRIBUTE by_class[] = { { CKA_CLASS, &cls, sizeof(cls) }, by_label[0] };
	CK_OBJECT_HANDLE h;
	uint8_t sig[64];
	CK_ULONG n, found = 0;

	init_app(CK_TRUE);
	b_locks_wanted = 2;
	CU_ASSERT_EQUAL(sign_meanwhile(b_finalize, sig, &n), CKR_OK);
	CU_ASSERT_EQUAL(b_rv[0], CKR_OK);
	CU_ASSERT_EQUAL(created, destroyed);
	CU_ASSERT_EQUAL(locks, unlocks);
	CU_ASSERT_EQUAL(f->C_GetSessionInfo(sa, NULL), CKR_CRYPTOKI_NOT_INITIALIZED);
	/* the signature verifies with the token key, found again */
	CU_ASSERT_EQUAL_FATAL(f->C_Initialize(&args), CKR_OK);
	CU_ASSERT_EQUAL_FATAL(f->C_OpenSession(slot, CKF_SERIAL_SESSION, NULL, NULL, &s), CKR_OK);
	CU_ASSERT_EQUAL(f->C_FindObjectsInit(s, by_class, 2), CKR_OK);
	CU_ASSERT_EQUAL(f->C_FindObjects(s, &h, 1, &found), CKR_OK);
	CU_ASSERT_EQUAL(f->C_FindObjectsFinal(s), CKR_OK);
	CU_ASSERT_EQUAL_FATAL(found, 1);
	CU_ASSERT_EQUAL(verify(s, h, sig, n), CKR_OK);
}

/* ---- fork while another thread holds the module lock ---- */

static CK_RV parker_rv;

static void *parker(void *arg)
{
	CK_SESSION_INFO info;

	is_parker = true;
	parker_rv = f->C_GetSessionInfo(sa, &info);
	return NULL;
}

/* The child of a fork made while another thread of the parent held the module lock (an
 * application mutex, parked in its callback) finds the module uninitialized at once, not
 * waiting for ever on the parent's lock, initializes it anew and signs with the parent's token
 * key; the parent goes on. Nothing else runs in the parent meanwhile: the child's allocator
 * is whole (ASan's is not fork-safe while other threads allocate). */
static void test_fork_lock_held(void)
{
	CK_ULONG cls = CKO_PRIVATE_KEY;
	CK_ATTRIBUTE by_class[] = { { CKA_CLASS, &cls, sizeof(cls) } };
	const struct timespec pause = { 0, 10000000 };
	struct timespec until;
	pthread_t th;
	int status = -1;
	unsigned tries;
	pid_t pid, got = 0;

	init_app(CK_TRUE);
	parked = resumed = false;
	CU_ASSERT_EQUAL_FATAL(pthread_create(&th, NULL, parker, NULL), 0);
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += WAIT_S;
	pthread_mutex_lock(&hook_m);
	while (!parked && pthread_cond_timedwait(&hook_c, &hook_m, &until) == 0)
		;
	pthread_mutex_unlock(&hook_m);
	CU_ASSERT_FATAL(parked);
	pid = fork();
	CU_ASSERT_FATAL(pid >= 0);
	if (pid == 0) {
		CK_SESSION_HANDLE cs;
		CK_OBJECT_HANDLE h[2];
		CK_ULONG n = 0;
		CK_INFO info;
		int ok;

		ok = f->C_GetInfo(&info) == CKR_CRYPTOKI_NOT_INITIALIZED &&
		     f->C_Initialize(NULL) == CKR_OK &&
		     f->C_OpenSession(slot, CKF_SERIAL_SESSION, NULL, NULL, &cs) == CKR_OK &&
		     f->C_Login(cs, CKU_USER, (CK_UTF8CHAR *)USER_PIN, 4) == CKR_OK &&
		     f->C_FindObjectsInit(cs, by_class, 1) == CKR_OK &&
		     f->C_FindObjects(cs, h, 2, &n) == CKR_OK && n == 1 &&
		     f->C_FindObjectsFinal(cs) == CKR_OK;
		cls = CKO_PUBLIC_KEY;
		ok = ok && f->C_FindObjectsInit(cs, by_class, 1) == CKR_OK &&
		     f->C_FindObjects(cs, h + 1, 1, &n) == CKR_OK && n == 1 &&
		     f->C_FindObjectsFinal(cs) == CKR_OK &&
		     sign_verify(cs, CKM_ECDSA, h[1], h[0], DIGEST, 32) == CKR_OK &&
		     f->C_Finalize(NULL) == CKR_OK;
		_exit(ok ? 0 : 1);
	}
	for (tries = 0; tries < WAIT_S * 100 && got == 0; tries++) {
		got = waitpid(pid, &status, WNOHANG);
		if (got == 0)
			nanosleep(&pause, NULL);
	}
	if (got == 0) { /* waiting on the parent's lock */
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
	}
	CU_ASSERT_EQUAL(got, pid);
	CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	pthread_mutex_lock(&hook_m);
	resumed = true;
	pthread_cond_broadcast(&hook_c);
	pthread_mutex_unlock(&hook_m);
	pthread_join(th, NULL);
	CU_ASSERT_EQUAL(parker_rv, CKR_OK);
	CU_ASSERT_EQUAL(sign_verify(sa, CKM_ECDSA, a_pub, a_priv, DIGEST, 32), CKR_OK);
	finalize_app();
}

/* ---- the process that runs the TPM goes ---- */

/* A child runs the embedded TPM (it opens it first) while this process's module is its client
 * over the socket, on two connections (two threads sign); the child exits without a word. The
 * next step of each connection fails in its transport; the module opens the connection again
 * (one of them becomes the TPM's runner) and repeats the step: the signatures go on. */
static void test_owner_goes(void)
{
	CK_C_INITIALIZE_ARGS args = { .flags = CKF_OS_LOCKING_OK };
	CK_OBJECT_HANDLE pub, priv;
	CK_TOKEN_INFO info;
	struct signer w[2];
	int ready[2], stop[2], st = -1;
	char c = 0;
	pid_t pid;

	init_os();
	CU_ASSERT_EQUAL(f->C_Finalize(NULL), CKR_OK); /* the TPM is nobody's now */
	CU_ASSERT_FATAL(pipe(ready) == 0 && pipe(stop) == 0);
	pid = fork();
	CU_ASSERT_FATAL(pid >= 0);
	if (pid == 0) {
		/* the TPM's runner: its first TPM step (the token's PIN count) opens it here */
		close(ready[0]);
		close(stop[1]);
		if (f->C_Initialize(NULL) != CKR_OK || f->C_GetTokenInfo(slot, &info) != CKR_OK ||
		    write(ready[1], "r", 1) != 1)
			_exit(1);
		_exit(read(stop[0], &c, 1) == 0 ? 0 : 2); /* gone at once, C_Finalize or not */
	}
	close(ready[1]);
	close(stop[0]);
	CU_ASSERT_EQUAL_FATAL(read(ready[0], &c, 1), 1);
	CU_ASSERT_EQUAL_FATAL(f->C_Initialize(&args), CKR_OK);
	CU_ASSERT_EQUAL_FATAL(f->C_OpenSession(slot, CKF_SERIAL_SESSION | CKF_RW_SESSION, NULL,
					       NULL, &s),
			      CKR_OK);
	CU_ASSERT_EQUAL_FATAL(f->C_Login(s, CKU_USER, (CK_UTF8CHAR *)USER_PIN, 4), CKR_OK);
	CU_ASSERT_EQUAL_FATAL(gen_ec(s, CK_FALSE, "k", &pub, &priv), CKR_OK);
	memset(w, 0, sizeof(w));
	for (unsigned i = 0; i < 2; i++)
		w[i] = (struct signer){ .s = open_session(), .mech = CKM_ECDSA, .pub = pub,
					.priv = priv, .msg = DIGEST, .len = sizeof(DIGEST) };
	run_signers(w, 2); /* through the child's TPM */
	close(stop[1]);
	CU_ASSERT_EQUAL(waitpid(pid, &st, 0), pid);
	CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	memset(w, 0, sizeof(w));
	for (unsigned i = 0; i < 2; i++)
		w[i] = (struct signer){ .s = open_session(), .mech = CKM_ECDSA, .pub = pub,
					.priv = priv, .msg = DIGEST, .len = sizeof(DIGEST) };
	run_signers(w, 2); /* the child is gone */
	CU_ASSERT_EQUAL(f->C_GetTokenInfo(slot, &info), CKR_OK);
	close(ready[0]);
}

/* ---- races: the answers the specification gives, whatever the order ---- */

struct racer {
	CK_SESSION_HANDLE s;
	CK_OBJECT_HANDLE pub, priv;
	atomic_uint signed_ok;
	CK_RV last;	   /* what ended its loop */
	bool unexpected;   /* a CK_RV none of the orders gives */
};

/* Sign until something ends it (at most `rounds` times): CKR_OK until then, and then only
 * what a key destroyed, a session closed or the module finalized gives. */
static unsigned rounds;

static void *race_signer(void *arg)
{
	struct racer *w = arg;
	CK_MECHANISM m = { CKM_ECDSA, NULL, 0 };
	uint8_t sig[64];

	for (unsigned i = 0; i < rounds; i++) {
		CK_ULONG n = sizeof(sig);
		CK_RV rv = f->C_SignInit(w->s, &m, w->priv);

		if (rv == CKR_OK)
			rv = f->C_Sign(w->s, (CK_BYTE *)DIGEST, 32, sig, &n);
		w->last = rv;
		if (rv != CKR_OK) {
			w->unexpected = rv != CKR_KEY_HANDLE_INVALID && rv != CKR_SESSION_CLOSED &&
					rv != CKR_SESSION_HANDLE_INVALID &&
					rv != CKR_CRYPTOKI_NOT_INITIALIZED;
			break;
		}
		w->signed_ok++;
	}
	return NULL;
}

/* Wait (bounded) until each racer signed at least twice. */
static void until_signing(struct racer *w, unsigned n)
{
	const struct timespec pause = { 0, 1000000 };

	for (unsigned tries = 0; tries < WAIT_S * 1000; tries++) {
		unsigned i;

		for (i = 0; i < n && atomic_load(&w[i].signed_ok) >= 2; i++)
			;
		if (i == n)
			return;
		nanosleep(&pause, NULL);
	}
}

static void test_races(void)
{
	struct racer w[4];
	pthread_t th[4];
	unsigned i;

	init_os();
	rounds = 100000; /* ended by the destroy, the close, the finalize */
	memset(w, 0, sizeof(w));
	for (i = 0; i < 4; i++) {
		w[i].s = open_session();
		CU_ASSERT_EQUAL_FATAL(gen_ec(s, CK_FALSE, "race", &w[i].pub, &w[i].priv), CKR_OK);
		CU_ASSERT_EQUAL_FATAL(pthread_create(&th[i], NULL, race_signer, &w[i]), 0);
	}
	until_signing(w, 4);
	CU_ASSERT_EQUAL(f->C_DestroyObject(s, w[0].priv), CKR_OK);
	CU_ASSERT_EQUAL(f->C_CloseSession(w[1].s), CKR_OK);
	pthread_join(th[0], NULL);
	pthread_join(th[1], NULL);
	CU_ASSERT_EQUAL(w[0].last, CKR_KEY_HANDLE_INVALID);
	CU_ASSERT(w[1].last == CKR_SESSION_CLOSED || w[1].last == CKR_SESSION_HANDLE_INVALID);
	CU_ASSERT_EQUAL(f->C_Finalize(NULL), CKR_OK);
	for (i = 2; i < 4; i++) {
		pthread_join(th[i], NULL);
		CU_ASSERT_EQUAL(w[i].last, CKR_CRYPTOKI_NOT_INITIALIZED);
	}
	for (i = 0; i < 4; i++) {
		CU_ASSERT(!w[i].unexpected);
		CU_ASSERT(w[i].signed_ok >= 2);
	}
}

int main(void)
{
	static const struct unit_test tests[] = {
		{ "threads sign at once: own keys, one shared key", test_parallel_signing },
		{ "five threads on one connection (connections = 1)", test_one_connection },
		{ "digest, random, key generation, RSA-OAEP, ECDH, ML-KEM at once", test_mixed },
		{ "another thread's calls complete while a signature is in the TPM",
		  test_meanwhile_calls },
		{ "C_DestroyObject of the key while its signature is in the TPM",
		  test_meanwhile_destroy },
		{ "C_CloseSession while its signature is in the TPM", test_meanwhile_close },
		{ "C_Logout while a signature is in the TPM", test_meanwhile_logout },
		{ "C_Logout while an ECDH derivation is in the TPM", test_meanwhile_logout_derive },
		{ "the same session from another thread: CKR_OPERATION_ACTIVE",
		  test_meanwhile_same_session },
		{ "C_Finalize waits for a signature in the TPM", test_meanwhile_finalize },
		{ "fork while another thread holds the module lock", test_fork_lock_held },
		{ "the process that runs the TPM goes while two threads sign", test_owner_goes },
		{ "C_DestroyObject, C_CloseSession, C_Finalize racing signatures", test_races },
	};
	int failed;

	if (!mkdtemp(tmp_root) || p11_module_load(&lib, &f) != 0 ||
	    !(f32 = p11_module_interface(lib, 3, 2)))
		return 1;
	failed = UNIT_RUN("pkcs11 threads", tests, setup, teardown);
	dlclose(lib);
	harness_rm_tree(tmp_root);
	return failed;
}
