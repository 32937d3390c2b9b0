/* C_Sign* and C_Verify*: RSA PKCS#1 v1.5 and PSS, ECDSA, ML-DSA, HashML-DSA, raw and
 * hash-and-sign, and HMAC (whose init and end are in hmac.c). The data of a multi-part
 * operation (any mechanism, the raw ones too, as SoftHSMv2 allows and pkcs11-tool --test uses)
 * is collected and the TPM asked once, at the end: the TPM hashes (hash-and-sign), signs with
 * the private key (TPM2_Sign, the ML-DSA sign sequence for the message itself, SignDigest of
 * HashML-DSA's mu) and verifies with the public key loaded alone (VerifySignature, the verify
 * sequence, VerifyDigestSignature). */
#include <string.h>

#include "secret.h"

/* The DigestInfo prefixes of RFC 8017 §9.2 (note 1): CKM_RSA_PKCS signs a DigestInfo, which
 * the TPM builds itself from the digest and its hash. */
static const struct {
	TPM_ALG_ID hash;
	uint8_t prefix[19];
	size_t len;
} digest_infos[] = {
	{ TPM_ALG_SHA1,
	  { 0x30, 0x21, 0x30, 0x09, 0x06, 0x05, 0x2b, 0x0e, 0x03, 0x02, 0x1a, 0x05, 0x00, 0x04,
	    0x14 },
	  15 },
	{ TPM_ALG_SHA256,
	  { 0x30, 0x31, 0x30, 0x0d, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02,
	    0x01, 0x05, 0x00, 0x04, 0x20 },
	  19 },
	{ TPM_ALG_SHA384,
	  { 0x30, 0x41, 0x30, 0x0d, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02,
	    0x02, 0x05, 0x00, 0x04, 0x30 },
	  19 },
	{ TPM_ALG_SHA512,
	  { 0x30, 0x51, 0x30, 0x0d, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02,
	    0x03, 0x05, 0x00, 0x04, 0x40 },
	  19 },
};

static const uint8_t OID_P384[] = { 0x06, 0x05, 0x2B, 0x81, 0x04, 0x00, 0x22 };

/* ---- sizes ---- */

/* An EC key's coordinate size. */
static size_t ec_size(const struct p11_object *k)
{
	const struct p11_attr *a = p11_attr_find(k, CKA_EC_PARAMS);

	return a && a->len == sizeof(OID_P384) && !memcmp(a->value, OID_P384, a->len) ? 48 : 32;
}

static size_t signature_size(const struct p11_object *k)
{
	const struct p11_attr *a;

	switch (p11_attr_ulong(k, CKA_KEY_TYPE, CK_UNAVAILABLE_INFORMATION)) {
	case CKK_RSA:
		a = p11_attr_find(k, CKA_MODULUS);
		return a ? a->len : 0;
	case CKK_EC:
		return 2 * ec_size(k);
	default:
		switch (p11_attr_ulong(k, CKA_PARAMETER_SET, 0)) {
		case CKP_ML_DSA_44:
			return 2420;
		case CKP_ML_DSA_65:
			return 3309;
		default:
			return 4627;
		}
	}
}

/* ---- parameters ---- */

static CK_RV pss_params(const CK_MECHANISM *m, const struct p11_mech *d, struct p11_op *op)
{
	static const CK_RSA_PKCS_MGF_TYPE mgfs[] = { CKG_MGF1_SHA1, CKG_MGF1_SHA256,
						     CKG_MGF1_SHA384, CKG_MGF1_SHA512 };
	static const TPM_ALG_ID hashes[] = { TPM_ALG_SHA1, TPM_ALG_SHA256, TPM_ALG_SHA384,
					     TPM_ALG_SHA512 };
	const CK_RSA_PKCS_PSS_PARAMS *p = m->pParameter;
	size_t i;

	if (!p || m->ulParameterLen != sizeof(*p))
		return CKR_MECHANISM_PARAM_INVALID;
	op->hash = p11_hash_of_mech(p->hashAlg);
	if (!op->hash || (d->hash && op->hash != d->hash))
		return CKR_MECHANISM_PARAM_INVALID;
	/* the TPM's PSS: MGF1 with the same hash, a salt as long as the digest */
	for (i = 0; i < 4 && hashes[i] != op->hash; i++)
		;
	if (i == 4 || p->mgf != mgfs[i] || p->sLen != p11_hash_size(op->hash))
		return CKR_MECHANISM_PARAM_INVALID;
	return CKR_OK;
}

