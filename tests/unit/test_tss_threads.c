/* One handle used from several threads at once, and several handles in parallel, through the
 * in-process engine: every GetRandom succeeds with a whole, well-formed answer, and on one
 * handle no two commands are ever in its transport at once (a watch around the transport,
 * which dawdles there to give an overlap every chance, counts them). A
 * forked child that uses its parent's handle gets PQTPM_TSS_RC_FORKED, closes its copy
 * without disturbing the parent, and works with a handle of its own; the parent goes on.
 * Embedded connections of one process to one state directory share the engine the process
 * owns (engine clients of it, in parallel threads), which outlives the connection that opened
 * it; a forked child reaches the parent's engine through its socket, not a copy of its own. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CUnit/Basic.h>

#include <pqtpm/tss.h>

#include "harness.h"
#include "tss_int.h"
#include "unit_main.h"

#define THREADS 4
#define ROUNDS 500

static struct pqtpm_engine *e;

static void setup(void)
{
	struct pqtpm_engine_config cfg = { .auto_startup = 1, .log_level = PQTPM_LOG_ERROR };
	char err[128];

	pqtpm_log_set_level(PQTPM_LOG_ERROR);
	if (pqtpm_engine_open(&e, &cfg, err, sizeof(err)))
		CU_FAIL_FATAL("engine");
}

static void teardown(void)
{
	pqtpm_engine_close(e);
}

struct worker {
	struct pqtpm_tss *t;
	uint16_t len; /* a different length per thread: a mixed-up answer shows */
	unsigned ok;
	TPM_RC first_bad;
};

static void *work(void *arg)
{
	struct worker *w = arg;
	uint8_t r[64];

	for (unsigned i = 0; i < ROUNDS; i++) {
		TPM_RC rc = pqtpm_tss_get_random(w->t, r, w->len);

		if (rc == TPM_RC_SUCCESS)
			w->ok++;
		else if (!w->first_bad)
			w->first_bad = rc;
	}
	return NULL;
}

static void run(struct pqtpm_tss **handles)
{
	pthread_t th[THREADS];
	struct worker w[THREADS];

	for (int i = 0; i < THREADS; i++) {
		w[i] = (struct worker){ .t = handles[i], .len = (uint16_t)(8 + 8 * i) };
		CU_ASSERT_EQUAL_FATAL(pthread_create(&th[i], NULL, work, &w[i]), 0);
	}
	for (int i = 0; i < THREADS; i++) {
		pthread_join(th[i], NULL);
		CU_ASSERT_EQUAL(w[i].ok, ROUNDS);
		CU_ASSERT_EQUAL(w[i].first_bad, TPM_RC_SUCCESS);
	}
}

static const struct tss_transport *real_ops;
static struct tss_transport watched_ops;
static atomic_int inflight, overlaps, transmits;

static int watched_transmit(void *ctx, const uint8_t *cmd, size_t len, uint8_t *rsp, size_t cap,
			    size_t *rsp_len)
{
	int rc;

	if (atomic_fetch_add(&inflight, 1) > 0)
		atomic_fetch_add(&overlaps, 1);
	atomic_fetch_add(&transmits, 1);
	usleep(20);
	rc = real_ops->transmit(ctx, cmd, len, rsp, cap, rsp_len);
	atomic_fetch_sub(&inflight, 1);
	return rc;
}

static void test_one_handle(void)
{
	struct pqtpm_tss *t, *handles[THREADS];

	CU_ASSERT_EQUAL_FATAL(pqtpm_tss_open_engine(&t, e), 0);
	real_ops = t->ops;
	watched_ops = *t->ops;
	watched_ops.transmit = watched_transmit;
	t->ops = &watched_ops;
	for (int i = 0; i < THREADS; i++)
		handles[i] = t;
	run(handles);
	CU_ASSERT_EQUAL(atomic_load(&transmits), THREADS * ROUNDS);
	CU_ASSERT_EQUAL(atomic_load(&overlaps), 0);
	pqtpm_tss_close(t);
}

static void test_many_handles(void)
{
	struct pqtpm_tss *handles[THREADS];

	for (int i = 0; i < THREADS; i++)
		CU_ASSERT_EQUAL_FATAL(pqtpm_tss_open_engine(&handles[i], e), 0);
	run(handles);
	for (int i = 0; i < THREADS; i++)
		pqtpm_tss_close(handles[i]);
}

