/* A public area's key as PEM SubjectPublicKeyInfo, for tools that know nothing of TPMs
 * (openssl): RSA and ECC P-256/P-384/P-521 keys. */
#include <errno.h>

#include "attest_int.h"
#include "crypto/crypto.h"
#include "crypto/spki.h"

static const struct {
	uint16_t curve;
	enum spki_kind kind;
} curves[] = {
	{ TPM_ECC_NIST_P256, SPKI_ECC_P256 },
	{ TPM_ECC_NIST_P384, SPKI_ECC_P384 },
	{ TPM_ECC_NIST_P521, SPKI_ECC_P521 },
};

int pqtpm_attest_public_pem(const struct pqtpm_tss_public *pub, char *out, size_t cap,
			    size_t *len)
{
	struct spki_key k = { 0 };
	struct ak_public p;
	size_t i = 0;

	if (ak_public_parse(pub->b, pub->size, &p) != TPM_RC_SUCCESS)
		return -EINVAL;
	k.a = p.key;
	k.alen = p.key_len;
	if (p.type == TPM_ALG_RSA) {
		k.kind = SPKI_RSA;
		k.exponent = p.exponent;
	} else if (p.type == TPM_ALG_ECC) {
		while (i < sizeof(curves) / sizeof(curves[0]) && curves[i].curve != p.curve)
			i++;
		if (i == sizeof(curves) / sizeof(curves[0]) ||
		    p.key_len != crypto_ecc_bytes(p.curve) || p.y_len != p.key_len)
			return -EINVAL;
		k.kind = curves[i].kind;
		k.b = p.y;
		k.blen = p.y_len;
	} else {
		return -EINVAL;
	}
	*len = spki_pem(&k, out, cap);
	return *len ? 0 : -EINVAL;
}
