/* Private to the verifier (verify.c and the checks of verify_more.c). */
#ifndef PQTPM_ATTEST_VERIFY_INT_H
#define PQTPM_ATTEST_VERIFY_INT_H

#include "attest_int.h"

struct quote {			 /* TPMS_ATTEST of a quote, parsed strictly */
	uint32_t magic;
	uint16_t type;
	uint8_t extra[64];
	uint16_t extra_size;
	uint64_t clock, firmware;
	uint32_t reset, restart;
	uint8_t safe;
	struct pqtpm_tss_pcr_select sel[PQTPM_TSS_MAX_BANKS];
	size_t nsel;
	uint8_t digest[64];
	uint16_t digest_size;
};

struct ctx { /* one verification: the failures so far */
	json_t *failures;
	bool nomem;
};

/* A failed check, with its detail (printf-style); out of memory is remembered in c. */
void verify_failure(struct ctx *c, const char *check, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* A base64url field of o into out (cap bytes): NULL, or what is wrong for the format check. */
const char *verify_b64_field(const json_t *o, const char *key, uint8_t *out, size_t cap,
			     size_t *len);

/* The checks that need more than the quote (verify_more.c): the event log (*ok: whether it
 * replayed), the reference values of a policy, the EK certificate against the CA. */
void verify_log(struct ctx *c, const struct quote *q, const json_t *pcrs, const char *b64,
		int *ok);
void verify_policy(struct ctx *c, const struct quote *q, const json_t *pcrs,
		   const json_t *policy);
void verify_ek(struct ctx *c, const struct pqtpm_attest_ca *ca, const json_t *ek);

#endif
