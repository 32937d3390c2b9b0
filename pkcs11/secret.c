/* Secret keys whose value lives in the TPM (secret.h): a template's rules for each way a key
 * comes to be, the TPM object (Create under the storage key, with the token's wrapping secret
 * as its authValue, of the key's value or of the TPM's making), the attributes and the check
 * value; C_CreateObject of a CKO_SECRET_KEY.
 *
 * The module keeps a key's value only when the application may read it (CKA_SENSITIVE false,
 * CKA_EXTRACTABLE true) and only in a session object: the store holds the TPM's blobs, never a
 * value, so a readable token key is refused. */
#include <stdlib.h>
#include <string.h>

#include "secret.h"

/* Attributes a template gives as they are: booleans, and byte strings (labels, ids, dates). */
static bool settable(CK_ATTRIBUTE_TYPE t)
{
	switch (t) {
	case CKA_TOKEN:
	case CKA_PRIVATE:
	case CKA_MODIFIABLE:
	case CKA_COPYABLE:
	case CKA_DESTROYABLE:
	case CKA_SENSITIVE:
	case CKA_EXTRACTABLE:
	case CKA_ENCRYPT:
	case CKA_DECRYPT:
	case CKA_SIGN:
	case CKA_VERIFY:
	case CKA_WRAP:
	case CKA_UNWRAP:
	case CKA_DERIVE:
	case CKA_WRAP_WITH_TRUSTED:
	case CKA_LABEL:
	case CKA_ID:
	case CKA_START_DATE:
	case CKA_END_DATE:
		return true;
	default:
		return false;
	}
}

static bool is_bool(CK_ATTRIBUTE_TYPE t)
{
	return t != CKA_LABEL && t != CKA_ID && t != CKA_START_DATE && t != CKA_END_DATE;
}

/* What the module gives and a template may not (CKR_ATTRIBUTE_READ_ONLY). */
static bool read_only(CK_ATTRIBUTE_TYPE t)
{
	return t == CKA_LOCAL || t == CKA_KEY_GEN_MECHANISM || t == CKA_ALWAYS_SENSITIVE ||
	       t == CKA_NEVER_EXTRACTABLE || t == CKA_UNIQUE_ID;
}

static CK_RV key_type(const CK_ATTRIBUTE *a, struct p11_secret_req *r)
{
	CK_ULONG u;
	CK_RV rv = p11_tmpl_ulong(a, 1, a->type, &u);

	if (rv != CKR_OK)
		return rv;
	/* a generation mechanism makes its own type; other keys are AES or generic secrets */
	if (r->origin == P11_SECRET_GENERATED)
		return u == r->type ? CKR_OK : CKR_TEMPLATE_INCONSISTENT;
	if (u != CKK_AES && u != CKK_GENERIC_SECRET)
		return r->origin == P11_SECRET_CREATED ? CKR_ATTRIBUTE_VALUE_INVALID
						       : CKR_TEMPLATE_INCONSISTENT;
	r->type = u;
	return CKR_OK;
}

/* One attribute of the template: onto o, or into r. */
static CK_RV one(const CK_ATTRIBUTE *a, struct p11_object *o, struct p11_secret_req *r)
{
	bool created = r->origin == P11_SECRET_CREATED;
	CK_ULONG u;
	CK_RV rv;

	if (settable(a->type)) {
		if ((a->ulValueLen && !a->pValue) ||
		    (is_bool(a->type) && a->ulValueLen != sizeof(CK_BBOOL)))
			return CKR_ATTRIBUTE_VALUE_INVALID;
		return p11_attr_set(o, a->type, a->pValue, a->ulValueLen);
	}
	if (read_only(a->type))
		return CKR_ATTRIBUTE_READ_ONLY;
	switch (a->type) {
	case CKA_CLASS:
		rv = p11_tmpl_ulong(a, 1, a->type, &u);
		if (rv == CKR_OK && u != CKO_SECRET_KEY)
			rv = CKR_TEMPLATE_INCONSISTENT;
		return rv;
	case CKA_KEY_TYPE:
		return key_type(a, r);
	case CKA_VALUE_LEN: /* the value's own length when it is given */
		if (created)
			return CKR_TEMPLATE_INCONSISTENT;
		rv = p11_tmpl_ulong(a, 1, a->type, &r->len);
		if (rv == CKR_OK && !r->len)
			rv = CKR_ATTRIBUTE_VALUE_INVALID;
		return rv;
	case CKA_VALUE:
		if (!created)
			return CKR_TEMPLATE_INCONSISTENT;
		if (a->ulValueLen && !a->pValue)
			return CKR_ATTRIBUTE_VALUE_INVALID;
		r->value = a;
		return CKR_OK;
	case CKA_CHECK_VALUE: /* to be checked against the value given */
		if (!created)
			return CKR_TEMPLATE_INCONSISTENT;
		if (a->ulValueLen != 3 || !a->pValue)
			return CKR_ATTRIBUTE_VALUE_INVALID;
		r->check = a;
		return CKR_OK;
	case CKA_TRUSTED: /* a trusted key is the SO's to make, which this module does not offer */
		if (a->ulValueLen != sizeof(CK_BBOOL) || !a->pValue)
			return CKR_ATTRIBUTE_VALUE_INVALID;
		return *(const CK_BBOOL *)a->pValue ? CKR_ATTRIBUTE_READ_ONLY : CKR_OK;
	default:
		return CKR_ATTRIBUTE_TYPE_INVALID;
	}
}

