/* Encapsulate, Decapsulate (TPM 2.0 Library v1.85, Part 3 §14.10, §14.11) with ML-KEM keys.
 * The key is an unrestricted decryption key (a restricted one is a storage parent, whose seeds
 * are not handed out); sharedSecret is ML-KEM's K, 32 bytes, used as it is (ML-KEM has its
 * own key derivation). */
#include "compute.h"
#include "crypto/mlkem.h"

/* TPM_RC_KEY unless an ML-KEM key of a known set; TPM_RC_ATTRIBUTES unless decrypt and not
 * restricted. */
static TPM_RC kem_key(const struct object *key)
{
	if (key->kind != OBJ_KEY || key->pub.type != TPM_ALG_MLKEM ||
	    !mlkem_ct_bytes(key->pub.parameter_set))
		return rc_handle(TPM_RC_KEY, 1);
	if ((key->pub.attributes & TPMA_OBJECT_RESTRICTED) ||
	    !(key->pub.attributes & TPMA_OBJECT_DECRYPT))
		return rc_handle(TPM_RC_ATTRIBUTES, 1);
	return TPM_RC_SUCCESS;
}

/* Encapsulation to the key's ek without the engine lock (compute.h). */
static TPM_RC encaps_unlocked(struct cmd *c, uint8_t ss[MLKEM_SS_BYTES],
			      uint8_t ct[MLKEM_MAX_CT_BYTES])
{
	struct key_material k;
	uint8_t m[32];
	TPM_RC rc;

	TRY(cmd_unlock_key(c, 0, &k));
	rc = crypto_random(m, sizeof(m));
	/* the encapsulation key check of FIPS 203 §7.2 */
	if (rc == TPM_RC_SUCCESS &&
	    mlkem_encaps(k.pub.parameter_set, k.pub.unique.b, m, ct, ss) != 0)
		rc = rc_handle(TPM_RC_KEY, 1);
	crypto_wipe(m, sizeof(m));
	return cmd_relock_key(c, &k, rc);
}

static TPM_RC encapsulate(struct cmd *c)
{
	const struct object *key = c->obj[0];
	int set = key->pub.parameter_set;
	uint8_t ss[MLKEM_SS_BYTES], ct[MLKEM_MAX_CT_BYTES];
	TPM_RC rc;

	TRY(cmd_params_done(c));
	TRY(kem_key(key));
	rc = encaps_unlocked(c, ss, ct);
	if (rc == TPM_RC_SUCCESS)
		rc = wr_tpm2b(&c->out, ss, sizeof(ss));
	if (rc == TPM_RC_SUCCESS)
		rc = wr_tpm2b(&c->out, ct, (uint16_t)mlkem_ct_bytes(set));
	crypto_wipe(ss, sizeof(ss));
	return rc;
}

/* dk from the seed d || z the key keeps, and decapsulation, without the engine lock; a wrong
 * ciphertext gives the implicit rejection key, as FIPS 203 wants. */
static TPM_RC decaps_unlocked(struct cmd *c, const uint8_t *ct, uint8_t ss[MLKEM_SS_BYTES])
{
	uint8_t ek[MLKEM_MAX_EK_BYTES], dk[MLKEM_MAX_DK_BYTES];
	struct key_material k;
	TPM_RC rc = TPM_RC_SUCCESS;
	int set;

	TRY(cmd_unlock_key(c, 0, &k));
	set = k.pub.parameter_set;
	if (mlkem_keygen(set, k.sens.sensitive.b, k.sens.sensitive.b + 32, ek, dk) != 0 ||
	    mlkem_decaps(set, dk, ct, ss) != 0)
		rc = TPM_RC_FAILURE;
	crypto_wipe(dk, sizeof(dk));
	return cmd_relock_key(c, &k, rc);
}

static TPM_RC decapsulate(struct cmd *c)
{
	const struct object *key = c->obj[0];
	int set = key->pub.parameter_set;
	uint8_t ct[MAX_PQ_CIPHERTEXT], ss[MLKEM_SS_BYTES];
	uint16_t ctlen;
	TPM_RC rc;

	TRYP(1, rd_tpm2b(&c->in, ct, sizeof(ct), &ctlen));
	TRY(cmd_params_done(c));
	TRY(kem_key(key));
	if (ctlen != mlkem_ct_bytes(set))
		return rc_param(TPM_RC_SIZE, 1);
	if (!key->has_sensitive)
		return TPM_RC_AUTH_UNAVAILABLE;
	if (key->sens.sensitive.size != 64)
		return rc_handle(TPM_RC_KEY, 1);
	rc = decaps_unlocked(c, ct, ss);
	if (rc == TPM_RC_SUCCESS)
		rc = wr_tpm2b(&c->out, ss, sizeof(ss));
	crypto_wipe(ss, sizeof(ss));
	return rc;
}

const struct cmd_def cmds_pq_kem[] = {
	{ .code = TPM_CC_Encapsulate, .name = "Encapsulate", .handles = 1,
	  .auth = { AUTH_NONE }, .htype = { HK_OBJECT }, .flags = CMD_PARAM_OUT | CMD_READS_STATE,
	  .run = encapsulate },
	{ .code = TPM_CC_Decapsulate, .name = "Decapsulate", .handles = 1,
	  .auth = { AUTH_USER }, .htype = { HK_OBJECT },
	  .flags = CMD_PARAM_IN | CMD_PARAM_OUT | CMD_READS_STATE, .run = decapsulate },
	{ 0 },
};
