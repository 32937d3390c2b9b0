/* A session's operations: their collected data (C_SignUpdate, C_VerifyUpdate, C_DigestUpdate
 * append to it), the checks every call on one starts with (p11_op_init for the C_*Init with a
 * key, p11_op_get for the calls after it), and their state lent to a TPM step outside the
 * module lock (p11_op_step). */
#include <stdlib.h>
#include <string.h>

#include "mech.h"

#define P11_OP_MAX (64u << 20) /* what one multi-part operation may collect */

CK_RV p11_op_append(struct p11_op *op, const uint8_t *data, size_t len)
{
	if (len && !data)
		return CKR_ARGUMENTS_BAD;
	if (len > P11_OP_MAX - op->len)
		return CKR_DATA_LEN_RANGE;
	if (op->len + len > op->cap) {
		size_t cap = op->cap ? op->cap : 256;
		uint8_t *grown;

		while (cap < op->len + len)
			cap *= 2;
		grown = realloc(op->data, cap);
		if (!grown)
			return CKR_HOST_MEMORY;
		op->data = grown;
		op->cap = cap;
	}
	if (len)
		memcpy(op->data + op->len, data, len);
	op->len += len;
	return CKR_OK;
}

void p11_op_end(struct p11_op *op)
{
	if (op->data)
		explicit_bzero(op->data, op->cap);
	free(op->data);
	memset(op, 0, sizeof(*op));
}

void p11_op_lend(struct p11_op *op, struct p11_op *mine)
{
	*mine = *op;
	op->data = NULL;
	op->len = op->cap = 0;
	op->busy = true;
}

void p11_op_back(struct p11_op *op, struct p11_op *mine)
{
	*op = *mine;
	op->busy = false;
	memset(mine, 0, sizeof(*mine));
}

struct p11_op *p11_session_op(struct p11_session *s, enum p11_op_kind kind)
{
	switch (kind) {
	case P11_OP_SIGN:
		return &s->sign;
	case P11_OP_VERIFY:
		return &s->verify;
	case P11_OP_DIGEST:
		return &s->digest;
	case P11_OP_ENCRYPT:
		return &s->encrypt;
	default:
		return &s->decrypt;
	}
}

CK_RV p11_op_get(struct p11_call *c)
{
	CK_RV rv = p11_session_get(c->h, &c->s, &c->tok);

	if (rv != CKR_OK)
		return rv;
	c->op = p11_session_op(c->s, c->kind);
	if (c->op->busy)
		return CKR_OPERATION_ACTIVE;
	if (!c->op->active)
		return CKR_OPERATION_NOT_INITIALIZED;
	if (c->op->reauth) {
		p11_op_end(c->op);
		return CKR_USER_NOT_LOGGED_IN;
	}
	return CKR_OK;
}

CK_RV p11_op_step(struct p11_call *c, struct p11_op *mine, struct p11_object *key,
		  p11_step_fn step, void *arg)
{
	CK_RV rv, back;

	p11_op_lend(c->op, mine);
	rv = p11_unlocked(key, step, arg);
	back = p11_session_back(c->h, &c->s, &c->tok);
	if (back == CKR_SESSION_CLOSED) {
		p11_op_end(mine);
		c->op = NULL;
		return back;
	}
	c->op = p11_session_op(c->s, c->kind);
	p11_op_back(c->op, mine);
	return back != CKR_OK ? back : rv;
}

