/* Connections: open, close, power on, raw transmit (see tss_int.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "transport_unix.h"
#include "tss_int.h"

static int wrap(struct pqtpm_tss **out, const struct tss_transport *ops, void *ctx)
{
	struct pqtpm_tss *t = calloc(1, sizeof(*t));

	if (!t) {
		ops->close(ctx);
		return -ENOMEM;
	}
	t->ops = ops;
	t->ctx = ctx;
	*out = t;
	return 0;
}

int pqtpm_tss_open_engine(struct pqtpm_tss **out, struct pqtpm_engine *e)
{
	const struct tss_transport *ops;
	void *ctx;
	int rc = tss_engine_transport(e, &ops, &ctx);

	return rc < 0 ? rc : wrap(out, ops, ctx);
}

int pqtpm_tss_open_mssim(struct pqtpm_tss **out, const char *host, unsigned port)
{
	const struct tss_transport *ops;
	void *ctx;
	int rc = tss_mssim_transport(host, port, &ops, &ctx);

	return rc < 0 ? rc : wrap(out, ops, ctx);
}

/* "mssim:host=H,port=P", "embedded:DIR", "unix:PATH" */
int pqtpm_tss_open_tcti(struct pqtpm_tss **out, const char *conf)
{
	char host[256] = "127.0.0.1", buf[512], *save = NULL, *kv;
	unsigned long port = 2321;
	const struct tss_transport *ops;
	void *ctx;
	int rc;

	if (conf && strncmp(conf, "embedded:", 9) == 0) {
		rc = tss_embedded_transport(conf + 9, &ops, &ctx);
		return rc < 0 ? rc : wrap(out, ops, ctx);
	}
	if (conf && strncmp(conf, "unix:", 5) == 0) {
		rc = tss_unix_transport(conf + 5, &ops, &ctx);
		return rc < 0 ? rc : wrap(out, ops, ctx);
	}
	if (!conf || strncmp(conf, "mssim", 5) != 0 || (conf[5] != '\0' && conf[5] != ':'))
		return -EINVAL;
	if (strlen(conf) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, conf[5] ? conf + 6 : "");
	for (kv = strtok_r(buf, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
		char *end;

		if (strncmp(kv, "host=", 5) == 0 && strlen(kv + 5) < sizeof(host)) {
			strcpy(host, kv + 5);
		} else if (strncmp(kv, "port=", 5) == 0) {
			port = strtoul(kv + 5, &end, 10);
			if (*end || port == 0 || port > 65534)
				return -EINVAL;
		} else {
			return -EINVAL;
		}
	}
	return pqtpm_tss_open_mssim(out, host, (unsigned)port);
}

void pqtpm_tss_close(struct pqtpm_tss *t)
{
	if (!t)
		return;
	t->ops->close(t->ctx);
	free(t);
}

int pqtpm_tss_power_on(struct pqtpm_tss *t)
{
	return t->ops->power_on ? t->ops->power_on(t->ctx) : 0;
}

static TPM_RC header_rc(const uint8_t *rsp, size_t len)
{
	struct rd r;
	uint16_t tag;
	uint32_t size, rc;

	rd_init(&r, rsp, len);
	if (rd_u16(&r, &tag) || rd_u32(&r, &size) || rd_u32(&r, &rc) || size != len)
		return PQTPM_TSS_RC_MALFORMED;
	return rc;
}

TPM_RC pqtpm_tss_transmit(struct pqtpm_tss *t, const uint8_t *cmd, size_t len, uint8_t *rsp,
			  size_t cap, size_t *rsp_len)
{
	if (t->ops->transmit(t->ctx, cmd, len, rsp, cap, rsp_len) < 0)
		return PQTPM_TSS_RC_IO;
	return header_rc(rsp, *rsp_len);
}
