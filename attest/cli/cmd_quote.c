/* pqtpm-attest quote, verify */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"

static const char quote_usage[] =
	"Usage: pqtpm-attest quote --ak AK.json --nonce HEX --pcrs SEL [--event-log FILE]\n"
	"                          --out EVIDENCE.json\n"
	"A quote of the PCRs SEL (tpm2-tools' form: sha256:0,1,2,7+sha384:0) with the verifier's\n"
	"nonce, signed by the AK, as JSON evidence with the PCR values (read so that they agree\n"
	"with the quote), the AK's public area, the EK's with its certificate, and the event log\n"
	"(as measure writes it) for the verifier to replay.\n";

int cmd_quote(const struct cli *c, int argc, char **argv)
{
	const char *ak_path = NULL, *nonce_hex = NULL, *pcrs = NULL, *out = NULL, *log_path = NULL;
	struct flag flags[] = { { "--ak", &ak_path }, { "--nonce", &nonce_hex },
				{ "--pcrs", &pcrs }, { "--out", &out }, { "--event-log", &log_path } };
	uint8_t *log = NULL;
	size_t log_len = 0;
	struct pqtpm_tss_pcr_select sel[PQTPM_TSS_MAX_BANKS];
	uint8_t nonce[PQTPM_ATTEST_MAX_NONCE], cert[PQTPM_ATTEST_MAX_CERT];
	size_t nonce_len, nsel, cert_len = 0;
	struct pqtpm_attest_ak ak;
	struct pqtpm_tss_key ek;
	TPM_HANDLE ek_h, ak_h;
	struct pqtpm_tss *t;
	json_t *ev = NULL;
	TPM_RC rc;
	int ret;

	ret = cli_flags(argc, argv, flags, 5, quote_usage);
	if (ret)
		return ret < 0 ? EXIT_OK : ret;
	if (!ak_path || !nonce_hex || !pcrs || !out)
		return cli_missing("quote", !ak_path ? "--ak" : !nonce_hex ? "--nonce"
						  : !pcrs	    ? "--pcrs"
								    : "--out");
	if (cli_nonce(nonce_hex, nonce, &nonce_len))
		return EXIT_ERROR;
	if (pqtpm_attest_pcrs_parse(pcrs, sel, PQTPM_TSS_MAX_BANKS, &nsel))
		return cli_error("quote: --pcrs: '%s' is no selection such as sha256:0,1,7", pcrs);
	if (cli_read_ak(ak_path, &ak))
		return EXIT_ERROR;
	if (log_path && cli_read_file(log_path, 1u << 20, &log, &log_len))
		return EXIT_ERROR;
	t = cli_open(c);
	if (!t) {
		free(log);
		return EXIT_ERROR;
	}
	rc = pqtpm_attest_ek_create(t, ak.ek_alg, &ek);
	if (rc != TPM_RC_SUCCESS) {
		pqtpm_tss_close(t);
		free(log);
		return cli_tpm_error("quote: the EK", rc);
	}
	pqtpm_tss_flush(t, ek.handle);
	/* a TPM without an EK certificate still quotes; the evidence then has none */
	if (pqtpm_attest_ek_certificate(t, ak.ek_alg, cert, sizeof(cert), &cert_len))
		cert_len = 0;
	rc = pqtpm_attest_ak_load(t, &ak, &ek_h, &ak_h);
	if (rc != TPM_RC_SUCCESS) {
		pqtpm_tss_close(t);
		free(log);
		return cli_tpm_error("quote: loading the AK", rc);
	}
	rc = pqtpm_attest_quote(t, &ak, ak_h, nonce, nonce_len, sel, nsel, &ek.pub,
				cert_len ? cert : NULL, cert_len, &ev);
	pqtpm_tss_flush(t, ak_h);
	pqtpm_tss_flush(t, ek_h);
	pqtpm_tss_close(t);
	if (rc == TPM_RC_SUCCESS && log && pqtpm_attest_evidence_add_log(ev, log, log_len))
		rc = PQTPM_TSS_RC_IO;
	free(log);
	if (rc == PQTPM_ATTEST_RC_PCRS_MOVED)
		return cli_error("quote: the PCRs kept changing between read and quote (5 tries)");
	if (rc == PQTPM_TSS_RC_BAD_VALUE) /* PCR_Read gave none of a bank */
		return cli_error("quote: --pcrs: '%s' names a bank this TPM has not allocated", pcrs);
	if (rc != TPM_RC_SUCCESS) {
		json_decref(ev);
		return cli_tpm_error("quote", rc);
	}
	ret = cli_write_json(out, ev);
	json_decref(ev);
	return ret;
}

