/* Two clients of one in-process engine, one thread each (docs/engine-concurrency.md): key
 * generation runs without the engine lock, so the other client's commands complete while it
 * runs, and what the other client does meanwhile (Clear) is noticed when the key generation
 * comes back. Progress is observed by counting, never by time: a command of B counts as
 * "inside" A's key generation when the engine had a computation running (e->computing) both
 * before B's command began and after it finished, and A finished no command in between. With
 * the lock held through A's key generation that count is zero: B's command then waits until
 * A's computation is over. */
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include <pqtpm/engine.h>

#include "engine_int.h"
#include "harness.h"
#include "keys.h"
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

int main(void)
{
	static const struct unit_test tests[] = {
		{ "key generation does not stall another client", test_keygen_does_not_stall_others },
		{ "Clear during CreatePrimary: TPM_RC_RETRY", test_clear_during_primary },
		{ "Clear during Create: parent gone", test_clear_during_create },
		{ "EvictControl of the parent during Create", test_evict_during_create },
		{ "power cycle during CreatePrimary", test_power_cycle_during_primary },
		{ "power cycle during Create", test_power_cycle_during_create },
	};

	return UNIT_RUN("concurrency", tests, NULL, NULL);
}
