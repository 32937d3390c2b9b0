/* X.509 read side, for the verifier: the manufacturer CA's P-256 key from its PEM certificate,
 * and an EK certificate checked against it (ecdsa-with-SHA256 over the TBSCertificate; its
 * SubjectPublicKeyInfo is the evidence's EK). A bounded DER reader: definite lengths in
 * minimal form only, every length against what remains. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "attest_int.h"
#include "crypto/crypto.h"

struct der_rd {
	const uint8_t *p;
	size_t len, off;
};

/* The next value, which must have this tag: its content as a reader, and where the whole
 * value lies (whole may be NULL). -1 if it is not there. */
static int der_next(struct der_rd *r, uint8_t tag, struct der_rd *content, const uint8_t **whole,
		    size_t *whole_len)
{
	size_t start = r->off, len = 0, n;
	uint8_t first;

	if (r->len - r->off < 2 || r->p[r->off] != tag)
		return -1;
	first = r->p[r->off + 1];
	r->off += 2;
	if (first < 0x80) {
		len = first;
	} else {
		n = first & 0x7F;
		if (n == 0 || n > 3 || r->len - r->off < n || r->p[r->off] == 0)
			return -1;
		for (size_t i = 0; i < n; i++)
			len = len << 8 | r->p[r->off + i];
		r->off += n;
		if (len < 0x80)
			return -1; /* not minimal */
	}
	if (len > r->len - r->off)
		return -1;
	content->p = r->p + r->off;
	content->len = len;
	content->off = 0;
	if (whole) {
		*whole = r->p + start;
		*whole_len = r->off + len - start;
	}
	r->off += len;
	return 0;
}

static bool der_done(const struct der_rd *r)
{
	return r->off == r->len;
}

static const uint8_t oid_ecdsa_sha256[] = { 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x04, 0x03, 0x02 };
static const uint8_t oid_ec_public_key[] = { 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01 };
static const uint8_t oid_prime256v1[] = { 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07 };
static const uint8_t oid_secp521r1[] = { 0x2B, 0x81, 0x04, 0x00, 0x23 };
static const uint8_t oid_rsa_encryption[] = { 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01,
					      0x01 };
static const uint8_t oid_ml_kem_768[] = { 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x04, 0x02 };

static bool is_oid(const struct der_rd *oid, const uint8_t *want, size_t len)
{
	return oid->len == len && memcmp(oid->p, want, len) == 0;
}

/* AlgorithmIdentifier: its OID (and the reader left at the parameters) */
static int alg_id(struct der_rd *r, struct der_rd *oid, struct der_rd *params)
{
	if (der_next(r, 0x30, params, NULL, NULL) || der_next(params, 0x06, oid, NULL, NULL))
		return -1;
	return 0;
}

/* BIT STRING without unused bits: its bytes */
static int bits(struct der_rd *r, struct der_rd *out)
{
	if (der_next(r, 0x03, out, NULL, NULL) || out->len == 0 || out->p[0] != 0)
		return -1;
	out->p++;
	out->len--;
	return 0;
}

struct cert {
	const uint8_t *tbs;
	size_t tbs_len;
	struct der_rd spki_alg, spki_params, spki_key, sig;
};

static int parse_cert(const uint8_t *der, size_t len, struct cert *c)
{
	struct der_rd top = { der, len, 0 }, cert, tbs, x, oid, params, spki;

	if (der_next(&top, 0x30, &cert, NULL, NULL) || !der_done(&top) ||
	    der_next(&cert, 0x30, &tbs, &c->tbs, &c->tbs_len) || alg_id(&cert, &oid, &params) ||
	    !is_oid(&oid, oid_ecdsa_sha256, sizeof(oid_ecdsa_sha256)) || !der_done(&params) ||
	    bits(&cert, &c->sig) || !der_done(&cert))
		return -1;
	/* TBSCertificate: [0] version, serial, signature, issuer, validity, subject, SPKI, ... */
	if (der_next(&tbs, 0xA0, &x, NULL, NULL) || der_next(&tbs, 0x02, &x, NULL, NULL) ||
	    alg_id(&tbs, &oid, &params) || !is_oid(&oid, oid_ecdsa_sha256, sizeof(oid_ecdsa_sha256)) ||
	    der_next(&tbs, 0x30, &x, NULL, NULL) || der_next(&tbs, 0x30, &x, NULL, NULL) ||
	    der_next(&tbs, 0x30, &x, NULL, NULL) || der_next(&tbs, 0x30, &spki, NULL, NULL) ||
	    alg_id(&spki, &c->spki_alg, &c->spki_params) || bits(&spki, &c->spki_key) ||
	    !der_done(&spki))
		return -1;
	return 0;
}

