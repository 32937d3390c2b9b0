/* Two clients of one in-process engine, one thread each (docs/engine-concurrency.md): key
 * generation, signing, decryption and the other commands whose cost is cryptography run
 * without the engine lock, so the other client's commands complete while they run, and what
 * the other client does meanwhile (Clear, EvictControl, ChangePPS/EPS, HierarchyControl, a
 * power cycle) is noticed when the computation comes back. Progress is observed by counting,
 * never by time: a command of B counts as "inside" A's computation when the engine had a
 * computation running (e->computing) both before B's command began and after it finished, and
 * A finished no command in between. With the lock held through A's computation that count is
 * zero: B's command then waits until A's computation is over. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include <pqtpm/engine.h>

#include "cmd/pq_secret.h"
#include "dup_util.h"
#include "engine_int.h"
#include "harness.h"
#include "keys.h"
#include "pq_util.h"
#include "unit_main.h"

#define KEYGENS 2		/* RSA-3072 primaries A makes */
#define MAX_B_COMMANDS 200000	/* B's loop is bounded even if A never finished */
#define CLEAR_TRIES 4		/* rounds until B's act lands inside A's key generation */

static struct harness ha, hb;

/* A's progress: how many of its commands started and finished */
static atomic_uint a_started, a_finished;
static TPM_RC a_rc[CLEAR_TRIES];

static void setup_pair(void)
{
	harness_open(&ha);
	hb = ha;
	hb.c = pqtpm_client_new(ha.e);
	CU_ASSERT_PTR_NOT_NULL_FATAL(hb.c);
	atomic_store(&a_started, 0);
	atomic_store(&a_finished, 0);
}

static void close_pair(void)
{
	pqtpm_client_free(hb.c);
	harness_close(&ha);
}

/* An RSA-3072 signing template, made unique by n: a cache miss each time. */
static void rsa3072(struct tpmt_public *t, unsigned n)
{
	key_template(t, TPM_ALG_RSA, TPMA_OBJECT_SIGN_ENCRYPT | TPMA_OBJECT_SENSITIVEDATAORIGIN);
	t->key_bits = 3072;
	t->unique.size = sizeof(n);
	memcpy(t->unique.b, &n, sizeof(n));
}

static TPM_RC create_primary(struct harness *h, TPM_HANDLE hierarchy,
			     const struct tpmt_public *t, TPM_HANDLE *handle)
{
	struct cmdbuf b;
	struct rd rsp;
	struct tpml_pcr_selection none = { 0 };

	cmd_begin(&b, TPM_CC_CreatePrimary);
	cmd_handle(&b, hierarchy);
	cmd_auth_pw(&b, "");
	cmd_sensitive(&b, "", NULL, 0);
	wr_tpm2b_public(&b.params, t);
	wr_u16(&b.params, 0); /* outsideInfo */
	wr_pcr_selection(&b.params, &none);
	return harness_run(h, &b, &rsp, handle);
}

static TPM_RC flush(struct harness *h, TPM_HANDLE handle)
{
	struct cmdbuf b;

	cmd_begin(&b, TPM_CC_FlushContext);
	wr_u32(&b.params, handle);
	return harness_run(h, &b, NULL, NULL);
}

static void *a_keygens(void *arg)
{
	TPM_RC *rc = arg;

	for (unsigned i = 0; i < KEYGENS; i++) {
		struct tpmt_public t;
		TPM_HANDLE handle = 0;

		rsa3072(&t, 1000 + i);
		atomic_fetch_add(&a_started, 1);
		rc[i] = create_primary(&ha, TPM_RH_OWNER, &t, &handle);
		atomic_fetch_add(&a_finished, 1);
		if (rc[i] == TPM_RC_SUCCESS)
			rc[i] = flush(&ha, handle);
	}
	return NULL;
}

static TPM_RC get_random(struct harness *h)
{
	struct cmdbuf b;

	cmd_begin(&b, TPM_CC_GetRandom);
	wr_u16(&b.params, 16);
	return harness_run(h, &b, NULL, NULL);
}

static TPM_RC ecdsa_sign(struct harness *h, TPM_HANDLE key)
{
	struct tpmt_ticket null_ticket = { .tag = TPM_ST_HASHCHECK, .hierarchy = TPM_RH_NULL };
	struct tpm2b_digest d = { .size = 32 };
	struct cmdbuf b;

	cmd_begin(&b, TPM_CC_Sign);
	cmd_handle(&b, key);
	cmd_auth_pw(&b, "");
	wr_tpm2b_digest(&b.params, &d);
	wr_u16(&b.params, TPM_ALG_ECDSA);
	wr_u16(&b.params, TPM_ALG_SHA256);
	wr_ticket(&b.params, &null_ticket);
	return harness_run(h, &b, NULL, NULL);
}

static unsigned computing(void)
{
	return __atomic_load_n(&ha.e->computing, __ATOMIC_ACQUIRE);
}

/* B's command ran wholly inside one of A's key generations: one was running before it
 * (computing_before) and is still running, A having finished no command since */
static bool inside_a(unsigned computing_before, unsigned finished_before)
{
	return computing_before > 0 && computing() > 0 && atomic_load(&a_finished) == finished_before;
}

