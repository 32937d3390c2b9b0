/* C_CreateObject of keys. A private key (RSA 2048/3072, EC P-256/P-384) made elsewhere goes into
 * the TPM with TPM2_Import under the token's storage key: the client library wraps its private
 * part for the storage key (an outer wrapper, Part 1 §23.3) and the TPM checks that it belongs
 * to the public key. Only the TPM's blobs are kept, never the private values. A public key (RSA,
 * EC, ML-DSA, ML-KEM) is kept with a TPM public area that TPM2_LoadExternal takes to verify,
 * encrypt or encapsulate with; the TPM checks it once at creation (an ML-KEM key: FIPS 203's
 * check of an encapsulation key). */
#include <stdlib.h>
#include <string.h>

#include "key.h"

#define RSA_MAX 384 /* RSA-3072 */

/* The values read from the template: never copied to the object as given. */
static bool import_value(CK_ATTRIBUTE_TYPE t)
{
	switch (t) {
	case CKA_MODULUS:
	case CKA_PUBLIC_EXPONENT:
	case CKA_PRIVATE_EXPONENT:
	case CKA_PRIME_1:
	case CKA_PRIME_2:
	case CKA_EXPONENT_1:
	case CKA_EXPONENT_2:
	case CKA_COEFFICIENT:
	case CKA_EC_PARAMS:
	case CKA_EC_POINT:
	case CKA_VALUE:
	case CKA_PARAMETER_SET:
		return true;
	default:
		return false;
	}
}

/* A big integer of the template without its leading zeros: CKR_TEMPLATE_INCOMPLETE if it is
 * missing, CKR_ATTRIBUTE_VALUE_INVALID if it is zero or longer than max bytes. */
static CK_RV big(const CK_ATTRIBUTE *t, CK_ULONG n, CK_ATTRIBUTE_TYPE type, size_t max,
		 const uint8_t **v, size_t *len)
{
	const CK_ATTRIBUTE *a = p11_tmpl_find(t, n, type);

	*v = NULL;
	*len = 0;
	if (!a)
		return CKR_TEMPLATE_INCOMPLETE;
	*v = a->pValue;
	*len = a->ulValueLen;
	while (*len && **v == 0) {
		(*v)++;
		(*len)--;
	}
	return *len && *len <= max ? CKR_OK : CKR_ATTRIBUTE_VALUE_INVALID;
}

/* p * q == n, each big-endian without leading zeros (schoolbook, a byte at a time). */
static bool product_is(const uint8_t *p, size_t pl, const uint8_t *q, size_t ql, const uint8_t *n,
		       size_t nl)
{
	uint32_t r[2 * RSA_MAX] = { 0 };
	size_t i, j, len = pl + ql;
	bool same = true;

	if (len > sizeof(r) / sizeof(r[0]) || nl > len)
		return false;
	for (i = 0; i < pl; i++) { /* little-endian positions */
		uint32_t carry = 0;

		for (j = 0; j < ql; j++) {
			uint32_t v = r[i + j] + (uint32_t)p[pl - 1 - i] * q[ql - 1 - j] + carry;

			r[i + j] = v & 0xFF;
			carry = v >> 8;
		}
		r[i + ql] += carry;
	}
	for (i = 0; i < len; i++)
		same &= r[i] == (i < nl ? n[nl - 1 - i] : 0);
	explicit_bzero(r, sizeof(r));
	return same;
}

/* A public exponent for the TPM: odd, at least 3, at most 32 bits. */
static CK_RV exponent(const CK_ATTRIBUTE *t, CK_ULONG n, uint32_t *e)
{
	const uint8_t *v;
	size_t len, i;
	CK_RV rv = big(t, n, CKA_PUBLIC_EXPONENT, 4, &v, &len);

	if (rv != CKR_OK)
		return rv;
	for (*e = 0, i = 0; i < len; i++)
		*e = *e << 8 | v[i];
	return *e >= 3 && (*e & 1) ? CKR_OK : CKR_ATTRIBUTE_VALUE_INVALID;
}

