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
	c->enc = 0;
	c->auth_after = NULL;
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

void tss_param_enc(struct tss_cmd *c, unsigned flags)
{
	c->enc = flags;
}

void tss_auth_changes(struct tss_cmd *c, const char *new_auth)
{
	c->auth_after = new_auth ? new_auth : "";
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

/* The command: header, handles, authorization area (passwords, or the sessions of u, whose
 * HMACs cover the parameters as sent), parameters. */
static TPM_RC assemble(struct tss_cmd *c, struct tss_use *u, const struct pqtpm_tss_name *names,
		       struct wr *w)
{
	unsigned nentries = u->n > c->nauth ? u->n : c->nauth;
	size_t mark;

	TRY(wr_u16(w, nentries ? TPM_ST_SESSIONS : TPM_ST_NO_SESSIONS));
	TRY(wr_u32(w, 0));
	TRY(wr_u32(w, c->cc));
	for (unsigned i = 0; i < c->nhandles; i++)
		TRY(wr_u32(w, c->handle[i]));
	if (nentries) {
		mark = w->off;
		TRY(wr_u32(w, 0));
		TRY(tss_use_write_area(u, c, names, c->params, c->p.off, w));
		wr_patch_u32(w, mark, (uint32_t)(w->off - mark - 4));
	}
	TRY(wr_bytes(w, c->params, c->p.off));
	wr_patch_u32(w, 2, (uint32_t)w->off);
	return TPM_RC_SUCCESS;
}

__attribute__((weak, noinline)) void tss_response_observed(uint8_t *rsp, size_t len)
{
	(void)rsp;
	(void)len;
}

/* The response: header, handle, parameters; with sessions, their area checked and the first
 * parameter decrypted. */
static TPM_RC take_apart(struct tss_cmd *c, struct tss_use *u, struct rd *rsp,
			 TPM_HANDLE *rhandle)
{
	struct pqtpm_tss *t = c->t;
	struct rd r, area;
	uint16_t tag;
	uint32_t size, rc, psize;
	TPM_HANDLE h = 0;
	uint8_t *params;

	rd_init(&r, t->rsp, t->rsp_len);
	if (rd_u16(&r, &tag) || rd_u32(&r, &size) || rd_u32(&r, &rc))
		return PQTPM_TSS_RC_MALFORMED;
	if (rhandle && rd_u32(&r, &h))
		return PQTPM_TSS_RC_MALFORMED;
	if (tag == TPM_ST_SESSIONS) {
		if (rd_u32(&r, &psize) || psize > rd_left(&r))
			return PQTPM_TSS_RC_MALFORMED;
	} else if (u->n) {
		return PQTPM_TSS_RC_MALFORMED; /* the sessions' answers are missing */
	} else {
		psize = (uint32_t)rd_left(&r);
	}
	params = t->rsp + r.off;
	if (u->n) {
		rd_init(&area, params + psize, rd_left(&r) - psize);
		TRY(tss_use_check_area(u, c, params, psize, &area));
		if (u->encrypt >= 0)
			TRY(tss_use_crypt(u, u->encrypt, true, params, psize));
	}
	if ((h >> 24) == TPM_HT_TRANSIENT)
		tss_name_drop(t, h); /* a handle number used again */
	if (rhandle)
		*rhandle = h;
	if (rsp)
		rd_init(rsp, params, psize);
	return TPM_RC_SUCCESS;
}

/* Names first, then the exchange. tss_name_get may send ReadPublic / NV_ReadPublic through
 * tss_run itself, which is why the handle's lock lets the same thread in again. */
static TPM_RC run(struct tss_cmd *c, struct tss_use *u, struct rd *rsp, TPM_HANDLE *rhandle)
{
	struct pqtpm_tss *t = c->t;
	struct pqtpm_tss_name names[3];
	struct wr w;
	TPM_RC rc;

	if (c->overflow)
		return PQTPM_TSS_RC_BAD_VALUE;
	if (u->n) {
		for (unsigned i = 0; i < c->nhandles; i++)
			TRY(tss_name_get(t, c->handle[i], &names[i]));
		TRY(tss_use_prepare(u, c, names));
		if (u->decrypt >= 0)
			TRY(tss_use_crypt(u, u->decrypt, false, c->params, c->p.off));
	}
	wr_init(&w, t->cmd, sizeof(t->cmd));
	rc = assemble(c, u, names, &w);
	if (rc != TPM_RC_SUCCESS)
		return (rc & 0xFF0000u) == PQTPM_TSS_RC_LAYER ? rc : PQTPM_TSS_RC_BAD_VALUE;
	rc = tss_transmit_locked(t, t->cmd, w.off, t->rsp, sizeof(t->rsp), &t->rsp_len);
	if (rc != TPM_RC_SUCCESS)
		return rc;
	tss_response_observed(t->rsp, t->rsp_len);
	return take_apart(c, u, rsp, rhandle);
}

/* One command at a time per handle. The response parameters are copied out of the handle's
 * buffer (into the command's, free again) before another thread may use it. */
TPM_RC tss_run(struct tss_cmd *c, struct rd *rsp, TPM_HANDLE *rhandle)
{
	struct tss_use u;
	TPM_RC rc = tss_lock(c->t);
	size_t n;

	if (rc != TPM_RC_SUCCESS)
		return rc;
	tss_use_take(c->t, &u);
	rc = run(c, &u, rsp, rhandle);
	tss_use_wipe(&u);
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