static const char verify_usage[] =
	"Usage: pqtpm-attest verify --evidence EVIDENCE.json --ak-public FILE --nonce HEX\n"
	"                           [--previous RESULT.json] [--max-age SECONDS] [--ca CA.pem]\n"
	"                           [--policy REFERENCE.json] [--out RESULT.json]\n"
	"Check evidence against the trusted AK (FILE: AK.json or a TPM2B_PUBLIC as tpm2-tools\n"
	"writes it) and the nonce the verifier gave; with --ca, also that the evidence's EK\n"
	"certificate comes from that manufacturer CA and certifies its EK; with --policy, that\n"
	"every PCR it names ({\"pcrs\": {\"sha256\": {\"7\": HEX or [HEX, ...]}}}) has one of\n"
	"its values. No TPM needed. The result (to --out or stdout) lists every check that\n"
	"failed; exit 0 when valid, 1 when not.\n";

int cmd_verify(const struct cli *c, int argc, char **argv)
{
	const char *ev_path = NULL, *ak_path = NULL, *nonce_hex = NULL, *prev_path = NULL,
		   *max_age = NULL, *out = NULL, *ca_path = NULL, *policy_path = NULL;
	struct flag flags[] = { { "--evidence", &ev_path }, { "--ak-public", &ak_path },
				{ "--nonce", &nonce_hex }, { "--previous", &prev_path },
				{ "--max-age", &max_age }, { "--out", &out }, { "--ca", &ca_path },
				{ "--policy", &policy_path } };
	struct pqtpm_attest_ca ca;
	struct pqtpm_attest_verify_opts o = { 0 };
	uint8_t nonce[PQTPM_ATTEST_MAX_NONCE];
	struct pqtpm_tss_public pub;
	json_t *ev = NULL, *prev = NULL, *result = NULL, *policy = NULL;
	int ret, valid;

	(void)c;
	ret = cli_flags(argc, argv, flags, 8, verify_usage);
	if (ret)
		return ret < 0 ? EXIT_OK : ret;
	if (!ev_path || !ak_path || !nonce_hex)
		return cli_missing("verify", !ev_path ? "--evidence" : !ak_path ? "--ak-public"
										 : "--nonce");
	if (cli_nonce(nonce_hex, nonce, &o.nonce_len))
		return EXIT_ERROR;
	if (max_age) {
		char *end;
		unsigned long long v;

		errno = 0;
		v = strtoull(max_age, &end, 10);
		if (errno || *end || end == max_age || max_age[0] == '-' || v == 0)
			return cli_error("verify: --max-age: expected a number of seconds, got '%s'",
					 max_age);
		o.max_age = v;
	}
	if (ca_path) {
		uint8_t *pem;
		size_t len;

		if (cli_read_file(ca_path, 16384, &pem, &len))
			return EXIT_ERROR;
		ret = pqtpm_attest_ca_load((const char *)pem, len, &ca);
		free(pem);
		if (ret)
			return cli_error("%s: no PEM certificate of a P-256 CA", ca_path);
		o.ca = &ca;
	}
	if (cli_read_ak_public(ak_path, &pub) || cli_read_json(ev_path, &ev))
		return EXIT_ERROR;
	if ((prev_path && cli_read_json(prev_path, &prev)) ||
	    (policy_path && cli_read_json(policy_path, &policy))) {
		json_decref(ev);
		json_decref(prev);
		return EXIT_ERROR;
	}
	o.policy = policy;
	o.trusted_ak = pub.b;
	o.trusted_ak_len = pub.size;
	o.nonce = nonce;
	o.previous = prev;
	o.now = (int64_t)time(NULL);
	valid = pqtpm_attest_verify(ev, &o, &result);
	json_decref(ev);
	json_decref(prev);
	json_decref(policy);
	if (valid < 0)
		return cli_error("verify: out of memory");
	ret = cli_write_json(out, result);
	json_decref(result);
	return ret != EXIT_OK ? ret : valid ? EXIT_OK : EXIT_INVALID;
}