/* What goes to the TPM: the public area's template and the private part as the TPM keeps it. */
struct import {
	CK_KEY_TYPE type;
	struct pqtpm_tss_template tmpl;
	uint8_t unique[RSA_MAX], unique_y[48];
	uint8_t priv[RSA_MAX / 2];
	size_t priv_len;
	const CK_ATTRIBUTE *params; /* EC: CKA_EC_PARAMS */
	CK_ULONG parameter_set;	    /* ML-DSA and ML-KEM public keys */
};

/* RSA: n, e and one prime of the template (the TPM keeps p and derives the rest); q, if given
 * too, must make n with p. */
static CK_RV rsa_parts(const CK_ATTRIBUTE *t, CK_ULONG n, bool priv, struct import *im)
{
	const uint8_t *mod, *p, *q, *d;
	size_t nlen, plen, qlen, dlen;
	CK_RV rv = big(t, n, CKA_MODULUS, RSA_MAX, &mod, &nlen), rq;

	if (rv == CKR_OK)
		rv = exponent(t, n, &im->tmpl.exponent);
	if (rv == CKR_OK && nlen != 256 && nlen != RSA_MAX)
		rv = CKR_ATTRIBUTE_VALUE_INVALID;
	if (rv != CKR_OK)
		return rv;
	im->tmpl.type = TPM_ALG_RSA;
	im->tmpl.rsa_bits = (uint16_t)(nlen * 8);
	memcpy(im->unique, mod, nlen);
	im->tmpl.unique = im->unique;
	im->tmpl.unique_len = (uint16_t)nlen;
	if (!priv)
		return CKR_OK;
	rv = big(t, n, CKA_PRIVATE_EXPONENT, nlen, &d, &dlen);
	if (rv != CKR_OK)
		return rv;
	rv = big(t, n, CKA_PRIME_1, nlen / 2, &p, &plen);
	rq = big(t, n, CKA_PRIME_2, nlen / 2, &q, &qlen);
	if (rv == CKR_TEMPLATE_INCOMPLETE && rq == CKR_OK) { /* q alone will do as well */
		p = q;
		plen = qlen;
		rv = CKR_OK;
	} else if (rv == CKR_OK && rq == CKR_OK && !product_is(p, plen, q, qlen, mod, nlen)) {
		rv = CKR_TEMPLATE_INCONSISTENT;
	} else if (rv == CKR_OK && rq != CKR_TEMPLATE_INCOMPLETE) {
		rv = rq;
	}
	if (rv != CKR_OK)
		return rv;
	im->priv_len = nlen / 2;
	memset(im->priv, 0, im->priv_len - plen);
	memcpy(im->priv + im->priv_len - plen, p, plen);
	return CKR_OK;
}

/* An EC point as CKA_EC_POINT gives it: the DER OCTET STRING of the uncompressed point, or
 * the bare point as some applications give it. */
static CK_RV ec_point(const CK_ATTRIBUTE *a, size_t n, struct import *im)
{
	const uint8_t *v = a ? a->pValue : NULL;
	size_t len = a ? a->ulValueLen : 0;

	if (!a)
		return CKR_TEMPLATE_INCOMPLETE;
	if (len == 3 + 2 * n && v[0] == 0x04 && v[1] == 1 + 2 * n) {
		v += 2;
		len -= 2;
	}
	if (len != 1 + 2 * n || v[0] != 0x04)
		return CKR_ATTRIBUTE_VALUE_INVALID;
	memcpy(im->unique, v + 1, n);
	memcpy(im->unique_y, v + 1 + n, n);
	return CKR_OK;
}

/* EC: the curve and, for a private key, the scalar and the point the client library computes
 * from it (a private key template has no CKA_EC_POINT). */
