/* TPMS_ATTEST and its signature (see attest.h). */
#include <string.h>

#include "attest.h"
#include "commit.h"
#include "compute.h"
#include "object/object.h"
#include "scheme.h"

/* The largest TPMS_ATTEST: the header (about 170 bytes) and an attested body up to an NV
 * certification of a whole TPM2B_MAX_NV_BUFFER. */
#define ATTEST_MAX_SIZE 2048
#define OBFUSCATE_BITS 128

TPM_RC attest_rd_data(struct rd *r, struct attest_data *d)
{
	return rd_tpm2b(r, d->b, sizeof(d->b), &d->size);
}

uint64_t attest_firmware_version(void)
{
	return ((uint64_t)FIRMWARE_VERSION_1 << 32) | FIRMWARE_VERSION_2;
}

TPM_RC attest_scheme(struct cmd *c, unsigned slot, const struct tpmt_scheme *in_scheme,
		     unsigned scheme_param, struct tpmt_scheme *out)
{
	const struct object *key = c->obj[slot];

	if (!key) { /* TPM_RH_NULL: nothing signs */
		memset(out, 0, sizeof(*out));
		out->scheme = out->hash_alg = out->kdf = TPM_ALG_NULL;
		return TPM_RC_SUCCESS;
	}
	if (!(key->pub.attributes & TPMA_OBJECT_SIGN_ENCRYPT))
		return rc_handle(TPM_RC_KEY, slot + 1);
	/* an x509sign key signs only certificates (CertifyX509), as in Sign */
	if (key->pub.attributes & TPMA_OBJECT_X509SIGN)
		return rc_handle(TPM_RC_ATTRIBUTES, slot + 1);
	return rc_param(scheme_sign(&key->pub, in_scheme, out), scheme_param);
}

TPM_ALG_ID attest_hash(const struct object *key, const struct tpmt_scheme *scheme)
{
	if (scheme->hash_alg != TPM_ALG_NULL || !key)
		return scheme->hash_alg;
	return key->pub.name_alg;
}

/* Part 1 "Privacy": a key outside the endorsement and platform hierarchies could otherwise
 * link its attestations to the TPM's reset history and firmware. The 128 bits of
 * KDFa(signer nameAlg, shProof, "OBFUSCATE", signer QN, -, 128) are added, in their order, to
 * firmwareVersion (64 bits), resetCount (32) and restartCount (32), each big-endian. The NULL
 * signer, which has no nameAlg, uses SHA-256. */
static TPM_RC obfuscate(struct pqtpm_engine *e, const struct object *key,
			const struct tpm2b_name *qn, uint64_t *fw, uint32_t *reset,
			uint32_t *restart)
{
	const uint8_t *sh_proof = hier_proof(e, TPM_RH_OWNER);
	TPM_ALG_ID alg = key ? key->pub.name_alg : TPM_ALG_SHA256;
	uint8_t k[OBFUSCATE_BITS / 8];
	uint64_t fw_add;
	uint32_t reset_add, restart_add;
	struct rd r;

	if (!sh_proof)
		return TPM_RC_FAILURE;
	if (crypto_hash_size(alg) == 0)
		alg = TPM_ALG_SHA256;
	TRY(crypto_kdfa(alg, sh_proof, PRIMARY_SEED_SIZE, "OBFUSCATE", qn->b, qn->size, NULL, 0,
			OBFUSCATE_BITS, k));
	rd_init(&r, k, sizeof(k));
	TRY(rd_u64(&r, &fw_add));
	TRY(rd_u32(&r, &reset_add));
	TRY(rd_u32(&r, &restart_add));
	*fw += fw_add;
	*reset += reset_add;
	*restart += restart_add;
	crypto_wipe(k, sizeof(k));
	return TPM_RC_SUCCESS;
}

static bool privacy_sensitive(const struct object *key)
{
	return !key || (key->hierarchy != TPM_RH_ENDORSEMENT && key->hierarchy != TPM_RH_PLATFORM);
}

