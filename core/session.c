/* Session table and session crypto (see session.h). */
#include <stdlib.h>
#include <string.h>

#include "nv/nv.h"
#include "session.h"

static struct session **slots(struct pqtpm_client *cl)
{
	return cl->sessions;
}

struct session *session_find(struct pqtpm_client *cl, TPM_HANDLE h)
{
	for (int i = 0; i < MAX_CLIENT_SESSIONS; i++)
		if (slots(cl)[i] && slots(cl)[i]->handle == h)
			return slots(cl)[i];
	return NULL;
}

bool session_handle_in_use(struct pqtpm_engine *e, TPM_HANDLE h)
{
	for (struct pqtpm_client *cl = e->clients; cl; cl = cl->next)
		if (session_find(cl, h))
			return true;
	for (int i = 0; i < MAX_SAVED_SESSIONS; i++)
		if (e->saved_sessions[i] && e->saved_sessions[i]->handle == h)
			return true;
	return false;
}

TPM_RC session_alloc(struct pqtpm_client *cl, uint8_t type, struct session **out)
{
	TPM_HANDLE base = type == TPM_SE_HMAC ? TPM_HR_HMAC_SESSION : TPM_HR_POLICY_SESSION;
	struct session *s;
	int slot = -1;

	for (int i = 0; i < MAX_CLIENT_SESSIONS; i++) {
		if (!slots(cl)[i]) {
			slot = i;
			break;
		}
	}
	if (slot < 0)
		return TPM_RC_SESSION_HANDLES;
	s = calloc(1, sizeof(*s));
	if (!s)
		return TPM_RC_SESSION_MEMORY;
	/* unique across clients: a saved session may be loaded by another connection */
	do {
		s->handle = base | (cl->e->next_session++ & 0xFFFFFFu);
	} while (session_handle_in_use(cl->e, s->handle));
	volatile_dirty(cl->e);
	s->type = type;
	slots(cl)[slot] = s;
	*out = s;
	return TPM_RC_SUCCESS;
}

/* A flushed session takes its audit exclusivity with it: a later session may get its handle. */
static void session_free(struct pqtpm_engine *e, struct session *s)
{
	if (e->exclusive_audit == s->handle) {
		e->exclusive_audit = 0;
		volatile_dirty(e);
	}
	crypto_wipe(s, sizeof(*s));
	free(s);
}

void session_release(struct pqtpm_client *cl, struct session *s)
{
	for (int i = 0; i < MAX_CLIENT_SESSIONS; i++)
		if (slots(cl)[i] == s)
			slots(cl)[i] = NULL;
	session_free(cl->e, s);
}

void session_release_all(struct pqtpm_client *cl)
{
	for (int i = 0; i < MAX_CLIENT_SESSIONS; i++)
		if (slots(cl)[i])
			session_release(cl, slots(cl)[i]);
}

void session_drop_saved(struct pqtpm_engine *e)
{
	for (int i = 0; i < MAX_SAVED_SESSIONS; i++) {
		if (e->saved_sessions[i]) {
			session_free(e, e->saved_sessions[i]);
			e->saved_sessions[i] = NULL;
			volatile_dirty(e);
		}
	}
}

bool session_flush(struct pqtpm_client *cl, TPM_HANDLE h)
{
	struct session *s = session_find(cl, h);
	struct pqtpm_engine *e = cl->e;

	if (s) {
		session_release(cl, s);
		return true;
	}
	for (int i = 0; i < MAX_SAVED_SESSIONS; i++) {
		if (e->saved_sessions[i] && e->saved_sessions[i]->handle == h) {
			session_free(e, e->saved_sessions[i]);
			e->saved_sessions[i] = NULL;
			volatile_dirty(e);
			return true;
		}
	}
	return false;
}

unsigned session_count(struct pqtpm_engine *e)
{
	unsigned n = 0;

	for (struct pqtpm_client *cl = e->clients; cl; cl = cl->next)
		for (int i = 0; i < MAX_CLIENT_SESSIONS; i++)
			n += cl->sessions[i] != NULL;
	for (int i = 0; i < MAX_SAVED_SESSIONS; i++)
		n += e->saved_sessions[i] != NULL;
	return n;
}