static CK_RV dflt_bool(struct p11_object *o, CK_ATTRIBUTE_TYPE t, bool v)
{
	return p11_attr_find(o, t) ? CKR_OK : p11_attr_set_bool(o, t, v);
}

/* What a template did not say: private, sensitive, unextractable (a KEM's key extractable, as
 * PKCS#11 3.2 has it), and the uses of its type. */
static CK_RV defaults(struct p11_object *o, const struct p11_secret_req *r)
{
	static const CK_ATTRIBUTE_TYPE empty[] = { CKA_LABEL, CKA_ID, CKA_START_DATE,
						   CKA_END_DATE };
	static const CK_ATTRIBUTE_TYPE no[] = { CKA_TOKEN, CKA_WRAP, CKA_UNWRAP, CKA_DERIVE,
						CKA_WRAP_WITH_TRUSTED, CKA_TRUSTED };
	static const CK_ATTRIBUTE_TYPE yes[] = { CKA_PRIVATE, CKA_MODIFIABLE, CKA_COPYABLE,
						 CKA_DESTROYABLE, CKA_SENSITIVE };
	bool aes = r->type == CKK_AES;
	CK_RV rv = CKR_OK;
	size_t i;

	for (i = 0; i < sizeof(empty) / sizeof(empty[0]) && rv == CKR_OK; i++)
		if (!p11_attr_find(o, empty[i]))
			rv = p11_attr_set(o, empty[i], NULL, 0);
	for (i = 0; i < sizeof(no) / sizeof(no[0]) && rv == CKR_OK; i++)
		rv = dflt_bool(o, no[i], false);
	for (i = 0; i < sizeof(yes) / sizeof(yes[0]) && rv == CKR_OK; i++)
		rv = dflt_bool(o, yes[i], true);
	if (rv == CKR_OK)
		rv = dflt_bool(o, CKA_EXTRACTABLE, r->origin == P11_SECRET_KEM);
	if (rv == CKR_OK)
		rv = dflt_bool(o, CKA_ENCRYPT, aes);
	if (rv == CKR_OK)
		rv = dflt_bool(o, CKA_DECRYPT, aes);
	if (rv == CKR_OK)
		rv = dflt_bool(o, CKA_SIGN, !aes);
	if (rv == CKR_OK)
		rv = dflt_bool(o, CKA_VERIFY, !aes);
	return rv;
}

CK_RV p11_secret_template(const struct p11_session *s, const struct p11_token *tok,
			  const CK_ATTRIBUTE *t, CK_ULONG n, struct p11_object *o,
			  struct p11_secret_req *r)
{
	CK_ULONG i, j;
	bool token;
	CK_RV rv;

	if (n && !t)
		return CKR_ARGUMENTS_BAD;
	for (i = 0; i < n; i++) {
		for (j = 0; j < i; j++)
			if (t[j].type == t[i].type)
				return CKR_TEMPLATE_INCONSISTENT;
		rv = one(&t[i], o, r);
		if (rv != CKR_OK) {
			p11_log(P11_LOG_INFO, "secret key template: attribute 0x%lx refused",
				(unsigned long)t[i].type);
			return rv;
		}
	}
	if (r->type == CK_UNAVAILABLE_INFORMATION || (r->origin == P11_SECRET_CREATED && !r->value))
		return CKR_TEMPLATE_INCOMPLETE;
	rv = defaults(o, r);
	if (rv != CKR_OK)
		return rv;
	token = p11_attr_bool(o, CKA_TOKEN, false);
	if (token && !(s->flags & CKF_RW_SESSION))
		return CKR_SESSION_READ_ONLY;
	if (token && p11_secret_readable(o))
		return CKR_TEMPLATE_INCONSISTENT;
	return tok->user == CKU_USER ? CKR_OK : CKR_USER_NOT_LOGGED_IN;
}