/* The child's exit status: 0 if all went as it should, else the step that did not. */
static int child(struct pqtpm_tss *inherited)
{
	struct pqtpm_engine_config cfg = { .auto_startup = 1, .log_level = PQTPM_LOG_ERROR };
	struct pqtpm_engine *mine;
	struct pqtpm_tss *t;
	uint8_t r[16];
	char err[128];
	size_t len;

	if (pqtpm_tss_get_random(inherited, r, sizeof(r)) != PQTPM_TSS_RC_FORKED)
		return 1;
	if (pqtpm_tss_transmit(inherited, r, sizeof(r), r, sizeof(r), &len) !=
	    PQTPM_TSS_RC_FORKED)
		return 2;
	if (pqtpm_tss_power_on(inherited) >= 0)
		return 3;
	pqtpm_tss_close(inherited);
	if (pqtpm_engine_open(&mine, &cfg, err, sizeof(err)) || pqtpm_tss_open_engine(&t, mine))
		return 4;
	if (pqtpm_tss_get_random(t, r, sizeof(r)) != TPM_RC_SUCCESS)
		return 5;
	pqtpm_tss_close(t);
	pqtpm_engine_close(mine);
	return 0;
}

static void test_fork(void)
{
	struct pqtpm_tss *t;
	uint8_t r[16];
	int st = -1;
	pid_t pid;

	CU_ASSERT_EQUAL_FATAL(pqtpm_tss_open_engine(&t, e), 0);
	CU_ASSERT_EQUAL(pqtpm_tss_get_random(t, r, sizeof(r)), TPM_RC_SUCCESS);
	pid = fork();
	CU_ASSERT_FATAL(pid >= 0);
	if (pid == 0)
		_exit(child(t));
	CU_ASSERT_EQUAL(waitpid(pid, &st, 0), pid);
	CU_ASSERT(WIFEXITED(st));
	CU_ASSERT_EQUAL(WEXITSTATUS(st), 0);
	CU_ASSERT_EQUAL(pqtpm_tss_get_random(t, r, sizeof(r)), TPM_RC_SUCCESS);
	pqtpm_tss_close(t);
}

#define DEBUG_PCR 16

static void test_embedded_shared(void)
{
	char root[] = "/tmp/pqtpm-test-tss-threads-XXXXXX", tcti[80];
	uint8_t before[32], after[32], d[32] = { 0x16 };
	struct pqtpm_tss *handles[THREADS];
	size_t len = 0;
	int st = -1;
	pid_t pid;

	CU_ASSERT_FATAL(mkdtemp(root) != NULL);
	snprintf(tcti, sizeof(tcti), "embedded:%s/state", root);
	for (int i = 0; i < THREADS; i++)
		CU_ASSERT_EQUAL_FATAL(pqtpm_tss_open_tcti(&handles[i], tcti), 0);
	run(handles);
	/* the connection that opened the engine goes; the engine stays for the others (a socket
	 * client of it would lose its connection here) and a new one joins it */
	pqtpm_tss_close(handles[0]);
	CU_ASSERT_EQUAL(pqtpm_tss_get_random(handles[1], d, 8), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(pqtpm_tss_open_tcti(&handles[0], tcti), 0);
	CU_ASSERT_EQUAL(pqtpm_tss_pcr_read(handles[0], TPM_ALG_SHA256, 1u << DEBUG_PCR, before,
					   sizeof(before), &len),
			TPM_RC_SUCCESS);
	/* a child's extend reaches the parent's engine */
	pid = fork();
	CU_ASSERT_FATAL(pid >= 0);
	if (pid == 0) {
		struct pqtpm_tss *t;

		_exit(pqtpm_tss_open_tcti(&t, tcti) == 0 &&
				      pqtpm_tss_pcr_extend(t, DEBUG_PCR, TPM_ALG_SHA256, d, 32) ==
					      TPM_RC_SUCCESS
			      ? 0
			      : 1);
	}
	CU_ASSERT_EQUAL(waitpid(pid, &st, 0), pid);
	CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	CU_ASSERT_EQUAL(pqtpm_tss_pcr_read(handles[2], TPM_ALG_SHA256, 1u << DEBUG_PCR, after,
					   sizeof(after), &len),
			TPM_RC_SUCCESS);
	CU_ASSERT(memcmp(before, after, sizeof(after)) != 0);
	for (int i = 0; i < THREADS; i++)
		pqtpm_tss_close(handles[i]);
	harness_rm_tree(root);
}

int main(void)
{
	static const struct unit_test tests[] = {
		{ "4 threads on one handle, 500 GetRandom each", test_one_handle },
		{ "4 handles in parallel, 500 GetRandom each", test_many_handles },
		{ "a forked child gets PQTPM_TSS_RC_FORKED", test_fork },
		{ "embedded connections of one process share its engine", test_embedded_shared },
	};

	return UNIT_RUN("tss_threads", tests, setup, teardown);
}
