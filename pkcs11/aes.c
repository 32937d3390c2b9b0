/* AES encryption and decryption with a key in the TPM (TPM2_EncryptDecrypt2): CKM_AES_ECB,
 * CKM_AES_CBC, CKM_AES_CBC_PAD (CBC with the PKCS#7 padding added and checked here) and
 * CKM_AES_CTR, single-part (C_Encrypt, C_Decrypt: crypt.c hands them over) and multi-part
 * (C_EncryptUpdate / C_EncryptFinal, C_DecryptUpdate / C_DecryptFinal). Each part goes to the
 * TPM as it comes, in whole blocks; the IV the TPM gives back chains the parts. What is not a
 * whole block waits for the next part: for CTR too, as the TPM starts each command on a new
 * counter block. CBC-PAD decryption keeps its last block back until the end, where the padding
 * is.
 *
 * CTR increments the low ulCounterBits of the counter block (CK_AES_CTR_PARAMS) as PKCS#11
 * says, where the TPM increments all 128: the data is cut where the counter field comes back
 * to zero, and the field is set to zero there with the bits above it kept. An operation longer
 * than 2^ulCounterBits blocks would use a keystream block twice: CKR_DATA_LEN_RANGE. */
#include <endian.h>
#include <stdlib.h>
#include <string.h>

#include "secret.h"

#define BLOCK 16

/* ---- the operation ---- */

static const struct p11_mech *aes_mech(const struct p11_op *op)
{
	const struct p11_mech *d = op->active ? p11_mech_find(op->mech) : NULL;

	return d && d->kind == P11_AES ? d : NULL;
}

bool p11_aes_op(const struct p11_op *op)
{
	return aes_mech(op) != NULL;
}

CK_RV p11_aes_init(const struct p11_token *tok, struct p11_op *op, bool enc,
		   const CK_MECHANISM *m, const struct p11_object *k, CK_OBJECT_HANDLE key)
{
	const CK_AES_CTR_PARAMS *ctr = m->pParameter;
	CK_RV rv = p11_secret_usable(tok, k, CKK_AES, enc ? CKA_ENCRYPT : CKA_DECRYPT);

	if (rv != CKR_OK)
		return rv;
	memset(op, 0, sizeof(*op));
	switch (m->mechanism) {
	case CKM_AES_ECB:
		if (m->pParameter || m->ulParameterLen)
			return CKR_MECHANISM_PARAM_INVALID;
		break;
	case CKM_AES_CBC:
	case CKM_AES_CBC_PAD:
		if (!m->pParameter || m->ulParameterLen != BLOCK)
			return CKR_MECHANISM_PARAM_INVALID;
		memcpy(op->iv, m->pParameter, BLOCK);
		break;
	default: /* CKM_AES_CTR */
		if (!ctr || m->ulParameterLen != sizeof(*ctr) || ctr->ulCounterBits == 0 ||
		    ctr->ulCounterBits > 128)
			return CKR_MECHANISM_PARAM_INVALID;
		memcpy(op->iv, ctr->cb, BLOCK);
		op->ctr_bits = ctr->ulCounterBits;
	}
	op->active = true;
	op->mech = m->mechanism;
	op->key = key;
	return CKR_OK;
}

/* ---- CTR's counter field ---- */

/* Blocks until the low bits of iv come back to zero (2^bits - counter), at most UINT64_MAX. */
static uint64_t ctr_room(const uint8_t *iv, CK_ULONG bits)
{
	uint64_t low;
	CK_ULONG i;

	memcpy(&low, iv + 8, sizeof(low));
	low = be64toh(low);
	if (bits < 64)
		return (UINT64_C(1) << bits) - (low & ((UINT64_C(1) << bits) - 1));
	/* a field bit above the low 64 not set: more than 2^64 blocks to go */
	for (i = 64; i < bits; i++)
		if (!(iv[BLOCK - 1 - i / 8] >> (i % 8) & 1))
			return UINT64_MAX;
	return low ? (uint64_t)0 - low : UINT64_MAX;
}

