/* TCP for the socket transports (net.c): connect with TCP_NODELAY, whole writes, whole reads. */
#ifndef PQTPM_TSS_NET_H
#define PQTPM_TSS_NET_H

#include <stddef.h>
#include <stdint.h>

/* A connected TCP_NODELAY socket to host:port, or a negative errno. */
int tss_net_connect(const char *host, unsigned port);
/* All n bytes, or -EIO. */
int tss_net_write_all(int fd, const uint8_t *b, size_t n);
int tss_net_read_all(int fd, uint8_t *b, size_t n);

#endif
