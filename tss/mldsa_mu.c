/* The FIPS 204 message representative mu of a HashML-DSA signature, for a TPM key that signs an
 * external mu (allowExternalMu): mu = SHAKE256(tr || M', 64) with tr = SHAKE256(pk, 64) and
 * M' = 1 || |ctx| || ctx || OID(PH) || PH(M) (FIPS 204 Algorithm 4 and 7). Only public
 * values go in: the TPM signs mu with the private key. */
#include <string.h>

#include "crypto/crypto.h"
#include "crypto/keccak.h"
#include "tss_int.h"

#define MU_BYTES 64

/* DER of the NIST hash OID 2.16.840.1.101.3.4.2.x (FIPS 204 §5.4.1) of the TPM's hashes. */
static int hash_oid(TPM_ALG_ID hash, uint8_t oid[11])
{
	static const uint8_t prefix[10] = { 0x06, 0x09, 0x60, 0x86, 0x48,
					    0x01, 0x65, 0x03, 0x04, 0x02 };

	memcpy(oid, prefix, sizeof(prefix));
	switch (hash) {
	case TPM_ALG_SHA256:
		oid[10] = 0x01;
		return 0;
	case TPM_ALG_SHA384:
		oid[10] = 0x02;
		return 0;
	case TPM_ALG_SHA512:
		oid[10] = 0x03;
		return 0;
	default:
		return -1;
	}
}

TPM_RC pqtpm_tss_hash_mldsa_mu(const struct pqtpm_tss_public *pub, TPM_ALG_ID hash,
			       const uint8_t *ctx, size_t ctx_len, const uint8_t *ph,
			       size_t ph_len, uint8_t *mu, size_t mu_len)
{
	uint8_t tr[MU_BYTES], oid[11], head[2];
	struct keccak_ctx h;
	struct tss_public p;

	if (pub->size > sizeof(pub->b) ||
	    tss_public_walk(pub->b, pub->size, &p) != TPM_RC_SUCCESS ||
	    p.type != TPM_ALG_MLDSA || p.unique.size == 0)
		return PQTPM_TSS_RC_BAD_VALUE;
	if (hash_oid(hash, oid) != 0 || ph_len != crypto_hash_size(hash) || !ph ||
	    ctx_len > PQTPM_TSS_MAX_CONTEXT || (ctx_len && !ctx) || mu_len != MU_BYTES)
		return PQTPM_TSS_RC_BAD_VALUE;
	shake256(tr, sizeof(tr), p.unique.b, p.unique.size);
	head[0] = 1; /* HashML-DSA's domain separator */
	head[1] = (uint8_t)ctx_len;
	shake256_init(&h);
	keccak_absorb(&h, tr, sizeof(tr));
	keccak_absorb(&h, head, sizeof(head));
	keccak_absorb(&h, ctx, ctx_len);
	keccak_absorb(&h, oid, sizeof(oid));
	keccak_absorb(&h, ph, ph_len);
	keccak_finalize(&h);
	keccak_squeeze(&h, mu, MU_BYTES);
	keccak_wipe(&h, sizeof(h));
	return TPM_RC_SUCCESS;
}
