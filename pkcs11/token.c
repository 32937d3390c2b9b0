/* C_InitToken: a token is a row of the store holding its wrapping secret sealed under the SO
 * PIN (and, after C_InitPIN, sealed again under the user PIN). Initializing the empty slot
 * makes the token; initializing a token again (with its SO PIN) starts it afresh. */
#include <stdio.h>
#include <string.h>

#include "p11.h"

/* A new wrapping secret: 16 random bytes of the TPM, in hex (a printable authValue). */
static CK_RV new_secret(char out[P11_SECRET_LEN + 1])
{
	static const char hex[] = "0123456789abcdef";
	uint8_t r[P11_SECRET_LEN / 2];
	size_t i;
	CK_RV rv = p11_tpm_random(r, sizeof(r));

	if (rv != CKR_OK)
		return rv;
	for (i = 0; i < sizeof(r); i++) {
		out[2 * i] = hex[r[i] >> 4];
		out[2 * i + 1] = hex[r[i] & 15];
	}
	out[P11_SECRET_LEN] = '\0';
	explicit_bzero(r, sizeof(r));
	return CKR_OK;
}

static CK_RV init_row(struct p11_token_row *row, CK_SLOT_ID id, const CK_UTF8CHAR *label,
		      const char *so_pin)
{
	char secret[P11_SECRET_LEN + 1];
	uint8_t serial[4];
	CK_RV rv;

	memset(row, 0, sizeof(*row));
	row->id = id;
	memcpy(row->label, label, sizeof(row->label));
	rv = p11_tpm_random(serial, sizeof(serial));
	if (rv != CKR_OK)
		return rv;
	snprintf(row->serial, sizeof(row->serial), "%02x%02x%02x%02x%08lx", serial[0], serial[1],
		 serial[2], serial[3], (unsigned long)(id & 0xFFFFFFFFul));
	rv = new_secret(secret);
	if (rv == CKR_OK)
		rv = p11_tpm_seal(so_pin, secret, &row->so_pub, &row->so_priv);
	explicit_bzero(secret, sizeof(secret));
	return rv;
}

CK_RV C_InitToken(CK_SLOT_ID slotID, CK_UTF8CHAR_PTR pPin, CK_ULONG ulPinLen,
		  CK_UTF8CHAR_PTR pLabel)
{
	char pin[P11_PIN_MAX + 1], secret[P11_SECRET_LEN + 1];
	struct p11_token_row row;
	struct p11_token *tok;
	struct p11_store *s;
	CK_RV rv = p11_enter();

	if (rv != CKR_OK)
		return rv;
	if (!pPin || !pLabel)
		return p11_done(CKR_ARGUMENTS_BAD);
	rv = p11_pin(pPin, ulPinLen, pin);
	if (rv != CKR_OK)
		return p11_done(rv);
	tok = p11_token_find(slotID);
	if (!tok && !(p11.empty_slot && slotID == p11.empty_slot)) {
		rv = CKR_SLOT_ID_INVALID;
	} else if (tok && p11_session_count(tok->id, 0)) {
		rv = CKR_SESSION_EXISTS;
	} else if (tok) {
		/* again: the SO PIN must open the old token before it is replaced */
		rv = p11_tpm_unseal(pin, &tok->row.so_pub, &tok->row.so_priv, secret);
		explicit_bzero(secret, sizeof(secret));
		if (rv == CKR_OK)
			rv = init_row(&row, slotID, pLabel, pin);
		if (rv == CKR_OK)
			rv = p11_store_token_replace(p11.store, &row);
		if (rv == CKR_OK)
			p11_objects_drop_slot(slotID);
	} else {
		rv = p11_store(true, &s);
		if (rv == CKR_OK)
			rv = init_row(&row, slotID, pLabel, pin);
		if (rv == CKR_OK)
			rv = p11_store_token_insert(s, &row);
	}
	explicit_bzero(pin, sizeof(pin));
	if (rv == CKR_OK)
		rv = p11_slots_refresh();
	return p11_done(rv);
}
