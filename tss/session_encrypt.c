/* Parameter encryption (Part 1 §21): the first parameter of a command (decrypt session) or of
 * a response (encrypt session), when it is a TPM2B, with a block cipher (AES, Camellia, TDES)
 * in CFB or the XOR obfuscation. The
 * key is sessionKey || authValue, the authValue being the authorized entity's when the
 * session authorizes; commands use (nonceCaller, nonceTPM), responses (nonceTPM, nonceCaller). */
#include "crypto/crypto.h"
#include "tss_int.h"

TPM_RC tss_use_crypt(struct tss_use *u, int k, bool response, uint8_t *params, size_t plen)
{
	const struct pqtpm_tss_session *s = u->s[k];
	const struct pqtpm_tss_digest *newer = response ? &s->nonce_tpm : &s->nonce_caller;
	const struct pqtpm_tss_digest *older = response ? &s->nonce_caller : &s->nonce_tpm;
	uint8_t key[2 * CRYPTO_MAX_DIGEST + TSS_MAX_AUTH];
	size_t klen = tss_session_hmac_key(s, u->authorizes[k] ? &u->auth[k] : NULL, key);
	static _Thread_local uint8_t mask[TSS_BUF];
	uint8_t kiv[CRYPTO_MAX_SYM_KEY + CRYPTO_MAX_SYM_BLOCK];
	size_t kbytes = s->sym_bits / 8u, bs = crypto_sym_block(s->sym);
	uint16_t size;
	uint8_t *data;
	struct rd r;
	TPM_RC rc;

	rd_init(&r, params, plen);
	if (rd_u16(&r, &size) || size > rd_left(&r)) {
		crypto_wipe(key, sizeof(key));
		return response ? PQTPM_TSS_RC_MALFORMED : PQTPM_TSS_RC_BAD_VALUE;
	}
	data = params + 2;
	if (size == 0) {
		rc = TPM_RC_SUCCESS;
	} else if (s->sym == TPM_ALG_XOR) {
		rc = crypto_kdfa(s->hash, key, klen, "XOR", newer->b, newer->size, older->b,
				 older->size, (uint32_t)size * 8, mask);
		for (size_t i = 0; rc == TPM_RC_SUCCESS && i < size; i++)
			data[i] ^= mask[i];
		crypto_wipe(mask, size);
	} else {
		rc = crypto_kdfa(s->hash, key, klen, "CFB", newer->b, newer->size, older->b,
				 older->size, (uint32_t)(kbytes + bs) * 8, kiv);
		if (rc == TPM_RC_SUCCESS)
			rc = crypto_sym(s->sym, TPM_ALG_CFB, !response, kiv, kbytes,
					kiv + kbytes, data, data, size);
		crypto_wipe(kiv, sizeof(kiv));
	}
	crypto_wipe(key, sizeof(key));
	return rc;
}