void session_policy_reset(struct session *s)
{
	s->policy_digest.size = (uint16_t)crypto_hash_size(s->auth_hash);
	memset(s->policy_digest.b, 0, sizeof(s->policy_digest.b));
	s->need_auth_value = false;
	s->need_password = false;
	s->command_code = 0;
	s->cp_hash.size = 0;
	s->name_hash.size = 0;
	s->locality = 0;
	s->pcr_counter_set = false;
	s->need_pp = false;
	s->template_hash.size = 0;
	s->timeout = 0;
	s->check_nv_written = false;
	s->nv_written_state = false;
}

TPM_RC entity_name(struct cmd *c, unsigned slot, struct tpm2b_name *out)
{
	TPM_HANDLE h = c->handle[slot];

	if (c->obj[slot]) {
		*out = c->obj[slot]->name;
		return TPM_RC_SUCCESS;
	}
	if (c->nv[slot])
		return nv_name(&c->nv[slot]->pub, out);
	out->size = 4;
	out->b[0] = (uint8_t)(h >> 24);
	out->b[1] = (uint8_t)(h >> 16);
	out->b[2] = (uint8_t)(h >> 8);
	out->b[3] = (uint8_t)h;
	return TPM_RC_SUCCESS;
}

static void be32(uint8_t *b, uint32_t v)
{
	b[0] = (uint8_t)(v >> 24);
	b[1] = (uint8_t)(v >> 16);
	b[2] = (uint8_t)(v >> 8);
	b[3] = (uint8_t)v;
}

TPM_RC session_cp_hash(struct cmd *c, TPM_ALG_ID hash, TPM_CC cc, const uint8_t *params,
		       size_t plen, struct tpm2b_digest *out)
{
	struct crypto_hash_ctx h;
	uint8_t code[4];

	be32(code, cc);
	TRY(crypto_hash_start(&h, hash));
	TRY(crypto_hash_update(&h, code, 4));
	for (unsigned i = 0; i < c->def->handles; i++) {
		struct tpm2b_name n;

		TRY(entity_name(c, i, &n));
		TRY(crypto_hash_update(&h, n.b, n.size));
	}
	TRY(crypto_hash_update(&h, params, plen));
	out->size = (uint16_t)crypto_hash_size(hash);
	return crypto_hash_finish(&h, out->b);
}

TPM_RC session_rp_hash(TPM_ALG_ID hash, TPM_CC cc, const uint8_t *params, size_t plen,
		       struct tpm2b_digest *out)
{
	struct crypto_hash_ctx h;
	uint8_t head[8] = { 0 }; /* responseCode 0, then commandCode */

	be32(head + 4, cc);
	TRY(crypto_hash_start(&h, hash));
	TRY(crypto_hash_update(&h, head, 8));
	TRY(crypto_hash_update(&h, params, plen));
	out->size = (uint16_t)crypto_hash_size(hash);
	return crypto_hash_finish(&h, out->b);
}

/* sessionKey || authValue, the key of HMACs and of parameter encryption */
static size_t hmac_key(const struct session *s, const struct tpm2b_digest *auth,
		       uint8_t key[2 * MAX_DIGEST_SIZE])
{
	size_t n = s->session_key.size;

	memcpy(key, s->session_key.b, n);
	if (auth) {
		memcpy(key + n, auth->b, auth->size);
		n += auth->size;
	}
	return n;
}

