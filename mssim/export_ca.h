/* pqtpm-server --export-ca FILE */
#ifndef MSSIM_EXPORT_CA_H
#define MSSIM_EXPORT_CA_H

#include <stddef.h>

#include "config.h"

/* Open the engine of c->state_dir (which manufactures a new TPM: the CA and the EK
 * certificates), or find it owned by a running server, and copy the CA certificate to
 * c->export_ca. Returns 0 or -1 with a message naming the file in err. */
int mssim_export_ca(const struct mssim_config *c, char *err, size_t errlen);

#endif
