/* EncryptDecrypt, EncryptDecrypt2, HMAC (Part 3 §15.2, §15.3, §15.5) */
#include <string.h>

#include "scheme.h"

/* Both EncryptDecrypt commands, with their parameters read. */
struct sym_op {
	uint8_t decrypt;
	TPM_ALG_ID mode;
	uint8_t iv[CRYPTO_MAX_SYM_BLOCK];
	uint16_t iv_size;
	struct tpm2b_max_buffer data;
};

/* The commands order their parameters differently; errors name them by position. */
struct sym_pos {
	unsigned decrypt, mode, iv, data;
};

/* TPMI_YES_NO */
static TPM_RC rd_yes_no(struct rd *r, uint8_t *v)
{
	TRY(rd_u8(r, v));
	return *v <= 1 ? TPM_RC_SUCCESS : TPM_RC_VALUE;
}

static bool is_cipher_mode(TPM_ALG_ID mode)
{
	switch (mode) {
	case TPM_ALG_CTR:
	case TPM_ALG_OFB:
	case TPM_ALG_CBC:
	case TPM_ALG_CFB:
	case TPM_ALG_ECB:
		return true;
	default:
		return false;
	}
}

/* TPMI_ALG_CIPHER_MODE+ */
static TPM_RC rd_cipher_mode(struct rd *r, TPM_ALG_ID *mode)
{
	TRY(rd_u16(r, mode));
	return is_cipher_mode(*mode) || *mode == TPM_ALG_NULL ? TPM_RC_SUCCESS : TPM_RC_MODE;
}

static TPM_RC rd_iv(struct rd *r, struct sym_op *op)
{
	return rd_tpm2b(r, op->iv, sizeof(op->iv), &op->iv_size);
}

static TPM_RC rd_data(struct rd *r, struct sym_op *op)
{
	return rd_tpm2b(r, op->data.b, sizeof(op->data.b), &op->data.size);
}

static TPM_RC encrypt_decrypt(struct cmd *c, struct sym_op *op, const struct sym_pos *pos)
{
	const struct object *key = c->obj[0];
	uint32_t need = op->decrypt ? TPMA_OBJECT_DECRYPT : TPMA_OBJECT_SIGN_ENCRYPT;
	TPM_ALG_ID mode = key->pub.symmetric.mode;
	size_t bs = crypto_sym_block(key->pub.symmetric.alg);
	uint8_t iv[CRYPTO_MAX_SYM_BLOCK] = { 0 };
	struct tpm2b_max_buffer out;
	TPM_RC rc;

	if (key->pub.type != TPM_ALG_SYMCIPHER)
		return rc_handle(TPM_RC_KEY, 1);
	if (key->pub.attributes & TPMA_OBJECT_RESTRICTED || !(key->pub.attributes & need))
		return rc_handle(TPM_RC_ATTRIBUTES, 1);
	if (mode != TPM_ALG_NULL && !is_cipher_mode(mode))
		return rc_handle(TPM_RC_MODE, 1);
	/* the key's mode wins; the command may repeat it, or choose one if the key has none */
	if (mode == TPM_ALG_NULL)
		mode = op->mode;
	else if (op->mode != TPM_ALG_NULL && op->mode != mode)
		return rc_param(TPM_RC_MODE, pos->mode);
	if (mode == TPM_ALG_NULL)
		return rc_param(TPM_RC_MODE, pos->mode);
	/* the iv is one block of the key's cipher */
	if (mode != TPM_ALG_ECB && op->iv_size != bs)
		return rc_param(TPM_RC_SIZE, pos->iv);
	if ((mode == TPM_ALG_CBC || mode == TPM_ALG_ECB) && op->data.size % bs)
		return rc_param(TPM_RC_SIZE, pos->data);
	if (!key->has_sensitive)
		return TPM_RC_AUTH_UNAVAILABLE;

	/* ECB has no chaining value: ivOut is ivIn as given */
	if (mode != TPM_ALG_ECB)
		memcpy(iv, op->iv, bs);
	rc = crypto_sym(key->pub.symmetric.alg, mode, !op->decrypt, key->sens.sensitive.b,
			key->sens.sensitive.size, iv, op->data.b, out.b, op->data.size);
	if (rc == TPM_RC_SUCCESS)
		rc = wr_tpm2b(&c->out, out.b, op->data.size);
	if (rc == TPM_RC_SUCCESS)
		rc = wr_tpm2b(&c->out, mode == TPM_ALG_ECB ? op->iv : iv, op->iv_size);
	crypto_wipe(&out, sizeof(out));
	crypto_wipe(iv, sizeof(iv));
	return rc;
}

