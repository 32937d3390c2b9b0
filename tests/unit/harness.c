/* Unit-test harness (see harness.h). */
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pqtpm/tss.h>

#include "engine_int.h"
#include "harness.h"
#include "state/store.h"

static void die(const char *what, const char *why)
{
	fprintf(stderr, "harness: %s: %s\n", what, why);
	exit(2);
}

void harness_open_config(struct harness *h, const struct pqtpm_engine_config *cfg)
{
	char err[256];

	memset(h, 0, sizeof(*h));
	pqtpm_log_set_level(PQTPM_LOG_ERROR);
	if (pqtpm_engine_open(&h->e, cfg, err, sizeof(err)) != 0)
		die("pqtpm_engine_open", err);
	h->c = pqtpm_client_new(h->e);
	if (!h->c)
		die("pqtpm_client_new", "out of memory");
}

static void open_with(struct harness *h, const char *dir, enum pqtpm_capabilities caps)
{
	struct pqtpm_engine_config cfg = {
		.state_dir = dir,
		.log_level = PQTPM_LOG_ERROR,
		.auto_startup = 1,
		.capabilities = caps,
	};

	harness_open_config(h, &cfg);
}

void harness_open(struct harness *h)
{
	open_with(h, NULL, PQTPM_CAPS_RELEASED);
}

void harness_open_caps(struct harness *h, const char *dir, enum pqtpm_capabilities caps)
{
	open_with(h, dir, caps);
}

void harness_open_dir(struct harness *h, const char *dir)
{
	open_with(h, dir, PQTPM_CAPS_RELEASED);
}

void harness_open_socket(struct harness *h, const char *dir)
{
	char tcti[512];

	memset(h, 0, sizeof(*h));
	snprintf(tcti, sizeof(tcti), "unix:%s/%s", dir, PQTPM_SOCKET_NAME);
	if (pqtpm_tss_open_tcti(&h->remote, tcti) != 0)
		die("pqtpm_tss_open_tcti", tcti);
}

void harness_close(struct harness *h)
{
	pqtpm_tss_close(h->remote);
	pqtpm_client_free(h->c);
	pqtpm_engine_close(h->e);
	h->remote = NULL;
	h->c = NULL;
	h->e = NULL;
}

struct pqtpm_engine *harness_disk_open(const char *dir)
{
	struct pqtpm_engine *e = calloc(1, sizeof(*e));
	char err[512];

	if (!e || !(e->state_dir = strdup(dir)))
		die("harness_disk_open", "out of memory");
	if (state_load(e, err, sizeof(err)) != 0)
		die("state_load", err);
	return e;
}

void harness_disk_close(struct pqtpm_engine *disk)
{
	state_free_persist(&disk->ps);
	state_close(disk);
	free(disk->state_dir);
	free(disk);
}

void cmd_begin(struct cmdbuf *b, TPM_CC cc)
{
	memset(b, 0, sizeof(*b));
	b->cc = cc;
	wr_init(&b->auth, b->auth_buf, sizeof(b->auth_buf));
	wr_init(&b->params, b->param_buf, sizeof(b->param_buf));
}

void cmd_handle(struct cmdbuf *b, TPM_HANDLE h)
{
	if (b->nhandles < 3)
		b->handles[b->nhandles++] = h;
}

void cmd_auth_pw_bytes(struct cmdbuf *b, const uint8_t *pw, size_t len)
{
	wr_u32(&b->auth, TPM_RS_PW);
	wr_u16(&b->auth, 0);
	wr_u8(&b->auth, TPMA_SESSION_CONTINUESESSION);
	wr_tpm2b(&b->auth, pw, (uint16_t)len);
	b->nauth++;
}

void cmd_auth_pw(struct cmdbuf *b, const char *password)
{
	cmd_auth_pw_bytes(b, (const uint8_t *)password, strlen(password));
}

void cmd_sensitive(struct cmdbuf *b, const char *auth, const void *data, uint16_t len)
{
	size_t mark;

	wr_size_begin(&b->params, &mark);
	wr_tpm2b(&b->params, auth, (uint16_t)strlen(auth));
	wr_tpm2b(&b->params, data, len);
	wr_size_end(&b->params, mark);
}

size_t cmd_bytes(const struct cmdbuf *b, uint8_t *out, size_t cap)
{
	struct wr w;

	wr_init(&w, out, cap);
	wr_u16(&w, b->nauth ? TPM_ST_SESSIONS : TPM_ST_NO_SESSIONS);
	wr_u32(&w, 0);
	wr_u32(&w, b->cc);
	for (unsigned i = 0; i < b->nhandles; i++)
		wr_u32(&w, b->handles[i]);
	if (b->nauth) {
		wr_u32(&w, (uint32_t)b->auth.off);
		wr_bytes(&w, b->auth_buf, b->auth.off);
	}
	wr_bytes(&w, b->param_buf, b->params.off);
	wr_patch_u32(&w, 2, (uint32_t)w.off);
	return w.off;
}

TPM_RC harness_raw(struct harness *h, const uint8_t *cmd, size_t len, uint8_t *out,
		   size_t *outlen)
{
	struct rd r;
	uint16_t tag;
	uint32_t size, rc;

	if (h->remote) {
		if (pqtpm_tss_transmit(h->remote, cmd, len, out, PQTPM_MAX_RESPONSE_SIZE,
				       outlen) == PQTPM_TSS_RC_IO)
			die("pqtpm_tss_transmit", "the owner's socket failed");
	} else if (pqtpm_engine_execute(h->c, h->locality, cmd, len, out,
					PQTPM_MAX_RESPONSE_SIZE, outlen) != 0) {
		die("pqtpm_engine_execute", "refused the buffer");
	}
	rd_init(&r, out, *outlen);
	if (rd_u16(&r, &tag) || rd_u32(&r, &size) || rd_u32(&r, &rc) || size != *outlen)
		die("harness_raw", "malformed response header");
	return rc;
}

TPM_RC harness_run(struct harness *h, struct cmdbuf *b, struct rd *rsp, TPM_HANDLE *rh)
{
	/* one per thread: two harnesses on one engine may run commands at once */
	static _Thread_local uint8_t cmd[PQTPM_MAX_COMMAND_SIZE + 1024];
	const struct cmd_def *def = cmd_lookup(b->cc);
	size_t len = cmd_bytes(b, cmd, sizeof(cmd));
	struct rd r;
	uint16_t tag;
	uint32_t size, rc, psize;

	rc = harness_raw(h, cmd, len, h->rsp, &h->rsp_len);
	rd_init(&r, h->rsp, h->rsp_len);
	rd_u16(&r, &tag);
	rd_u32(&r, &size);
	rd_u32(&r, &rc);
	if (rc != TPM_RC_SUCCESS) {
		if (rsp)
			rd_init(rsp, h->rsp, 0);
		return rc;
	}
	if (def && (def->flags & CMD_RHANDLE)) {
		TPM_HANDLE hh = 0;

		rd_u32(&r, &hh);
		if (rh)
			*rh = hh;
	}
	if (tag == TPM_ST_SESSIONS) {
		if (rd_u32(&r, &psize) || psize > rd_left(&r))
			die("harness_run", "bad parameterSize");
		if (rsp)
			rd_init(rsp, h->rsp + r.off, psize);
	} else if (rsp) {
		rd_init(rsp, h->rsp + r.off, rd_left(&r));
	}
	return rc;
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

int harness_rm_tree(const char *path)
{
	return nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}