TPM_RC session_hmac(const struct session *s, const struct tpm2b_digest *auth,
		    const struct tpm2b_digest *p_hash, const struct tpm2b_digest *newer,
		    const struct tpm2b_digest *older, const struct tpm2b_digest *const *extra,
		    unsigned nextra, uint8_t attrs, struct tpm2b_digest *out)
{
	uint8_t key[2 * MAX_DIGEST_SIZE];
	size_t klen = hmac_key(s, auth, key);
	struct crypto_hmac_ctx h;
	TPM_RC rc;

	rc = crypto_hmac_start(&h, s->auth_hash, key, klen);
	crypto_wipe(key, sizeof(key));
	TRY(rc);
	TRY(crypto_hmac_update(&h, p_hash->b, p_hash->size));
	TRY(crypto_hmac_update(&h, newer->b, newer->size));
	TRY(crypto_hmac_update(&h, older->b, older->size));
	for (unsigned i = 0; i < nextra; i++)
		TRY(crypto_hmac_update(&h, extra[i]->b, extra[i]->size));
	TRY(crypto_hmac_update(&h, &attrs, 1));
	out->size = (uint16_t)crypto_hash_size(s->auth_hash);
	return crypto_hmac_finish(&h, out->b);
}

TPM_RC session_crypt(const struct session *s, const struct tpm2b_digest *auth, bool encrypt,
		     const struct tpm2b_digest *newer, const struct tpm2b_digest *older,
		     uint8_t *data, size_t len)
{
	uint8_t key[2 * MAX_DIGEST_SIZE];
	size_t klen = hmac_key(s, auth, key);
	TPM_RC rc;

	if (s->sym.alg == TPM_ALG_XOR) {
		uint8_t mask[MAX_BUFFER + 2 * MAX_DIGEST_SIZE];

		if (len > sizeof(mask)) {
			rc = TPM_RC_SIZE;
		} else {
			rc = crypto_kdfa(s->sym.key_bits, key, klen, "XOR", newer->b, newer->size,
					 older->b, older->size, (uint32_t)len * 8, mask);
			for (size_t i = 0; rc == TPM_RC_SUCCESS && i < len; i++)
				data[i] ^= mask[i];
		}
		crypto_wipe(mask, sizeof(mask));
	} else if (crypto_sym_block(s->sym.alg) != 0) {
		/* key and iv of the session's block cipher (Part 1 §21.4) */
		uint8_t kiv[MAX_SYM_KEY_BYTES + CRYPTO_MAX_SYM_BLOCK];
		size_t kbytes = s->sym.key_bits / 8u, bs = crypto_sym_block(s->sym.alg);

		rc = crypto_kdfa(s->auth_hash, key, klen, "CFB", newer->b, newer->size, older->b,
				 older->size, (uint32_t)(kbytes + bs) * 8, kiv);
		if (rc == TPM_RC_SUCCESS)
			rc = crypto_sym(s->sym.alg, TPM_ALG_CFB, encrypt, kiv, kbytes, kiv + kbytes,
					data, data, len);
		crypto_wipe(kiv, sizeof(kiv));
	} else {
		rc = TPM_RC_SYMMETRIC;
	}
	crypto_wipe(key, sizeof(key));
	return rc;
}

TPM_RC session_make_key(struct session *s, const struct tpm2b_digest *bind_auth,
			const uint8_t *salt, size_t salt_len, const struct tpm2b_digest *nonce_caller)
{
	uint8_t secret[MAX_DIGEST_SIZE + CRYPTO_MAX_DIGEST];
	size_t n = 0;
	size_t dsize = crypto_hash_size(s->auth_hash);
	TPM_RC rc;

	s->session_key.size = 0;
	if (!bind_auth && salt_len == 0)
		return TPM_RC_SUCCESS;
	if (bind_auth) {
		memcpy(secret, bind_auth->b, bind_auth->size);
		n = bind_auth->size;
	}
	if (salt_len > sizeof(secret) - n)
		return TPM_RC_SIZE;
	memcpy(secret + n, salt, salt_len);
	n += salt_len;
	rc = crypto_kdfa(s->auth_hash, secret, n, "ATH", s->nonce_tpm.b, s->nonce_tpm.size,
			 nonce_caller->b, nonce_caller->size, (uint32_t)dsize * 8,
			 s->session_key.b);
	crypto_wipe(secret, sizeof(secret));
	if (rc == TPM_RC_SUCCESS)
		s->session_key.size = (uint16_t)dsize;
	return rc;
}