/* An ML-DSA parameter's hedging and context string. */
static CK_RV context_params(CK_HEDGE_TYPE hedge, const CK_BYTE *ctx, CK_ULONG len,
			    struct p11_op *op)
{
	if (len > sizeof(op->ctx) || (len && !ctx))
		return CKR_MECHANISM_PARAM_INVALID;
	/* the TPM signs hedged: a deterministic signature cannot be promised */
	if (hedge != CKH_HEDGE_PREFERRED && hedge != CKH_HEDGE_REQUIRED)
		return CKR_MECHANISM_PARAM_INVALID;
	if (len)
		memcpy(op->ctx, ctx, len);
	op->ctx_len = len;
	return CKR_OK;
}

/* CKM_ML_DSA, CKM_HASH_ML_DSA_SHA*: an optional CK_SIGN_ADDITIONAL_CONTEXT. */
static CK_RV mldsa_params(const CK_MECHANISM *m, const struct p11_mech *d, struct p11_op *op)
{
	const CK_SIGN_ADDITIONAL_CONTEXT *p = m->pParameter;

	if (!p && !m->ulParameterLen)
		return CKR_OK;
	if (!p || m->ulParameterLen != sizeof(*p))
		return CKR_MECHANISM_PARAM_INVALID;
	return context_params(p->hedgeVariant, p->pContext, p->ulContextLen, op);
}

/* CKM_HASH_ML_DSA_SHA*: the mechanism's hash and an optional CK_SIGN_ADDITIONAL_CONTEXT;
 * CKM_HASH_ML_DSA: a CK_HASH_SIGN_ADDITIONAL_CONTEXT naming the hash of the data (one the TPM
 * computes: its FIPS 204 OID is what the signature binds). */
static CK_RV hash_mldsa_params(const CK_MECHANISM *m, const struct p11_mech *d, struct p11_op *op)
{
	const CK_HASH_SIGN_ADDITIONAL_CONTEXT *p = m->pParameter;

	if (d->hash) {
		op->hash = d->hash;
		return mldsa_params(m, d, op);
	}
	if (!p || m->ulParameterLen != sizeof(*p))
		return CKR_MECHANISM_PARAM_INVALID;
	op->hash = p11_hash_of_mech(p->hash);
	if (op->hash != TPM_ALG_SHA256 && op->hash != TPM_ALG_SHA384 &&
	    op->hash != TPM_ALG_SHA512)
		return CKR_MECHANISM_PARAM_INVALID;
	return context_params(p->hedgeVariant, p->pContext, p->ulContextLen, op);
}

static bool is_pss(const struct p11_mech *d)
{
	return d->kind == P11_RSA_PSS || (d->kind == P11_HASH_SIGN && d->scheme == TPM_ALG_RSAPSS);
}

/* What reads the parameters of mechanism d (NULL: it takes none). */
static p11_params_fn params_of(const struct p11_mech *d)
{
	if (is_pss(d))
		return pss_params;
	if (d->kind == P11_MLDSA)
		return mldsa_params;
	return d->kind == P11_HASH_MLDSA ? hash_mldsa_params : NULL;
}

static CK_RV op_init(CK_SESSION_HANDLE h, enum p11_op_kind kind, CK_MECHANISM_PTR m,
		     CK_OBJECT_HANDLE key)
{
	struct p11_init in;
	CK_RV rv = p11_op_init(h, kind, m, key, &in);

	if (rv != CKR_OK)
		return rv;
	if (in.d->kind == P11_HMAC)
		return p11_hmac_init(in.tok, in.op, kind == P11_OP_SIGN, m, in.k, key);
	return p11_op_start(&in, m, key, params_of(in.d));
}

