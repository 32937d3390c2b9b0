/* Two clients on two connections to one server (issue 14): while client A makes RSA-3072
 * primaries (three different templates, so three primary-cache misses), client B's GetRandom
 * commands, paced 200 us apart, complete during each of A's key generations.
 *
 * Counted, never timed: one of B's commands counts for A's k-th CreatePrimary when A had sent
 * it and not yet had its answer both before B sent and after B had its answer. An engine that
 * holds its lock through the key generation lets at most two of B's commands count per key:
 * one that got in before A's command took the lock, and one answered in the instant between
 * A's answer and A's thread noting it. So each key must count more than two.
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

#include <pqtpm/tss.h>

#define KEYS 3
#define MAX_B_COMMANDS 100000 /* bounded even if A never finishes */

static unsigned pass, fail;
static const char *conf;
static atomic_uint a_sent, a_answered;
static TPM_RC a_rc[KEYS];
static int a_open_rc;

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

/* Three RSA-3072 signing templates that differ in their scheme. */
static TPM_RC rsa3072(unsigned k, struct pqtpm_tss_public *pub)
{
	static const TPM_ALG_ID schemes[KEYS] = { 0, TPM_ALG_RSASSA, TPM_ALG_RSAPSS };
	struct pqtpm_tss_template t = {
		.type = TPM_ALG_RSA,
		.attributes = TPMA_OBJECT_SIGN_ENCRYPT | TPMA_OBJECT_FIXEDTPM |
			      TPMA_OBJECT_FIXEDPARENT | TPMA_OBJECT_SENSITIVEDATAORIGIN |
			      TPMA_OBJECT_USERWITHAUTH,
		.scheme = schemes[k],
		.scheme_hash = schemes[k] ? TPM_ALG_SHA256 : 0,
		.rsa_bits = 3072,
	};

	return pqtpm_tss_template_public(&t, pub);
}

static void *client_a(void *arg)
{
	struct pqtpm_tss *t;

	(void)arg;
	a_open_rc = pqtpm_tss_open_tcti(&t, conf);
	if (a_open_rc) {
		atomic_store(&a_answered, KEYS);
		return NULL;
	}
	for (unsigned k = 0; k < KEYS; k++) {
		struct pqtpm_tss_public pub;
		struct pqtpm_tss_key key;

		a_rc[k] = rsa3072(k, &pub);
		atomic_fetch_add(&a_sent, 1);
		if (a_rc[k] == TPM_RC_SUCCESS)
			a_rc[k] = pqtpm_tss_create_primary(t, TPM_RH_OWNER, "", &pub, "", &key);
		atomic_fetch_add(&a_answered, 1);
		if (a_rc[k] == TPM_RC_SUCCESS)
			a_rc[k] = pqtpm_tss_flush(t, key.handle);
	}
	pqtpm_tss_close(t);
	return NULL;
}

int main(int argc, char **argv)
{
	struct timespec pace = { 0, 200000L };
	unsigned inside[KEYS] = { 0 }, done = 0, failed = 0, least;
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
	while (atomic_load(&a_answered) < KEYS && done < MAX_B_COMMANDS) {
		unsigned answered = atomic_load(&a_answered), sent = atomic_load(&a_sent);
		uint8_t r[16];

		failed += pqtpm_tss_get_random(b, r, sizeof(r)) != TPM_RC_SUCCESS;
		if (sent > answered && atomic_load(&a_answered) == answered)
			inside[answered]++;
		done++;
		nanosleep(&pace, NULL);
	}
	pthread_join(a, NULL);
	check(a_open_rc == 0, "A connects on its own connection");
	for (unsigned k = 0; k < KEYS; k++)
		check(a_rc[k] == TPM_RC_SUCCESS, "A's RSA-3072 primary %u: 0x%x", k, a_rc[k]);
	check(failed == 0, "B's %u GetRandom commands all succeed (%u failed)", done, failed);
	least = inside[0];
	for (unsigned k = 1; k < KEYS; k++)
		least = inside[k] < least ? inside[k] : least;
	check(least > 2, "B's commands answered during each of A's key generations: %u, %u, %u",
	      inside[0], inside[1], inside[2]);
	pqtpm_tss_close(b);
out:
	printf("%u passed, %u failed\n", pass, fail);
	return fail ? 1 : 0;
}
