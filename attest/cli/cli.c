/* pqtpm-attest: flags, files, the TPM connection, messages. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "marshal.h"

#define DEFAULT_STATE_DIR "./var/pqtpm"

int cli_error(const char *fmt, ...)
{
	va_list ap;

	fputs("pqtpm-attest: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return EXIT_ERROR;
}

int cli_tpm_error(const char *what, TPM_RC rc)
{
	char text[256];

	return cli_error("%s: 0x%x: %s", what, rc, pqtpm_tss_rc_decode(rc, text, sizeof(text)));
}

int cli_missing(const char *cmd, const char *flag)
{
	return cli_error("%s: %s is needed (see %s --help)", cmd, flag, cmd);
}

int cli_flags(int argc, char **argv, struct flag *flags, size_t n, const char *usage)
{
	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i], *eq = strchr(arg, '=');
		size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
		struct flag *f = NULL;

		if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
			fputs(usage, stdout);
			return -1;
		}
		for (size_t k = 0; k < n; k++)
			if (strncmp(arg, flags[k].name, len) == 0 && flags[k].name[len] == 0)
				f = &flags[k];
		if (!f)
			return cli_error("%s: unknown argument '%s' (see --help)", argv[0], arg);
		if (*f->value)
			return cli_error("%s: %s given twice", argv[0], f->name);
		if (eq) {
			*f->value = eq + 1;
		} else if (i + 1 < argc) {
			*f->value = argv[++i];
		} else {
			return cli_error("%s: %s needs a value", argv[0], f->name);
		}
	}
	return EXIT_OK;
}

const char *cli_state_dir(const struct cli *c)
{
	const char *env = getenv("PQTPM_STATE_DIR");

	if (c->tpm)
		return strncmp(c->tpm, "embedded:", 9) == 0 ? c->tpm + 9 : NULL;
	if (c->state_dir)
		return c->state_dir;
	return env && *env ? env : DEFAULT_STATE_DIR;
}

static void tss_log(void *arg, int level, const char *msg)
{
	(void)arg;
	if (level <= PQTPM_LOG_WARN)
		fprintf(stderr, "pqtpm-attest: %s\n", msg);
}

struct pqtpm_tss *cli_open(const struct cli *c)
{
	struct pqtpm_tss *t = NULL;
	char conf[4200];
	TPM_RC rc;
	int err;

	if (c->tpm)
		snprintf(conf, sizeof(conf), "%s", c->tpm);
	else if (snprintf(conf, sizeof(conf), "embedded:%s", cli_state_dir(c)) >= (int)sizeof(conf))
		return cli_error("--state-dir: path too long"), NULL;
	pqtpm_tss_set_log(tss_log, NULL);
	/* an embedded engine's notes (the TPM runs on ...) are not the user's business */
	pqtpm_log_set_level(PQTPM_LOG_WARN);
	err = pqtpm_tss_open_tcti(&t, conf);
	if (err) {
		cli_error("%s %s: cannot open the TPM: %s", c->tpm ? "--tpm" : "state directory",
			  c->tpm ? c->tpm : cli_state_dir(c), strerror(-err));
		return NULL;
	}
	err = pqtpm_tss_power_on(t);
	rc = err ? PQTPM_TSS_RC_IO : pqtpm_tss_startup(t, TPM_SU_CLEAR);
	if (rc != TPM_RC_SUCCESS) {
		cli_tpm_error("Startup", rc);
		pqtpm_tss_close(t);
		return NULL;
	}
	return t;
}

int cli_read_file(const char *path, size_t max, uint8_t **out, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf;
	size_t n;

	if (!f)
		return cli_error("%s: %s", path, strerror(errno));
	buf = malloc(max + 1);
	if (!buf) {
		fclose(f);
		return cli_error("%s: out of memory", path);
	}
	n = fread(buf, 1, max + 1, f);
	if (ferror(f) || n > max) {
		fclose(f);
		free(buf);
		return cli_error("%s: %s", path, n > max ? "too large" : strerror(errno));
	}
	fclose(f);
	*out = buf;
	*len = n;
	return EXIT_OK;
}

int cli_write_file(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "wb");

	if (!f)
		return cli_error("%s: %s", path, strerror(errno));
	if (fwrite(data, 1, len, f) != len) {
		fclose(f);
		return cli_error("%s: %s", path, strerror(errno));
	}
	if (fclose(f) != 0)
		return cli_error("%s: %s", path, strerror(errno));
	return EXIT_OK;
}

int cli_read_json(const char *path, json_t **out)
{
	json_error_t e;

	*out = json_load_file(path, JSON_REJECT_DUPLICATES, &e);
	if (!*out)
		return cli_error("%s:%d: %s", path, e.line, e.text);
	return EXIT_OK;
}

int cli_write_json(const char *path, const json_t *doc)
{
	char *s = json_dumps(doc, JSON_INDENT(2) | JSON_SORT_KEYS);
	int rc;

	if (!s)
		return cli_error("out of memory");
	if (!path || strcmp(path, "-") == 0) {
		rc = puts(s) < 0 ? cli_error("stdout: %s", strerror(errno)) : EXIT_OK;
	} else {
		size_t n = strlen(s);

		s[n] = '\n';
		rc = cli_write_file(path, s, n + 1);
	}
	free(s);
	return rc;
}

int cli_read_ak(const char *path, struct pqtpm_attest_ak *ak)
{
	char msg[160];
	json_t *doc;

	if (cli_read_json(path, &doc))
		return EXIT_ERROR;
	if (pqtpm_attest_ak_from_json(doc, ak, msg, sizeof(msg))) {
		json_decref(doc);
		return cli_error("%s: not an AK file: %s", path, msg);
	}
	json_decref(doc);
	return EXIT_OK;
}

int cli_read_ak_public(const char *path, struct pqtpm_tss_public *pub)
{
	struct pqtpm_attest_ak ak;
	uint8_t *buf;
	size_t len;
	struct rd r;
	uint16_t size;

	if (cli_read_file(path, 2 + PQTPM_TSS_MAX_PUBLIC + 4096, &buf, &len))
		return EXIT_ERROR;
	if (len && buf[0] == '{') {
		free(buf);
		if (cli_read_ak(path, &ak))
			return EXIT_ERROR;
		*pub = ak.pub;
		return EXIT_OK;
	}
	/* TPM2B_PUBLIC as tpm2-tools writes it: the size, then exactly that many bytes */
	rd_init(&r, buf, len);
	if (rd_u16(&r, &size) || size != len - 2 || size > sizeof(pub->b)) {
		free(buf);
		return cli_error("%s: neither an AK file nor a TPM2B_PUBLIC", path);
	}
	memcpy(pub->b, buf + 2, size);
	pub->size = size;
	free(buf);
	return EXIT_OK;
}

int cli_nonce(const char *hex, uint8_t *out, size_t *len)
{
	if (pqtpm_attest_unhex(hex, out, PQTPM_ATTEST_MAX_NONCE, len) || *len == 0)
		return cli_error("--nonce: expected 1 to %d bytes in hex, got '%s'",
				 PQTPM_ATTEST_MAX_NONCE, hex);
	return EXIT_OK;
}
