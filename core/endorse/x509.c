/* X.509 pieces: see x509.h. */
#include <string.h>
#include <time.h>

#include "crypto/crypto.h"
#include "endorse/x509.h"

static const uint8_t oid_ecdsa_sha256[] = { 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x04, 0x03, 0x02 };
static const uint8_t oid_organization[] = { 0x55, 0x04, 0x0A };
static const uint8_t oid_common_name[] = { 0x55, 0x04, 0x03 };
const uint8_t x509_oid_basic_constraints[3] = { 0x55, 0x1D, 0x13 };
const uint8_t x509_oid_key_usage[3] = { 0x55, 0x1D, 0x0F };

static void alg_id(struct der *d, const uint8_t *oid, size_t len)
{
	der_open(d, DER_SEQUENCE);
	der_tlv(d, DER_OID, oid, len);
	der_close(d);
}

static void name_attr(struct der *d, const uint8_t *oid, size_t oid_len, const char *value)
{
	der_open(d, DER_SET);
	der_open(d, DER_SEQUENCE);
	der_tlv(d, DER_OID, oid, oid_len);
	der_tlv(d, DER_UTF8_STRING, value, strlen(value));
	der_close(d);
	der_close(d);
}

void x509_ca_name(struct der *d)
{
	der_open(d, DER_SEQUENCE);
	name_attr(d, oid_organization, sizeof(oid_organization), "pqtpm");
	name_attr(d, oid_common_name, sizeof(oid_common_name), "pqtpm manufacturer CA");
	der_close(d);
}

/* notBefore: the time of manufacture (UTCTime up to 2049, as RFC 5280 4.1.2.5 says). */
static void validity(struct der *d)
{
	static const char forever[] = "99991231235959Z";
	time_t now = time(NULL);
	struct tm tm;
	char t[20];

	if (!gmtime_r(&now, &tm)) {
		d->failed = true;
		return;
	}
	der_open(d, DER_SEQUENCE);
	if (tm.tm_year + 1900 < 2050) {
		strftime(t, sizeof(t), "%y%m%d%H%M%SZ", &tm);
		der_tlv(d, DER_UTC_TIME, t, strlen(t));
	} else {
		strftime(t, sizeof(t), "%Y%m%d%H%M%SZ", &tm);
		der_tlv(d, DER_GENERALIZED_TIME, t, strlen(t));
	}
	der_tlv(d, DER_GENERALIZED_TIME, forever, strlen(forever));
	der_close(d);
}

void x509_tbs_start(struct der *d, const uint8_t serial[16])
{
	der_open(d, DER_SEQUENCE);
	der_open(d, DER_CONTEXT(0));
	der_uint32(d, 2); /* v3 */
	der_close(d);
	der_uint(d, serial, 16);
	alg_id(d, oid_ecdsa_sha256, sizeof(oid_ecdsa_sha256));
	x509_ca_name(d);
	validity(d);
}

void x509_ext_start(struct der *d, const uint8_t *oid, size_t oid_len, bool critical)
{
	static const uint8_t true_ = 0xFF;

	der_open(d, DER_SEQUENCE);
	der_tlv(d, DER_OID, oid, oid_len);
	if (critical)
		der_tlv(d, DER_BOOLEAN, &true_, 1);
	der_open(d, DER_OCTET_STRING);
}

void x509_ext_end(struct der *d)
{
	der_close(d);
	der_close(d);
}

TPM_RC x509_key_id(const uint8_t *x, const uint8_t *y, uint8_t out[X509_SKID_BYTES])
{
	uint8_t point[1 + 2 * X509_CA_KEY_BYTES];

	point[0] = 0x04;
	memcpy(point + 1, x, X509_CA_KEY_BYTES);
	memcpy(point + 1 + X509_CA_KEY_BYTES, y, X509_CA_KEY_BYTES);
	return crypto_hash(TPM_ALG_SHA1, point, sizeof(point), out);
}

TPM_RC x509_sign(const uint8_t *tbs, size_t tbs_len, const uint8_t d[X509_CA_KEY_BYTES],
		 uint8_t *out, size_t cap, size_t *len)
{
	static const uint8_t no_unused_bits = 0;
	uint8_t digest[32], r[X509_CA_KEY_BYTES], s[X509_CA_KEY_BYTES];
	struct der w;

	TRY(crypto_hash(TPM_ALG_SHA256, tbs, tbs_len, digest));
	TRY(crypto_ecdsa_sign(TPM_ECC_NIST_P256, d, digest, sizeof(digest), r, s));
	der_init(&w, out, cap);
	der_open(&w, DER_SEQUENCE);
	der_raw(&w, tbs, tbs_len);
	alg_id(&w, oid_ecdsa_sha256, sizeof(oid_ecdsa_sha256));
	der_open(&w, DER_BIT_STRING); /* Ecdsa-Sig-Value (RFC 5480 2.2 / RFC 3279) */
	der_raw(&w, &no_unused_bits, 1);
	der_open(&w, DER_SEQUENCE);
	der_uint(&w, r, sizeof(r));
	der_uint(&w, s, sizeof(s));
	der_close(&w);
	der_close(&w);
	der_close(&w);
	return der_finish(&w, len);
}

TPM_RC x509_serial(uint8_t serial[16])
{
	TRY(crypto_random(serial, 16));
	serial[0] = (uint8_t)((serial[0] & 0x7F) | 0x01);
	return TPM_RC_SUCCESS;
}
