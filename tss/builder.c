/* The command builder: handles, authorizations and parameters in, one command out; the
 * response header and authorization area taken apart again (see tss_int.h). */
#include <string.h>

#include "tss_int.h"

void tss_begin(struct tss_cmd *c, struct pqtpm_tss *t, TPM_CC cc)
{
	c->t = t;
	c->cc = cc;
	c->nhandles = 0;
	c->nauth = 0;
	c->overflow = 0;
	wr_init(&c->p, c->params, sizeof(c->params));
}

void tss_handle(struct tss_cmd *c, TPM_HANDLE h)
{
	if (c->nhandles < 3)
		c->handle[c->nhandles++] = h;
	else
		c->overflow = 1;
}

void tss_auth(struct tss_cmd *c, const char *password)
{
	if (c->nauth < 3)
		c->auth[c->nauth++] = password ? password : "";
	else
		c->overflow = 1;
}

#define KEEP(c, expr)                                   \
	do {                                            \
		if ((expr) != TPM_RC_SUCCESS)           \
			(c)->overflow = 1;              \
	} while (0)

void tss_u8(struct tss_cmd *c, uint8_t v)
{
	KEEP(c, wr_u8(&c->p, v));
}

void tss_u16(struct tss_cmd *c, uint16_t v)
{
	KEEP(c, wr_u16(&c->p, v));
}

void tss_u32(struct tss_cmd *c, uint32_t v)
{
	KEEP(c, wr_u32(&c->p, v));
}

void tss_bytes(struct tss_cmd *c, const void *b, size_t n)
{
	KEEP(c, n ? wr_bytes(&c->p, b, n) : TPM_RC_SUCCESS);
}

void tss_tpm2b(struct tss_cmd *c, const void *b, size_t n)
{
	if (n > UINT16_MAX) {
		c->overflow = 1;
		return;
	}
	tss_u16(c, (uint16_t)n);
	tss_bytes(c, b, n);
}

void tss_tpm2b_str(struct tss_cmd *c, const char *s)
{
	tss_tpm2b(c, s, s ? strlen(s) : 0);
}

static TPM_RC assemble(struct tss_cmd *c, struct wr *w)
{
	size_t mark;

	TRY(wr_u16(w, c->nauth ? TPM_ST_SESSIONS : TPM_ST_NO_SESSIONS));
	TRY(wr_u32(w, 0));
	TRY(wr_u32(w, c->cc));
	for (unsigned i = 0; i < c->nhandles; i++)
		TRY(wr_u32(w, c->handle[i]));
	if (c->nauth) {
		mark = w->off;
		TRY(wr_u32(w, 0));
		for (unsigned i = 0; i < c->nauth; i++) {
			size_t n = strlen(c->auth[i]);

			if (n > 64)
				return PQTPM_TSS_RC_BAD_VALUE;
			TRY(wr_u32(w, TPM_RS_PW));
			TRY(wr_u16(w, 0));
			TRY(wr_u8(w, TPMA_SESSION_CONTINUESESSION));
			TRY(wr_tpm2b(w, c->auth[i], (uint16_t)n));
		}
		wr_patch_u32(w, mark, (uint32_t)(w->off - mark - 4));
	}
	TRY(wr_bytes(w, c->params, c->p.off));
	wr_patch_u32(w, 2, (uint32_t)w->off);
	return TPM_RC_SUCCESS;
}

static TPM_RC run_locked(struct tss_cmd *c, struct rd *rsp, TPM_HANDLE *rhandle)
{
	struct pqtpm_tss *t = c->t;
	struct wr w;
	struct rd r;
	uint16_t tag;
	uint32_t size, rc, psize;
	TPM_HANDLE h = 0;

	if (c->overflow)
		return PQTPM_TSS_RC_BAD_VALUE;
	wr_init(&w, t->cmd, sizeof(t->cmd));
	if (assemble(c, &w) != TPM_RC_SUCCESS)
		return PQTPM_TSS_RC_BAD_VALUE;
	rc = tss_transmit_locked(t, t->cmd, w.off, t->rsp, sizeof(t->rsp), &t->rsp_len);
	if (rc != TPM_RC_SUCCESS)
		return rc;
	rd_init(&r, t->rsp, t->rsp_len);
	if (rd_u16(&r, &tag) || rd_u32(&r, &size) || rd_u32(&r, &rc))
		return PQTPM_TSS_RC_MALFORMED;
	if (rhandle && rd_u32(&r, &h))
		return PQTPM_TSS_RC_MALFORMED;
	if (tag == TPM_ST_SESSIONS) {
		if (rd_u32(&r, &psize) || psize > rd_left(&r))
			return PQTPM_TSS_RC_MALFORMED;
	} else {
		psize = (uint32_t)rd_left(&r);
	}
	if (rhandle)
		*rhandle = h;
	if (rsp)
		rd_init(rsp, r.buf + r.off, psize);
	return TPM_RC_SUCCESS;
}

/* One command at a time per handle. The response parameters are copied out of the handle's
 * buffer (into the command's, free again) before another thread may use it. */
TPM_RC tss_run(struct tss_cmd *c, struct rd *rsp, TPM_HANDLE *rhandle)
{
	TPM_RC rc = tss_lock(c->t);
	size_t n;

	if (rc != TPM_RC_SUCCESS)
		return rc;
	rc = run_locked(c, rsp, rhandle);
	if (rc == TPM_RC_SUCCESS && rsp) {
		n = rd_left(rsp);
		memcpy(c->params, rsp->buf + rsp->off, n);
		rd_init(rsp, c->params, n);
	}
	tss_unlock(c->t);
	return rc;
}

/* ---- response readers ---- */

TPM_RC tss_rd_tpm2b(struct rd *r, uint8_t *buf, size_t max, uint16_t *size)
{
	uint16_t m = max > UINT16_MAX ? UINT16_MAX : (uint16_t)max;

	return rd_tpm2b(r, buf, m, size) ? PQTPM_TSS_RC_MALFORMED : TPM_RC_SUCCESS;
}

TPM_RC tss_rd_end(const struct rd *r)
{
	return rd_left(r) ? PQTPM_TSS_RC_MALFORMED : TPM_RC_SUCCESS;
}