/* an INTEGER as exactly n big-endian bytes (positive, at most n significant) */
static int fixed_uint(struct der_rd *r, uint8_t *out, size_t n)
{
	struct der_rd v;

	if (der_next(r, 0x02, &v, NULL, NULL) || v.len == 0 || (v.p[0] & 0x80))
		return -1;
	while (v.len > 1 && v.p[0] == 0) {
		v.p++;
		v.len--;
	}
	if (v.len > n)
		return -1;
	memset(out, 0, n - v.len);
	memcpy(out + n - v.len, v.p, v.len);
	return 0;
}

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* The base64 between the first "-----BEGIN label-----" and "-----END label-----" lines */
static int pem_body(const char *pem, size_t len, const char *label, uint8_t *out, size_t cap,
		    size_t *outlen)
{
	char begin[64], end[64];
	const char *p, *e;
	uint32_t acc = 0;
	int bitsn = 0, pad = 0;

	snprintf(begin, sizeof(begin), "-----BEGIN %s-----", label);
	snprintf(end, sizeof(end), "-----END %s-----", label);
	p = memmem(pem, len, begin, strlen(begin));
	if (!p)
		return -1;
	p += strlen(begin);
	e = memmem(p, len - (size_t)(p - pem), end, strlen(end));
	if (!e)
		return -1;
	*outlen = 0;
	for (; p < e; p++) {
		const char *d;

		if (*p == '\n' || *p == '\r')
			continue;
		if (*p == '=') {
			pad++;
			continue;
		}
		d = *p ? strchr(b64, *p) : NULL;
		if (!d || pad)
			return -1;
		acc = acc << 6 | (uint32_t)(d - b64);
		bitsn += 6;
		if (bitsn >= 8) {
			bitsn -= 8;
			if (*outlen == cap)
				return -1;
			out[(*outlen)++] = (uint8_t)(acc >> bitsn);
		}
	}
	return pad > 2 ? -1 : 0;
}

int pqtpm_attest_ca_load(const char *pem, size_t len, struct pqtpm_attest_ca *ca)
{
	uint8_t der[4096];
	struct cert c;
	struct der_rd curve;
	size_t n;

	if (pem_body(pem, len, "CERTIFICATE", der, sizeof(der), &n) || parse_cert(der, n, &c) ||
	    !is_oid(&c.spki_alg, oid_ec_public_key, sizeof(oid_ec_public_key)) ||
	    der_next(&c.spki_params, 0x06, &curve, NULL, NULL) ||
	    !is_oid(&curve, oid_prime256v1, sizeof(oid_prime256v1)) || c.spki_key.len != 65 ||
	    c.spki_key.p[0] != 0x04)
		return -EINVAL;
	memcpy(ca->x, c.spki_key.p + 1, 32);
	memcpy(ca->y, c.spki_key.p + 33, 32);
	return crypto_ecc_check_point(TPM_ECC_NIST_P256, ca->x, 32, ca->y, 32) ? -EINVAL : 0;
}

/* The certificate's key is the EK's public area's */
static const char *same_key(const struct cert *c, const uint8_t *ek, size_t ek_len)
{
	struct der_rd key = c->spki_key, rsa;
	struct ak_public p;
	uint8_t mod[512], exp[4];

	if (ak_public_parse(ek, ek_len, &p) != TPM_RC_SUCCESS)
		return "the evidence's EK is no TPMT_PUBLIC of RSA, ECC or ML-KEM";
	switch (p.type) {
	case TPM_ALG_RSA:
		if (!is_oid(&c->spki_alg, oid_rsa_encryption, sizeof(oid_rsa_encryption)) ||
		    p.key_len > sizeof(mod) || der_next(&key, 0x30, &rsa, NULL, NULL) ||
		    fixed_uint(&rsa, mod, p.key_len) || fixed_uint(&rsa, exp, 4) || !der_done(&rsa))
			return "the certificate holds no RSA key of the EK's size";
		return memcmp(mod, p.key, p.key_len) == 0 &&
				       ((uint32_t)exp[0] << 24 | (uint32_t)exp[1] << 16 |
					(uint32_t)exp[2] << 8 | exp[3]) ==
					       (p.exponent ? p.exponent : 65537u)
			       ? NULL
			       : "the certificate's RSA key is not the EK's";
	case TPM_ALG_ECC:
		if (!is_oid(&c->spki_alg, oid_ec_public_key, sizeof(oid_ec_public_key)) ||
		    p.curve != TPM_ECC_NIST_P256 || p.key_len != 32 || p.y_len != 32 ||
		    c->spki_key.len != 65 || c->spki_key.p[0] != 4)
			return "the certificate holds no P-256 key";
		return memcmp(c->spki_key.p + 1, p.key, 32) == 0 &&
			       memcmp(c->spki_key.p + 33, p.y, 32) == 0
			       ? NULL
			       : "the certificate's ECC key is not the EK's";
	case TPM_ALG_MLKEM:
		if (!is_oid(&c->spki_alg, oid_ml_kem_768, sizeof(oid_ml_kem_768)))
			return "the certificate holds no ML-KEM-768 key";
		return c->spki_key.len == p.key_len && memcmp(c->spki_key.p, p.key, p.key_len) == 0
			       ? NULL
			       : "the certificate's ML-KEM key is not the EK's";
	default:
		return "the evidence's EK is of another type";
	}
}

