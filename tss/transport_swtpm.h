/* The swtpm transport (transport_swtpm.c), beside those declared in tss_int.h. */
#ifndef PQTPM_TSS_TRANSPORT_SWTPM_H
#define PQTPM_TSS_TRANSPORT_SWTPM_H

#include "tss_int.h"

/* swtpm's server port `port` (raw TPM commands) and its control port `port + 1`. */
int tss_swtpm_transport(const char *host, unsigned port, const struct tss_transport **ops,
			void **ctx);

#endif
