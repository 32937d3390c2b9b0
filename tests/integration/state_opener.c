/* An in-process opener of a TPM, through the client library's transports (for
 * state_multiprocess.sh, which gives it "embedded:DIR"):
 *   state_opener TCTI extend PCR HEX64    PCR_Extend(SHA-256 digest)
 *   state_opener TCTI read PCR            prints the SHA-256 value
 *   state_opener TCTI save FILE           starts an HMAC session, saves its context to FILE
 *   state_opener TCTI load FILE           loads the context in FILE (then flushes it)
 *   state_opener TCTI loop PCR COUNT [GATE]
 *                                         extends PCR COUNT times (digest i: bytes of i), and
 *                                         prints "ok I HEX" or "io I HEX" per extend; with GATE,
 *                                         waits after the first GATE_AFTER extends until the
 *                                         file GATE exists (at most a minute)
 *   state_opener TCTI hold FILE           opens, writes "ready" to FILE, waits for stdin EOF
 * Exit status 0 when the action worked. Run by tests/run-integration.sh with only a TCTI (a
 * server of its own): a PCR extended through one connection reads the same through another,
 * and equals the hash chain computed here. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <pqtpm/tss.h>

#include "crypto/crypto.h"

static TPM_RC extend(struct pqtpm_tss *t, unsigned pcr, const uint8_t d[32])
{
	return pqtpm_tss_pcr_extend(t, pcr, TPM_ALG_SHA256, d, 32);
}

static TPM_RC read_pcr(struct pqtpm_tss *t, unsigned pcr, uint8_t out[32])
{
	size_t len = 0;
	TPM_RC rc = pqtpm_tss_pcr_read(t, TPM_ALG_SHA256, 1u << pcr, out, 32, &len);

	return rc == TPM_RC_SUCCESS && len != 32 ? PQTPM_TSS_RC_MALFORMED : rc;
}

static void print_hex(FILE *f, const uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%02x", b[i]);
}

static int parse_hex(const char *s, uint8_t out[32])
{
	if (strlen(s) != 64)
		return -1;
	for (int i = 0; i < 32; i++)
		if (sscanf(s + 2 * i, "%2hhx", &out[i]) != 1)
			return -1;
	return 0;
}

static int fail(const char *what, TPM_RC rc)
{
	fprintf(stderr, "state_opener: %s: 0x%x\n", what, rc);
	return 1;
}

static int do_save(struct pqtpm_tss *t, const char *file)
{
	struct pqtpm_tss_saved saved;
	struct pqtpm_tss_digest nonce;
	TPM_HANDLE s;
	TPM_RC rc;
	FILE *f;

	rc = pqtpm_tss_start_auth_session(t, TPM_SE_HMAC, TPM_ALG_SHA256, &s, &nonce);
	if (rc == TPM_RC_SUCCESS)
		rc = pqtpm_tss_context_save(t, s, &saved);
	if (rc != TPM_RC_SUCCESS)
		return fail("save", rc);
	f = fopen(file, "wb");
	if (!f || fwrite(&saved, sizeof(saved), 1, f) != 1 || fclose(f) != 0)
		return fail("writing the context", 0);
	return 0;
}

static int do_load(struct pqtpm_tss *t, const char *file)
{
	struct pqtpm_tss_saved saved;
	TPM_HANDLE h;
	TPM_RC rc;
	FILE *f = fopen(file, "rb");

	if (!f || fread(&saved, sizeof(saved), 1, f) != 1 || saved.size > sizeof(saved.b)) {
		if (f)
			fclose(f);
		return fail("reading the context", 0);
	}
	fclose(f);
	rc = pqtpm_tss_context_load(t, &saved, &h);
	if (rc != TPM_RC_SUCCESS)
		return fail("load", rc);
	rc = pqtpm_tss_flush(t, h);
	return rc == TPM_RC_SUCCESS ? 0 : fail("flush", rc);
}

/* Lets a test start two loops on a loaded machine and still find both under way when it acts:
 * neither runs past its first extends before the other has started. */
#define GATE_AFTER 20

static void wait_gate(const char *gate)
{
	const struct timespec pause = { 0, 1000000L };

	for (int i = 0; i < 60000 && access(gate, F_OK) != 0; i++)
		nanosleep(&pause, NULL);
}