/* The counter field of iv set to zero, the bits above it as they were in before. */
static void ctr_wrap(uint8_t *iv, const uint8_t *before, CK_ULONG bits)
{
	CK_ULONG i;

	memcpy(iv, before, BLOCK);
	for (i = 0; i < bits; i++)
		iv[BLOCK - 1 - i / 8] &= (uint8_t)~(1u << (i % 8));
}

/* Whether n more bytes stay within 2^bits blocks of keystream; *blocks counts them. */
static bool ctr_budget(const struct p11_op *op, size_t n, uint64_t *blocks)
{
	uint64_t more = (n + BLOCK - 1) / BLOCK;

	*blocks = op->blocks + more;
	return op->ctr_bits >= 64 || *blocks <= UINT64_C(1) << op->ctr_bits;
}

/* ---- the TPM (in the call's step), n bytes at a time (whole blocks but at CTR's end) ---- */

/* The key, its authValue, the mechanism and the direction, on the step's connection. */
struct aes_key {
	struct p11_conn *c;
	struct p11_object *k;
	const char *secret;
	const struct p11_mech *d;
	CK_ULONG ctr_bits;
	bool dec;
};

static CK_RV run(const struct aes_key *a, uint8_t *iv, const uint8_t *in, size_t n, uint8_t *out)
{
	uint8_t before[BLOCK];
	CK_RV rv = CKR_OK;

	if (a->d->scheme != TPM_ALG_CTR || a->ctr_bits == 128)
		return n ? p11_conn_aes(a->c, a->k, a->secret, a->dec, a->d->scheme, iv, in, n, out)
			 : CKR_OK;
	while (rv == CKR_OK && n) {
		uint64_t room = ctr_room(iv, a->ctr_bits);
		size_t part = n;
		bool wraps = false;

		/* the counter field comes back to zero within these bytes, or right after */
		if ((n + BLOCK - 1) / BLOCK >= room) {
			part = room * BLOCK < n ? (size_t)room * BLOCK : n;
			wraps = true;
		}
		memcpy(before, iv, BLOCK);
		rv = p11_conn_aes(a->c, a->k, a->secret, a->dec, TPM_ALG_CTR, iv, in, part, out);
		if (wraps)
			ctr_wrap(iv, before, a->ctr_bits);
		in += part;
		out += part;
		n -= part;
	}
	return rv;
}

/* ---- lengths ---- */

/* How many of the bytes an Update holds (what waits and what comes) go to the TPM now. */
static size_t update_size(const struct p11_mech *d, bool dec, size_t held)
{
	/* CBC-PAD decryption keeps a whole last block for the end */
	if (dec && d->type == CKM_AES_CBC_PAD)
		return held ? (held - 1) / BLOCK * BLOCK : 0;
	return held / BLOCK * BLOCK;
}

/* The padding of the last block removed: the plaintext's length in it, or -1. */
static int unpad(const uint8_t *block)
{
	uint8_t pad = block[BLOCK - 1], bad = 0;
	int i;

	if (pad == 0 || pad > BLOCK)
		return -1;
	for (i = BLOCK - pad; i < BLOCK; i++)
		bad |= block[i] ^ pad;
	return bad ? -1 : BLOCK - pad;
}

/* The end of an operation over the bytes still held (fewer than a block, or CBC-PAD
 * decryption's last block): into out (at least a block), *n. */
static CK_RV final_block(const struct aes_key *a, uint8_t *iv, const uint8_t *held, size_t len,
			 uint8_t *out, size_t *n)
{
	uint8_t block[BLOCK];
	int plain;
	CK_RV rv;

	*n = 0;
	if (a->d->type == CKM_AES_CTR) {
		*n = len;
		return run(a, iv, held, len, out);
	}
	if (a->d->type != CKM_AES_CBC_PAD)
		return len ? (a->dec ? CKR_ENCRYPTED_DATA_LEN_RANGE : CKR_DATA_LEN_RANGE) : CKR_OK;
	if (a->dec) {
		if (len != BLOCK)
			return CKR_ENCRYPTED_DATA_LEN_RANGE;
		rv = run(a, iv, held, BLOCK, block);
		plain = rv == CKR_OK ? unpad(block) : 0;
		if (plain < 0)
			rv = CKR_ENCRYPTED_DATA_INVALID;
		if (rv == CKR_OK) {
			memcpy(out, block, (size_t)plain);
			*n = (size_t)plain;
		}
		explicit_bzero(block, sizeof(block));
		return rv;
	}
	if (len)
		memcpy(block, held, len);
	memset(block + len, BLOCK - (int)len, BLOCK - len);
	rv = run(a, iv, block, BLOCK, out);
	explicit_bzero(block, sizeof(block));
	*n = BLOCK;
	return rv;
}

