/* SubjectPublicKeyInfo (RFC 5280 4.1.2.7): see spki.h. */
#include "crypto/spki.h"

static const uint8_t oid_ec_public_key[] = { 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01 };
static const uint8_t oid_prime256v1[] = { 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07 };
static const uint8_t oid_secp384r1[] = { 0x2B, 0x81, 0x04, 0x00, 0x22 };
static const uint8_t oid_secp521r1[] = { 0x2B, 0x81, 0x04, 0x00, 0x23 };
static const uint8_t oid_rsa_encryption[] = { 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01,
					      0x01 };
/* id-alg-ml-kem-768, 2.16.840.1.101.3.4.4.2 (draft-ietf-lamps-kyber-certificates) */
static const uint8_t oid_ml_kem_768[] = { 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x04, 0x02 };

static void alg_id(struct der *d, const uint8_t *oid, size_t len)
{
	der_open(d, DER_SEQUENCE);
	der_tlv(d, DER_OID, oid, len);
	der_close(d);
}

void spki_write(struct der *d, const struct spki_key *k)
{
	static const uint8_t uncompressed = 0x04, no_unused_bits = 0;

	der_open(d, DER_SEQUENCE);
	switch (k->kind) {
	case SPKI_RSA:
		der_open(d, DER_SEQUENCE);
		der_tlv(d, DER_OID, oid_rsa_encryption, sizeof(oid_rsa_encryption));
		der_tlv(d, DER_NULL, NULL, 0);
		der_close(d);
		der_open(d, DER_BIT_STRING); /* RSAPublicKey (RFC 8017 A.1.1) */
		der_raw(d, &no_unused_bits, 1);
		der_open(d, DER_SEQUENCE);
		der_uint(d, k->a, k->alen);
		der_uint32(d, k->exponent ? k->exponent : 65537u);
		der_close(d);
		der_close(d);
		break;
	case SPKI_ECC_P256:
	case SPKI_ECC_P384:
	case SPKI_ECC_P521:
		der_open(d, DER_SEQUENCE);
		der_tlv(d, DER_OID, oid_ec_public_key, sizeof(oid_ec_public_key));
		if (k->kind == SPKI_ECC_P256)
			der_tlv(d, DER_OID, oid_prime256v1, sizeof(oid_prime256v1));
		else if (k->kind == SPKI_ECC_P384)
			der_tlv(d, DER_OID, oid_secp384r1, sizeof(oid_secp384r1));
		else
			der_tlv(d, DER_OID, oid_secp521r1, sizeof(oid_secp521r1));
		der_close(d);
		der_open(d, DER_BIT_STRING); /* ECPoint, uncompressed (RFC 5480 2.2) */
		der_raw(d, &no_unused_bits, 1);
		der_raw(d, &uncompressed, 1);
		der_raw(d, k->a, k->alen);
		der_raw(d, k->b, k->blen);
		der_close(d);
		break;
	case SPKI_MLKEM768: /* parameters absent; the key is the raw encapsulation key */
		alg_id(d, oid_ml_kem_768, sizeof(oid_ml_kem_768));
		der_bits(d, k->a, k->alen, 0);
		break;
	default:
		d->failed = true;
	}
	der_close(d);
}


size_t spki_pem(const struct spki_key *k, char *out, size_t cap)
{
	uint8_t der[2048];
	struct der d;
	size_t len;

	der_init(&d, der, sizeof(der));
	spki_write(&d, k);
	if (der_finish(&d, &len) != TPM_RC_SUCCESS)
		return 0;
	return pem_encode("PUBLIC KEY", der, len, out, cap);
}
