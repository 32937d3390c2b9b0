/* pqtpm-server --export-ca: see export_ca.h. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <pqtpm/engine.h>

#include "export_ca.h"

#define MAX_CA_PEM 8192

static int copy(const char *from, const char *to, char *err, size_t errlen)
{
	char buf[MAX_CA_PEM];
	FILE *in, *out;
	size_t n;
	int rc = 0;

	in = fopen(from, "rb");
	if (!in) {
		snprintf(err, errlen, "%s: %s", from, strerror(errno));
		return -1;
	}
	n = fread(buf, 1, sizeof(buf), in);
	if (ferror(in) || !feof(in) || n == 0) {
		snprintf(err, errlen, "%s: cannot read a CA certificate", from);
		fclose(in);
		return -1;
	}
	fclose(in);
	out = fopen(to, "wb");
	if (!out) {
		snprintf(err, errlen, "%s: %s", to, strerror(errno));
		return -1;
	}
	if (fwrite(buf, 1, n, out) != n)
		rc = -1;
	if (fclose(out) != 0)
		rc = -1;
	if (rc)
		snprintf(err, errlen, "%s: %s", to, strerror(errno));
	return rc;
}

int mssim_export_ca(const struct mssim_config *c, char *err, size_t errlen)
{
	struct pqtpm_engine_config ecfg = { .state_dir = c->state_dir, .pcr_banks = c->pcr_banks,
					    .log_level = c->log_level,
					    .capabilities = c->capabilities,
					    .no_ek_certificates = c->no_ek_certificates };
	struct pqtpm_engine *e = NULL;
	char path[PATH_MAX + sizeof(PQTPM_CA_CERT_NAME) + 1];
	int rc;

	rc = pqtpm_engine_open(&e, &ecfg, err, errlen);
	/* -EBUSY: a running owner made the certificates when it opened the directory */
	if (rc < 0 && rc != -EBUSY)
		return -1;
	pqtpm_engine_close(e);
	snprintf(path, sizeof(path), "%s/%s", c->state_dir, PQTPM_CA_CERT_NAME);
	return copy(path, c->export_ca, err, errlen);
}
