/* EK certificates (TCG EK Credential Profile 2.x, section 3.2): an empty subject with the
 * TPM's identity in a critical subjectAltName (a directoryName of tpmManufacturer, tpmModel
 * and tpmVersion), basicConstraints cA FALSE, the key usage the profile asks for
 * (keyEncipherment for RSA and for ML-KEM (the LAMPS ML-KEM certificate rules), keyAgreement
 * for ECC), the EK certificate purpose, the TPM specification it follows and the CA's key
 * identifier. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "endorse/ca.h"
#include "endorse/endorse.h"

/* TPM_PT_MANUFACTURER ("SW  ", cmd/capability.c), TPM_PT_VENDOR_STRING_*, firmware */
#define TPM_MANUFACTURER_ID "id:53572020"
#define TPM_MODEL "pqtpm"
#define TPM_SPEC_FAMILY "2.0"
#define TPM_SPEC_LEVEL 0
#define TPM_SPEC_REVISION 185 /* Library v1.85 */

static const uint8_t oid_san[] = { 0x55, 0x1D, 0x11 };
static const uint8_t oid_aki[] = { 0x55, 0x1D, 0x23 };
static const uint8_t oid_eku[] = { 0x55, 0x1D, 0x25 };
static const uint8_t oid_subject_dir_attrs[] = { 0x55, 0x1D, 0x09 };
/* TCG: 2.23.133.2.1 tpmManufacturer, .2 tpmModel, .3 tpmVersion, .16 tpmSpecification;
 * 2.23.133.8.1 tcg-kp-EKCertificate */
static const uint8_t oid_tpm_manufacturer[] = { 0x67, 0x81, 0x05, 0x02, 0x01 };
static const uint8_t oid_tpm_model[] = { 0x67, 0x81, 0x05, 0x02, 0x02 };
static const uint8_t oid_tpm_version[] = { 0x67, 0x81, 0x05, 0x02, 0x03 };
static const uint8_t oid_tpm_specification[] = { 0x67, 0x81, 0x05, 0x02, 0x10 };
static const uint8_t oid_ek_certificate[] = { 0x67, 0x81, 0x05, 0x08, 0x01 };

struct attr {
	uint8_t b[64];
	size_t len;
};

static TPM_RC encode_attr(struct attr *a, const uint8_t *oid, size_t oid_len, const char *v)
{
	struct der d;

	der_init(&d, a->b, sizeof(a->b));
	der_open(&d, DER_SEQUENCE);
	der_tlv(&d, DER_OID, oid, oid_len);
	der_tlv(&d, DER_UTF8_STRING, v, strlen(v));
	der_close(&d);
	return der_finish(&d, &a->len);
}

/* DER orders a SET OF by its elements' encodings (X.690 11.6) */
static int attr_cmp(const void *pa, const void *pb)
{
	const struct attr *a = pa, *b = pb;
	size_t n = a->len < b->len ? a->len : b->len;
	int c = memcmp(a->b, b->b, n);

	return c ? c : (a->len > b->len) - (a->len < b->len);
}

/* GeneralNames { directoryName: one RDN of the three TPM attributes } */
static TPM_RC tpm_identity(struct der *d)
{
	struct attr attrs[3];
	char version[16];

	snprintf(version, sizeof(version), "id:%08X", FIRMWARE_VERSION_1);
	TRY(encode_attr(&attrs[0], oid_tpm_manufacturer, sizeof(oid_tpm_manufacturer),
			TPM_MANUFACTURER_ID));
	TRY(encode_attr(&attrs[1], oid_tpm_model, sizeof(oid_tpm_model), TPM_MODEL));
	TRY(encode_attr(&attrs[2], oid_tpm_version, sizeof(oid_tpm_version), version));
	qsort(attrs, 3, sizeof(attrs[0]), attr_cmp);
	der_open(d, DER_SEQUENCE);
	der_open(d, DER_CONTEXT(4));
	der_open(d, DER_SEQUENCE);
	der_open(d, DER_SET);
	for (int i = 0; i < 3; i++)
		der_raw(d, attrs[i].b, attrs[i].len);
	der_close(d);
	der_close(d);
	der_close(d);
	der_close(d);
	return TPM_RC_SUCCESS;
}

