/* Sign and verify sequences (v1.85 Part 3 §17.5, §17.6, §20.3, §20.6): the state of a sequence
 * object (struct sig_seq in engine_int.h) from Start to Complete. SequenceUpdate feeds it
 * (cmd/hash.c), ContextSave keeps it (cmd/context.c), the commands live in pq_sequence.c.
 *
 * The message is never buffered. Pure ML-DSA absorbs it into mu = H(tr || 0 || |ctx| || ctx
 * || M) as it arrives (tr from the key given at Start); HashML-DSA and the classical schemes
 * hash it with the scheme's hash; a verify sequence also runs the message ticket's HMAC.
 * Codes carry no handle or parameter number: the caller adds them. */
#ifndef PQTPM_CMD_PQ_SEQ_H
#define PQTPM_CMD_PQ_SEQ_H

#include "engine_int.h"
#include "scheme.h"

/* Bind seq to key and start it. The key must have been checked as a signing key; a classical
 * key without a scheme gives TPM_RC_SCHEME, a context for a scheme that takes none
 * TPM_RC_VALUE, a HashML-DSA pre-hash without an OID TPM_RC_HASH. verify: also start the
 * message ticket (for a key with a Name, in a hierarchy with a proof). */
TPM_RC sig_seq_begin(struct pqtpm_engine *e, struct object *seq, const struct object *key,
		     const struct tpm2b_signature_ctx *ctx, bool verify);

/* More message (SequenceUpdate, and the buffer of SignSequenceComplete). */
TPM_RC sig_seq_update(struct object *seq, const uint8_t *data, size_t len);

/* TPM_RC_SIGN_CONTEXT_KEY unless key is the one the sequence started with (same Name and
 * hierarchy: a resource manager may reload it under another handle). */
TPM_RC sig_seq_same_key(const struct object *seq, const struct object *key);

/* Would the message, ended with last, begin with TPM_GENERATED_VALUE? */
bool sig_seq_starts_generated(const struct object *seq, const uint8_t *last, size_t len);

/* The message ended with last as the key signs or checks it: its representative mu (ML-DSA
 * kinds) or its digest under the sequence's scheme. Made under the engine lock from the
 * sequence's state (left as it was); signed or checked without it (compute.h). */
struct sig_seq_msg {
	struct tpmt_scheme scheme;
	struct tpm2b_digest digest;	/* classical schemes */
	uint8_t mu[SCHEME_MU_BYTES];	/* ML-DSA kinds */
};
TPM_RC sig_seq_finish(const struct object *seq, const struct object *key, const uint8_t *last,
		      size_t len, struct sig_seq_msg *m);
void sig_seq_msg_wipe(struct sig_seq_msg *m);

/* Sign m with the key (its material, key_material.h). */
TPM_RC sig_seq_sign(const struct sig_seq_msg *m, const struct key_material *key,
		    struct tpmt_signature *sig);

/* TPM_RC_SCHEME if sig is not of the sequence's scheme. */
TPM_RC sig_seq_check_scheme(const struct object *seq, const struct tpmt_signature *sig);
/* Check sig over m (TPM_RC_SIGNATURE). */
TPM_RC sig_seq_verify(const struct sig_seq_msg *m, const struct key_material *key,
		      const struct tpmt_signature *sig);
/* The TPM_ST_MESSAGE_VERIFIED ticket of a verify sequence whose signature checked. seq is
 * left as it was. */
TPM_RC sig_seq_ticket(const struct object *seq, struct tpmt_ticket *t);

/* The sequence part of a saved context; decode gives TPM_RC_INTEGRITY for anything that
 * sig_seq_encode would not have written. */
TPM_RC sig_seq_encode(const struct object *seq, struct wr *w);
TPM_RC sig_seq_decode(struct rd *r, struct object *seq);

#endif
