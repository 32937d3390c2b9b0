/* X.509 pieces (RFC 5280) of the certificates the manufacturer CA issues: names, validity,
 * extensions, and the ECDSA P-256 signature that closes a certificate (the keys'
 * SubjectPublicKeyInfo: crypto/spki.h). */
#ifndef PQTPM_ENDORSE_X509_H
#define PQTPM_ENDORSE_X509_H

#include "crypto/der.h"
#include "crypto/spki.h"

#define X509_CA_KEY_BYTES 32 /* P-256 */
#define X509_SKID_BYTES 20   /* SHA-1 of the key's BIT STRING content (RFC 5280 4.2.1.2) */
#define X509_MAX_CERT 4096

/* The TBSCertificate's opening: version 3, a random positive serial, the signature algorithm
 * (ecdsa-with-SHA256), the CA as issuer, validity from now to 99991231235959Z (no expiry,
 * RFC 5280 4.1.2.5). The caller goes on with the subject. */
void x509_tbs_start(struct der *d, const uint8_t serial[16]);
/* The manufacturer CA's distinguished name. */
void x509_ca_name(struct der *d);
/* An extension: extnID (encoded OID content), critical flag, and the open extnValue's
 * OCTET STRING: the caller writes the value and calls x509_ext_end. */
void x509_ext_start(struct der *d, const uint8_t *oid, size_t oid_len, bool critical);
void x509_ext_end(struct der *d);
/* keyIdentifier of the CA's key (x || y of P-256). */
TPM_RC x509_key_id(const uint8_t *x, const uint8_t *y, uint8_t out[X509_SKID_BYTES]);
/* Certificate = SEQUENCE { tbs, ecdsa-with-SHA256, signature by the CA's scalar d }. */
TPM_RC x509_sign(const uint8_t *tbs, size_t tbs_len, const uint8_t d[X509_CA_KEY_BYTES],
		 uint8_t *out, size_t cap, size_t *len);
/* 16 random bytes, the first below 0x80 and not 0 (a positive serial of 16 octets). */
TPM_RC x509_serial(uint8_t serial[16]);

/* Encoded OID contents (X.690 8.19) used by more than one certificate. */
extern const uint8_t x509_oid_basic_constraints[3], x509_oid_key_usage[3];

#endif
