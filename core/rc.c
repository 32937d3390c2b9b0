/* Response-code helpers (rc.h). */
#include "rc.h"

static TPM_RC rc_number(TPM_RC rc, unsigned n, TPM_RC kind)
{
	/* Only format-one codes carry a number, and only one. */
	if (!(rc & TPM_RC_FMT1) || (rc & (TPM_RC_P | TPM_RC_S | TPM_RC_N_MASK)) || n == 0 || n > 15)
		return rc;
	return rc | kind | (n << 8);
}

TPM_RC rc_param(TPM_RC rc, unsigned n)
{
	return rc_number(rc, n, TPM_RC_P);
}

TPM_RC rc_handle(TPM_RC rc, unsigned n)
{
	return rc_number(rc, n, TPM_RC_H);
}

TPM_RC rc_session(TPM_RC rc, unsigned n)
{
	return rc_number(rc, n, TPM_RC_S);
}