/* ---- what the TPM signs ---- */

/* The digest to sign or verify, and its hash (hash-and-sign: the TPM's, on c). */
static CK_RV to_digest(struct p11_conn *c, const struct p11_op *op, const struct p11_mech *d,
		       uint8_t *dg, size_t *dlen, TPM_ALG_ID *hash)
{
	size_t i;

	switch (d->kind) {
	case P11_RSA_PKCS:
		for (i = 0; i < sizeof(digest_infos) / sizeof(digest_infos[0]); i++) {
			size_t n = digest_infos[i].len, hs = p11_hash_size(digest_infos[i].hash);

			if (op->len == n + hs && !memcmp(op->data, digest_infos[i].prefix, n)) {
				memcpy(dg, op->data + n, hs);
				*dlen = hs;
				*hash = digest_infos[i].hash;
				return CKR_OK;
			}
		}
		/* anything else would need raw RSA, which the TPM does not offer for signing */
		return CKR_DATA_INVALID;
	case P11_RSA_PSS:
		if (op->len != p11_hash_size(op->hash))
			return CKR_DATA_LEN_RANGE;
		memcpy(dg, op->data, op->len);
		*dlen = op->len;
		*hash = op->hash;
		return CKR_OK;
	case P11_ECDSA:
		*hash = op->len == 20 ? TPM_ALG_SHA1
			: op->len == 32 ? TPM_ALG_SHA256
			: op->len == 48 ? TPM_ALG_SHA384
			: op->len == 64 ? TPM_ALG_SHA512
					: 0;
		if (!*hash)
			return CKR_DATA_LEN_RANGE;
		memcpy(dg, op->data, op->len);
		*dlen = op->len;
		return CKR_OK;
	default: /* P11_HASH_SIGN */
		*hash = d->hash;
		return p11_conn_hash(c, d->hash, op->data, op->len, dg, dlen);
	}
}

/* HashML-DSA: the message representative mu (FIPS 204 Algorithm 4) of PH(M), the caller's
 * digest or the TPM's (on c), which the key then signs as an external mu. */
static CK_RV hash_mldsa_mu(struct p11_conn *c, const struct p11_op *op, const struct p11_mech *d,
			   const struct p11_object *k, uint8_t *mu, size_t *len)
{
	struct pqtpm_tss_public pub;
	uint8_t ph[64];
	size_t phlen = op->len;
	CK_RV rv = CKR_OK;

	if (d->hash)
		rv = p11_conn_hash(c, d->hash, op->data, op->len, ph, &phlen);
	else if (op->len != p11_hash_size(op->hash))
		return CKR_DATA_LEN_RANGE;
	else
		memcpy(ph, op->data, op->len);
	if (rv != CKR_OK)
		return rv;
	if (k->tpm_pub->len > sizeof(pub.b))
		return CKR_KEY_TYPE_INCONSISTENT;
	memcpy(pub.b, k->tpm_pub->b, k->tpm_pub->len);
	pub.size = (uint16_t)k->tpm_pub->len;
	if (pqtpm_tss_hash_mldsa_mu(&pub, op->hash, op->ctx, op->ctx_len, ph, phlen, mu, 64) !=
	    TPM_RC_SUCCESS)
		return CKR_KEY_TYPE_INCONSISTENT;
	*len = 64;
	return CKR_OK;
}