/* ---- single-part (C_Encrypt, C_Decrypt) ---- */

/* The most the whole operation over len bytes gives, or the error its length is. */
static CK_RV once_size(const struct p11_mech *d, bool dec, size_t len, size_t *max)
{
	*max = len;
	if (d->type == CKM_AES_CTR)
		return CKR_OK;
	if (d->type == CKM_AES_CBC_PAD && !dec) {
		*max = len / BLOCK * BLOCK + BLOCK;
		return CKR_OK;
	}
	if (len % BLOCK || (dec && d->type == CKM_AES_CBC_PAD && !len))
		return dec ? CKR_ENCRYPTED_DATA_LEN_RANGE : CKR_DATA_LEN_RANGE;
	return CKR_OK;
}

/* The whole operation into out (max bytes), from iv. */
static CK_RV once_run(const struct aes_key *a, uint8_t *iv, const uint8_t *in, size_t len,
		      uint8_t *out, size_t *n)
{
	size_t body = update_size(a->d, a->dec, len), last = 0;
	CK_RV rv = run(a, iv, in, body, out);

	if (rv == CKR_OK)
		rv = final_block(a, iv, in + body, len - body, out + body, &last);
	*n = body + last;
	return rv;
}

/* ---- the step ---- */

enum aes_part { AES_ONCE, AES_UPDATE, AES_FINAL };

/* What an AES call's TPM step needs (p11_unlocked), taken while the module lock is held. */
struct aes_step {
	struct p11_op op; /* the session's operation, lent */
	struct p11_object *key;
	char secret[P11_SECRET_LEN + 1]; /* the key's authValue */
	enum aes_part part;
	bool dec;
	const uint8_t *in; /* AES_ONCE: the caller's data (the others: the operation's) */
	size_t len;
	uint8_t *out;
	size_t n;	    /* what it gave */
	uint8_t iv[BLOCK]; /* the IV to go on with */
};

static CK_RV aes_step(struct p11_conn *c, void *arg)
{
	struct aes_step *st = arg;
	struct aes_key a = { c, st->key, st->secret, aes_mech(&st->op), st->op.ctr_bits,
			     st->dec };

	/* each try from the operation's IV: a retry on a new connection starts over */
	memcpy(st->iv, st->op.iv, BLOCK);
	switch (st->part) {
	case AES_ONCE:
		return once_run(&a, st->iv, st->in, st->len, st->out, &st->n);
	case AES_UPDATE:
		st->n = st->len;
		return run(&a, st->iv, st->op.data, st->len, st->out);
	default:
		return final_block(&a, st->iv, st->op.data, st->len, st->out, &st->n);
	}
}

/* The step of call c with key k: CKR_SESSION_CLOSED if the session went meanwhile (and the
 * operation with it). */
static CK_RV run_step(struct p11_call *c, struct p11_object *k, struct aes_step *st)
{
	CK_RV rv;

	st->key = k;
	st->dec = c->kind == P11_OP_DECRYPT;
	memcpy(st->secret, c->tok->secret, sizeof(st->secret));
	rv = p11_op_step(c, &st->op, k, aes_step, st);
	explicit_bzero(st->secret, sizeof(st->secret));
	return rv;
}

/* ---- single-part (C_Encrypt, C_Decrypt) ---- */