/* While A makes RSA-3072 primaries, B's GetRandom and its ECDSA signatures on its own key
 * complete inside A's key generations, and all succeed. */
static void test_keygen_does_not_stall_others(void)
{
	struct tpmt_public ecc;
	struct key k;
	pthread_t a;
	TPM_RC rc[KEYGENS];
	unsigned inside = 0, done = 0, failed = 0;

	setup_pair();
	key_template(&ecc, TPM_ALG_ECC, TPMA_OBJECT_SIGN_ENCRYPT | TPMA_OBJECT_SENSITIVEDATAORIGIN);
	key_primary(&hb, &ecc, NULL, 0, &k);
	CU_ASSERT_EQUAL_FATAL(pthread_create(&a, NULL, a_keygens, rc), 0);
	while (atomic_load(&a_finished) < KEYGENS && done < MAX_B_COMMANDS) {
		unsigned f = atomic_load(&a_finished), s = computing();
		TPM_RC r = done % 2 ? ecdsa_sign(&hb, k.handle) : get_random(&hb);

		failed += r != TPM_RC_SUCCESS;
		inside += inside_a(s, f);
		done++;
	}
	pthread_join(a, NULL);
	for (unsigned i = 0; i < KEYGENS; i++)
		CU_ASSERT_EQUAL(rc[i], TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(failed, 0);
	CU_ASSERT(inside > 0);
	close_pair();
}

/* Races: B acts (a Clear, an EvictControl, a power cycle) while A's key generation runs
 * without the lock. A's command then fails as a real TPM's would, after B's act, and leaves
 * nothing loaded: its hierarchy's seed is gone (TPM_RC_RETRY), its transient parent was
 * flushed (TPM_RC_REFERENCE_H0), its persistent parent evicted (TPM_RC_HANDLE), the TPM was
 * power cycled (TPM_RC_INITIALIZE). */
#define PERSISTENT_PARENT 0x81000100u

enum parent { NO_PARENT, TRANSIENT_PARENT, PERSISTENT_PARENT_KIND };

static TPM_HANDLE a_parent;

static void *a_one_keygen(void *arg)
{
	unsigned n = atomic_load(&a_started);
	struct tpmt_public t;
	TPM_HANDLE handle = 0;

	(void)arg;
	rsa3072(&t, 2000 + n);
	atomic_fetch_add(&a_started, 1);
	if (a_parent) {
		struct tpm2b_private priv;
		struct tpmt_public pub;

		a_rc[n] = key_create(&ha, a_parent, &t, "", NULL, 0, &priv, &pub);
	} else {
		a_rc[n] = create_primary(&ha, TPM_RH_OWNER, &t, &handle);
	}
	atomic_fetch_add(&a_finished, 1);
	if (a_rc[n] == TPM_RC_SUCCESS && handle)
		(void)flush(&ha, handle);
	return NULL;
}

static TPM_RC clear(void)
{
	struct cmdbuf b;

	cmd_begin(&b, TPM_CC_Clear);
	cmd_handle(&b, TPM_RH_LOCKOUT);
	cmd_auth_pw(&b, "");
	return harness_run(&hb, &b, NULL, NULL);
}

static TPM_RC evict_control(struct harness *h, TPM_HANDLE object, TPM_HANDLE persistent)
{
	struct cmdbuf b;

	cmd_begin(&b, TPM_CC_EvictControl);
	cmd_handle(&b, TPM_RH_OWNER);
	cmd_handle(&b, object);
	cmd_auth_pw(&b, "");
	wr_u32(&b.params, persistent);
	return harness_run(h, &b, NULL, NULL);
}

static TPM_RC evict_parent(void)
{
	return evict_control(&hb, PERSISTENT_PARENT, PERSISTENT_PARENT);
}

static TPM_RC power_cycle(void)
{
	struct cmdbuf b;

	if (pqtpm_engine_signal(hb.e, PQTPM_SIGNAL_POWER_OFF) != 0 ||
	    pqtpm_engine_signal(hb.e, PQTPM_SIGNAL_POWER_ON) != 0)
		return TPM_RC_FAILURE;
	cmd_begin(&b, TPM_CC_Startup);
	wr_u16(&b.params, TPM_SU_CLEAR);
	return harness_run(&hb, &b, NULL, NULL);
}

/* A's parent for this round, made by A's client (a persistent one then made persistent) */
static void make_parent(enum parent kind)
{
	struct tpmt_public st;
	struct key k;

	a_parent = 0;
	if (kind == NO_PARENT)
		return;
	key_storage_template(&st, TPM_ALG_ECC,
			     KEY_BASE | TPMA_OBJECT_RESTRICTED | TPMA_OBJECT_DECRYPT |
				     TPMA_OBJECT_SENSITIVEDATAORIGIN);
	key_primary(&ha, &st, NULL, 0, &k);
	a_parent = k.handle;
	if (kind == PERSISTENT_PARENT_KIND) {
		CU_ASSERT_EQUAL(evict_control(&ha, k.handle, PERSISTENT_PARENT), TPM_RC_SUCCESS);
		CU_ASSERT_EQUAL(flush(&ha, k.handle), TPM_RC_SUCCESS);
		a_parent = PERSISTENT_PARENT;
	}
}

static void race(enum parent kind, TPM_RC (*b_acts)(void), TPM_RC want)
{
	unsigned landed = 0;

	setup_pair();
	for (unsigned i = 0; i < CLEAR_TRIES && !landed; i++) {
		pthread_t a;
		unsigned s, f, spins = 0;
		bool in;

		make_parent(kind);
		CU_ASSERT_EQUAL_FATAL(pthread_create(&a, NULL, a_one_keygen, NULL), 0);
		/* B waits (bounded) until A's key generation runs without the lock, then acts */
		while (computing() == 0 && atomic_load(&a_finished) == i && spins++ < 1000000000u)
			;
		f = atomic_load(&a_finished);
		s = computing();
		CU_ASSERT_EQUAL(b_acts(), TPM_RC_SUCCESS);
		in = inside_a(s, f);
		pthread_join(a, NULL);
		if (in)
			CU_ASSERT_EQUAL(a_rc[i], want);
		landed += in;
		/* every act takes A's parent with it, and A's command left nothing */
		CU_ASSERT_EQUAL(object_count_loaded(ha.e), 0);
	}
	CU_ASSERT(landed > 0);
	close_pair();
}

static void test_clear_during_primary(void)
{
	race(NO_PARENT, clear, TPM_RC_RETRY);
}

static void test_clear_during_create(void)
{
	race(TRANSIENT_PARENT, clear, TPM_RC_REFERENCE_H0);
}

static void test_evict_during_create(void)
{
	race(PERSISTENT_PARENT_KIND, evict_parent, RC_H(TPM_RC_HANDLE, 1));
}

static void test_power_cycle_during_primary(void)
{
	race(NO_PARENT, power_cycle, TPM_RC_INITIALIZE);
}

static void test_power_cycle_during_create(void)
{
	race(TRANSIENT_PARENT, power_cycle, TPM_RC_INITIALIZE);
}

/* ---- every class of command computes without the lock ----
 * A repeats one command (bounded); B's GetRandom must complete inside one of A's
 * computations. A stops as soon as one has. */
#define A_ROUNDS 3000

static TPM_RC (*a_cmd)(void);
static atomic_bool a_stop, a_done;
static TPM_RC a_last;

static void *a_repeats(void *arg)
{
	(void)arg;
	for (unsigned i = 0; i < A_ROUNDS && !atomic_load(&a_stop); i++) {
		TPM_RC rc;

		atomic_fetch_add(&a_started, 1);
		rc = a_cmd();
		atomic_fetch_add(&a_finished, 1);
		if (rc != TPM_RC_SUCCESS) {
			a_last = rc;
			break;
		}
	}
	atomic_store(&a_done, true);
	return NULL;
}

static void runs_unlocked(const char *what, TPM_RC (*cmd)(void))
{
	unsigned inside = 0, done = 0;
	pthread_t a;

	a_cmd = cmd;
	a_last = TPM_RC_SUCCESS;
	atomic_store(&a_stop, false);
	atomic_store(&a_done, false);
	atomic_store(&a_started, 0);
	atomic_store(&a_finished, 0);
	CU_ASSERT_EQUAL_FATAL(pthread_create(&a, NULL, a_repeats, NULL), 0);
	while (!atomic_load(&a_done) && !inside && done < MAX_B_COMMANDS) {
		unsigned f = atomic_load(&a_finished), s = computing();

		CU_ASSERT_EQUAL(get_random(&hb), TPM_RC_SUCCESS);
		inside += inside_a(s, f);
		done++;
	}
	atomic_store(&a_stop, true);
	pthread_join(a, NULL);
	if (a_last != TPM_RC_SUCCESS || !inside)
		fprintf(stderr, "\n%s: A's code 0x%x, B inside %u of %u\n", what, a_last, inside,
			done);
	CU_ASSERT_EQUAL(a_last, TPM_RC_SUCCESS);
	CU_ASSERT(inside > 0);
}

/* A's keys, in A's client */
static struct key rsa_key, ecc_key, store_key, dup_key;
static struct pq_key hmldsa_key, mldsa_key, mlkem_key;
static struct tpmt_signature rsa_sig, hmldsa_sig;
static struct tpmt_public dup_pub;
static struct dup_blob dup_blob;
static uint8_t cred_blob[256], cred_secret[SECRET_MAX], salt_secret[SECRET_MAX];
static uint16_t cred_blen, cred_slen, salt_len;

static const struct tpmt_ticket null_hashcheck = { .tag = TPM_ST_HASHCHECK,
						   .hierarchy = TPM_RH_NULL };
static const struct tpm2b_digest digest32 = { .size = 32, .b = { 1, 2, 3 } };

static TPM_RC sign_with(TPM_HANDLE key, TPM_ALG_ID scheme, struct tpmt_signature *sig)
{
	struct cmdbuf b;
	struct rd r;
	TPM_RC rc;

	cmd_begin(&b, TPM_CC_Sign);
	cmd_handle(&b, key);
	cmd_auth_pw(&b, "");
	wr_tpm2b_digest(&b.params, &digest32);
	wr_u16(&b.params, scheme);
	if (scheme != TPM_ALG_NULL)
		wr_u16(&b.params, TPM_ALG_SHA256);
	wr_ticket(&b.params, &null_hashcheck);
	rc = harness_run(&ha, &b, &r, NULL);
	if (rc == TPM_RC_SUCCESS && sig)
		rc = rd_signature(&r, sig);
	return rc;
}

static TPM_RC a_sign(void)
{
	return sign_with(rsa_key.handle, TPM_ALG_RSASSA, NULL);
}

static TPM_RC a_verify_signature(void)
{
	struct cmdbuf b;

	cmd_begin(&b, TPM_CC_VerifySignature);
	cmd_handle(&b, rsa_key.handle);
	wr_tpm2b_digest(&b.params, &digest32);
	wr_signature(&b.params, &rsa_sig);
	return harness_run(&ha, &b, NULL, NULL);
}

static TPM_RC sign_digest(TPM_HANDLE key, struct tpmt_signature *sig)
{
	struct cmdbuf b;
	struct rd r;
	TPM_RC rc;

	cmd_begin(&b, TPM_CC_SignDigest);
	cmd_handle(&b, key);
	cmd_auth_pw(&b, "");
	wr_u16(&b.params, 0); /* context */
	wr_tpm2b_digest(&b.params, &digest32);
	wr_ticket(&b.params, &null_hashcheck);
	rc = harness_run(&ha, &b, &r, NULL);
	if (rc == TPM_RC_SUCCESS && sig)
		rc = rd_signature(&r, sig);
	return rc;
}

static TPM_RC a_sign_digest(void)
{
	return sign_digest(hmldsa_key.handle, NULL);
}

static TPM_RC a_verify_digest_signature(void)
{
	struct cmdbuf b;

	cmd_begin(&b, TPM_CC_VerifyDigestSignature);
	cmd_handle(&b, hmldsa_key.handle);
	wr_u16(&b.params, 0); /* context */
	wr_tpm2b_digest(&b.params, &digest32);
	wr_signature(&b.params, &hmldsa_sig);
	return harness_run(&ha, &b, NULL, NULL);
}

/* SignSequenceStart, SignSequenceComplete; then VerifySequenceStart, VerifySequenceComplete */
static TPM_RC a_sequences(void)
{
	struct tpmt_signature sig;
	struct tpmt_ticket t;
	TPM_HANDLE seq;

	TRY(pq_sign_start(&ha, mldsa_key.handle, "", NULL, 0, &seq));
	TRY(pq_sign_complete(&ha, seq, "", mldsa_key.handle, "", "message", 7, &sig));
	TRY(pq_verify_start(&ha, mldsa_key.handle, "", NULL, 0, &seq));
	TRY(pq_update(&ha, seq, "", "message", 7));
	return pq_verify_complete(&ha, seq, "", mldsa_key.handle, &sig, &t);
}

static TPM_RC a_quote(void)
{
	static const struct tpml_pcr_selection sel = {
		.count = 1, .sel = { { .hash = TPM_ALG_SHA256, .size_of_select = 3,
				       .select = { 0x0F } } }
	};
	struct cmdbuf b;

	cmd_begin(&b, TPM_CC_Quote);
	cmd_handle(&b, rsa_key.handle);
	cmd_auth_pw(&b, "");
	wr_u16(&b.params, 0); /* qualifyingData */
	wr_u16(&b.params, TPM_ALG_RSASSA);
	wr_u16(&b.params, TPM_ALG_SHA256);
	wr_pcr_selection(&b.params, &sel);
	return harness_run(&ha, &b, NULL, NULL);
}

static TPM_RC a_certify(void)
{
	struct cmdbuf b;

	cmd_begin(&b, TPM_CC_Certify);
	cmd_handle(&b, ecc_key.handle);
	cmd_handle(&b, hmldsa_key.handle);
	cmd_auth_pw(&b, "");
	cmd_auth_pw(&b, "");
	wr_u16(&b.params, 0); /* qualifyingData */
	wr_u16(&b.params, TPM_ALG_NULL);
	return harness_run(&ha, &b, NULL, NULL);
}

static TPM_RC rsa_crypt(TPM_CC cc, const uint8_t *in, uint16_t len, uint8_t *out, uint16_t *olen)
{
	struct cmdbuf b;
	struct rd r;
	TPM_RC rc;

	cmd_begin(&b, cc);
	cmd_handle(&b, rsa_key.handle);
	if (cc == TPM_CC_RSA_Decrypt)
		cmd_auth_pw(&b, "");
	wr_tpm2b(&b.params, in, len);
	wr_u16(&b.params, TPM_ALG_OAEP);
	wr_u16(&b.params, TPM_ALG_SHA256);
	wr_u16(&b.params, 0); /* label */
	rc = harness_run(&ha, &b, &r, NULL);
	if (rc == TPM_RC_SUCCESS)
		rc = rd_tpm2b(&r, out, 512, olen);
	return rc;
}

static TPM_RC a_rsa_encrypt_decrypt(void)
{
	uint8_t cipher[512], plain[512];
	uint16_t clen = 0, plen = 0;

	TRY(rsa_crypt(TPM_CC_RSA_Encrypt, digest32.b, 32, cipher, &clen));
	TRY(rsa_crypt(TPM_CC_RSA_Decrypt, cipher, clen, plain, &plen));
	return plen == 32 && memcmp(plain, digest32.b, 32) == 0 ? TPM_RC_SUCCESS : TPM_RC_FAILURE;
}

static TPM_RC a_ecdh(void)
{
	struct tpm2b_ecc_parameter zx, zy, px, py;
	struct cmdbuf b;
	struct rd r;

	cmd_begin(&b, TPM_CC_ECDH_KeyGen);
	cmd_handle(&b, ecc_key.handle);
	TRY(harness_run(&ha, &b, &r, NULL));
	TRY(rd_tpm2b_ecc_point(&r, &zx, &zy, false));
	TRY(rd_tpm2b_ecc_point(&r, &px, &py, false));
	cmd_begin(&b, TPM_CC_ECDH_ZGen);
	cmd_handle(&b, ecc_key.handle);
	cmd_auth_pw(&b, "");
	wr_tpm2b_ecc_point(&b.params, px.b, py.b, px.size);
	return harness_run(&ha, &b, NULL, NULL);
}

static TPM_RC a_kem(void)
{
	uint8_t ss[32], ss2[32], ct[MLKEM_MAX_CT_BYTES];
	uint16_t ctlen = 0;

	TRY(pq_encapsulate(&ha, mlkem_key.handle, ss, ct, &ctlen));
	TRY(pq_decapsulate(&ha, mlkem_key.handle, "", ct, ctlen, ss2));
	return memcmp(ss, ss2, sizeof(ss)) == 0 ? TPM_RC_SUCCESS : TPM_RC_FAILURE;
}

static TPM_RC a_duplicate_import(void)
{
	struct tpm2b_data none = { 0 };
	struct tpmt_sym_def null_sym = { TPM_ALG_NULL, 0, 0 };
	struct tpm2b_private priv;
	struct dup_blob bl;

	TRY(dup_duplicate(&ha, dup_key.handle, &dup_key.name, store_key.handle, &store_key.name,
			  &none, &null_sym, true, NULL, &bl));
	return dup_import(&ha, store_key.handle, &dup_pub, &bl, NULL, &priv);
}

static TPM_RC a_rewrap(void)
{
	struct dup_blob out;

	return dup_rewrap(&ha, store_key.handle, store_key.handle, &dup_key.name, &dup_blob, &out);
}

static TPM_RC a_credentials(void)
{
	struct cmdbuf b;

	cmd_begin(&b, TPM_CC_MakeCredential);
	cmd_handle(&b, store_key.handle);
	wr_tpm2b_digest(&b.params, &digest32);
	wr_tpm2b_name(&b.params, &rsa_key.name);
	TRY(harness_run(&ha, &b, NULL, NULL));
	cmd_begin(&b, TPM_CC_ActivateCredential);
	cmd_handle(&b, rsa_key.handle);
	cmd_handle(&b, store_key.handle);
	cmd_auth_pw(&b, "");
	cmd_auth_pw(&b, "");
	wr_tpm2b(&b.params, cred_blob, cred_blen);
	wr_tpm2b(&b.params, cred_secret, cred_slen);
	return harness_run(&ha, &b, NULL, NULL);
}

static TPM_RC a_salted_session(void)
{
	struct tpm2b_digest nonce = { .size = 32 };
	TPM_HANDLE s = 0;
	struct cmdbuf b;

	cmd_begin(&b, TPM_CC_StartAuthSession);
	cmd_handle(&b, store_key.handle);
	cmd_handle(&b, TPM_RH_NULL);
	wr_tpm2b_digest(&b.params, &nonce);
	wr_tpm2b(&b.params, salt_secret, salt_len);
	wr_u8(&b.params, TPM_SE_HMAC);
	wr_u16(&b.params, TPM_ALG_NULL); /* symmetric */
	wr_u16(&b.params, TPM_ALG_SHA256);
	TRY(harness_run(&ha, &b, NULL, &s));
	return flush(&ha, s);
}

/* What the commands above need: A's keys, a signature of each kind, a duplication blob, a
 * credential and an encrypted salt. */
static void make_keys(void)
{
	struct tpmt_public t;
	struct tpm2b_digest policy;
	struct tpm2b_private priv;
	struct tpm2b_data none = { 0 };
	struct tpmt_sym_def null_sym = { TPM_ALG_NULL, 0, 0 };
	struct key_material m;
	uint8_t seed[MAX_DIGEST_SIZE];
	size_t slen = 0, len = 0;
	struct cmdbuf b;
	struct rd r;

	key_template(&t, TPM_ALG_RSA, TPMA_OBJECT_SIGN_ENCRYPT | TPMA_OBJECT_DECRYPT |
					      TPMA_OBJECT_SENSITIVEDATAORIGIN);
	key_primary(&ha, &t, NULL, 0, &rsa_key);
	key_template(&t, TPM_ALG_ECC, TPMA_OBJECT_SIGN_ENCRYPT | TPMA_OBJECT_DECRYPT |
					      TPMA_OBJECT_SENSITIVEDATAORIGIN);
	key_primary(&ha, &t, NULL, 0, &ecc_key);
	key_storage_template(&t, TPM_ALG_ECC,
			     KEY_BASE | TPMA_OBJECT_RESTRICTED | TPMA_OBJECT_DECRYPT |
				     TPMA_OBJECT_SENSITIVEDATAORIGIN);
	key_primary(&ha, &t, NULL, 0, &store_key);
	pq_tmpl(&t, TPM_ALG_HASH_MLDSA, TPM_MLDSA_65, TPMA_OBJECT_SIGN_ENCRYPT);
	CU_ASSERT_EQUAL_FATAL(pq_primary(&ha, TPM_RH_OWNER, &t, "", &hmldsa_key), 0);
	pq_tmpl(&t, TPM_ALG_MLDSA, TPM_MLDSA_65, TPMA_OBJECT_SIGN_ENCRYPT);
	CU_ASSERT_EQUAL_FATAL(pq_primary(&ha, TPM_RH_OWNER, &t, "", &mldsa_key), 0);
	pq_tmpl(&t, TPM_ALG_MLKEM, TPM_MLKEM_768, TPMA_OBJECT_DECRYPT);
	CU_ASSERT_EQUAL_FATAL(pq_primary(&ha, TPM_RH_OWNER, &t, "", &mlkem_key), 0);
	CU_ASSERT_EQUAL_FATAL(sign_with(rsa_key.handle, TPM_ALG_RSASSA, &rsa_sig), 0);
	CU_ASSERT_EQUAL_FATAL(sign_digest(hmldsa_key.handle, &hmldsa_sig), 0);
	/* a key that may be duplicated (PolicyCommandCode(Duplicate)) under the storage key */
	key_template_attrs(&t, TPM_ALG_ECC, TPMA_OBJECT_USERWITHAUTH | TPMA_OBJECT_SIGN_ENCRYPT |
						    TPMA_OBJECT_SENSITIVEDATAORIGIN);
	dup_policy(&policy);
	t.auth_policy = policy;
	CU_ASSERT_EQUAL_FATAL(key_create(&ha, store_key.handle, &t, "", NULL, 0, &priv, &dup_pub),
			      0);
	CU_ASSERT_EQUAL_FATAL(key_load(&ha, store_key.handle, &priv, &dup_pub, &dup_key.handle,
				       &dup_key.name),
			      0);
	CU_ASSERT_EQUAL_FATAL(dup_duplicate(&ha, dup_key.handle, &dup_key.name, store_key.handle,
					    &store_key.name, &none, &null_sym, true, NULL,
					    &dup_blob),
			      0);
	cmd_begin(&b, TPM_CC_MakeCredential);
	cmd_handle(&b, store_key.handle);
	wr_tpm2b_digest(&b.params, &digest32);
	wr_tpm2b_name(&b.params, &rsa_key.name);
	CU_ASSERT_EQUAL_FATAL(harness_run(&ha, &b, &r, NULL), 0);
	CU_ASSERT_EQUAL_FATAL(rd_tpm2b(&r, cred_blob, sizeof(cred_blob), &cred_blen), 0);
	CU_ASSERT_EQUAL_FATAL(rd_tpm2b(&r, cred_secret, sizeof(cred_secret), &cred_slen), 0);
	/* the salt of a session, as a client encrypts it to the storage key */
	CU_ASSERT_EQUAL_FATAL(key_material_of(&m, object_find(ha.c, store_key.handle)), 0);
	CU_ASSERT_EQUAL_FATAL(secret_encrypt(&m, "SECRET", seed, &slen, salt_secret,
					     sizeof(salt_secret), &len),
			      0);
	key_material_drop(&m);
	salt_len = (uint16_t)len;
}

static void test_each_class_unlocked(void)
{
	static const struct {
		const char *what;
		TPM_RC (*cmd)(void);
	} classes[] = {
		{ "Sign", a_sign },
		{ "VerifySignature", a_verify_signature },
		{ "SignDigest", a_sign_digest },
		{ "VerifyDigestSignature", a_verify_digest_signature },
		{ "sign and verify sequences", a_sequences },
		{ "Quote", a_quote },
		{ "Certify", a_certify },
		{ "RSA_Encrypt, RSA_Decrypt", a_rsa_encrypt_decrypt },
		{ "ECDH_KeyGen, ECDH_ZGen", a_ecdh },
		{ "Encapsulate, Decapsulate", a_kem },
		{ "Duplicate, Import", a_duplicate_import },
		{ "Rewrap", a_rewrap },
		{ "MakeCredential, ActivateCredential", a_credentials },
		{ "salted StartAuthSession", a_salted_session },
	};

	setup_pair();
	make_keys();
	for (size_t i = 0; i < sizeof(classes) / sizeof(classes[0]); i++)
		runs_unlocked(classes[i].what, classes[i].cmd);
	close_pair();
}

/* ---- a signing key gone while its signature is computed ----
 * A signs once with an RSA-3072 key (a few milliseconds) while B takes the key away; A's
 * command then fails as a real TPM's would and nothing of it is left. */
#define SIGN_TRIES 40
#define PERSISTENT_KEY 0x81000200u
#define PLATFORM_KEY 0x81800200u

static TPM_HANDLE sign_key;
static TPM_RC sign_rc;

static void *a_one_sign(void *arg)
{
	(void)arg;
	atomic_fetch_add(&a_started, 1);
	sign_rc = sign_with(sign_key, TPM_ALG_RSASSA, NULL);
	atomic_fetch_add(&a_finished, 1);
	return NULL;
}

/* A's signing key in hierarchy, made persistent at `persistent` unless 0 */
static void make_sign_key(TPM_HANDLE hierarchy, TPM_HANDLE persistent)
{
	struct tpmt_public t;
	struct pq_key k;

	key_template(&t, TPM_ALG_RSA, TPMA_OBJECT_SIGN_ENCRYPT | TPMA_OBJECT_SENSITIVEDATAORIGIN);
	t.key_bits = 3072;
	CU_ASSERT_EQUAL_FATAL(pq_primary(&ha, hierarchy, &t, "", &k), 0);
	sign_key = k.handle;
	if (persistent) {
		struct cmdbuf b;

		cmd_begin(&b, TPM_CC_EvictControl);
		cmd_handle(&b, hierarchy == TPM_RH_PLATFORM ? TPM_RH_PLATFORM : TPM_RH_OWNER);
		cmd_handle(&b, k.handle);
		cmd_auth_pw(&b, "");
		wr_u32(&b.params, persistent);
		CU_ASSERT_EQUAL_FATAL(harness_run(&ha, &b, NULL, NULL), 0);
		CU_ASSERT_EQUAL(flush(&ha, k.handle), 0);
		sign_key = persistent;
	}
}

static TPM_RC hierarchy_change(TPM_CC cc, TPM_HANDLE auth)
{
	struct cmdbuf b;

	cmd_begin(&b, cc);
	cmd_handle(&b, auth);
	cmd_auth_pw(&b, "");
	return harness_run(&hb, &b, NULL, NULL);
}

static TPM_RC change_eps(void)
{
	return hierarchy_change(TPM_CC_ChangeEPS, TPM_RH_PLATFORM);
}

static TPM_RC change_pps(void)
{
	return hierarchy_change(TPM_CC_ChangePPS, TPM_RH_PLATFORM);
}

static TPM_RC evict_key(void)
{
	return evict_control(&hb, PERSISTENT_KEY, PERSISTENT_KEY);
}

static TPM_RC hierarchy_control(TPM_HANDLE auth, TPM_HANDLE which, bool on)
{
	struct cmdbuf b;

	cmd_begin(&b, TPM_CC_HierarchyControl);
	cmd_handle(&b, auth);
	cmd_auth_pw(&b, "");
	wr_u32(&b.params, which);
	wr_u8(&b.params, on);
	return harness_run(&hb, &b, NULL, NULL);
}

static TPM_RC disable_owner(void)
{
	return hierarchy_control(TPM_RH_OWNER, TPM_RH_OWNER, false);
}

/* A's key goes, whatever is left of it: the owner hierarchy on again, the key evicted or
 * flushed (each may find nothing to do) */
static void remove_key(TPM_HANDLE hierarchy, TPM_HANDLE persistent)
{
	struct cmdbuf b;

	if (!persistent) {
		(void)flush(&ha, sign_key);
		return;
	}
	(void)hierarchy_control(TPM_RH_PLATFORM, TPM_RH_OWNER, true);
	cmd_begin(&b, TPM_CC_EvictControl);
	cmd_handle(&b, hierarchy == TPM_RH_PLATFORM ? TPM_RH_PLATFORM : TPM_RH_OWNER);
	cmd_handle(&b, persistent);
	cmd_auth_pw(&b, "");
	wr_u32(&b.params, persistent);
	(void)harness_run(&hb, &b, NULL, NULL);
}

/* B acts only once it saw A's signature running (else A is done and the round starts over,
 * the key made again from the primary cache): a round is cheap, so there are many. */
static void sign_race(TPM_HANDLE hierarchy, TPM_HANDLE persistent, TPM_RC (*b_acts)(void),
		      TPM_RC want)
{
	unsigned landed = 0;

	setup_pair();
	for (unsigned i = 0; i < SIGN_TRIES && !landed; i++) {
		pthread_t a;
		unsigned s, f, spins = 0;
		bool in = false;

		make_sign_key(hierarchy, persistent);
		CU_ASSERT_EQUAL_FATAL(pthread_create(&a, NULL, a_one_sign, NULL), 0);
		while (computing() == 0 && atomic_load(&a_finished) == i && spins++ < 1000000000u)
			;
		f = atomic_load(&a_finished);
		s = computing();
		if (s > 0) {
			CU_ASSERT_EQUAL(b_acts(), TPM_RC_SUCCESS);
			in = inside_a(s, f);
		}
		pthread_join(a, NULL);
		if (in)
			CU_ASSERT_EQUAL(sign_rc, want);
		landed += in;
		remove_key(hierarchy, persistent);
		CU_ASSERT_EQUAL(object_count_loaded(ha.e), 0);
	}
	CU_ASSERT(landed > 0);
	close_pair();
}

static void test_clear_during_sign(void)
{
	sign_race(TPM_RH_OWNER, 0, clear, TPM_RC_REFERENCE_H0);
}

static void test_evict_during_sign(void)
{
	sign_race(TPM_RH_OWNER, PERSISTENT_KEY, evict_key, RC_H(TPM_RC_HANDLE, 1));
}

static void test_change_eps_during_sign(void)
{
	sign_race(TPM_RH_ENDORSEMENT, 0, change_eps, TPM_RC_REFERENCE_H0);
}

static void test_change_pps_during_sign(void)
{
	sign_race(TPM_RH_PLATFORM, PLATFORM_KEY, change_pps, RC_H(TPM_RC_HANDLE, 1));
}

static void test_disable_during_sign(void)
{
	sign_race(TPM_RH_OWNER, PERSISTENT_KEY, disable_owner, RC_H(TPM_RC_HIERARCHY, 1));
}

static void test_power_cycle_during_sign(void)
{
	sign_race(TPM_RH_OWNER, 0, power_cycle, TPM_RC_INITIALIZE);
}

/* ---- one key, two clients at once ----
 * Both sign with the same persistent RSA and HashML-DSA keys (their built forms shared: the
 * RSA pool, the expanded ML-DSA key) and check each signature with VerifySignature. */
#define SHARED_RSA 0x81000300u
#define SHARED_MLDSA 0x81000301u
#define SHARED_ROUNDS 16

static TPM_RC sign_verify(struct harness *h, TPM_HANDLE key, TPM_ALG_ID scheme, uint8_t n)
{
	struct tpm2b_digest d = { .size = 32, .b = { n } };
	struct tpmt_signature sig;
	struct cmdbuf b;
	struct rd r;

	cmd_begin(&b, TPM_CC_Sign);
	cmd_handle(&b, key);
	cmd_auth_pw(&b, "");
	wr_tpm2b_digest(&b.params, &d);
	wr_u16(&b.params, scheme);
	if (scheme != TPM_ALG_NULL)
		wr_u16(&b.params, TPM_ALG_SHA256);
	wr_ticket(&b.params, &null_hashcheck);
	TRY(harness_run(h, &b, &r, NULL));
	TRY(rd_signature(&r, &sig));
	cmd_begin(&b, TPM_CC_VerifySignature);
	cmd_handle(&b, key);
	wr_tpm2b_digest(&b.params, &d);
	wr_signature(&b.params, &sig);
	return harness_run(h, &b, NULL, NULL);
}

static void *shared_signer(void *arg)
{
	struct harness *h = arg;
	TPM_RC *rc = h == &ha ? &a_last : &sign_rc;

	for (unsigned i = 0; i < SHARED_ROUNDS && *rc == TPM_RC_SUCCESS; i++) {
		*rc = sign_verify(h, SHARED_RSA, TPM_ALG_RSASSA, (uint8_t)i);
		if (*rc == TPM_RC_SUCCESS)
			*rc = sign_verify(h, SHARED_MLDSA, TPM_ALG_NULL, (uint8_t)i);
	}
	return NULL;
}

static void test_one_key_two_clients(void)
{
	struct tpmt_public t;
	struct key rsa;
	struct pq_key mldsa;
	pthread_t a;

	setup_pair();
	key_template(&t, TPM_ALG_RSA, TPMA_OBJECT_SIGN_ENCRYPT | TPMA_OBJECT_SENSITIVEDATAORIGIN);
	key_primary(&ha, &t, NULL, 0, &rsa);
	CU_ASSERT_EQUAL_FATAL(evict_control(&ha, rsa.handle, SHARED_RSA), 0);
	pq_tmpl(&t, TPM_ALG_HASH_MLDSA, TPM_MLDSA_65, TPMA_OBJECT_SIGN_ENCRYPT);
	CU_ASSERT_EQUAL_FATAL(pq_primary(&ha, TPM_RH_OWNER, &t, "", &mldsa), 0);
	CU_ASSERT_EQUAL_FATAL(evict_control(&ha, mldsa.handle, SHARED_MLDSA), 0);
	CU_ASSERT_EQUAL(flush(&ha, rsa.handle), 0);
	CU_ASSERT_EQUAL(flush(&ha, mldsa.handle), 0);
	a_last = sign_rc = TPM_RC_SUCCESS;
	CU_ASSERT_EQUAL_FATAL(pthread_create(&a, NULL, shared_signer, &ha), 0);
	shared_signer(&hb);
	pthread_join(a, NULL);
	CU_ASSERT_EQUAL(a_last, TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(sign_rc, TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(evict_control(&hb, SHARED_RSA, SHARED_RSA), 0);
	CU_ASSERT_EQUAL(evict_control(&hb, SHARED_MLDSA, SHARED_MLDSA), 0);
	CU_ASSERT_EQUAL(object_count_loaded(ha.e), 0);
	close_pair();
}

int main(void)
{
	static const struct unit_test tests[] = {
		{ "key generation does not stall another client", test_keygen_does_not_stall_others },
		{ "Clear during CreatePrimary: TPM_RC_RETRY", test_clear_during_primary },
		{ "Clear during Create: parent gone", test_clear_during_create },
		{ "EvictControl of the parent during Create", test_evict_during_create },
		{ "power cycle during CreatePrimary", test_power_cycle_during_primary },
		{ "power cycle during Create", test_power_cycle_during_create },
		{ "every class of command computes unlocked", test_each_class_unlocked },
		{ "Clear during Sign: the key gone", test_clear_during_sign },
		{ "EvictControl of the key during Sign", test_evict_during_sign },
		{ "ChangeEPS during Sign", test_change_eps_during_sign },
		{ "ChangePPS during Sign: its persistent key gone", test_change_pps_during_sign },
		{ "owner hierarchy disabled during Sign", test_disable_during_sign },
		{ "power cycle during Sign", test_power_cycle_during_sign },
		{ "one key signs for two clients at once", test_one_key_two_clients },
	};

	return UNIT_RUN("concurrency", tests, NULL, NULL);
}