/* A TPMT_SIGNATURE in PKCS#11's form: RSA and ML-DSA as they are, ECDSA as r || s. */
static CK_RV from_tpm(const struct pqtpm_tss_signature *sig, CK_KEY_TYPE kt, uint8_t *out,
		      size_t size)
{
	const uint8_t *b, *r, *s;
	size_t len, rlen, slen, n;
	TPM_ALG_ID alg, hash;

	if (kt == CKK_EC) {
		n = size / 2;
		if (pqtpm_tss_signature_ecdsa(sig, &hash, &r, &rlen, &s, &slen) != TPM_RC_SUCCESS ||
		    rlen > n || slen > n)
			return CKR_DEVICE_ERROR;
		memset(out, 0, size);
		memcpy(out + n - rlen, r, rlen);
		memcpy(out + size - slen, s, slen);
		return CKR_OK;
	}
	if (pqtpm_tss_signature_parse(sig, &alg, &hash, &b, &len) != TPM_RC_SUCCESS ||
	    len > size)
		return CKR_DEVICE_ERROR;
	memset(out, 0, size - len); /* an RSA signature, left-padded to the modulus */
	memcpy(out + size - len, b, len);
	return CKR_OK;
}

static CK_RV to_tpm(const struct p11_mech *d, TPM_ALG_ID hash, const uint8_t *sig, size_t len,
		    struct pqtpm_tss_signature *out)
{
	TPM_RC rc;

	if (d->key_type == CKK_EC)
		rc = pqtpm_tss_signature_make_ecdsa(hash, sig, len / 2, sig + len / 2, len / 2,
						    out);
	else
		rc = pqtpm_tss_signature_make(d->key_type == CKK_ML_DSA ? TPM_ALG_MLDSA
						 : is_pss(d)		    ? TPM_ALG_RSAPSS
									    : TPM_ALG_RSASSA,
					      hash, sig, len, out);
	return rc == TPM_RC_SUCCESS ? CKR_OK : CKR_SIGNATURE_INVALID;
}

/* What a signature's or a verification's TPM step needs (p11_unlocked), taken while the module
 * lock is held: the step reads nothing of the session, the token or the key's attributes. */
struct sign_step {
	struct p11_op op; /* the session's operation, lent */
	struct p11_object *key;
	CK_KEY_TYPE kt;
	char secret[P11_SECRET_LEN + 1]; /* the key's authValue */
	uint8_t *out;			 /* the signature (size bytes) ... */
	const uint8_t *sig;		 /* ... or the one to verify */
	size_t size;
};

static CK_RV sign_step(struct p11_conn *c, void *arg)
{
	struct sign_step *st = arg;
	const struct p11_mech *d = p11_mech_find(st->op.mech);
	struct pqtpm_tss_signature sig;
	uint8_t dg[64];
	size_t dlen = 0;
	TPM_ALG_ID hash = 0;
	TPM_HANDLE h;
	CK_RV rv = CKR_OK;

	if (d->kind == P11_HMAC)
		return p11_hmac_sign_step(c, &st->op, st->key, st->secret, st->out);
	if (d->kind == P11_HASH_MLDSA)
		rv = hash_mldsa_mu(c, &st->op, d, st->key, dg, &dlen);
	else if (d->kind != P11_MLDSA)
		rv = to_digest(c, &st->op, d, dg, &dlen, &hash);
	if (rv == CKR_OK)
		rv = p11_conn_load(c, st->key, &h);
	if (rv != CKR_OK)
		return rv;
	if (d->kind == P11_MLDSA)
		rv = p11_conn_rv(c,
				 pqtpm_tss_sign_message(c->t, h, st->secret, st->op.ctx,
							st->op.ctx_len, st->op.data, st->op.len,
							&sig),
				 "ML-DSA sign sequence");
	else if (d->kind == P11_HASH_MLDSA)
		rv = p11_conn_rv(c,
				 pqtpm_tss_sign_digest(c->t, h, st->secret, NULL, 0, dg, dlen, &sig),
				 "SignDigest (HashML-DSA)");
	else
		rv = p11_conn_rv(c,
				 pqtpm_tss_sign(c->t, h, st->secret, dg, dlen,
						d->kind == P11_HASH_SIGN ? d->scheme
						: is_pss(d)		   ? TPM_ALG_RSAPSS
						: d->kind == P11_ECDSA	   ? TPM_ALG_ECDSA
									   : TPM_ALG_RSASSA,
						hash, NULL, &sig),
				 "Sign");
	/* a PIN error here would mean a wrong wrapping secret: the key, not the user's PIN */
	if (rv == CKR_PIN_INCORRECT)
		rv = CKR_DEVICE_ERROR;
	return rv == CKR_OK ? from_tpm(&sig, st->kt, st->out, st->size) : rv;
}