/* TPMS_ATTEST up to (not including) the attested union */
static TPM_RC write_header(struct cmd *c, const struct object *key,
			   const struct attest_data *qualifying, uint16_t type, uint64_t clock,
			   struct wr *w)
{
	struct pqtpm_engine *e = c->e;
	uint64_t fw = attest_firmware_version();
	uint32_t reset = e->ps.reset_count, restart = e->ps.restart_count;
	struct tpm2b_name qn;

	if (key)
		qn = key->qualified_name;
	else
		object_hierarchy_qn(TPM_RH_NULL, &qn);
	if (privacy_sensitive(key))
		TRY(obfuscate(e, key, &qn, &fw, &reset, &restart));
	TRY(wr_u32(w, TPM_GENERATED_VALUE));
	TRY(wr_u16(w, type));
	TRY(wr_tpm2b_name(w, &qn));
	TRY(wr_tpm2b(w, qualifying->b, qualifying->size));
	TRY(wr_u64(w, clock));
	TRY(wr_u32(w, reset));
	TRY(wr_u32(w, restart));
	TRY(wr_u8(w, e->ps.clock_safe));
	return wr_u64(w, fw);
}

/* ECDAA: the structure's digest signed with the commit the scheme's count names (commit.h),
 * which is used up, as Sign does; TPM_RC_VALUE when there is no such commit. */
static TPM_RC sign_ecdaa(struct cmd *c, const struct object *key, const struct tpmt_scheme *scheme,
			 const uint8_t *data, size_t len, struct tpmt_signature *sig)
{
	struct tpm2b_digest digest;

	digest.size = (uint16_t)crypto_hash_size(scheme->hash_alg);
	TRY(crypto_hash(scheme->hash_alg, data, len, digest.b));
	return commit_sign_ecdaa(c->e, key, scheme, &digest, sig);
}

TPM_RC attest_sign(struct cmd *c, unsigned slot, const struct tpmt_scheme *in_scheme,
		   unsigned scheme_param, const struct attest_data *qualifying, uint16_t type,
		   const uint8_t *attested, size_t attested_len)
{
	return attest_sign_at(c, slot, in_scheme, scheme_param, qualifying, type, attested,
			      attested_len, engine_clock_ms(c->e));
}

/* The structure, read under the lock, is signed without it (compute.h). */
static TPM_RC sign_unlocked(struct cmd *c, unsigned slot, const struct tpmt_scheme *scheme,
			    const uint8_t *buf, size_t len, struct tpmt_signature *sig)
{
	struct key_material k;

	TRY(cmd_unlock_key(c, slot, &k));
	return cmd_relock_key(c, &k, scheme_sign_message(&k, scheme, buf, len, sig));
}

TPM_RC attest_sign_at(struct cmd *c, unsigned slot, const struct tpmt_scheme *in_scheme,
		      unsigned scheme_param, const struct attest_data *qualifying, uint16_t type,
		      const uint8_t *attested, size_t attested_len, uint64_t clock)
{
	struct object *key = c->obj[slot];
	struct tpmt_signature sig;
	struct tpmt_scheme scheme;
	uint8_t buf[ATTEST_MAX_SIZE];
	struct wr w;
	TPM_RC rc;

	TRY(attest_scheme(c, slot, in_scheme, scheme_param, &scheme));
	wr_init(&w, buf, sizeof(buf));
	TRY(write_header(c, key, qualifying, type, clock, &w));
	TRY(wr_bytes(&w, attested, attested_len));
	TRY(wr_tpm2b(&c->out, buf, (uint16_t)w.off));
	if (!key) /* TPMT_SIGNATURE with sigAlg NULL: nothing follows */
		return wr_u16(&c->out, TPM_ALG_NULL);
	/* ECDAA uses up a commit, engine state: under the lock, as Sign does */
	if (scheme.scheme == TPM_ALG_ECDAA) {
		TRYP(scheme_param, sign_ecdaa(c, key, &scheme, buf, w.off, &sig));
		return wr_signature(&c->out, &sig);
	}
	rc = sign_unlocked(c, slot, &scheme, buf, w.off, &sig);
	if (rc == TPM_RC_KEY)
		return rc_handle(rc, slot + 1);
	TRY(rc);
	return wr_signature(&c->out, &sig);
}