static const char import_usage[] =
	"Usage: pqtpm-attest import --message Q.MSG --signature Q.SIG --pcrs Q.PCRS --nonce HEX\n"
	"                           --ak-public FILE --out EVIDENCE.json\n"
	"Evidence from the files tpm2_quote -m -s -o writes (its PCR file: tpm2-tools' structure\n"
	"dump, parsed strictly), the nonce the quote was made with and the AK (FILE: AK.json or a\n"
	"TPM2B_PUBLIC, as tpm2_createak -u writes it), for verify. No TPM needed.\n";

int cmd_import(const struct cli *c, int argc, char **argv)
{
	const char *msg_path = NULL, *sig_path = NULL, *pcrs_path = NULL, *nonce_hex = NULL,
		   *ak_path = NULL, *out = NULL;
	struct flag flags[] = { { "--message", &msg_path },   { "--signature", &sig_path },
				{ "--pcrs", &pcrs_path },     { "--nonce", &nonce_hex },
				{ "--ak-public", &ak_path }, { "--out", &out } };
	uint8_t nonce[PQTPM_ATTEST_MAX_NONCE], *msg = NULL, *sig = NULL, *pcrs = NULL;
	size_t nonce_len, msg_len, sig_len, pcrs_len;
	struct pqtpm_tss_public pub;
	json_t *ev = NULL;
	char why[160];
	int ret;

	(void)c;
	ret = cli_flags(argc, argv, flags, 6, import_usage);
	if (ret)
		return ret < 0 ? EXIT_OK : ret;
	if (!msg_path || !sig_path || !pcrs_path || !nonce_hex || !ak_path || !out)
		return cli_missing("import", !msg_path ? "--message" : !sig_path ? "--signature"
					   : !pcrs_path ? "--pcrs" : !nonce_hex ? "--nonce"
					   : !ak_path ? "--ak-public" : "--out");
	if (cli_nonce(nonce_hex, nonce, &nonce_len) || cli_read_ak_public(ak_path, &pub))
		return EXIT_ERROR;
	ret = cli_read_file(msg_path, PQTPM_TSS_MAX_ATTEST, &msg, &msg_len);
	if (!ret)
		ret = cli_read_file(sig_path, PQTPM_TSS_MAX_SIGNATURE, &sig, &sig_len);
	if (!ret)
		ret = cli_read_file(pcrs_path, 1u << 16, &pcrs, &pcrs_len);
	if (!ret) {
		int rc = pqtpm_attest_import_tpm2tools(msg, msg_len, sig, sig_len, pcrs, pcrs_len,
						       nonce, nonce_len, &pub, &ev, why,
						       sizeof(why));

		ret = rc == -EINVAL ? cli_error("import: %s (%s, %s, %s)", why, msg_path, sig_path,
						pcrs_path)
		      : rc	    ? cli_error("out of memory")
				    : cli_write_json(out, ev);
	}
	json_decref(ev);
	free(msg);
	free(sig);
	free(pcrs);
	return ret;
}