static CK_RV verify_step(struct p11_conn *c, void *arg)
{
	struct sign_step *st = arg;
	const struct p11_mech *d = p11_mech_find(st->op.mech);
	struct pqtpm_tss_signature ts;
	struct pqtpm_tss_ticket ticket;
	uint8_t dg[64];
	size_t dlen = 0;
	TPM_ALG_ID hash = 0;
	TPM_HANDLE h;
	TPM_RC rc;
	CK_RV rv = CKR_OK;

	if (d->kind == P11_HMAC)
		return p11_hmac_verify_step(c, &st->op, st->key, st->secret, st->sig, st->size);
	if (d->kind == P11_HASH_MLDSA)
		rv = hash_mldsa_mu(c, &st->op, d, st->key, dg, &dlen);
	else if (d->kind != P11_MLDSA)
		rv = to_digest(c, &st->op, d, dg, &dlen, &hash);
	if (rv == CKR_OK)
		rv = to_tpm(d, hash, st->sig, st->size, &ts);
	if (rv == CKR_OK)
		rv = p11_conn_load_public(c, st->key->tpm_pub, &h);
	if (rv != CKR_OK)
		return rv;
	if (d->kind == P11_MLDSA)
		rc = pqtpm_tss_verify_message(c->t, h, st->op.ctx, st->op.ctx_len, st->op.data,
					      st->op.len, &ts, &ticket);
	else if (d->kind == P11_HASH_MLDSA)
		rc = pqtpm_tss_verify_digest_signature(c->t, h, NULL, 0, dg, dlen, &ts, &ticket);
	else
		rc = pqtpm_tss_verify_signature(c->t, h, dg, dlen, &ts, &ticket);
	pqtpm_tss_flush(c->t, h);
	/* TPM_RC_SIGNATURE (any parameter) or a value the TPM refuses: it does not verify */
	if ((rc & 0xBFu) == (TPM_RC_SIGNATURE & 0xBFu) || (rc & 0xBFu) == (TPM_RC_VALUE & 0xBFu))
		return CKR_SIGNATURE_INVALID;
	return p11_conn_rv(c, rc, "VerifySignature");
}

/* The TPM step of the call's signature or verification (its key k) outside the module lock;
 * the operation ends after it unless the session was closed meanwhile (CKR_SESSION_CLOSED). */
static CK_RV run_step(struct p11_call *c, struct p11_object *k, struct sign_step *st)
{
	CK_RV rv;

	st->key = k;
	st->kt = p11_attr_ulong(k, CKA_KEY_TYPE, CK_UNAVAILABLE_INFORMATION);
	memcpy(st->secret, c->tok->secret, sizeof(st->secret));
	rv = p11_op_step(c, &st->op, k, c->kind == P11_OP_SIGN ? sign_step : verify_step, st);
	explicit_bzero(st->secret, sizeof(st->secret));
	if (rv != CKR_SESSION_CLOSED)
		p11_op_end(c->op);
	return rv;
}

/* The length of the call's signature or MAC. */
static size_t result_size(const struct p11_op *op, const struct p11_object *k)
{
	return p11_hmac_op(op) ? op->mac_len : signature_size(k);
}

/* ---- the functions ---- */

CK_RV C_SignInit(CK_SESSION_HANDLE hSession, CK_MECHANISM_PTR pMechanism, CK_OBJECT_HANDLE hKey)
{
	CK_RV rv = p11_enter();

	if (rv != CKR_OK)
		return rv;
	return p11_done(op_init(hSession, P11_OP_SIGN, pMechanism, hKey));
}