static void tpm_specification(struct der *d)
{
	der_open(d, DER_SEQUENCE);
	der_open(d, DER_SEQUENCE);
	der_tlv(d, DER_OID, oid_tpm_specification, sizeof(oid_tpm_specification));
	der_open(d, DER_SET);
	der_open(d, DER_SEQUENCE);
	der_tlv(d, DER_UTF8_STRING, TPM_SPEC_FAMILY, strlen(TPM_SPEC_FAMILY));
	der_uint32(d, TPM_SPEC_LEVEL);
	der_uint32(d, TPM_SPEC_REVISION);
	der_close(d);
	der_close(d);
	der_close(d);
	der_close(d);
}

static TPM_RC ek_key(const struct tpmt_public *ek, struct spki_key *k, uint8_t *usage,
		     unsigned *unused)
{
	static const uint8_t key_encipherment = 0x20, key_agreement = 0x08; /* bits 2, 4 */

	memset(k, 0, sizeof(*k));
	if (ek->type == TPM_ALG_RSA && ek->key_bits == 2048) {
		k->kind = SPKI_RSA;
		k->a = ek->unique.b;
		k->alen = ek->unique.size;
		k->exponent = ek->exponent;
		*usage = key_encipherment;
		*unused = 5;
	} else if (ek->type == TPM_ALG_ECC && ek->curve_id == TPM_ECC_NIST_P256) {
		k->kind = SPKI_ECC_P256;
		k->a = ek->x.b;
		k->alen = ek->x.size;
		k->b = ek->y.b;
		k->blen = ek->y.size;
		*usage = key_agreement;
		*unused = 3;
	} else if (ek->type == TPM_ALG_MLKEM && ek->parameter_set == TPM_MLKEM_768) {
		k->kind = SPKI_MLKEM768;
		k->a = ek->unique.b;
		k->alen = ek->unique.size;
		*usage = key_encipherment;
		*unused = 5;
	} else {
		return TPM_RC_TYPE;
	}
	return TPM_RC_SUCCESS;
}

TPM_RC ek_certificate(const struct endorse_ca *ca, const struct tpmt_public *ek, uint8_t *out,
		      size_t cap, size_t *len)
{
	static const uint8_t empty_name[] = { DER_SEQUENCE, 0 };
	uint8_t tbs[X509_MAX_CERT], serial[16], usage;
	struct spki_key k;
	unsigned unused;
	struct der d;
	size_t tbs_len;

	TRY(ek_key(ek, &k, &usage, &unused));
	TRY(x509_serial(serial));
	der_init(&d, tbs, sizeof(tbs));
	x509_tbs_start(&d, serial);
	der_raw(&d, empty_name, sizeof(empty_name));
	spki_write(&d, &k);
	der_open(&d, DER_CONTEXT(3));
	der_open(&d, DER_SEQUENCE);
	x509_ext_start(&d, x509_oid_basic_constraints, sizeof(x509_oid_basic_constraints), true);
	der_tlv(&d, DER_SEQUENCE, NULL, 0); /* cA FALSE: the DEFAULT, left out */
	x509_ext_end(&d);
	x509_ext_start(&d, x509_oid_key_usage, sizeof(x509_oid_key_usage), true);
	der_bits(&d, &usage, 1, unused);
	x509_ext_end(&d);
	x509_ext_start(&d, oid_san, sizeof(oid_san), true); /* critical: the subject is empty */
	TRY(tpm_identity(&d));
	x509_ext_end(&d);
	x509_ext_start(&d, oid_eku, sizeof(oid_eku), false);
	der_open(&d, DER_SEQUENCE);
	der_tlv(&d, DER_OID, oid_ek_certificate, sizeof(oid_ek_certificate));
	der_close(&d);
	x509_ext_end(&d);
	x509_ext_start(&d, oid_subject_dir_attrs, sizeof(oid_subject_dir_attrs), false);
	tpm_specification(&d);
	x509_ext_end(&d);
	x509_ext_start(&d, oid_aki, sizeof(oid_aki), false);
	der_open(&d, DER_SEQUENCE);
	der_tlv(&d, DER_CONTEXT_PRIM(0), ca->key_id, sizeof(ca->key_id));
	der_close(&d);
	x509_ext_end(&d);
	der_close(&d);
	der_close(&d);
	der_close(&d);
	TRY(der_finish(&d, &tbs_len));
	return x509_sign(tbs, tbs_len, ca->d, out, cap, len);
}
