/* SubjectPublicKeyInfo of the keys a TPM holds: RSA (rsaEncryption, RFC 8017 RSAPublicKey),
 * ECC P-256, P-384 and P-521 (id-ecPublicKey, uncompressed point, RFC 5480) and ML-KEM-768
 * (id-alg-ml-kem-768, the raw encapsulation key), through the DER writer. */
#ifndef PQTPM_CRYPTO_SPKI_H
#define PQTPM_CRYPTO_SPKI_H

#include "crypto/der.h"
#include "crypto/pem.h"

enum spki_kind { SPKI_RSA, SPKI_ECC_P256, SPKI_ECC_P384, SPKI_ECC_P521, SPKI_MLKEM768 };

struct spki_key {
	enum spki_kind kind;
	const uint8_t *a; /* RSA modulus, ECC x, ML-KEM encapsulation key */
	size_t alen;
	const uint8_t *b; /* ECC y */
	size_t blen;
	uint32_t exponent; /* RSA; 0: 65537 */
};

void spki_write(struct der *d, const struct spki_key *k);
/* "-----BEGIN PUBLIC KEY-----" ...: the length, or 0 if it does not fit cap. */
size_t spki_pem(const struct spki_key *k, char *out, size_t cap);

#endif
