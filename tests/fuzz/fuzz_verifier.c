/* libFuzzer target: the attestation verifier (attest/), what it reads from outside. Byte 0 of
 * the input picks (modulo 4) what the rest is:
 *   0  an evidence document (JSON), verified against the AK, nonce and CA of the evidence made
 *      at start (an ECC P-256 AK under the ECC EK of a manufactured TPM, PCR 9 measured twice,
 *      quoted with the event log and the EK certificate), with that evidence's result as
 *      --previous and a freshness limit of an hour from when it was made;
 *   1  an AK file (AK.json);
 *   2  an event log, replayed;
 *   3  a CA certificate (PEM).
 * Everything an attacker can put in front of a verifier: it must refuse cleanly, never crash.
 *
 * PQTPM_FUZZ_WRITE_SEEDS=DIR: write one seed per mode (the evidence, its AK file, its log,
 * the CA) into DIR and exit.
 */
#define _XOPEN_SOURCE 700
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <pqtpm/attest.h>
#include <pqtpm/engine.h>

#include "fuzz_util.h"

#define ME "fuzz_verifier"

static const uint8_t nonce[16] = { 0x6E, 0x6F, 0x6E, 0x63, 0x65 };
static struct pqtpm_attest_ak ak;
static struct pqtpm_attest_ca ca;
static json_t *evidence, *previous;
static uint8_t log_buf[2048];
static size_t log_len;
static char *ak_text, *ca_pem;
static int64_t made_at; /* the verifier's clock: when the evidence was made (inputs replay alike) */

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(p);
}

static char *read_text(const char *path)
{
	static char buf[8192];
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		fz_die(ME, "cannot read the CA certificate");
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	return buf;
}

/* a TPM of its own in a temporary state directory, manufactured, measured and quoted */
static void make_evidence(void)
{
	struct pqtpm_engine_config cfg = { .log_level = PQTPM_LOG_ERROR, .auto_startup = 1 };
	struct pqtpm_tss_pcr_select sel[1];
	static uint8_t cert[PQTPM_ATTEST_MAX_CERT];
	const char *tmp = getenv("TMPDIR");
	struct pqtpm_attest_verify_opts o = { 0 };
	struct pqtpm_engine *e;
	json_t *akj;
	struct pqtpm_tss_key ek;
	struct pqtpm_tss *t;
	TPM_HANDLE ekh, akh;
	char dir[512], path[600];
	size_t n, nsel, cert_len;

	snprintf(dir, sizeof(dir), "%s/fuzz_verifier.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir))
		fz_die(ME, "cannot make a state directory");
	cfg.state_dir = dir;
	if (pqtpm_engine_open(&e, &cfg, NULL, 0) || pqtpm_tss_open_engine(&t, e))
		fz_die(ME, "cannot open the engine");
	if (pqtpm_attest_ak_create(t, "ecc-p256", "ecc-p256", &ak) ||
	    pqtpm_attest_measure(t, 9, 0xD, (const uint8_t *)"kernel", 6, NULL, 1, log_buf,
				 sizeof(log_buf), &log_len) ||
	    pqtpm_attest_measure(t, 9, 0xD, (const uint8_t *)"initrd", 6, NULL, 0,
				 log_buf + log_len, sizeof(log_buf) - log_len, &n) ||
	    pqtpm_attest_ek_create(t, "ecc-p256", &ek) || pqtpm_tss_flush(t, ek.handle) ||
	    pqtpm_attest_ek_certificate(t, "ecc-p256", cert, sizeof(cert), &cert_len) ||
	    pqtpm_attest_pcrs_parse("sha256:9", sel, 1, &nsel) ||
	    pqtpm_attest_ak_load(t, &ak, &ekh, &akh) ||
	    pqtpm_attest_quote(t, &ak, akh, nonce, sizeof(nonce), sel, nsel, &ek.pub, cert,
			       cert_len, &evidence))
		fz_die(ME, "cannot make the evidence");
	log_len += n;
	if (pqtpm_attest_evidence_add_log(evidence, log_buf, log_len))
		fz_die(ME, "out of memory");
	pqtpm_tss_close(t);
	pqtpm_engine_close(e);
	snprintf(path, sizeof(path), "%s/%s", dir, PQTPM_CA_CERT_NAME);
	ca_pem = strdup(read_text(path));
	nftw(dir, rm_one, 8, FTW_DEPTH | FTW_PHYS);
	akj = pqtpm_attest_ak_json(&ak);
	ak_text = akj ? json_dumps(akj, 0) : NULL;
	json_decref(akj);
	if (!ca_pem || !ak_text || pqtpm_attest_ca_load(ca_pem, strlen(ca_pem), &ca))
		fz_die(ME, "cannot load the CA");
	made_at = (int64_t)time(NULL);
	o.trusted_ak = ak.pub.b;
	o.trusted_ak_len = ak.pub.size;
	o.nonce = nonce;
	o.nonce_len = sizeof(nonce);
	o.ca = &ca;
	if (pqtpm_attest_verify(evidence, &o, &previous) != 1)
		fz_die(ME, "the evidence made does not verify");
}

static void write_seed(const char *dir, const char *name, uint8_t mode, const void *p, size_t n)
{
	char path[600];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(&mode, 1, 1, f) != 1 || fwrite(p, 1, n, f) != n || fclose(f) != 0)
		fz_die(ME, "cannot write a seed");
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *seeds = getenv("PQTPM_FUZZ_WRITE_SEEDS");

	(void)argc;
	(void)argv;
	make_evidence();
	if (seeds) {
		char *ev = json_dumps(evidence, 0);

		if (!ev)
			fz_die(ME, "out of memory");
		write_seed(seeds, "evidence", 0, ev, strlen(ev));
		write_seed(seeds, "ak", 1, ak_text, strlen(ak_text));
		write_seed(seeds, "event_log", 2, log_buf, log_len);
		write_seed(seeds, "ca", 3, ca_pem, strlen(ca_pem));
		free(ev);
		exit(0);
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pqtpm_attest_verify_opts o = { .trusted_ak = ak.pub.b, .trusted_ak_len = ak.pub.size,
					      .nonce = nonce, .nonce_len = sizeof(nonce),
					      .previous = previous, .max_age = 3600, .now = made_at,
					      .ca = &ca };
	struct pqtpm_attest_replay *rp;
	struct pqtpm_attest_ak got;
	struct pqtpm_attest_ca c;
	json_t *doc, *result = NULL;
	char why[160];

	fz_input_start();
	if (size == 0)
		return 0;
	switch (data[0] % 4) {
	case 0:
	case 1:
		doc = json_loadb((const char *)data + 1, size - 1, JSON_REJECT_DUPLICATES, NULL);
		if (!doc)
			return 0;
		if (data[0] % 4 == 0) {
			if (pqtpm_attest_verify(doc, &o, &result) >= 0)
				json_decref(result);
		} else {
			pqtpm_attest_ak_from_json(doc, &got, why, sizeof(why));
		}
		json_decref(doc);
		break;
	case 2:
		rp = malloc(sizeof(*rp));
		if (rp)
			pqtpm_attest_log_replay(data + 1, size - 1, rp, why, sizeof(why));
		free(rp);
		break;
	default:
		pqtpm_attest_ca_load((const char *)data + 1, size - 1, &c);
		break;
	}
	return 0;
}
