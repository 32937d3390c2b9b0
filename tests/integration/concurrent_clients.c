/* Head-of-line blocking (issue 14): two clients on two connections to one server. While client
 * A makes RSA-3072 primaries (templates of their own, so that each misses the primary cache),
 * client B's GetRandom commands, paced 200 us apart, complete during A's key generations.
 *
 * Counted, never timed: A notes the clock when it sends each CreatePrimary and when it has the
 * answer, B when each of its commands completes. B's completions that fall in the middle half
 * of a key generation (from a quarter of the way between A's send and receive points to three
 * quarters) are counted for it; the least count over A's keys must be above zero. An engine
 * that holds its lock through the key generation lets none of B's commands complete there: the
 * one B sends meanwhile waits out the key and completes after it (what is around A's send and
 * receive points falls in the outer quarters). No duration is compared with anything.
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
#define MAX_B_COMMANDS 100000 /* bounded even if A never finishes */
#define PACE_NS 200000L

static unsigned pass, fail;
static const char *conf;
static atomic_int a_done;
static double a_sent[KEYS], a_answered[KEYS]; /* A's send and receive points */
static TPM_RC a_rc[KEYS];
static int a_open_rc;
static double b_done[MAX_B_COMMANDS]; /* when each of B's commands completed */

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

int main(int argc, char **argv)
{
	struct timespec pace = { 0, PACE_NS };
	unsigned middle[KEYS] = { 0 }, during[KEYS] = { 0 }, done = 0, failed = 0, least;
	struct pqtpm_tss *b;
	pthread_t a;
	int rc;

	conf = argc > 1 ? argv[1] : getenv("PQTPM_TCTI");
	if (!conf)
		conf = "mssim:host=127.0.0.1,port=2321";
	rc = pqtpm_tss_open_tcti(&b, conf);
	check(rc == 0, "B connects to %s: %d", conf, rc);
	if (rc)
		goto out;
	check(pqtpm_tss_power_on(b) == 0, "power on");
	check(pqtpm_tss_startup(b, TPM_SU_CLEAR) == 0, "Startup(CLEAR)");
	check(pthread_create(&a, NULL, client_a, NULL) == 0, "A's thread starts");
	while (!atomic_load(&a_done) && done < MAX_B_COMMANDS) {
		uint8_t r[16];

		failed += pqtpm_tss_get_random(b, r, sizeof(r)) != TPM_RC_SUCCESS;
		b_done[done++] = now();
		nanosleep(&pace, NULL);
	}
	pthread_join(a, NULL);
	check(a_open_rc == 0, "A connects on its own connection");
	for (unsigned k = 0; k < KEYS; k++)
		check(a_rc[k] == TPM_RC_SUCCESS, "A's RSA-3072 primary %u: 0x%x", k, a_rc[k]);
	check(failed == 0, "B's %u GetRandom commands all succeed (%u failed)", done, failed);
	for (unsigned k = 0; k < KEYS; k++) {
		double quarter = (a_answered[k] - a_sent[k]) / 4;

		for (unsigned i = 0; i < done; i++) {
			during[k] += b_done[i] > a_sent[k] && b_done[i] < a_answered[k];
			middle[k] += b_done[i] >= a_sent[k] + quarter &&
				     b_done[i] <= a_answered[k] - quarter;
		}
	}
	least = middle[0];
	for (unsigned k = 1; k < KEYS; k++)
		least = middle[k] < least ? middle[k] : least;
	check(least > 0,
	      "B's commands completed in the middle half of each of A's key generations: %u, %u, "
	      "%u (in the whole of each: %u, %u, %u)",
	      middle[0], middle[1], middle[2], during[0], during[1], during[2]);
	pqtpm_tss_close(b);
out:
	printf("%u passed, %u failed\n", pass, fail);
	return fail ? 1 : 0;
}