const char *ek_cert_check(const uint8_t *cert, size_t len, const struct pqtpm_attest_ca *ca,
			  const uint8_t *ek, size_t ek_len)
{
	uint8_t digest[32], rs[64];
	struct der_rd sig;
	struct cert c;

	if (parse_cert(cert, len, &c))
		return "the EK certificate is no X.509 certificate signed with ecdsa-with-SHA256";
	if (der_next(&c.sig, 0x30, &sig, NULL, NULL) || fixed_uint(&sig, rs, 32) ||
	    fixed_uint(&sig, rs + 32, 32) || !der_done(&sig) || !der_done(&c.sig) ||
	    crypto_hash(TPM_ALG_SHA256, c.tbs, c.tbs_len, digest) ||
	    crypto_ecdsa_verify(TPM_ECC_NIST_P256, ca->x, ca->y, digest, sizeof(digest), rs, 32,
				rs + 32, 32))
		return "the EK certificate is not signed by the trusted CA";
	return same_key(&c, ek, ek_len);
}

/* The EK template of the key's type with the key as unique: the RSA-2048 modulus (exponent
 * 65537), the P-256 or P-521 point, the ML-KEM-768 encapsulation key. */
static int ek_from_spki(const struct der_rd *alg, const struct der_rd *params,
			const struct der_rd *key, struct pqtpm_tss_public *pub)
{
	struct der_rd k = *key, rsa, p = *params, curve;
	uint8_t exp[4];

	if (is_oid(alg, oid_rsa_encryption, sizeof(oid_rsa_encryption))) {
		if (pqtpm_attest_ek_template("rsa2048", pub, NULL) ||
		    der_next(&k, 0x30, &rsa, NULL, NULL) ||
		    fixed_uint(&rsa, pub->b + pub->size - 256, 256) || fixed_uint(&rsa, exp, 4) ||
		    !der_done(&rsa) || exp[0] || exp[1] != 1 || exp[2] || exp[3] != 1)
			return -EINVAL;
		return 0;
	}
	if (is_oid(alg, oid_ec_public_key, sizeof(oid_ec_public_key))) {
		bool p256;
		size_t n;
		struct wr w;

		if (der_next(&p, 0x06, &curve, NULL, NULL))
			return -EINVAL;
		p256 = is_oid(&curve, oid_prime256v1, sizeof(oid_prime256v1));
		if (!p256 && !is_oid(&curve, oid_secp521r1, sizeof(oid_secp521r1)))
			return -EINVAL;
		n = p256 ? 32 : 66;
		if (pqtpm_attest_ek_template(p256 ? "ecc-p256" : "ecc-p521", pub, NULL) ||
		    k.len != 1 + 2 * n || k.p[0] != 4)
			return -EINVAL;
		/* the template ends in its unique: x and y, P-256's of zeros, P-521's empty */
		wr_init(&w, pub->b, sizeof(pub->b));
		w.off = pub->size - (p256 ? 4u + 64u : 4u);
		if (wr_tpm2b(&w, k.p + 1, (uint16_t)n) || wr_tpm2b(&w, k.p + 1 + n, (uint16_t)n))
			return -EINVAL;
		pub->size = (uint16_t)w.off;
		return 0;
	}
	if (is_oid(alg, oid_ml_kem_768, sizeof(oid_ml_kem_768))) {
		struct wr w;

		if (pqtpm_attest_ek_template("mlkem768", pub, NULL) || k.len != 1184)
			return -EINVAL;
		/* the template ends in an empty unique */
		wr_init(&w, pub->b, sizeof(pub->b));
		w.off = pub->size - 2u;
		if (wr_tpm2b(&w, k.p, (uint16_t)k.len))
			return -EINVAL;
		pub->size = (uint16_t)w.off;
		return 0;
	}
	return -EINVAL;
}

int pqtpm_attest_ek_public_from_x509(const uint8_t *data, size_t len,
				     struct pqtpm_tss_public *pub)
{
	static const char cert_begin[] = "-----BEGIN CERTIFICATE-----";
	static const char key_begin[] = "-----BEGIN PUBLIC KEY-----";
	uint8_t der[4096];
	struct der_rd top, spki, alg, params, key;
	struct cert c;
	size_t n;

	if (memmem(data, len, cert_begin, sizeof(cert_begin) - 1)) {
		if (pem_body((const char *)data, len, "CERTIFICATE", der, sizeof(der), &n) ||
		    parse_cert(der, n, &c))
			return -EINVAL;
		return ek_from_spki(&c.spki_alg, &c.spki_params, &c.spki_key, pub);
	}
	if (memmem(data, len, key_begin, sizeof(key_begin) - 1)) {
		if (pem_body((const char *)data, len, "PUBLIC KEY", der, sizeof(der), &n))
			return -EINVAL;
		top = (struct der_rd){ der, n, 0 };
		if (der_next(&top, 0x30, &spki, NULL, NULL) || !der_done(&top) ||
		    alg_id(&spki, &alg, &params) || bits(&spki, &key) || !der_done(&spki))
			return -EINVAL;
		return ek_from_spki(&alg, &params, &key, pub);
	}
	if (parse_cert(data, len, &c)) /* a DER certificate */
		return -EINVAL;
	return ek_from_spki(&c.spki_alg, &c.spki_params, &c.spki_key, pub);
}