/* The end of a signature: the length query, then the TPM. */
static CK_RV sign_final(struct p11_call *c, CK_BYTE_PTR out, CK_ULONG_PTR out_len)
{
	struct sign_step st = { .out = out };
	struct p11_object *k;
	CK_RV rv;

	if (p11_object_get(c->s, c->tok, c->op->key, &k) != CKR_OK) {
		p11_op_end(c->op);
		return CKR_KEY_HANDLE_INVALID;
	}
	st.size = result_size(c->op, k);
	if (!p11_out_fits(out, out_len, st.size, &rv))
		return rv;
	rv = run_step(c, k, &st);
	if (rv == CKR_OK)
		*out_len = st.size;
	return rv;
}

CK_RV C_Sign(CK_SESSION_HANDLE hSession, CK_BYTE_PTR pData, CK_ULONG ulDataLen,
	     CK_BYTE_PTR pSignature, CK_ULONG_PTR pulSignatureLen)
{
	struct p11_call c = { .h = hSession, .kind = P11_OP_SIGN };
	CK_RV rv = p11_enter_once(&c, pulSignatureLen && (pData || !ulDataLen), pData, ulDataLen);

	return rv != CKR_OK ? rv : p11_done(sign_final(&c, pSignature, pulSignatureLen));
}

CK_RV C_SignUpdate(CK_SESSION_HANDLE hSession, CK_BYTE_PTR pPart, CK_ULONG ulPartLen)
{
	return p11_op_update(hSession, P11_OP_SIGN, pPart, ulPartLen);
}

CK_RV C_SignFinal(CK_SESSION_HANDLE hSession, CK_BYTE_PTR pSignature,
		  CK_ULONG_PTR pulSignatureLen)
{
	struct p11_call c = { .h = hSession, .kind = P11_OP_SIGN };
	CK_RV rv = p11_enter_op_args(&c, pulSignatureLen != NULL);

	return rv != CKR_OK ? rv : p11_done(sign_final(&c, pSignature, pulSignatureLen));
}

CK_RV C_VerifyInit(CK_SESSION_HANDLE hSession, CK_MECHANISM_PTR pMechanism,
		   CK_OBJECT_HANDLE hKey)
{
	CK_RV rv = p11_enter();

	if (rv != CKR_OK)
		return rv;
	return p11_done(op_init(hSession, P11_OP_VERIFY, pMechanism, hKey));
}

static CK_RV verify_final(struct p11_call *c, const uint8_t *sig, CK_ULONG len)
{
	struct sign_step st = { .sig = sig, .size = len };
	struct p11_object *k;
	CK_RV rv;

	if (p11_object_get(c->s, c->tok, c->op->key, &k) != CKR_OK)
		rv = CKR_KEY_HANDLE_INVALID;
	else if (!sig)
		rv = CKR_ARGUMENTS_BAD;
	else if (len != result_size(c->op, k))
		rv = CKR_SIGNATURE_LEN_RANGE;
	else
		return run_step(c, k, &st);
	p11_op_end(c->op);
	return rv;
}

CK_RV C_Verify(CK_SESSION_HANDLE hSession, CK_BYTE_PTR pData, CK_ULONG ulDataLen,
	       CK_BYTE_PTR pSignature, CK_ULONG ulSignatureLen)
{
	struct p11_call c = { .h = hSession, .kind = P11_OP_VERIFY };
	CK_RV rv = p11_enter_once(&c, true, pData, ulDataLen);

	return rv != CKR_OK ? rv : p11_done(verify_final(&c, pSignature, ulSignatureLen));
}

CK_RV C_VerifyUpdate(CK_SESSION_HANDLE hSession, CK_BYTE_PTR pPart, CK_ULONG ulPartLen)
{
	return p11_op_update(hSession, P11_OP_VERIFY, pPart, ulPartLen);
}

CK_RV C_VerifyFinal(CK_SESSION_HANDLE hSession, CK_BYTE_PTR pSignature, CK_ULONG ulSignatureLen)
{
	struct p11_call c = { .h = hSession, .kind = P11_OP_VERIFY };
	CK_RV rv = p11_enter_op(&c);

	if (rv != CKR_OK)
		return rv;
	return p11_done(verify_final(&c, pSignature, ulSignatureLen));
}