static TPM_RC encrypt_decrypt1(struct cmd *c)
{
	static const struct sym_pos pos = { .decrypt = 1, .mode = 2, .iv = 3, .data = 4 };
	struct sym_op op;
	TPM_RC rc;

	TRYP(pos.decrypt, rd_yes_no(&c->in, &op.decrypt));
	TRYP(pos.mode, rd_cipher_mode(&c->in, &op.mode));
	TRYP(pos.iv, rd_iv(&c->in, &op));
	TRYP(pos.data, rd_data(&c->in, &op));
	rc = cmd_params_done(c);
	if (rc == TPM_RC_SUCCESS)
		rc = encrypt_decrypt(c, &op, &pos);
	crypto_wipe(&op, sizeof(op));
	return rc;
}

static TPM_RC encrypt_decrypt2(struct cmd *c)
{
	static const struct sym_pos pos = { .data = 1, .decrypt = 2, .mode = 3, .iv = 4 };
	struct sym_op op;
	TPM_RC rc;

	TRYP(pos.data, rd_data(&c->in, &op));
	TRYP(pos.decrypt, rd_yes_no(&c->in, &op.decrypt));
	TRYP(pos.mode, rd_cipher_mode(&c->in, &op.mode));
	TRYP(pos.iv, rd_iv(&c->in, &op));
	rc = cmd_params_done(c);
	if (rc == TPM_RC_SUCCESS)
		rc = encrypt_decrypt(c, &op, &pos);
	crypto_wipe(&op, sizeof(op));
	return rc;
}

static TPM_RC hmac(struct cmd *c)
{
	const struct object *key = c->obj[0];
	struct tpm2b_max_buffer buf;
	struct tpm2b_digest mac;
	TPM_ALG_ID in, hash;
	TPM_RC rc;

	TRYP(1, rd_tpm2b(&c->in, buf.b, sizeof(buf.b), &buf.size));
	TRYP(2, rd_mac_scheme(&c->in, &in));
	TRY(cmd_params_done(c));
	TRY(scheme_hmac(key, in, &hash));
	if (hash == TPM_ALG_CMAC) {
		mac.size = CRYPTO_CMAC_SIZE;
		rc = crypto_cmac(key->sens.sensitive.b, key->sens.sensitive.size, buf.b, buf.size,
				 mac.b);
	} else {
		mac.size = (uint16_t)crypto_hash_size(hash);
		rc = crypto_hmac(hash, key->sens.sensitive.b, key->sens.sensitive.size, buf.b,
				 buf.size, mac.b);
	}
	crypto_wipe(&buf, sizeof(buf));
	TRY(rc);
	return wr_tpm2b_digest(&c->out, &mac);
}

const struct cmd_def cmds_sym[] = {
	{ .code = TPM_CC_HMAC, .name = "HMAC", .handles = 1, .auth = { AUTH_USER },
	  .htype = { HK_OBJECT }, .flags = CMD_PARAM_IN | CMD_PARAM_OUT, .run = hmac },
	{ .code = TPM_CC_EncryptDecrypt, .name = "EncryptDecrypt", .handles = 1,
	  .auth = { AUTH_USER }, .htype = { HK_OBJECT }, .flags = CMD_PARAM_OUT,
	  .run = encrypt_decrypt1 },
	{ .code = TPM_CC_EncryptDecrypt2, .name = "EncryptDecrypt2", .handles = 1,
	  .auth = { AUTH_USER }, .htype = { HK_OBJECT }, .flags = CMD_PARAM_IN | CMD_PARAM_OUT,
	  .run = encrypt_decrypt2 },
	{ 0 },
};
