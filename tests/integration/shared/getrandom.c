/* Linked against libpqtpm-tss.so and libpqtpm.so, not the archives (tests/integration/
 * symbols.sh): an engine in process, a client handle on it, one GetRandom. If either library
 * failed to export what a client needs, this would not link or not run. Exit 0 on success. */
#include <stdio.h>

#include <pqtpm/engine.h>
#include <pqtpm/tss.h>

int main(void)
{
	struct pqtpm_engine_config cfg = { .state_dir = NULL, .auto_startup = 1 };
	struct pqtpm_engine *e;
	struct pqtpm_tss *t;
	uint8_t r[16] = { 0 }, any = 0;
	char err[256];
	TPM_RC rc;

	if (pqtpm_engine_open(&e, &cfg, err, sizeof(err)) != 0) {
		printf("engine: %s\n", err);
		return 1;
	}
	if (pqtpm_tss_open_engine(&t, e) != 0) {
		printf("pqtpm_tss_open_engine failed\n");
		pqtpm_engine_close(e);
		return 1;
	}
	rc = pqtpm_tss_get_random(t, r, sizeof(r));
	for (size_t i = 0; i < sizeof(r); i++)
		any |= r[i];
	pqtpm_tss_close(t);
	pqtpm_engine_close(e);
	printf("GetRandom: rc 0x%x, %s\n", rc, any ? "non-zero bytes" : "all zero");
	return rc == TPM_RC_SUCCESS && any ? 0 : 1;
}
