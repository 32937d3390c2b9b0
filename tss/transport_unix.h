/* Transports to the owner of a state directory: "unix:PATH" (transport_unix.c) and
 * "embedded:DIR" (transport_embedded.c), speaking the framing of include/pqtpm/engine.h. */
#ifndef PQTPM_TSS_TRANSPORT_UNIX_H
#define PQTPM_TSS_TRANSPORT_UNIX_H

#include "tss_int.h"

/* A connected socket to PATH, or a negative errno. */
int tss_unix_connect(const char *path);
/* One request and its response. 0, -EPIPE when the peer is gone (end of file, reset, broken
 * pipe: the request may have run), or another negative errno. */
int tss_unix_exchange(int fd, uint8_t kind, uint8_t arg, const uint8_t *in, size_t len,
		      uint8_t *out, size_t cap, size_t *out_len);
/* POWER_ON then NV_ON, as an MSSIM client's power on. */
int tss_unix_power_on(int fd);

int tss_unix_transport(const char *path, const struct tss_transport **ops, void **ctx);
/* The TPM of DIR: its owner if there is none (the engine in this process, served to the others
 * on DIR/pqtpm.sock), else a client of the owner's socket; re-elected when the owner goes. */
int tss_embedded_transport(const char *dir, const struct tss_transport **ops, void **ctx);

#endif