bool p11_secret_len_ok(CK_KEY_TYPE type, size_t len)
{
	if (type == CKK_AES)
		return len == 16 || len == 24 || len == 32;
	return type == CKK_GENERIC_SECRET && len >= 1 && len <= P11_SECRET_MAX;
}

/* The attributes that say where the key came from (PKCS#11 §4.9; 3.2 §5.18 for KEM keys). */
static CK_RV origin_attrs(struct p11_object *o, const struct p11_secret_req *r)
{
	bool sensitive = p11_attr_bool(o, CKA_SENSITIVE, true);
	bool extractable = p11_attr_bool(o, CKA_EXTRACTABLE, false);
	bool always = false, never = false;
	CK_RV rv;

	switch (r->origin) {
	case P11_SECRET_GENERATED:
		always = sensitive;
		never = !extractable;
		break;
	case P11_SECRET_DERIVED:
		always = sensitive && p11_attr_bool(r->base, CKA_ALWAYS_SENSITIVE, false);
		never = !extractable && p11_attr_bool(r->base, CKA_NEVER_EXTRACTABLE, false);
		break;
	default: /* a value from outside, or a KEM's */
		break;
	}
	rv = p11_attr_set_bool(o, CKA_LOCAL, r->origin == P11_SECRET_GENERATED);
	if (rv == CKR_OK)
		rv = p11_attr_set_ulong(o, CKA_KEY_GEN_MECHANISM,
					r->origin == P11_SECRET_GENERATED
						? r->mech
						: CK_UNAVAILABLE_INFORMATION);
	if (rv == CKR_OK)
		rv = p11_attr_set_bool(o, CKA_ALWAYS_SENSITIVE, always);
	if (rv == CKR_OK)
		rv = p11_attr_set_bool(o, CKA_NEVER_EXTRACTABLE, never);
	return rv;
}

/* What the TPM step of a new key needs (p11_unlocked), taken while the module lock is held; the
 * key's object is nobody else's until it joins the table. */
struct secret_step {
	struct p11_object *o; /* its blobs filled in by the step */
	CK_KEY_TYPE type;
	size_t len;
	const uint8_t *given; /* the value, or NULL: ... */
	bool draw;	      /* ... drawn from the TPM's random generator, else the TPM's own */
	char secret[P11_SECRET_LEN + 1]; /* its authValue */
	uint8_t value[P11_SECRET_MAX];	 /* drawn */
	uint8_t kcv[3];
};

/* CKA_CHECK_VALUE: an AES key's first three bytes of the ECB encryption of a zero block (by the
 * TPM, with the key); a generic secret's first three bytes of the SHA-1 of its value. */
static CK_RV check_value(struct p11_conn *c, struct secret_step *st, const uint8_t *value)
{
	static const uint8_t zero[16];
	uint8_t out[64];
	size_t n = 0;
	CK_RV rv;

	if (st->type == CKK_AES)
		rv = p11_conn_aes(c, st->o, st->secret, false, TPM_ALG_ECB, NULL, zero, sizeof(zero),
				  out);
	else
		rv = p11_conn_hash(c, TPM_ALG_SHA1, value, st->len, out, &n);
	if (rv == CKR_OK)
		memcpy(st->kcv, out, sizeof(st->kcv));
	return rv;
}

static CK_RV secret_step(struct p11_conn *c, void *arg)
{
	struct secret_step *st = arg;
	const uint8_t *value = st->given;
	CK_RV rv = CKR_OK;

	if (!value && st->draw) {
		rv = p11_conn_random(c, st->value, st->len);
		value = st->value;
	}
	if (rv == CKR_OK)
		rv = p11_conn_secret_create(c, st->type, st->len, st->secret, value,
					    st->o->tpm_pub, st->o->tpm_priv);
	return rv == CKR_OK ? check_value(c, st, value) : rv;
}

