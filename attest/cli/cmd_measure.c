/* pqtpm-attest measure */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"

#define MAX_EVENT_DATA (64u * 1024u)

static const char usage[] =
	"Usage: pqtpm-attest measure --pcr N [--bank sha256] (--data FILE | --digest HEX)\n"
	"                            --event-log FILE [--type EV_IPL]\n"
	"Extend PCR N (0-23) and append the event to FILE, a TCG PC Client crypto-agile event\n"
	"log (as /sys/kernel/security/tpm0/binary_bios_measurements), made with its Spec ID\n"
	"header if new. --data: every allocated bank gets the hash of the file's bytes (at most\n"
	"64 KiB), which are the event's data; --digest: bank --bank only, with an empty event.\n"
	"--type: the event type, by name (EV_IPL, EV_POST_CODE, EV_SEPARATOR, EV_ACTION,\n"
	"EV_EVENT_TAG, EV_S_CRTM_VERSION, EV_COMPACT_HASH, EV_IPL_PARTITION_DATA ...) or number.\n";

static const struct {
	const char *name;
	uint32_t type;
} types[] = {
	{ "EV_PREBOOT_CERT", 0x0 },	   { "EV_POST_CODE", 0x1 },
	{ "EV_SEPARATOR", 0x4 },	   { "EV_ACTION", 0x5 },
	{ "EV_EVENT_TAG", 0x6 },	   { "EV_S_CRTM_CONTENTS", 0x7 },
	{ "EV_S_CRTM_VERSION", 0x8 },	   { "EV_CPU_MICROCODE", 0x9 },
	{ "EV_PLATFORM_CONFIG_FLAGS", 0xA }, { "EV_TABLE_OF_DEVICES", 0xB },
	{ "EV_COMPACT_HASH", 0xC },	   { "EV_IPL", 0xD },
	{ "EV_IPL_PARTITION_DATA", 0xE },  { "EV_NONHOST_CODE", 0xF },
	{ "EV_NONHOST_CONFIG", 0x10 },	   { "EV_NONHOST_INFO", 0x11 },
};

/* EV_NO_ACTION (3) extends nothing: refused */
static int event_type(const char *s, uint32_t *type)
{
	char *end;
	unsigned long v;

	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (strcmp(s, types[i].name) == 0) {
			*type = types[i].type;
			return 0;
		}
	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || *end || end == s || s[0] == '-' || v > 0xFFFFFFFFul || v == 3)
		return -1;
	*type = (uint32_t)v;
	return 0;
}

int cmd_measure(const struct cli *c, int argc, char **argv)
{
	const char *pcr_s = NULL, *bank = NULL, *data_path = NULL, *digest_hex = NULL,
		   *log_path = NULL, *type_s = NULL;
	struct flag flags[] = { { "--pcr", &pcr_s },	     { "--bank", &bank },
				{ "--data", &data_path },    { "--digest", &digest_hex },
				{ "--event-log", &log_path }, { "--type", &type_s } };
	struct pqtpm_tss_ha digest;
	uint8_t *data = NULL, *rec;
	size_t len = 0, n, rec_len;
	uint32_t type = 0xD;
	struct pqtpm_tss *t;
	struct stat st;
	unsigned long pcr;
	char *end;
	TPM_RC rc;
	int ret;

	ret = cli_flags(argc, argv, flags, 6, usage);
	if (ret)
		return ret < 0 ? EXIT_OK : ret;
	if (!pcr_s || !log_path || (!data_path == !digest_hex))
		return cli_missing("measure", !pcr_s ? "--pcr" : !log_path ? "--event-log"
						      : "one of --data and --digest");
	pcr = strtoul(pcr_s, &end, 10);
	if (*end || end == pcr_s || pcr > 23)
		return cli_error("measure: --pcr: expected 0-23, got '%s'", pcr_s);
	if (type_s && event_type(type_s, &type))
		return cli_error("measure: --type: '%s' is no event type that extends", type_s);
	if (digest_hex) {
		const char *b = bank ? bank : "sha256";

		digest.hash = !strcmp(b, "sha1") ? TPM_ALG_SHA1 : !strcmp(b, "sha256") ? TPM_ALG_SHA256
			      : !strcmp(b, "sha384")			     ? TPM_ALG_SHA384
			      : !strcmp(b, "sha512")			     ? TPM_ALG_SHA512
										     : TPM_ALG_NULL;
		if (digest.hash == TPM_ALG_NULL)
			return cli_error("measure: --bank: '%s' is not sha1, sha256, sha384, sha512", b);
		if (pqtpm_attest_unhex(digest_hex, digest.b, sizeof(digest.b), &n))
			return cli_error("measure: --digest: '%s' is no hex digest", digest_hex);
		digest.size = (uint16_t)n;
	} else if (bank) {
		return cli_error("measure: --bank goes with --digest (--data extends every bank)");
	} else if (cli_read_file(data_path, MAX_EVENT_DATA, &data, &len)) {
		return EXIT_ERROR;
	}
	rec = malloc(MAX_EVENT_DATA + 2048);
	if (!rec) {
		free(data);
		return cli_error("out of memory");
	}
	t = cli_open(c);
	if (!t) {
		free(data);
		free(rec);
		return EXIT_ERROR;
	}
	rc = pqtpm_attest_measure(t, (uint32_t)pcr, type, data ? data : (const uint8_t *)"", len,
				  digest_hex ? &digest : NULL,
				  stat(log_path, &st) != 0 || st.st_size == 0, rec,
				  MAX_EVENT_DATA + 2048, &rec_len);
	pqtpm_tss_close(t);
	free(data);
	if (rc == PQTPM_TSS_RC_BAD_VALUE)
		ret = cli_error("measure: --digest: not a digest of an allocated bank --bank");
	else if (rc != TPM_RC_SUCCESS)
		ret = cli_tpm_error("measure", rc);
	else {
		FILE *f = fopen(log_path, "ab");

		if (!f || fwrite(rec, 1, rec_len, f) != rec_len || fclose(f) != 0)
			ret = cli_error("%s: %s (PCR %lu was extended)", log_path, strerror(errno), pcr);
	}
	free(rec);
	return ret;
}
