/* A public area's key as PEM SubjectPublicKeyInfo, for tools that know nothing of TPMs
 * (openssl): RSA and ECC P-256/P-384 keys. */
#include <errno.h>

#include "attest_int.h"
#include "crypto/crypto.h"
#include "crypto/spki.h"

int pqtpm_attest_public_pem(const struct pqtpm_tss_public *pub, char *out, size_t cap,
			    size_t *len)
{
	struct spki_key k = { 0 };
	struct ak_public p;

	if (ak_public_parse(pub->b, pub->size, &p) != TPM_RC_SUCCESS)
		return -EINVAL;
	k.a = p.key;
	k.alen = p.key_len;
	if (p.type == TPM_ALG_RSA) {
		k.kind = SPKI_RSA;
		k.exponent = p.exponent;
	} else if (p.type == TPM_ALG_ECC && (p.curve == TPM_ECC_NIST_P256 ||
					     p.curve == TPM_ECC_NIST_P384)) {
		k.kind = p.curve == TPM_ECC_NIST_P256 ? SPKI_ECC_P256 : SPKI_ECC_P384;
		if (p.key_len != crypto_ecc_bytes(p.curve) || p.y_len != p.key_len)
			return -EINVAL;
		k.b = p.y;
		k.blen = p.y_len;
	} else {
		return -EINVAL;
	}
	*len = spki_pem(&k, out, cap);
	return *len ? 0 : -EINVAL;
}
