/* pqtpm-attest ek, ca, ak create, ak public */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "marshal.h"

/* TPM2B_PUBLIC, as tpm2-tools reads and writes a public area */
static int write_tpm2b_public(const char *path, const struct pqtpm_tss_public *pub)
{
	uint8_t buf[2 + sizeof(pub->b)];
	struct wr w;

	wr_init(&w, buf, sizeof(buf));
	if (wr_tpm2b(&w, pub->b, pub->size))
		return cli_error("%s: public area too large", path);
	return cli_write_file(path, buf, w.off);
}

/* --format: tpm2b (a TPM2B_PUBLIC, as tpm2-tools writes it) or pem (RSA and ECC keys) */
static int write_public(const char *path, const char *format, const struct pqtpm_tss_public *pub)
{
	char pem[PQTPM_ATTEST_MAX_PEM];
	size_t len;

	if (!format || strcmp(format, "tpm2b") == 0)
		return write_tpm2b_public(path, pub);
	if (pqtpm_attest_public_pem(pub, pem, sizeof(pem), &len))
		return cli_error("%s: --format pem: the key has no PEM form (RSA and ECC only)", path);
	return cli_write_file(path, pem, len);
}

static int check_format(const char *cmd, const char *format)
{
	if (format && strcmp(format, "tpm2b") != 0 && strcmp(format, "pem") != 0)
		return cli_error("%s: --format: '%s' is neither tpm2b nor pem", cmd, format);
	return EXIT_OK;
}

static const char ek_usage[] =
	"Usage: pqtpm-attest ek [--alg rsa2048|ecc-p256|ecc-p521|mlkem768] [--public FILE]\n"
	"                       [--format pem|tpm2b] [--certificate FILE]\n"
	"The EK (default rsa2048) as CreatePrimary makes it from the profile's template\n"
	"(ecc-p521: the high-range H-4, tpm2_createek -G ecc521's, without a certificate here):\n"
	"its public key (pem, the default for RSA and ECC: a SubjectPublicKeyInfo; tpm2b, the\n"
	"default for ML-KEM: the public area as a TPM2B_PUBLIC, as tpm2-tools writes it) and its\n"
	"certificate (DER, from the EK certificate NV index).\n";

int cmd_ek(const struct cli *c, int argc, char **argv)
{
	const char *alg = NULL, *pub_path = NULL, *cert_path = NULL, *format = NULL;
	struct flag flags[] = { { "--alg", &alg }, { "--public", &pub_path },
				{ "--certificate", &cert_path }, { "--format", &format } };
	uint8_t cert[PQTPM_ATTEST_MAX_CERT];
	struct pqtpm_tss_key ek;
	struct pqtpm_tss *t;
	size_t len;
	TPM_RC rc;
	int ret;

	ret = cli_flags(argc, argv, flags, 4, ek_usage);
	if (ret)
		return ret < 0 ? EXIT_OK : ret;
	if (check_format("ek", format))
		return EXIT_ERROR;
	alg = alg ? alg : "rsa2048";
	if (pqtpm_attest_ek_template(alg, &ek.pub, NULL))
		return cli_error("ek: --alg: unknown EK algorithm '%s'", alg);
	if (!pub_path && !cert_path)
		return cli_missing("ek", "--public or --certificate");
	t = cli_open(c);
	if (!t)
		return EXIT_ERROR;
	ret = EXIT_OK;
	if (pub_path) {
		rc = pqtpm_attest_ek_create(t, alg, &ek);
		if (rc != TPM_RC_SUCCESS)
			ret = cli_tpm_error("ek: CreatePrimary", rc);
		else {
			pqtpm_tss_flush(t, ek.handle);
			if (!format)
				format = strcmp(alg, "mlkem768") == 0 ? "tpm2b" : "pem";
			ret = write_public(pub_path, format, &ek.pub);
		}
	}
	if (ret == EXIT_OK && cert_path) {
		rc = pqtpm_attest_ek_certificate(t, alg, cert, sizeof(cert), &len);
		ret = rc != TPM_RC_SUCCESS ? cli_tpm_error("ek: reading the certificate", rc)
					   : cli_write_file(cert_path, cert, len);
	}
	pqtpm_tss_close(t);
	return ret;
}

static const char ca_usage[] =
	"Usage: pqtpm-attest ca --out FILE\n"
	"The manufacturer CA certificate (PEM) of the state directory's TPM, which issued its EK\n"
	"certificates: what a verifier trusts (openssl verify -CAfile FILE).\n";