CK_RV p11_op_init(CK_SESSION_HANDLE h, enum p11_op_kind kind, const CK_MECHANISM *m,
		  CK_OBJECT_HANDLE key, struct p11_init *in)
{
	static const CK_FLAGS does[] = { CKF_SIGN, CKF_VERIFY, CKF_DIGEST, CKF_ENCRYPT,
					 CKF_DECRYPT };
	static const CK_ATTRIBUTE_TYPE use[] = { CKA_SIGN, CKA_VERIFY, 0, CKA_ENCRYPT,
						 CKA_DECRYPT };
	bool priv = kind == P11_OP_SIGN || kind == P11_OP_DECRYPT;
	CK_RV rv = p11_session_get(h, &in->s, &in->tok);

	if (rv != CKR_OK)
		return rv;
	in->kind = kind;
	in->op = p11_session_op(in->s, kind);
	if (in->op->active)
		return CKR_OPERATION_ACTIVE;
	if (!m)
		return CKR_ARGUMENTS_BAD;
	in->d = p11_mech_find(m->mechanism);
	if (!in->d || !(in->d->flags & does[kind]))
		return CKR_MECHANISM_INVALID;
	if (p11_object_get(in->s, in->tok, key, &in->k) != CKR_OK)
		return CKR_KEY_HANDLE_INVALID;
	/* a secret key's mechanism: its own rules (aes.c, hmac.c) */
	if (in->d->kind == P11_AES || in->d->kind == P11_HMAC)
		return CKR_OK;
	if (p11_attr_ulong(in->k, CKA_CLASS, 0) != (priv ? CKO_PRIVATE_KEY : CKO_PUBLIC_KEY) ||
	    p11_attr_ulong(in->k, CKA_KEY_TYPE, CK_UNAVAILABLE_INFORMATION) != in->d->key_type ||
	    !in->k->tpm_pub)
		return CKR_KEY_TYPE_INCONSISTENT;
	if (!p11_attr_bool(in->k, use[kind], false))
		return CKR_KEY_FUNCTION_NOT_PERMITTED;
	/* a private key's authValue is the token's secret, which the user's login unseals */
	return priv && in->tok->user != CKU_USER ? CKR_USER_NOT_LOGGED_IN : CKR_OK;
}

CK_RV p11_op_start(const struct p11_init *in, const CK_MECHANISM *m, CK_OBJECT_HANDLE key,
		   p11_params_fn params)
{
	struct p11_op *op = in->op;
	CK_RV rv;

	memset(op, 0, sizeof(*op));
	op->reauth = (in->kind == P11_OP_SIGN || in->kind == P11_OP_DECRYPT) &&
		     p11_attr_bool(in->k, CKA_ALWAYS_AUTHENTICATE, false);
	if (params)
		rv = params(m, in->d, op);
	else
		rv = m->pParameter || m->ulParameterLen ? CKR_MECHANISM_PARAM_INVALID : CKR_OK;
	if (rv != CKR_OK)
		return rv;
	op->active = true;
	op->mech = in->d->type;
	op->key = key;
	return CKR_OK;
}

CK_RV p11_enter_op(struct p11_call *c)
{
	CK_RV rv = p11_enter();

	if (rv != CKR_OK)
		return rv;
	rv = p11_op_get(c);
	if (rv != CKR_OK)
		p11_leave();
	return rv;
}

CK_RV p11_enter_op_args(struct p11_call *c, bool ok)
{
	CK_RV rv = p11_enter_op(c);

	if (rv != CKR_OK || ok)
		return rv;
	p11_op_end(c->op);
	return p11_done(CKR_ARGUMENTS_BAD);
}

CK_RV p11_enter_once(struct p11_call *c, bool ok, const uint8_t *data, size_t len)
{
	CK_RV rv = p11_enter_op_args(c, ok);

	if (rv != CKR_OK)
		return rv;
	rv = p11_op_once(c, data, len);
	return rv == CKR_OK ? rv : p11_done(rv);
}

bool p11_out_fits(const void *out, CK_ULONG_PTR out_len, size_t size, CK_RV *rv)
{
	if (out && *out_len >= size)
		return true;
	*out_len = size;
	*rv = out ? CKR_BUFFER_TOO_SMALL : CKR_OK;
	return false;
}

CK_RV p11_op_key(struct p11_call *c, struct p11_object **k)
{
	if (p11_object_get(c->s, c->tok, c->op->key, k) == CKR_OK)
		return CKR_OK;
	p11_op_end(c->op);
	return CKR_KEY_HANDLE_INVALID;
}

CK_RV p11_op_once(struct p11_call *c, const uint8_t *data, size_t len)
{
	CK_RV rv;

	if (c->op->multi)
		return CKR_OPERATION_ACTIVE;
	c->op->len = 0;
	rv = p11_op_append(c->op, data, len);
	if (rv != CKR_OK)
		p11_op_end(c->op);
	return rv;
}

CK_RV p11_op_update(CK_SESSION_HANDLE h, enum p11_op_kind kind, const uint8_t *part, size_t len)
{
	struct p11_call c = { .h = h, .kind = kind };
	CK_RV rv = p11_enter_op(&c);

	if (rv != CKR_OK)
		return rv;
	rv = p11_op_append(c.op, part, len);
	if (rv != CKR_OK)
		p11_op_end(c.op);
	else
		c.op->multi = true;
	return p11_done(rv);
}