static CK_RV ec_parts(const CK_ATTRIBUTE *t, CK_ULONG n, bool priv, struct import *im)
{
	struct pqtpm_tss_ecc_point pt;
	const uint8_t *d;
	size_t len, size;
	CK_RV rv;

	im->params = p11_tmpl_find(t, n, CKA_EC_PARAMS);
	if (!im->params)
		return CKR_TEMPLATE_INCOMPLETE;
	im->tmpl.type = TPM_ALG_ECC;
	im->tmpl.curve = p11_ec_curve(im->params->pValue, im->params->ulValueLen);
	if (!im->tmpl.curve)
		return CKR_CURVE_NOT_SUPPORTED;
	size = im->tmpl.curve == TPM_ECC_NIST_P256 ? 32 : 48;
	im->tmpl.unique = im->unique;
	im->tmpl.unique_y = im->unique_y;
	im->tmpl.unique_len = im->tmpl.unique_y_len = (uint16_t)size;
	if (!priv)
		return ec_point(p11_tmpl_find(t, n, CKA_EC_POINT), size, im);
	rv = big(t, n, CKA_VALUE, size, &d, &len);
	if (rv != CKR_OK)
		return rv;
	im->priv_len = size;
	memset(im->priv, 0, size - len);
	memcpy(im->priv + size - len, d, len);
	if (pqtpm_tss_ecc_point_of(im->tmpl.curve, im->priv, size, &pt) != TPM_RC_SUCCESS)
		return CKR_ATTRIBUTE_VALUE_INVALID; /* not in [1, n - 1] */
	memcpy(im->unique, pt.x, size);
	memcpy(im->unique_y, pt.y, size);
	explicit_bzero(&pt, sizeof(pt));
	return CKR_OK;
}

/* ML-DSA and ML-KEM public keys: the encoded key (FIPS 204's pk, FIPS 203's ek) and its
 * parameter set, which the key's size gives when the template does not (each set's keys have a
 * size of their own). CKP_ML_DSA_44/65/87 and CKP_ML_KEM_512/768/1024 are 1, 2, 3, as the
 * TPM's sets. */
static CK_RV pq_parts(const CK_ATTRIBUTE *t, CK_ULONG n, struct import *im)
{
	static const size_t pk_bytes[] = { 0, 1312, 1952, 2592 }, ek_bytes[] = { 0, 800, 1184, 1568 };
	const size_t *size = im->type == CKK_ML_DSA ? pk_bytes : ek_bytes;
	const CK_ATTRIBUTE *v = p11_tmpl_find(t, n, CKA_VALUE);
	CK_ULONG set;
	CK_RV rv = p11_tmpl_ulong(t, n, CKA_PARAMETER_SET, &im->parameter_set);

	if (rv != CKR_OK)
		return rv;
	if (!v)
		return CKR_TEMPLATE_INCOMPLETE;
	if (!p11_tmpl_find(t, n, CKA_PARAMETER_SET))
		for (set = 1; set <= 3; set++)
			if (v->ulValueLen == size[set])
				im->parameter_set = set;
	if (im->parameter_set < 1 || im->parameter_set > 3 ||
	    v->ulValueLen != size[im->parameter_set])
		return CKR_ATTRIBUTE_VALUE_INVALID;
	im->tmpl.type = im->type == CKK_ML_DSA ? TPM_ALG_MLDSA : TPM_ALG_MLKEM;
	im->tmpl.parameter_set = (uint16_t)im->parameter_set;
	/* the module computes a HashML-DSA signature's mu, which the key then verifies */
	im->tmpl.allow_external_mu = im->type == CKK_ML_DSA;
	im->tmpl.unique = v->pValue;
	im->tmpl.unique_len = (uint16_t)v->ulValueLen;
	return CKR_OK;
}

/* ---- the TPM's step ---- */

/* What the TPM step needs (p11_unlocked), taken while the module lock is held: the public area,
 * and for a private key its private part and authValue; it gives the TPM's private blob. */
struct import_step {
	struct pqtpm_tss_public pub;
	const struct import *im; /* a private key's: its private part */
	char secret[P11_SECRET_LEN + 1];
	struct p11_blob priv;
};

/* The TPM's answer about the key: a private part that does not belong to the public key is
 * an inconsistent template, a key the TPM does not take a value it refuses. */
static CK_RV import_rv(struct p11_conn *c, TPM_RC rc, const char *what)
{
	TPM_RC base = (rc & TPM_RC_FMT1) ? (rc & 0xBFu) : rc;

	if (base == TPM_RC_BINDING)
		return CKR_TEMPLATE_INCONSISTENT;
	if (base == TPM_RC_KEY || base == TPM_RC_KEY_SIZE || base == TPM_RC_ECC_POINT ||
	    base == TPM_RC_VALUE || base == TPM_RC_SIZE)
		return CKR_ATTRIBUTE_VALUE_INVALID;
	return p11_conn_rv(c, rc, what);
}