int cmd_ca(const struct cli *c, int argc, char **argv)
{
	const char *out = NULL, *dir = cli_state_dir(c);
	struct flag flags[] = { { "--out", &out } };
	struct pqtpm_tss *t;
	char path[4200];
	uint8_t *pem;
	size_t len;
	int ret;

	ret = cli_flags(argc, argv, flags, 1, ca_usage);
	if (ret)
		return ret < 0 ? EXIT_OK : ret;
	if (!out)
		return cli_missing("ca", "--out");
	if (!dir)
		return cli_error("ca: the CA lives in a state directory; --tpm %s is none (ask its "
				 "owner: pqtpm-server --export-ca)", c->tpm);
	/* opening the TPM manufactures a new one */
	t = cli_open(c);
	if (!t)
		return EXIT_ERROR;
	pqtpm_tss_close(t);
	snprintf(path, sizeof(path), "%s/%s", dir, PQTPM_CA_CERT_NAME);
	if (cli_read_file(path, 8192, &pem, &len))
		return EXIT_ERROR;
	ret = cli_write_file(out, pem, len);
	free(pem);
	return ret;
}

static const char ak_usage[] =
	"Usage: pqtpm-attest ak create --alg ALG [--ek-alg EK] --out AK.json\n"
	"       pqtpm-attest ak public --ak AK.json --out FILE [--format tpm2b|pem]\n"
	"create: a restricted signing key under the EK (as tpm2_createak makes it): ALG one of\n"
	"rsa2048 (RSASSA-SHA256), ecc-p256 (ECDSA-SHA256), ecc-p384 (ECDSA-SHA384), ecc-p521\n"
	"(ECDSA-SHA512), mldsa44, mldsa65, mldsa87 (pure ML-DSA); EK rsa2048 (default), ecc-p256,\n"
	"ecc-p521, mlkem768. AK.json keeps what a later process needs to load it.\n"
	"public: the AK's public area as a TPM2B_PUBLIC (tpm2b, the default: what verify\n"
	"--ak-public takes) or its RSA or ECC key as PEM (for openssl).\n";

static int ak_create(const struct cli *c, int argc, char **argv)
{
	const char *alg = NULL, *ek_alg = NULL, *out = NULL;
	struct flag flags[] = { { "--alg", &alg }, { "--ek-alg", &ek_alg }, { "--out", &out } };
	struct pqtpm_attest_ak ak;
	struct pqtpm_tss_public tmpl;
	struct pqtpm_tss *t;
	json_t *doc;
	TPM_RC rc;
	int ret;

	ret = cli_flags(argc, argv, flags, 3, ak_usage);
	if (ret)
		return ret < 0 ? EXIT_OK : ret;
	if (!alg)
		return cli_missing("ak create", "--alg");
	if (!out)
		return cli_missing("ak create", "--out");
	ek_alg = ek_alg ? ek_alg : "rsa2048";
	if (pqtpm_attest_ek_template(ek_alg, &tmpl, NULL))
		return cli_error("ak create: --ek-alg: unknown EK algorithm '%s'", ek_alg);
	t = cli_open(c);
	if (!t)
		return EXIT_ERROR;
	rc = pqtpm_attest_ak_create(t, alg, ek_alg, &ak);
	pqtpm_tss_close(t);
	if (rc == PQTPM_TSS_RC_BAD_VALUE)
		return cli_error("ak create: --alg: unknown AK algorithm '%s'", alg);
	if (rc != TPM_RC_SUCCESS)
		return cli_tpm_error("ak create", rc);
	doc = pqtpm_attest_ak_json(&ak);
	if (!doc)
		return cli_error("out of memory");
	ret = cli_write_json(out, doc);
	json_decref(doc);
	return ret;
}

static int ak_public(int argc, char **argv)
{
	const char *ak_path = NULL, *out = NULL, *format = NULL;
	struct flag flags[] = { { "--ak", &ak_path }, { "--out", &out }, { "--format", &format } };
	struct pqtpm_attest_ak ak;
	int ret;

	ret = cli_flags(argc, argv, flags, 3, ak_usage);
	if (ret)
		return ret < 0 ? EXIT_OK : ret;
	if (!ak_path)
		return cli_missing("ak public", "--ak");
	if (!out)
		return cli_missing("ak public", "--out");
	if (check_format("ak public", format) || cli_read_ak(ak_path, &ak))
		return EXIT_ERROR;
	return write_public(out, format, &ak.pub);
}

int cmd_ak(const struct cli *c, int argc, char **argv)
{
	if (argc >= 2 && strcmp(argv[1], "create") == 0)
		return ak_create(c, argc - 1, argv + 1);
	if (argc >= 2 && strcmp(argv[1], "public") == 0)
		return ak_public(argc - 1, argv + 1);
	if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
		fputs(ak_usage, stdout);
		return EXIT_OK;
	}
	return cli_error("ak: expected 'create' or 'public' (see ak --help)");
}