static int do_loop(struct pqtpm_tss *t, unsigned pcr, unsigned long count, const char *gate)
{
	int bad = 0;

	for (unsigned long i = 0; i < count; i++) {
		uint8_t d[32] = { 0 };
		TPM_RC rc;

		if (gate && i == GATE_AFTER)
			wait_gate(gate);

		for (int k = 0; k < 8; k++)
			d[31 - k] = (uint8_t)(i >> (8 * k));
		d[0] = (uint8_t)pcr;
		rc = extend(t, pcr, d);
		printf("%s %lu ", rc == TPM_RC_SUCCESS ? "ok" : rc == PQTPM_TSS_RC_IO ? "io" : "rc",
		       i);
		print_hex(stdout, d, 32);
		printf("\n");
		fflush(stdout);
		bad |= rc != TPM_RC_SUCCESS && rc != PQTPM_TSS_RC_IO;
	}
	return bad;
}

static int do_hold(const char *file)
{
	FILE *f = fopen(file, "w");

	if (!f || fputs("ready\n", f) < 0 || fclose(f) != 0)
		return 1;
	while (getchar() != EOF)
		;
	return 0;
}

/* Run by run-integration.sh against a server: two connections, one PCR. */
static int self_check(const char *tcti)
{
	struct pqtpm_tss *a, *b;
	uint8_t d[32], want[32], got[32], both[64];
	int rc = 0;

	if (pqtpm_tss_open_tcti(&a, tcti) || pqtpm_tss_open_tcti(&b, tcti))
		return fail("open", 0);
	if (pqtpm_tss_power_on(a) || pqtpm_tss_startup(a, TPM_SU_CLEAR) != TPM_RC_SUCCESS)
		return fail("startup", 0);
	for (int round = 0; round < 3 && rc == 0; round++) {
		memset(d, 0xa0 + round, sizeof(d));
		if (read_pcr(b, 23, want) || extend(a, 23, d) || read_pcr(b, 23, got))
			return fail("extend and read", 0);
		memcpy(both, want, 32);
		memcpy(both + 32, d, 32);
		if (crypto_hash(TPM_ALG_SHA256, both, sizeof(both), want) != TPM_RC_SUCCESS)
			return fail("hash", 0);
		if (memcmp(want, got, 32) != 0) {
			fprintf(stderr, "state_opener: round %d: PCR 23 is not the chain\n", round);
			rc = 1;
		}
	}
	pqtpm_tss_close(a);
	pqtpm_tss_close(b);
	printf("%s: PCR 23 extended in one connection reads the same in another\n",
	       rc ? "FAIL" : "ok");
	return rc;
}

int main(int argc, char **argv)
{
	struct pqtpm_tss *t;
	uint8_t d[32];
	const char *env = getenv("TPM_IMPL");
	int rc;

	if (argc == 2) {
		if (env && strcmp(env, "pqtpm") != 0) {
			printf("SKIP: speaks pqtpm's transports only\n");
			return 0;
		}
		return self_check(argv[1]);
	}
	if (argc < 3)
		return 2;
	if (strcmp(argv[2], "hold") == 0 && argc != 4)
		return 2;
	rc = pqtpm_tss_open_tcti(&t, argv[1]);
	if (rc < 0) {
		fprintf(stderr, "state_opener: %s: %s\n", argv[1], strerror(-rc));
		return 1;
	}
	if (strcmp(argv[2], "extend") == 0 && argc == 5 && parse_hex(argv[4], d) == 0) {
		TPM_RC trc = extend(t, (unsigned)atoi(argv[3]), d);

		rc = trc == TPM_RC_SUCCESS ? 0 : fail("extend", trc);
	} else if (strcmp(argv[2], "read") == 0 && argc == 4) {
		TPM_RC trc = read_pcr(t, (unsigned)atoi(argv[3]), d);

		rc = trc == TPM_RC_SUCCESS ? 0 : fail("read", trc);
		if (rc == 0) {
			print_hex(stdout, d, 32);
			printf("\n");
		}
	} else if (strcmp(argv[2], "save") == 0 && argc == 4) {
		rc = do_save(t, argv[3]);
	} else if (strcmp(argv[2], "load") == 0 && argc == 4) {
		rc = do_load(t, argv[3]);
	} else if (strcmp(argv[2], "loop") == 0 && (argc == 5 || argc == 6)) {
		rc = do_loop(t, (unsigned)atoi(argv[3]), strtoul(argv[4], NULL, 10),
			     argc == 6 ? argv[5] : NULL);
	} else if (strcmp(argv[2], "hold") == 0) {
		rc = do_hold(argv[3]);
	} else {
		rc = 2;
	}
	pqtpm_tss_close(t);
	return rc;
}
