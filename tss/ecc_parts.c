/* ECC public areas and ECDSA signatures taken apart and made; the public point of a private
 * key made elsewhere. */
#include <string.h>

#include "crypto/crypto.h"
#include "tss_int.h"

#define MAX_COORD 128 /* struct pqtpm_tss_ecc_point's coordinates */

TPM_RC pqtpm_tss_public_ecc(const struct pqtpm_tss_public *pub, uint16_t *curve,
			    struct pqtpm_tss_ecc_point *point)
{
	struct tss_public p;

	if (pub->size > sizeof(pub->b))
		return PQTPM_TSS_RC_MALFORMED;
	TRY(tss_public_walk(pub->b, pub->size, &p));
	if (p.type != TPM_ALG_ECC)
		return PQTPM_TSS_RC_BAD_VALUE;
	if (p.unique.size > MAX_COORD || p.unique_y.size > MAX_COORD)
		return PQTPM_TSS_RC_MALFORMED;
	*curve = p.curve;
	point->x_size = p.unique.size;
	point->y_size = p.unique_y.size;
	memcpy(point->x, p.unique.b, p.unique.size);
	memcpy(point->y, p.unique_y.b, p.unique_y.size);
	return TPM_RC_SUCCESS;
}

TPM_RC pqtpm_tss_signature_ecdsa(const struct pqtpm_tss_signature *sig, TPM_ALG_ID *hash,
				 const uint8_t **r, size_t *rlen, const uint8_t **s,
				 size_t *slen)
{
	struct tss_bytes br, bs;
	uint16_t alg;
	struct rd rd;

	if (sig->size > sizeof(sig->b))
		return PQTPM_TSS_RC_MALFORMED;
	rd_init(&rd, sig->b, sig->size);
	TRY_RD(rd_u16(&rd, &alg));
	if (alg != TPM_ALG_ECDSA)
		return PQTPM_TSS_RC_BAD_VALUE;
	TRY_RD(rd_u16(&rd, hash));
	TRY(tss_rd_view2b(&rd, &br));
	TRY(tss_rd_view2b(&rd, &bs));
	TRY(tss_rd_end(&rd));
	*r = br.b;
	*rlen = br.size;
	*s = bs.b;
	*slen = bs.size;
	return TPM_RC_SUCCESS;
}

TPM_RC pqtpm_tss_signature_make_ecdsa(TPM_ALG_ID hash, const uint8_t *r, size_t rlen,
				      const uint8_t *s, size_t slen,
				      struct pqtpm_tss_signature *out)
{
	struct wr w;

	if (rlen > MAX_COORD || slen > MAX_COORD || (rlen && !r) || (slen && !s))
		return PQTPM_TSS_RC_BAD_VALUE;
	wr_init(&w, out->b, sizeof(out->b));
	if (wr_u16(&w, TPM_ALG_ECDSA) || wr_u16(&w, hash) || wr_tpm2b(&w, r, (uint16_t)rlen) ||
	    wr_tpm2b(&w, s, (uint16_t)slen))
		return PQTPM_TSS_RC_BAD_VALUE;
	out->size = (uint16_t)w.off;
	return TPM_RC_SUCCESS;
}

TPM_RC pqtpm_tss_ecc_point_of(uint16_t curve, const uint8_t *d, size_t len,
			      struct pqtpm_tss_ecc_point *point)
{
	struct crypto_ecc_params params;
	size_t n = crypto_ecc_bytes(curve), i;
	uint8_t any = 0;

	if (n == 0 || len != n || !d || crypto_ecc_params(curve, &params) != TPM_RC_SUCCESS)
		return PQTPM_TSS_RC_BAD_VALUE;
	/* a private key is a scalar in [1, n - 1] */
	for (i = 0; i < n; i++)
		any |= d[i];
	if (!any || memcmp(d, params.n, n) >= 0)
		return PQTPM_TSS_RC_BAD_VALUE;
	memset(point, 0, sizeof(*point));
	if (crypto_ecc_public(curve, d, point->x, point->y) != TPM_RC_SUCCESS)
		return PQTPM_TSS_RC_BAD_VALUE;
	point->x_size = point->y_size = (uint16_t)n;
	return TPM_RC_SUCCESS;
}
