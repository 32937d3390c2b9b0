/* pqtpm-server: listeners, signals and the epoll loop. Connections live in conn.c. */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "conn.h"
#include "server.h"

#define LISTEN_BACKLOG 64
#define ACCEPT_BATCH 32		/* accepts per wake-up, so that a flood does not starve clients */
#define EPOLL_BATCH 64

static void stop_signals(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGTERM);
}

int mssim_server_block_signals(void)
{
	struct sigaction sa = { .sa_handler = SIG_IGN };
	sigset_t set;

	/* Writes to a vanished client must fail with EPIPE, not kill the server. */
	if (sigaction(SIGPIPE, &sa, NULL) < 0) {
		pqtpm_log(PQTPM_LOG_ERROR, "sigaction(SIGPIPE): %s", strerror(errno));
		return -1;
	}
	stop_signals(&set);
	if (sigprocmask(SIG_BLOCK, &set, NULL) < 0) {
		pqtpm_log(PQTPM_LOG_ERROR, "sigprocmask: %s", strerror(errno));
		return -1;
	}
	return 0;
}

static int watch(struct mssim_server *s, struct mssim_watch *w)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = w };

	if (epoll_ctl(s->epfd, EPOLL_CTL_ADD, w->fd, &ev) < 0) {
		pqtpm_log(PQTPM_LOG_ERROR, "epoll_ctl: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/* A non-blocking listening socket on a numeric address. Returns the fd or -1 (logged). */
static int listen_on(const char *addr, unsigned port)
{
	struct sockaddr_storage ss;
	struct sockaddr_in *sin = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&ss;
	socklen_t len;
	int fd, one = 1;

	memset(&ss, 0, sizeof(ss));
	if (inet_pton(AF_INET, addr, &sin->sin_addr) == 1) {
		sin->sin_family = AF_INET;
		sin->sin_port = htons(port);
		len = sizeof(*sin);
	} else if (inet_pton(AF_INET6, addr, &sin6->sin6_addr) == 1) {
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons(port);
		len = sizeof(*sin6);
	} else {
		pqtpm_log(PQTPM_LOG_ERROR, "bad listen address '%s'", addr);
		return -1;
	}
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		pqtpm_log(PQTPM_LOG_ERROR, "socket: %s", strerror(errno));
		return -1;
	}
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    bind(fd, (struct sockaddr *)&ss, len) < 0 || listen(fd, LISTEN_BACKLOG) < 0) {
		pqtpm_log(PQTPM_LOG_ERROR, "cannot listen on %s port %u: %s", addr, port,
			  strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

int mssim_server_open(struct mssim_server *s, struct pqtpm_engine *e,
		      const struct mssim_config *cfg)
{
	const unsigned ports[2] = { [MSSIM_PORT_COMMAND] = cfg->port,
				    [MSSIM_PORT_PLATFORM] = cfg->platform_port };
	sigset_t set;
	int p;

	memset(s, 0, sizeof(*s));
	s->engine = e;
	s->listener[0].fd = s->listener[1].fd = s->stop.fd = -1;
	s->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (s->epfd < 0) {
		pqtpm_log(PQTPM_LOG_ERROR, "epoll_create1: %s", strerror(errno));
		return -1;
	}
	for (p = MSSIM_PORT_COMMAND; p <= MSSIM_PORT_PLATFORM; p++) {
		s->listener[p].kind = MSSIM_WATCH_LISTEN;
		s->listener[p].port = p;
		s->listener[p].fd = listen_on(cfg->bind, ports[p]);
		if (s->listener[p].fd < 0 || watch(s, &s->listener[p]) < 0)
			return -1;
	}
	stop_signals(&set);
	s->stop.kind = MSSIM_WATCH_SIGNAL;
	s->stop.fd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	if (s->stop.fd < 0) {
		pqtpm_log(PQTPM_LOG_ERROR, "signalfd: %s", strerror(errno));
		return -1;
	}
	if (watch(s, &s->stop) < 0)
		return -1;

	if (!mssim_config_is_loopback(cfg))
		pqtpm_log(PQTPM_LOG_WARN, "listening on %s, not a loopback address: anyone who "
					  "can reach it can use this TPM", cfg->bind);
	if (cfg->platform_port != cfg->port + 1)
		pqtpm_log(PQTPM_LOG_WARN, "platform port %u is not command port + 1: tpm2-tss's "
					  "mssim TCTI will not find it", cfg->platform_port);
	pqtpm_log(PQTPM_LOG_INFO, "listening on %s: command port %u, platform port %u",
		  cfg->bind, cfg->port, cfg->platform_port);
	return 0;
}

static void peer_name(const struct sockaddr_storage *ss, socklen_t len, char *buf, size_t cap)
{
	char host[64], serv[8];	/* numeric: an IPv6 address with a scope, a port */

	if (getnameinfo((const struct sockaddr *)ss, len, host, sizeof(host), serv, sizeof(serv),
			NI_NUMERICHOST | NI_NUMERICSERV) != 0)
		snprintf(buf, cap, "unknown peer");
	else if (ss->ss_family == AF_INET6)
		snprintf(buf, cap, "[%s]:%s", host, serv);
	else
		snprintf(buf, cap, "%s:%s", host, serv);
}

static void accept_some(struct mssim_server *s, struct mssim_watch *l)
{
	struct sockaddr_storage ss;
	char peer[80];
	socklen_t len;
	int i, fd;

	for (i = 0; i < ACCEPT_BATCH; i++) {
		len = sizeof(ss);
		fd = accept4(l->fd, (struct sockaddr *)&ss, &len, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			if (errno != EAGAIN && errno != EWOULDBLOCK)
				pqtpm_log(PQTPM_LOG_WARN, "accept: %s", strerror(errno));
			return;
		}
		peer_name(&ss, len, peer, sizeof(peer));
		if (s->nconns >= MSSIM_MAX_CONNS) {
			pqtpm_log(PQTPM_LOG_WARN, "%s: refused, %u connections already open", peer,
				  s->nconns);
			if (close(fd) < 0)
				pqtpm_log(PQTPM_LOG_DEBUG, "close: %s", strerror(errno));
			continue;
		}
		mssim_conn_open(s, fd, l->port, peer);
	}
}

/* Returns 1 once SIGINT or SIGTERM arrived. */
static int stop_requested(struct mssim_server *s)
{
	struct signalfd_siginfo si;
	ssize_t n;

	n = read(s->stop.fd, &si, sizeof(si));
	if (n != (ssize_t)sizeof(si))
		return 0;
	pqtpm_log(PQTPM_LOG_INFO, "%s: stopping", strsignal((int)si.ssi_signo));
	return 1;
}

int mssim_server_run(struct mssim_server *s)
{
	struct epoll_event evs[EPOLL_BATCH];
	struct mssim_watch *w;
	int i, n;

	/* Runs for the life of the server; it ends on SIGINT or SIGTERM. */
	for (;;) {
		n = epoll_wait(s->epfd, evs, EPOLL_BATCH, -1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			pqtpm_log(PQTPM_LOG_ERROR, "epoll_wait: %s", strerror(errno));
			return -1;
		}
		for (i = 0; i < n; i++) {
			w = evs[i].data.ptr;
			switch (w->kind) {
			case MSSIM_WATCH_LISTEN:
				accept_some(s, w);
				break;
			case MSSIM_WATCH_SIGNAL:
				if (stop_requested(s))
					return 0;
				break;
			case MSSIM_WATCH_CONN:
				/* Only c itself can be freed here, never another connection of
				 * this batch. */
				mssim_conn_ready((struct mssim_conn *)w);
				break;
			}
		}
	}
}

static void close_fd(int fd)
{
	if (fd >= 0 && close(fd) < 0)
		pqtpm_log(PQTPM_LOG_DEBUG, "close: %s", strerror(errno));
}

void mssim_server_close(struct mssim_server *s)
{
	unsigned i, n = s->nconns;

	/* Each close unlinks the head; n bounds the loop. */
	for (i = 0; i < n && s->conns; i++)
		mssim_conn_close(s->conns, "server stopping");
	close_fd(s->listener[MSSIM_PORT_COMMAND].fd);
	close_fd(s->listener[MSSIM_PORT_PLATFORM].fd);
	close_fd(s->stop.fd);
	close_fd(s->epfd);
	s->listener[0].fd = s->listener[1].fd = s->stop.fd = s->epfd = -1;
}
