/* Slots and tokens: one slot per token of the store, plus one empty slot (an uninitialized
 * token) while the store has room; C_InitToken on the empty slot makes a token and a new empty
 * slot appears. Slot IDs are the tokens' ids in the store, the empty slot the next one. */
#include <string.h>

#include "p11.h"

void p11_pad(CK_UTF8CHAR *dst, size_t n, const char *src)
{
	size_t len = strlen(src);

	memset(dst, ' ', n);
	memcpy(dst, src, len < n ? len : n);
}

CK_RV p11_store(bool create, struct p11_store **out)
{
	CK_RV rv;

	if (!p11.store) {
		if (!create && !p11_store_exists(p11.conf.store))
			return CKR_TOKEN_NOT_RECOGNIZED;
		rv = p11_store_open(p11.conf.store, create, &p11.store);
		if (rv != CKR_OK)
			return rv;
	}
	*out = p11.store;
	return CKR_OK;
}

/* The module's state of token id (kept across refreshes: its login), or a new one. */
static struct p11_token *slot_state(struct p11_token *old, size_t nold, CK_SLOT_ID id)
{
	static struct p11_token fresh;
	size_t i;

	for (i = 0; i < nold; i++)
		if (old[i].id == id)
			return &old[i];
	memset(&fresh, 0, sizeof(fresh));
	fresh.id = id;
	fresh.user = P11_NOBODY;
	return &fresh;
}

CK_RV p11_slots_refresh(void)
{
	static struct p11_token old[P11_MAX_TOKENS];
	CK_SLOT_ID ids[P11_MAX_TOKENS];
	struct p11_store *s = NULL;
	size_t n = 0, nold = p11.ntokens, i;
	CK_RV rv = p11_store(false, &s);

	if (rv == CKR_OK)
		rv = p11_store_token_ids(s, ids, p11.conf.slots, &n);
	else if (rv == CKR_TOKEN_NOT_RECOGNIZED)
		rv = CKR_OK; /* no store yet: no token, nothing to read */
	if (rv != CKR_OK)
		return rv;
	memcpy(old, p11.tokens, sizeof(old));
	for (i = 0; i < n; i++) {
		struct p11_token *t = slot_state(old, nold, ids[i]);

		p11.tokens[i] = *t;
		rv = p11_store_token_get(s, ids[i], &p11.tokens[i].row);
		if (rv != CKR_OK)
			break;
		p11.tokens[i].present = true;
	}
	/* tokens gone from the store (another process re-initialized it) lose their login */
	for (i = 0; i < nold; i++) {
		size_t j;

		for (j = 0; j < n && ids[j] != old[i].id; j++)
			;
		if (j == n)
			explicit_bzero(old[i].secret, sizeof(old[i].secret));
	}
	explicit_bzero(old, sizeof(old));
	if (rv != CKR_OK) {
		p11.ntokens = 0;
		return rv;
	}
	p11.ntokens = n;
	p11.empty_slot = n < p11.conf.slots ? (n ? ids[n - 1] + 1 : 1) : 0;
	return CKR_OK;
}

struct p11_token *p11_token_find(CK_SLOT_ID id)
{
	size_t i;
	int round;

	for (round = 0; round < 2; round++) {
		for (i = 0; i < p11.ntokens; i++)
			if (p11.tokens[i].id == id)
				return &p11.tokens[i];
		if (round == 0 && (id == p11.empty_slot || p11_slots_refresh() != CKR_OK))
			return NULL;
	}
	return NULL;
}

bool p11_slot_valid(CK_SLOT_ID id)
{
	return (p11.empty_slot && id == p11.empty_slot) || p11_token_find(id);
}

CK_RV C_GetSlotList(CK_BBOOL tokenPresent, CK_SLOT_ID_PTR pSlotList, CK_ULONG_PTR pulCount)
{
	CK_ULONG n, i;
	CK_RV rv = p11_enter();

	if (rv != CKR_OK)
		return rv;
	if (!pulCount)
		return p11_done(CKR_ARGUMENTS_BAD);
	/* the list is read again when the application asks for its length (or gives none) */
	if (!pSlotList || p11.ntokens == 0) {
		rv = p11_slots_refresh();
		if (rv != CKR_OK)
			return p11_done(rv);
	}
	n = p11.ntokens + (p11.empty_slot ? 1 : 0);
	if (!pSlotList) {
		*pulCount = n;
		return p11_done(CKR_OK);
	}
	if (*pulCount < n) {
		*pulCount = n;
		return p11_done(CKR_BUFFER_TOO_SMALL);
	}
	for (i = 0; i < p11.ntokens; i++)
		pSlotList[i] = p11.tokens[i].id;
	if (p11.empty_slot)
		pSlotList[i] = p11.empty_slot;
	*pulCount = n;
	return p11_done(CKR_OK);
}