CK_RV p11_aes_once(struct p11_call *c, struct p11_object *k, const uint8_t *in, CK_ULONG len,
		   uint8_t *out, CK_ULONG *out_len)
{
	static const uint8_t none[1]; /* the input of nothing (in may be NULL then) */
	const struct p11_mech *d = aes_mech(c->op);
	bool dec = c->kind == P11_OP_DECRYPT;
	struct aes_step st = { .part = AES_ONCE };
	uint8_t *buf = NULL;
	uint64_t blocks;
	size_t max = 0;
	CK_RV rv = CKR_OK;

	if (!out_len || (!in && len))
		rv = CKR_ARGUMENTS_BAD;
	else if (c->op->multi)
		return CKR_OPERATION_ACTIVE;
	if (!in)
		in = none;
	if (rv == CKR_OK)
		rv = once_size(d, dec, len, &max);
	if (rv == CKR_OK && d->type == CKM_AES_CTR && !ctr_budget(c->op, len, &blocks))
		rv = CKR_DATA_LEN_RANGE;
	if (rv == CKR_OK && (!out || *out_len < max)) {
		/* only CBC-PAD decryption gives less than the most: it says how much once done */
		if (!out || !dec || d->type != CKM_AES_CBC_PAD) {
			*out_len = max;
			return out ? CKR_BUFFER_TOO_SMALL : CKR_OK;
		}
		buf = malloc(max);
		if (!buf)
			return CKR_HOST_MEMORY;
	}
	if (rv == CKR_OK) {
		st.in = in;
		st.len = len;
		st.out = buf ? buf : out;
		rv = run_step(c, k, &st);
	}
	if (rv == CKR_OK && buf && *out_len < st.n) {
		*out_len = st.n; /* the operation goes on */
		rv = CKR_BUFFER_TOO_SMALL;
	} else if (rv == CKR_OK) {
		if (buf)
			memcpy(out, buf, st.n);
		*out_len = st.n;
	}
	if (buf)
		explicit_bzero(buf, max);
	free(buf);
	if (rv != CKR_BUFFER_TOO_SMALL && rv != CKR_SESSION_CLOSED)
		p11_op_end(c->op);
	return rv;
}

/* ---- multi-part ---- */

/* The call's AES operation and its key: CKR_OPERATION_NOT_INITIALIZED, or
 * CKR_FUNCTION_NOT_SUPPORTED for another (single-part) mechanism; the operation ends when the
 * key has gone. */
static CK_RV aes_call(struct p11_call *c, struct p11_object **k)
{
	CK_RV rv = p11_op_get(c);

	if (rv != CKR_OK)
		return rv;
	if (!p11_aes_op(c->op)) {
		p11_op_end(c->op);
		return CKR_FUNCTION_NOT_SUPPORTED;
	}
	return p11_op_key(c, k);
}

static CK_RV update(CK_SESSION_HANDLE h, bool dec, const uint8_t *in, CK_ULONG len,
		    uint8_t *out, CK_ULONG *out_len)
{
	struct p11_call c = { .h = h, .kind = dec ? P11_OP_DECRYPT : P11_OP_ENCRYPT };
	struct aes_step st = { .part = AES_UPDATE, .out = out };
	const struct p11_mech *d;
	struct p11_object *k;
	struct p11_op *op;
	uint64_t blocks = 0;
	size_t n, held;
	CK_RV rv = aes_call(&c, &k);

	if (rv != CKR_OK)
		return rv;
	d = aes_mech(c.op);
	if (!out_len || (!in && len)) {
		p11_op_end(c.op);
		return CKR_ARGUMENTS_BAD;
	}
	held = c.op->len + len;
	n = update_size(d, dec, held);
	if (!p11_out_fits(out, out_len, n, &rv))
		return rv;
	if (d->type == CKM_AES_CTR && !ctr_budget(c.op, n, &blocks))
		rv = CKR_DATA_LEN_RANGE;
	if (rv == CKR_OK)
		rv = p11_op_append(c.op, in, len);
	if (rv == CKR_OK && n) {
		st.len = n;
		rv = run_step(&c, k, &st);
		if (rv == CKR_SESSION_CLOSED)
			return rv;
	}
	op = c.op;
	if (rv != CKR_OK) {
		p11_op_end(op);
		return rv;
	}
	/* what is left waits for the next part */
	if (n) {
		memmove(op->data, op->data + n, held - n);
		explicit_bzero(op->data + held - n, n);
		memcpy(op->iv, st.iv, BLOCK);
	}
	op->len = held - n;
	op->blocks = blocks;
	op->multi = true;
	*out_len = n;
	return CKR_OK;
}