static CK_RV finish_attrs(struct p11_object *o, const struct p11_secret_req *r,
			  const uint8_t *value, size_t len, const uint8_t kcv[3])
{
	CK_RV rv = CKR_OK;

	if (r->check && memcmp(kcv, r->check->pValue, 3))
		rv = CKR_ATTRIBUTE_VALUE_INVALID;
	if (rv == CKR_OK)
		rv = p11_attr_set_unique_id(o);
	if (rv == CKR_OK)
		rv = p11_attr_set_ulong(o, CKA_CLASS, CKO_SECRET_KEY);
	if (rv == CKR_OK)
		rv = p11_attr_set_ulong(o, CKA_KEY_TYPE, r->type);
	if (rv == CKR_OK)
		rv = p11_attr_set_ulong(o, CKA_VALUE_LEN, len);
	if (rv == CKR_OK)
		rv = p11_attr_set(o, CKA_CHECK_VALUE, kcv, 3);
	if (rv == CKR_OK)
		rv = origin_attrs(o, r);
	/* readable: the value stays with the (session) object */
	if (rv == CKR_OK && value && p11_secret_readable(o))
		rv = p11_attr_set(o, CKA_VALUE, value, len);
	return rv;
}

CK_RV p11_secret_finish(CK_SESSION_HANDLE hs, struct p11_object *o,
			const struct p11_secret_req *r, const uint8_t *value, size_t len,
			CK_OBJECT_HANDLE *h)
{
	struct secret_step *st = calloc(1, sizeof(*st));
	struct p11_session *s;
	struct p11_token *tok;
	CK_RV rv = st ? p11_session_back(hs, &s, &tok) : CKR_HOST_MEMORY;

	/* a step of the caller (ZGen, Encapsulate ...) ran without the lock: the user may have
	 * logged out meanwhile, and the wrapping secret with it */
	if (rv == CKR_OK && tok->user != CKU_USER)
		rv = CKR_USER_NOT_LOGGED_IN;
	if (rv == CKR_OK) {
		o->tpm_pub = calloc(1, sizeof(*o->tpm_pub));
		o->tpm_priv = calloc(1, sizeof(*o->tpm_priv));
		if (!o->tpm_pub || !o->tpm_priv)
			rv = CKR_HOST_MEMORY;
	}
	if (rv == CKR_OK) {
		st->o = o;
		st->type = r->type;
		st->len = len;
		st->given = value;
		/* an AES key nobody may read is the TPM's own; other values the module needs */
		st->draw = !value && (r->type != CKK_AES || p11_secret_readable(o));
		memcpy(st->secret, tok->secret, sizeof(st->secret));
		rv = p11_unlocked(o, secret_step, st);
		explicit_bzero(st->secret, sizeof(st->secret));
		if (rv == CKR_OK)
			rv = p11_session_back(hs, &s, &tok);
	}
	if (rv == CKR_OK)
		rv = finish_attrs(o, r, value ? value : st->draw ? st->value : NULL, len, st->kcv);
	if (rv == CKR_OK)
		rv = p11_object_keep(s, o);
	if (rv == CKR_OK)
		*h = o->handle;
	else
		p11_object_drop(o);
	if (st)
		explicit_bzero(st, sizeof(*st));
	free(st);
	return rv;
}

CK_RV p11_secret_usable(const struct p11_token *tok, const struct p11_object *k,
			CK_KEY_TYPE type, CK_ATTRIBUTE_TYPE use)
{
	if (p11_attr_ulong(k, CKA_CLASS, 0) != CKO_SECRET_KEY ||
	    p11_attr_ulong(k, CKA_KEY_TYPE, CK_UNAVAILABLE_INFORMATION) != type || !k->tpm_pub ||
	    !k->tpm_priv)
		return CKR_KEY_TYPE_INCONSISTENT;
	if (!p11_attr_bool(k, use, false))
		return CKR_KEY_FUNCTION_NOT_PERMITTED;
	/* the key's authValue is the wrapping secret, which only a login gives */
	return tok->user == CKU_USER ? CKR_OK : CKR_USER_NOT_LOGGED_IN;
}

CK_RV p11_secret_create(CK_SESSION_HANDLE hs, struct p11_session *s, struct p11_token *tok,
			const CK_ATTRIBUTE *t, CK_ULONG n, CK_OBJECT_HANDLE *h)
{
	struct p11_secret_req r = { .origin = P11_SECRET_CREATED,
				    .type = CK_UNAVAILABLE_INFORMATION };
	struct p11_object *o = p11_object_new(s->slot);
	CK_RV rv = o ? CKR_OK : CKR_HOST_MEMORY;

	if (rv == CKR_OK)
		rv = p11_secret_template(s, tok, t, n, o, &r);
	if (rv == CKR_OK && !p11_secret_len_ok(r.type, r.value->ulValueLen))
		rv = CKR_ATTRIBUTE_VALUE_INVALID;
	if (rv != CKR_OK) {
		p11_object_free(o);
		return rv;
	}
	return p11_secret_finish(hs, o, &r, r.value->pValue, r.value->ulValueLen, h);
}