/* A public key: its public area loaded once and let go, so that the TPM checks it (a point on
 * the curve, a key of its parameter set's size ...). A private key: its private part wrapped
 * for the storage key and imported. */
static CK_RV import_step(struct p11_conn *c, void *arg)
{
	struct import_step *st = arg;
	struct pqtpm_tss_public parent;
	struct pqtpm_tss_duplicate dup;
	struct pqtpm_tss_private tpriv;
	struct pqtpm_tss_name name;
	struct pqtpm_tss_key key;
	TPM_RC rc;

	if (!st->im) {
		rc = pqtpm_tss_load_public(c->t, TPM_RH_NULL, &st->pub, &key);
		if (rc == TPM_RC_SUCCESS)
			pqtpm_tss_flush(c->t, key.handle);
		return import_rv(c, rc, "LoadExternal");
	}
	rc = pqtpm_tss_read_public(c->t, c->storage, &parent, &name);
	if (rc == TPM_RC_SUCCESS)
		rc = pqtpm_tss_duplicate_make(&parent, &st->pub, st->secret, st->im->priv,
					      st->im->priv_len, &dup);
	if (rc == TPM_RC_SUCCESS)
		rc = pqtpm_tss_import(c->t, c->storage, "", &st->pub, &dup, TPM_ALG_NULL, 0,
				      &tpriv);
	explicit_bzero(&dup, sizeof(dup));
	if (rc != TPM_RC_SUCCESS)
		return import_rv(c, rc, "Import");
	memcpy(st->priv.b, tpriv.b, tpriv.size);
	st->priv.len = tpriv.size;
	explicit_bzero(&tpriv, sizeof(tpriv));
	return CKR_OK;
}

/* ---- C_CreateObject of a key ---- */

static CK_RV read_parts(const CK_ATTRIBUTE *t, CK_ULONG n, CK_OBJECT_CLASS cls,
			struct import *im)
{
	bool priv = cls == CKO_PRIVATE_KEY;

	switch (im->type) {
	case CKK_RSA:
		return rsa_parts(t, n, priv, im);
	case CKK_EC:
		return ec_parts(t, n, priv, im);
	case CKK_ML_DSA: /* the TPM keeps an ML-DSA or ML-KEM key's seed, which a private key */
	case CKK_ML_KEM: /* may lack */
		return priv ? CKR_ATTRIBUTE_VALUE_INVALID : pq_parts(t, n, im);
	default:
		return CKR_ATTRIBUTE_VALUE_INVALID;
	}
}

static CK_RV build(struct p11_object *o, CK_OBJECT_CLASS cls, const struct import *im,
		   const struct p11_blob *pub, const struct p11_blob *priv)
{
	uint8_t e[4];
	CK_RV rv = p11_key_finish(o, cls, im->type, P11_KEY_IMPORTED, 0);

	if (rv == CKR_OK && im->type == CKK_RSA) {
		e[0] = (uint8_t)(im->tmpl.exponent >> 24);
		e[1] = (uint8_t)(im->tmpl.exponent >> 16);
		e[2] = (uint8_t)(im->tmpl.exponent >> 8);
		e[3] = (uint8_t)im->tmpl.exponent;
		rv = p11_attr_set(o, CKA_PUBLIC_EXPONENT, e + (e[0] ? 0 : e[1] ? 1 : 2),
				  e[0] ? 4 : e[1] ? 3 : 2);
	}
	if (rv == CKR_OK && im->type == CKK_EC)
		rv = p11_attr_set(o, CKA_EC_PARAMS, im->params->pValue, im->params->ulValueLen);
	if (rv == CKR_OK && (im->type == CKK_ML_DSA || im->type == CKK_ML_KEM))
		rv = p11_attr_set_ulong(o, CKA_PARAMETER_SET, im->parameter_set);
	if (rv == CKR_OK)
		rv = p11_key_blobs(o, im->type, pub, priv);
	return rv;
}

/* The TPM's public area of the key the template describes, and the step that makes its blobs:
 * imported (a private key) or checked (a public one). */
