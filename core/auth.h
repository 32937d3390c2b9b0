/* The authorization area of a command and its checks (Part 1 §19, Part 3 §5.4-5.6):
 * password, HMAC and policy sessions, parameter encryption, response HMACs. */
#ifndef PQTPM_AUTH_H
#define PQTPM_AUTH_H

#include "engine_int.h"
#include "session.h"

#define MAX_SESSIONS 3

struct auth_session {
	TPM_HANDLE handle;
	struct tpm2b_digest nonce;	/* nonceCaller */
	uint8_t attrs;
	struct tpm2b_digest hmac;
	struct session *s;		/* NULL for TPM_RS_PW */
	int slot;			/* handle slot it authorizes, -1 if none */
	struct tpm2b_digest auth;	/* that entity's authValue (for keys) */
	bool auth_in_hmac;		/* authValue is part of the HMAC key */
	struct tpm2b_digest cp_hash;	/* with the session's hash, as sent (HMAC, audit) */
};

struct auth_area {
	unsigned count;
	struct auth_session s[MAX_SESSIONS];
	int decrypt;			/* index of the decrypt session, -1 if none */
	int encrypt;			/* index of the encrypt session, -1 if none */
	int audit;			/* index of the audit session, -1 if none */
};

/* Parse the authorization area (after the handles); leaves r at the parameters. */
TPM_RC auth_parse(struct cmd *c, struct rd *r, struct auth_area *a);
/* Check every authorization against the parameters as sent; then decrypt the first
 * parameter in place (params is the mutable copy the handler will read). */
TPM_RC auth_check(struct cmd *c, struct auth_area *a, uint8_t *params, size_t plen);
/* After the handler: encrypt the first response parameter, roll nonces, extend the audit
 * session's digest (Part 1 "Session Audit"), append the response authorization area,
 * drop sessions without continueSession. params/plen: the response parameters (already in
 * place in the response). */
TPM_RC auth_respond(struct cmd *c, struct auth_area *a, uint8_t *params, size_t plen,
		    struct wr *w);
/* A command without an authorization area succeeded: the exclusive audit session is no
 * longer exclusive, unless the command is one that takes no sessions (Part 1: the audit
 * session is exclusive while every command since its last use was audited by it). */
void auth_unaudited(struct cmd *c);
/* Forget the area's secrets. */
void auth_wipe(struct auth_area *a);

#endif