CK_RV C_GetSlotInfo(CK_SLOT_ID slotID, CK_SLOT_INFO_PTR pInfo)
{
	CK_RV rv = p11_enter();

	if (rv != CKR_OK)
		return rv;
	if (!pInfo)
		return p11_done(CKR_ARGUMENTS_BAD);
	if (!p11_slot_valid(slotID))
		return p11_done(CKR_SLOT_ID_INVALID);
	memset(pInfo, 0, sizeof(*pInfo));
	p11_pad(pInfo->slotDescription, sizeof(pInfo->slotDescription), "pqtpm TPM 2.0 slot");
	p11_pad(pInfo->manufacturerID, sizeof(pInfo->manufacturerID), "pqtpm");
	pInfo->flags = CKF_TOKEN_PRESENT;
	pInfo->hardwareVersion.major = P11_LIB_VERSION_MAJOR;
	pInfo->hardwareVersion.minor = P11_LIB_VERSION_MINOR;
	pInfo->firmwareVersion = pInfo->hardwareVersion;
	return p11_done(CKR_OK);
}

/* The PIN flags from the TPM's dictionary-attack counter: every wrong PIN of this TPM counts
 * there (it decays with the TPM's recovery time, not with a good PIN). */
static CK_RV pin_flags(CK_FLAGS *flags)
{
	uint32_t failed, max;
	CK_RV rv = p11_tpm_da(&failed, &max);

	if (rv != CKR_OK)
		return rv;
	if (failed >= max)
		*flags |= CKF_USER_PIN_LOCKED | CKF_SO_PIN_LOCKED;
	else if (failed + 1 == max)
		*flags |= CKF_USER_PIN_FINAL_TRY | CKF_SO_PIN_FINAL_TRY;
	if (failed > 0 && failed < max)
		*flags |= CKF_USER_PIN_COUNT_LOW | CKF_SO_PIN_COUNT_LOW;
	return CKR_OK;
}

CK_RV C_GetTokenInfo(CK_SLOT_ID slotID, CK_TOKEN_INFO_PTR pInfo)
{
	struct p11_token *tok;
	CK_RV rv = p11_enter();

	if (rv != CKR_OK)
		return rv;
	if (!pInfo)
		return p11_done(CKR_ARGUMENTS_BAD);
	tok = p11_token_find(slotID);
	if (!tok && !(p11.empty_slot && slotID == p11.empty_slot))
		return p11_done(CKR_SLOT_ID_INVALID);
	memset(pInfo, 0, sizeof(*pInfo));
	p11_pad(pInfo->label, sizeof(pInfo->label), "");
	p11_pad(pInfo->manufacturerID, sizeof(pInfo->manufacturerID), "pqtpm");
	p11_pad(pInfo->model, sizeof(pInfo->model), "TPM 2.0");
	p11_pad(pInfo->serialNumber, sizeof(pInfo->serialNumber), "");
	pInfo->flags = CKF_LOGIN_REQUIRED;
	pInfo->ulMaxSessionCount = CK_EFFECTIVELY_INFINITE;
	pInfo->ulMaxRwSessionCount = CK_EFFECTIVELY_INFINITE;
	pInfo->ulMaxPinLen = P11_PIN_MAX;
	pInfo->ulMinPinLen = P11_PIN_MIN;
	pInfo->ulTotalPublicMemory = CK_UNAVAILABLE_INFORMATION;
	pInfo->ulFreePublicMemory = CK_UNAVAILABLE_INFORMATION;
	pInfo->ulTotalPrivateMemory = CK_UNAVAILABLE_INFORMATION;
	pInfo->ulFreePrivateMemory = CK_UNAVAILABLE_INFORMATION;
	pInfo->hardwareVersion.major = P11_LIB_VERSION_MAJOR;
	pInfo->hardwareVersion.minor = P11_LIB_VERSION_MINOR;
	pInfo->firmwareVersion = pInfo->hardwareVersion;
	if (tok) {
		memcpy(pInfo->label, tok->row.label, sizeof(pInfo->label));
		memcpy(pInfo->serialNumber, tok->row.serial,
		       strnlen(tok->row.serial, sizeof(tok->row.serial)));
		pInfo->ulSessionCount = p11_session_count(tok->id, 0);
		pInfo->ulRwSessionCount = p11_session_count(tok->id, CKF_RW_SESSION);
		pInfo->flags |= CKF_TOKEN_INITIALIZED | CKF_RNG;
		if (tok->row.user_pub.len)
			pInfo->flags |= CKF_USER_PIN_INITIALIZED;
		rv = pin_flags(&pInfo->flags);
		if (rv != CKR_OK)
			return p11_done(rv);
	}
	return p11_done(CKR_OK);
}
