/* Head-of-line blocking (issue 14): clients on connections of their own to one server. While
 * client A makes RSA-3072 primaries (templates of their own, so that each misses the primary
 * cache), each of B_CLIENTS other clients sends GetRandom commands, paced PACE_NS apart, and
 * every one of them must see its commands complete during A's key generations: neither the
 * engine nor the server may hold one client's command behind another client's.
 *
 * Counted, never timed: A notes the clock when it sends each CreatePrimary and when it has the
 * answer, each B when each of its commands completes. A B's completions that fall in the
 * middle half of a key generation (from a quarter of the way between A's send and receive
 * points to three quarters) are counted for it; for every B the least count over A's keys must
 * be above zero. An engine that holds its lock through the key generation lets none of the B
 * commands complete there, and neither does a server that serves several connections on one
 * thread: the B sharing A's thread waits out each key (what is around A's send and receive
 * points falls in the outer quarters). No duration is compared with anything.
 *
 * The B clients connect before A, and there are more of them than a server of fixed worker
 * threads ever started (one per CPU, at most 8): such a server had to put A beside a B.
 *
 *   concurrent_clients TCTI     (e.g. mssim:host=127.0.0.1,port=2321)
 * Prints one line per check and `N passed, M failed`. */
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <pqtpm/tss.h>

#define KEYS 3
#define B_CLIENTS 8
#define MAX_B_COMMANDS 50000 /* per B: bounded even if A never finishes */
#define PACE_NS 500000L

struct b_client {
	pthread_t thread;
	struct pqtpm_tss *t;
	unsigned done, failed;
	double done_at[MAX_B_COMMANDS]; /* when each of its commands completed */
};

static unsigned pass, fail;
static const char *conf;
static atomic_int a_done;
static double a_sent[KEYS], a_answered[KEYS]; /* A's send and receive points */
static TPM_RC a_rc[KEYS];
static int a_open_rc;
static struct b_client b[B_CLIENTS];

