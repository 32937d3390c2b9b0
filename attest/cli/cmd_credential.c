/* pqtpm-attest credential make, credential activate */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char usage[] =
	"Usage: pqtpm-attest credential make --ek-public FILE --ak-name HEX --secret FILE\n"
	"                                    --out CRED.json\n"
	"       pqtpm-attest credential activate --ak AK.json --credential CRED.json --out FILE\n"
	"make: the verifier's side, no TPM needed: a credential for the AK of that Name under the\n"
	"EK (FILE: its certificate, PEM or DER, its PEM public key, or a TPM2B_PUBLIC as ek\n"
	"--public or tpm2-tools write it; RSA, ECC or ML-KEM), wrapping the secret (1 to 64\n"
	"bytes).\n"
	"activate: the TPM gives the secret back only if the AK lives beside that EK.\n";

static int set_b64(json_t *o, const char *key, const uint8_t *b, size_t len)
{
	char *s = pqtpm_attest_b64url(b, len);
	int rc = s ? json_object_set_new(o, key, json_string(s)) : -1;

	free(s);
	return rc;
}

/* FILE: the EK's certificate (PEM or DER), its PEM public key, or a TPM2B_PUBLIC */
static int read_ek_public(const char *path, struct pqtpm_tss_public *pub)
{
	uint8_t *b;
	size_t len;
	int x509;

	if (cli_read_file(path, 16384, &b, &len))
		return EXIT_ERROR;
	x509 = (len > 10 && memcmp(b, "-----BEGIN", 10) == 0) ||
	       (len > 2 && b[0] == 0x30 && b[1] == 0x82); /* no TPM2B_PUBLIC is that large */
	if (x509) {
		int rc = pqtpm_attest_ek_public_from_x509(b, len, pub);

		free(b);
		return rc ? cli_error("%s: no certificate or public key of an RSA-2048, ECC P-256 "
				      "or ML-KEM-768 EK", path)
			  : EXIT_OK;
	}
	free(b);
	return cli_read_ak_public(path, pub);
}

static int make(int argc, char **argv)
{
	const char *ek_path = NULL, *name_hex = NULL, *secret_path = NULL, *out = NULL;
	struct flag flags[] = { { "--ek-public", &ek_path }, { "--ak-name", &name_hex },
				{ "--secret", &secret_path }, { "--out", &out } };
	struct pqtpm_tss_public ek;
	struct pqtpm_tss_name name;
	struct pqtpm_tss_id_object blob;
	struct pqtpm_tss_ciphertext enc;
	uint8_t *secret;
	size_t len, n;
	json_t *doc;
	TPM_RC rc;
	int ret;

	ret = cli_flags(argc, argv, flags, 4, usage);
	if (ret)
		return ret < 0 ? EXIT_OK : ret;
	if (!ek_path || !name_hex || !secret_path || !out)
		return cli_missing("credential make", !ek_path ? "--ek-public" : !name_hex ? "--ak-name"
						      : !secret_path ? "--secret" : "--out");
	if (pqtpm_attest_unhex(name_hex, name.b, sizeof(name.b), &n) || n < 4)
		return cli_error("credential make: --ak-name: '%s' is no Name in hex", name_hex);
	name.size = (uint16_t)n;
	if (read_ek_public(ek_path, &ek) || cli_read_file(secret_path, 64, &secret, &len))
		return EXIT_ERROR;
	if (len == 0) {
		free(secret);
		return cli_error("%s: the secret is empty", secret_path);
	}
	rc = pqtpm_attest_credential_make(&ek, &name, secret, len, &blob, &enc);
	free(secret);
	if (rc != TPM_RC_SUCCESS)
		return cli_tpm_error("credential make", rc);
	doc = json_object();
	if (!doc || set_b64(doc, "credential_blob", blob.b, blob.size) ||
	    set_b64(doc, "secret", enc.b, enc.size)) {
		json_decref(doc);
		return cli_error("out of memory");
	}
	ret = cli_write_json(out, doc);
	json_decref(doc);
	return ret;
}

static int activate(const struct cli *c, int argc, char **argv)
{
	const char *ak_path = NULL, *cred_path = NULL, *out = NULL, *b, *s;
	struct flag flags[] = { { "--ak", &ak_path }, { "--credential", &cred_path },
				{ "--out", &out } };
	struct pqtpm_tss_id_object blob;
	struct pqtpm_tss_ciphertext enc;
	struct pqtpm_tss_digest secret;
	struct pqtpm_attest_ak ak;
	struct pqtpm_tss *t;
	json_t *doc;
	size_t n, m;
	TPM_RC rc;
	int ret;

	ret = cli_flags(argc, argv, flags, 3, usage);
	if (ret)
		return ret < 0 ? EXIT_OK : ret;
	if (!ak_path || !cred_path || !out)
		return cli_missing("credential activate", !ak_path ? "--ak" : !cred_path
										    ? "--credential"
										    : "--out");
	if (cli_read_ak(ak_path, &ak) || cli_read_json(cred_path, &doc))
		return EXIT_ERROR;
	b = json_string_value(json_object_get(doc, "credential_blob"));
	s = json_string_value(json_object_get(doc, "secret"));
	if (!b || !s || pqtpm_attest_unb64url(b, blob.b, sizeof(blob.b), &n) ||
	    pqtpm_attest_unb64url(s, enc.b, sizeof(enc.b), &m)) {
		json_decref(doc);
		return cli_error("%s: no \"credential_blob\" and \"secret\" in base64url", cred_path);
	}
	json_decref(doc);
	blob.size = (uint16_t)n;
	enc.size = (uint16_t)m;
	t = cli_open(c);
	if (!t)
		return EXIT_ERROR;
	rc = pqtpm_attest_credential_activate(t, &ak, &blob, &enc, &secret);
	pqtpm_tss_close(t);
	if (rc != TPM_RC_SUCCESS)
		return cli_tpm_error("credential activate", rc);
	ret = cli_write_file(out, secret.b, secret.size);
	memset(&secret, 0, sizeof(secret));
	return ret;
}

int cmd_credential(const struct cli *c, int argc, char **argv)
{
	if (argc >= 2 && strcmp(argv[1], "make") == 0)
		return make(argc - 1, argv + 1);
	if (argc >= 2 && strcmp(argv[1], "activate") == 0)
		return activate(c, argc - 1, argv + 1);
	if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
		fputs(usage, stdout);
		return EXIT_OK;
	}
	return cli_error("credential: expected 'make' or 'activate' (see credential --help)");
}
