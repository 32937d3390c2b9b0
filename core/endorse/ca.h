/* The manufacturer CA of a state directory (docs/attestation.md): an ECC P-256 key in
 * <dir>/pqtpm.ca.key (the 32-byte scalar) and its self-signed certificate in
 * <dir>/pqtpm.ca.pem, both 0600, made once when the TPM is manufactured. */
#ifndef PQTPM_ENDORSE_CA_H
#define PQTPM_ENDORSE_CA_H

#include <stddef.h>

#include <pqtpm/engine.h>

#include "endorse/x509.h"

#define CA_KEY_FILE "pqtpm.ca.key"
#define CA_CERT_FILE PQTPM_CA_CERT_NAME

struct endorse_ca {
	uint8_t d[X509_CA_KEY_BYTES], x[X509_CA_KEY_BYTES], y[X509_CA_KEY_BYTES];
	uint8_t key_id[X509_SKID_BYTES];
};

/* Load the CA of dir, making the key and the certificate if either is missing. Returns 0 or a
 * negative errno with a message naming the file in err. */
int endorse_ca_open(const char *dir, struct endorse_ca *ca, char *err, size_t errlen);
void endorse_ca_wipe(struct endorse_ca *ca);

#endif