static void check(int ok, const char *fmt, ...)
{
	va_list ap;

	printf("%s ", ok ? "ok  " : "FAIL");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	ok ? pass++ : fail++;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* An RSA-3072 signing template no one else uses: its authPolicy holds this run's process and
 * the key's number. */
static TPM_RC rsa3072(unsigned k, struct pqtpm_tss_public *pub)
{
	uint8_t policy[32] = { 0 };
	uint32_t id[2] = { (uint32_t)getpid(), k };
	struct pqtpm_tss_template t = {
		.type = TPM_ALG_RSA,
		.attributes = TPMA_OBJECT_SIGN_ENCRYPT | TPMA_OBJECT_FIXEDTPM |
			      TPMA_OBJECT_FIXEDPARENT | TPMA_OBJECT_SENSITIVEDATAORIGIN |
			      TPMA_OBJECT_USERWITHAUTH,
		.rsa_bits = 3072,
		.policy = policy,
		.policy_len = sizeof(policy),
	};

	memcpy(policy, id, sizeof(id));
	return pqtpm_tss_template_public(&t, pub);
}

static void *client_a(void *arg)
{
	static struct pqtpm_tss_public pub;
	static struct pqtpm_tss_key key;
	struct pqtpm_tss *t;

	(void)arg;
	a_open_rc = pqtpm_tss_open_tcti(&t, conf);
	if (a_open_rc) {
		atomic_store(&a_done, 1);
		return NULL;
	}
	for (unsigned k = 0; k < KEYS; k++) {
		a_rc[k] = rsa3072(k, &pub);
		a_sent[k] = now();
		if (a_rc[k] == TPM_RC_SUCCESS)
			a_rc[k] = pqtpm_tss_create_primary(t, TPM_RH_OWNER, "", &pub, "", &key);
		a_answered[k] = now();
		if (a_rc[k] == TPM_RC_SUCCESS)
			a_rc[k] = pqtpm_tss_flush(t, key.handle);
	}
	pqtpm_tss_close(t);
	atomic_store(&a_done, 1);
	return NULL;
}

static void *client_b(void *arg)
{
	struct timespec pace = { 0, PACE_NS };
	struct b_client *c = arg;
	uint8_t r[16];

	while (!atomic_load(&a_done) && c->done < MAX_B_COMMANDS) {
		c->failed += pqtpm_tss_get_random(c->t, r, sizeof(r)) != TPM_RC_SUCCESS;
		c->done_at[c->done++] = now();
		nanosleep(&pace, NULL);
	}
	return NULL;
}

/* B's completions in the middle half of each of A's key generations (and in the whole of
 * each); checks that the least middle count is above zero. */
static void count_b(unsigned i, const struct b_client *c)
{
	unsigned middle[KEYS] = { 0 }, during[KEYS] = { 0 }, least;

	for (unsigned k = 0; k < KEYS; k++) {
		double quarter = (a_answered[k] - a_sent[k]) / 4;

		for (unsigned j = 0; j < c->done; j++) {
			during[k] += c->done_at[j] > a_sent[k] && c->done_at[j] < a_answered[k];
			middle[k] += c->done_at[j] >= a_sent[k] + quarter &&
				     c->done_at[j] <= a_answered[k] - quarter;
		}
	}
	least = middle[0];
	for (unsigned k = 1; k < KEYS; k++)
		least = middle[k] < least ? middle[k] : least;
	check(c->failed == 0, "B%u's %u GetRandom commands all succeed (%u failed)", i, c->done,
	      c->failed);
	check(least > 0,
	      "B%u's commands completed in the middle half of each of A's key generations: %u, "
	      "%u, %u (in the whole of each: %u, %u, %u)",
	      i, middle[0], middle[1], middle[2], during[0], during[1], during[2]);
}

int main(int argc, char **argv)
{
	unsigned i, opened = 0, started = 0;
	pthread_t a;
	int rc, a_started;

	conf = argc > 1 ? argv[1] : getenv("PQTPM_TCTI");
	if (!conf)
		conf = "mssim:host=127.0.0.1,port=2321";
	for (i = 0; i < B_CLIENTS; i++) {
		rc = pqtpm_tss_open_tcti(&b[i].t, conf);
		if (rc)
			break;
		opened++;
	}
	check(opened == B_CLIENTS, "%u B clients connect to %s (%u did)", B_CLIENTS, conf, opened);
	if (opened < B_CLIENTS)
		goto out;
	check(pqtpm_tss_power_on(b[0].t) == 0, "power on");
	check(pqtpm_tss_startup(b[0].t, TPM_SU_CLEAR) == 0, "Startup(CLEAR)");
	for (i = 0; i < B_CLIENTS; i++)
		started += pthread_create(&b[i].thread, NULL, client_b, &b[i]) == 0;
	check(started == B_CLIENTS, "the B clients' threads start (%u did)", started);
	/* A connects last. */
	a_started = pthread_create(&a, NULL, client_a, NULL) == 0;
	check(a_started, "A's thread starts");
	if (a_started)
		pthread_join(a, NULL);
	else
		atomic_store(&a_done, 1);
	for (i = 0; i < started; i++)
		pthread_join(b[i].thread, NULL);
	if (!a_started || started < B_CLIENTS)
		goto out;
	check(a_open_rc == 0, "A connects on its own connection");
	for (unsigned k = 0; k < KEYS; k++)
		check(a_rc[k] == TPM_RC_SUCCESS, "A's RSA-3072 primary %u: 0x%x", k, a_rc[k]);
	for (i = 0; i < B_CLIENTS; i++)
		count_b(i, &b[i]);
out:
	for (i = 0; i < opened; i++)
		pqtpm_tss_close(b[i].t);
	printf("%u passed, %u failed\n", pass, fail);
	return fail ? 1 : 0;
}
