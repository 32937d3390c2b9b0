/* RSA_Encrypt, RSA_Decrypt (Part 3 §14.2, §14.3)
 *
 * The label: a non-empty label must end in a zero octet (TPM_RC_VALUE otherwise) and is used
 * for OAEP as given, terminator included, as Part 1 §B.4 and the reference implementation
 * do; tpm2-tools sends it that way. The TPM does not append the zero itself. */
#include "compute.h"
#include "scheme.h"

/* TPM2B_PUBLIC_KEY_RSA */
struct rsa_buf {
	uint16_t size;
	uint8_t b[MAX_RSA_KEY_BYTES];
};

static bool label_ok(const struct tpm2b_data *label)
{
	return label->size == 0 || label->b[label->size - 1] == 0;
}

/* The checks both commands make on the key, the label and the scheme, in Part 3's order. */
static TPM_RC check(const struct object *key, bool is_decrypt, const struct tpmt_scheme *in,
		    const struct tpm2b_data *label, struct tpmt_scheme *scheme)
{
	if (key->pub.type != TPM_ALG_RSA)
		return rc_handle(TPM_RC_KEY, 1);
	if (!(key->pub.attributes & TPMA_OBJECT_DECRYPT))
		return rc_handle(TPM_RC_ATTRIBUTES, 1);
	/* a restricted decryption key decrypts only what the TPM itself asks (storage) */
	if (is_decrypt && key->pub.attributes & TPMA_OBJECT_RESTRICTED)
		return rc_handle(TPM_RC_ATTRIBUTES, 1);
	if (!label_ok(label))
		return rc_param(TPM_RC_VALUE, 3);
	if (key->pub.unique.size > MAX_RSA_KEY_BYTES)
		return rc_handle(TPM_RC_KEY, 1);
	return rc_param(scheme_rsa_decrypt(&key->pub, in, scheme), 2);
}

/* The RSA operation without the engine lock (compute.h): with the public key (encrypt) or the
 * private one; codes about the input are parameter 1's. */
static TPM_RC rsa_unlocked(struct cmd *c, bool decrypt, const struct tpmt_scheme *scheme,
			   const struct tpm2b_data *label, const struct rsa_buf *in,
			   struct rsa_buf *out)
{
	struct key_material k;
	struct crypto_rsa key;
	size_t n = 0;
	TPM_RC rc;

	TRY(cmd_unlock_key(c, 0, &k));
	scheme_rsa_key(&k, &key);
	if (decrypt) {
		rc = crypto_rsa_decrypt_cached(&key, key_material_rsa(&k), scheme->scheme,
					       scheme->hash_alg, label->b, label->size, in->b,
					       in->size, out->b, &n);
	} else {
		key.p = NULL;
		rc = crypto_rsa_encrypt(&key, scheme->scheme, scheme->hash_alg, label->b,
					label->size, in->b, in->size, out->b, &n);
	}
	out->size = (uint16_t)n;
	return cmd_relock_key(c, &k, rc_param(rc, 1));
}

static TPM_RC rsa_encrypt(struct cmd *c)
{
	const struct object *key = c->obj[0];
	struct rsa_buf msg, out;
	struct tpmt_scheme in, scheme;
	struct tpm2b_data label;
	TPM_RC rc;

	TRYP(1, rd_tpm2b(&c->in, msg.b, sizeof(msg.b), &msg.size));
	TRYP(2, rd_rsa_decrypt_scheme(&c->in, &in, true));
	TRYP(3, rd_tpm2b(&c->in, label.b, sizeof(label.b), &label.size));
	TRY(cmd_params_done(c));
	TRY(check(key, false, &in, &label, &scheme));
	rc = rsa_unlocked(c, false, &scheme, &label, &msg, &out);
	crypto_wipe(&msg, sizeof(msg));
	TRY(rc);
	return wr_tpm2b(&c->out, out.b, out.size);
}

static TPM_RC rsa_decrypt(struct cmd *c)
{
	const struct object *key = c->obj[0];
	struct rsa_buf cipher, msg;
	struct tpmt_scheme in, scheme;
	struct tpm2b_data label;
	TPM_RC rc;

	TRYP(1, rd_tpm2b(&c->in, cipher.b, sizeof(cipher.b), &cipher.size));
	TRYP(2, rd_rsa_decrypt_scheme(&c->in, &in, true));
	TRYP(3, rd_tpm2b(&c->in, label.b, sizeof(label.b), &label.size));
	TRY(cmd_params_done(c));
	TRY(check(key, true, &in, &label, &scheme));
	if (!key->has_sensitive)
		return TPM_RC_AUTH_UNAVAILABLE;
	if (cipher.size != key->pub.unique.size)
		return rc_param(TPM_RC_SIZE, 1);
	rc = rsa_unlocked(c, true, &scheme, &label, &cipher, &msg);
	if (rc == TPM_RC_SUCCESS)
		rc = wr_tpm2b(&c->out, msg.b, msg.size);
	crypto_wipe(&msg, sizeof(msg));
	return rc;
}

const struct cmd_def cmds_rsa[] = {
	{ .code = TPM_CC_RSA_Decrypt, .name = "RSA_Decrypt", .handles = 1, .auth = { AUTH_USER },
	  .htype = { HK_OBJECT }, .flags = CMD_PARAM_IN | CMD_PARAM_OUT | CMD_READS_STATE,
	  .run = rsa_decrypt },
	{ .code = TPM_CC_RSA_Encrypt, .name = "RSA_Encrypt", .handles = 1, .auth = { AUTH_NONE },
	  .htype = { HK_OBJECT }, .flags = CMD_PARAM_IN | CMD_PARAM_OUT | CMD_READS_STATE,
	  .run = rsa_encrypt },
	{ 0 },
};
