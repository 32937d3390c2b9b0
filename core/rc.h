/* Response-code helpers every layer of core uses (Part 2 §6.6): a parameter, handle or session
 * number added to a format-one code. */
#ifndef PQTPM_RC_H
#define PQTPM_RC_H

#include <pqtpm/tpm2.h>

/* Add a parameter/handle/session number to a format-one code (left alone otherwise). */
TPM_RC rc_param(TPM_RC rc, unsigned n);
TPM_RC rc_handle(TPM_RC rc, unsigned n);
TPM_RC rc_session(TPM_RC rc, unsigned n);
#define TRYP(n, expr)                                    \
	do {                                             \
		TPM_RC tryp_rc_ = (expr);                \
		if (tryp_rc_ != TPM_RC_SUCCESS)          \
			return rc_param(tryp_rc_, (n));  \
	} while (0)

#endif
