/* Latency floor: 50 GetRandom round trips through the stock tpm2-tss TCTI (ESAPI).
 *
 *   latency [TCTI]     default: $PQTPM_TCTI, else mssim:host=127.0.0.1,port=2321
 *
 * The median must be under 5 ms. This is not a performance test: a round trip on loopback
 * takes well under a millisecond, while a server that lets Nagle's algorithm meet the client's
 * delayed ACK (the TCTI writes a frame in pieces) stalls a fixed ~40 ms per command, so the
 * bound cannot flake in either direction. Prints the figures and `N passed, M failed`.
 *
 * run-integration: alone (a bound on latency, measured with nothing beside it)
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <tss2/tss2_esys.h>
#include <tss2/tss2_rc.h>
#include <tss2/tss2_tctildr.h>

#define ROUNDS 50
#define WARMUP 5
#define LIMIT_US 5000.0

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	const char *conf = argc > 1 ? argv[1] : getenv("PQTPM_TCTI");
	TSS2_TCTI_CONTEXT *tcti = NULL;
	ESYS_CONTEXT *ctx = NULL;
	double t[ROUNDS];
	int i, ok = 0;
	TSS2_RC rc;

	if (!conf)
		conf = "mssim:host=127.0.0.1,port=2321";
	printf("latency: TCTI %s\n", conf);
	rc = Tss2_TctiLdr_Initialize(conf, &tcti);
	if (rc != TSS2_RC_SUCCESS) {
		printf("FAIL Tss2_TctiLdr_Initialize: 0x%x (%s)\n", rc, Tss2_RC_Decode(rc));
		goto out;
	}
	rc = Esys_Initialize(&ctx, tcti, NULL);
	if (rc != TSS2_RC_SUCCESS) {
		printf("FAIL Esys_Initialize: 0x%x (%s)\n", rc, Tss2_RC_Decode(rc));
		goto out;
	}
	rc = Esys_Startup(ctx, TPM2_SU_CLEAR);
	if (rc != TSS2_RC_SUCCESS && rc != TPM2_RC_INITIALIZE) {
		printf("FAIL Startup: 0x%x (%s)\n", rc, Tss2_RC_Decode(rc));
		goto out;
	}
	for (i = -WARMUP; i < ROUNDS; i++) {
		TPM2B_DIGEST *r = NULL;
		double t0 = now_us();

		rc = Esys_GetRandom(ctx, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE, 32, &r);
		if (i >= 0)
			t[i] = now_us() - t0;
		Esys_Free(r);
		if (rc != TSS2_RC_SUCCESS) {
			printf("FAIL GetRandom #%d: 0x%x (%s)\n", i, rc, Tss2_RC_Decode(rc));
			goto out;
		}
	}
	qsort(t, ROUNDS, sizeof(t[0]), cmp_double);
	printf("GetRandom(32) round trip over %d: min %.0f us, median %.0f us, p90 %.0f us, "
	       "max %.0f us\n", ROUNDS, t[0], t[ROUNDS / 2], t[ROUNDS * 9 / 10], t[ROUNDS - 1]);
	ok = t[ROUNDS / 2] < LIMIT_US;
	printf("%s median round trip under %.0f us\n", ok ? "ok  " : "FAIL", LIMIT_US);
out:
	if (ctx)
		Esys_Finalize(&ctx);
	if (tcti)
		Tss2_TctiLdr_Finalize(&tcti);
	printf("%d passed, %d failed\n", ok, !ok);
	return ok ? 0 : 1;
}