static CK_RV tpm_key(const struct p11_token *tok, const CK_ATTRIBUTE *t, CK_ULONG n,
		     CK_OBJECT_CLASS cls, struct import *im, struct import_step *st)
{
	CK_RV rv = CKR_OK;

	if (cls == CKO_PRIVATE_KEY)
		rv = p11_key_uses(t, n, im->type, &im->tmpl.attributes);
	else /* only loaded alone to verify, encrypt or encapsulate with, as the object's
	      * attributes allow (an ML-KEM key: the TPM's decryption key, which encapsulates) */
		im->tmpl.attributes = TPMA_OBJECT_USERWITHAUTH |
				      (im->type == CKK_ML_KEM ? 0 : TPMA_OBJECT_SIGN_ENCRYPT) |
				      (im->type == CKK_ML_DSA ? 0 : TPMA_OBJECT_DECRYPT);
	if (rv == CKR_OK && pqtpm_tss_template_public(&im->tmpl, &st->pub) != TPM_RC_SUCCESS)
		rv = CKR_ATTRIBUTE_VALUE_INVALID;
	if (rv != CKR_OK || cls == CKO_PUBLIC_KEY)
		return rv;
	st->im = im;
	memcpy(st->secret, tok->secret, sizeof(st->secret));
	return CKR_OK;
}

CK_RV p11_key_create(CK_SESSION_HANDLE hs, struct p11_session *s, struct p11_token *tok,
		     const CK_ATTRIBUTE *t, CK_ULONG n, CK_OBJECT_CLASS cls,
		     struct p11_object **out)
{
	struct import_step *st = calloc(1, sizeof(*st));
	struct p11_blob pub;
	struct p11_object *o;
	struct import im;
	bool priv_obj = cls == CKO_PRIVATE_KEY, token = false;
	CK_RV rv = st ? CKR_OK : CKR_HOST_MEMORY;

	memset(&im, 0, sizeof(im));
	if (rv == CKR_OK)
		rv = p11_tmpl_ulong(t, n, CKA_KEY_TYPE, &im.type);
	if (rv == CKR_OK && !p11_tmpl_find(t, n, CKA_KEY_TYPE))
		rv = CKR_TEMPLATE_INCOMPLETE;
	if (rv == CKR_OK)
		rv = p11_tmpl_bool(t, n, CKA_PRIVATE, &priv_obj);
	if (rv == CKR_OK)
		rv = p11_tmpl_bool(t, n, CKA_TOKEN, &token);
	if (rv == CKR_OK && token && !(s->flags & CKF_RW_SESSION))
		rv = CKR_SESSION_READ_ONLY;
	/* a private key's authValue is the token's secret, known once the user logged in */
	if (rv == CKR_OK && (priv_obj || cls == CKO_PRIVATE_KEY) && tok->user != CKU_USER)
		rv = CKR_USER_NOT_LOGGED_IN;
	o = rv == CKR_OK ? p11_object_new(s->slot) : NULL;
	if (rv == CKR_OK && !o)
		rv = CKR_HOST_MEMORY;
	/* the template first (its values then read safely), so that a bad one costs no TPM
	 * command */
	if (rv == CKR_OK)
		rv = p11_key_template(o, t, n, cls, im.type, import_value);
	if (rv == CKR_OK)
		rv = read_parts(t, n, cls, &im);
	if (rv == CKR_OK)
		rv = tpm_key(tok, t, n, cls, &im, st);
	if (rv == CKR_OK) {
		rv = p11_unlocked(NULL, import_step, st);
		if (rv == CKR_OK)
			rv = p11_session_back(hs, &s, &tok);
	}
	explicit_bzero(im.priv, sizeof(im.priv));
	if (rv == CKR_OK) {
		memcpy(pub.b, st->pub.b, st->pub.size);
		pub.len = st->pub.size;
		rv = build(o, cls, &im, &pub, cls == CKO_PRIVATE_KEY ? &st->priv : NULL);
	}
	if (rv == CKR_OK)
		rv = p11_object_keep(s, o);
	if (rv != CKR_OK && o)
		p11_object_drop(o);
	if (rv == CKR_OK)
		*out = o;
	if (st)
		explicit_bzero(st, sizeof(*st));
	free(st);
	return rv;
}
