/* TCP for the socket transports (see net.h). */
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <sys/socket.h>
#include <unistd.h>

#include "net.h"

int tss_net_connect(const char *host, unsigned port)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM };
	struct addrinfo *res, *a;
	char service[16];
	int fd = -1, one = 1;

	snprintf(service, sizeof(service), "%u", port);
	if (getaddrinfo(host, service, &hints, &res))
		return -EHOSTUNREACH;
	for (a = res; a; a = a->ai_next) {
		fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
		if (fd < 0)
			continue;
		if (connect(fd, a->ai_addr, a->ai_addrlen) == 0)
			break;
		close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	if (fd < 0)
		return -ECONNREFUSED;
	if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) < 0) {
		int err = -errno;

		close(fd);
		return err;
	}
	return fd;
}

int tss_net_write_all(int fd, const uint8_t *b, size_t n)
{
	while (n) {
		ssize_t k = send(fd, b, n, MSG_NOSIGNAL);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -EIO;
		b += k;
		n -= (size_t)k;
	}
	return 0;
}

int tss_net_read_all(int fd, uint8_t *b, size_t n)
{
	while (n) {
		ssize_t k = recv(fd, b, n, 0);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -EIO;
		b += k;
		n -= (size_t)k;
	}
	return 0;
}