static CK_RV final(CK_SESSION_HANDLE h, bool dec, uint8_t *out, CK_ULONG *out_len)
{
	struct p11_call c = { .h = h, .kind = dec ? P11_OP_DECRYPT : P11_OP_ENCRYPT };
	uint8_t last[BLOCK];
	struct aes_step st = { .part = AES_FINAL, .out = last };
	const struct p11_mech *d;
	struct p11_object *k;
	uint64_t blocks;
	size_t max;
	CK_RV rv = aes_call(&c, &k);

	if (rv != CKR_OK)
		return rv;
	d = aes_mech(c.op);
	if (!out_len) {
		p11_op_end(c.op);
		return CKR_ARGUMENTS_BAD;
	}
	/* at most a block; CBC-PAD decryption knows its length once it has decrypted */
	max = d->type == CKM_AES_CTR ? c.op->len : d->type == CKM_AES_CBC_PAD ? BLOCK : 0;
	if (!out || (*out_len < max && !(dec && d->type == CKM_AES_CBC_PAD))) {
		*out_len = max;
		return out ? CKR_BUFFER_TOO_SMALL : CKR_OK;
	}
	if (d->type == CKM_AES_CTR && !ctr_budget(c.op, c.op->len, &blocks))
		rv = CKR_DATA_LEN_RANGE;
	if (rv == CKR_OK) {
		st.len = c.op->len;
		rv = run_step(&c, k, &st);
	}
	/* the operation goes on: a buffer too small, and the same block is decrypted again from
	 * the operation's IV, which the step left */
	if (rv == CKR_OK && *out_len < st.n) {
		*out_len = st.n;
		rv = CKR_BUFFER_TOO_SMALL;
	} else if (rv == CKR_OK) {
		memcpy(out, last, st.n);
		*out_len = st.n;
	}
	explicit_bzero(last, sizeof(last));
	if (rv != CKR_BUFFER_TOO_SMALL && rv != CKR_SESSION_CLOSED)
		p11_op_end(c.op);
	return rv;
}

CK_RV C_EncryptUpdate(CK_SESSION_HANDLE hSession, CK_BYTE_PTR pPart, CK_ULONG ulPartLen,
		      CK_BYTE_PTR pEncryptedPart, CK_ULONG_PTR pulEncryptedPartLen)
{
	CK_RV rv = p11_enter();

	if (rv != CKR_OK)
		return rv;
	return p11_done(update(hSession, false, pPart, ulPartLen, pEncryptedPart,
			       pulEncryptedPartLen));
}

CK_RV C_EncryptFinal(CK_SESSION_HANDLE hSession, CK_BYTE_PTR pLastEncryptedPart,
		     CK_ULONG_PTR pulLastEncryptedPartLen)
{
	CK_RV rv = p11_enter();

	if (rv != CKR_OK)
		return rv;
	return p11_done(final(hSession, false, pLastEncryptedPart, pulLastEncryptedPartLen));
}

CK_RV C_DecryptUpdate(CK_SESSION_HANDLE hSession, CK_BYTE_PTR pEncryptedPart,
		      CK_ULONG ulEncryptedPartLen, CK_BYTE_PTR pPart, CK_ULONG_PTR pulPartLen)
{
	CK_RV rv = p11_enter();

	if (rv != CKR_OK)
		return rv;
	return p11_done(update(hSession, true, pEncryptedPart, ulEncryptedPartLen, pPart,
			       pulPartLen));
}

CK_RV C_DecryptFinal(CK_SESSION_HANDLE hSession, CK_BYTE_PTR pLastPart,
		     CK_ULONG_PTR pulLastPartLen)
{
	CK_RV rv = p11_enter();

	if (rv != CKR_OK)
		return rv;
	return p11_done(final(hSession, true, pLastPart, pulLastPartLen));
}
