/* pqtpm-server: listeners, signals, the accepting loop, and the connection threads' start and
 * end (the design is in server.h). A connection's own work is in conn.c. */
#include <arpa/inet.h>
#include <errno.h>
#include <malloc.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "conn.h"
#include "server.h"

#define LISTEN_BACKLOG 64
#define ACCEPT_BATCH 32		/* accepts per wake-up, so that a flood does not starve clients */
#define EPOLL_BATCH 16
#define CONN_STACK (8u << 20)

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
		mssim_log(PQTPM_LOG_ERROR, "sigaction(SIGPIPE): %s", strerror(errno));
		return -1;
	}
	stop_signals(&set);
	if (sigprocmask(SIG_BLOCK, &set, NULL) < 0) {
		mssim_log(PQTPM_LOG_ERROR, "sigprocmask: %s", strerror(errno));
		return -1;
	}
	return 0;
}

static void close_fd(int fd)
{
	if (fd >= 0 && close(fd) < 0)
		mssim_log(PQTPM_LOG_DEBUG, "close: %s", strerror(errno));
}

static int watch(int epfd, struct mssim_watch *w)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = w };

	if (epoll_ctl(epfd, EPOLL_CTL_ADD, w->fd, &ev) < 0) {
		mssim_log(PQTPM_LOG_ERROR, "epoll_ctl: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/* ---- connection threads ---- */

/* Commands run on the connection threads: give them at least the stack the main thread has
 * by default (glibc's thread default falls to 2 MiB under `ulimit -s unlimited`). Only the
 * pages a thread touches are memory. Returns 0 or -1 (logged). */
static int init_threads(struct mssim_server *s)
{
	size_t stack = 0;
	int rc;

	rc = pthread_mutex_init(&s->lock, NULL);
	if (rc != 0) {
		mssim_log(PQTPM_LOG_ERROR, "pthread_mutex_init: %s", strerror(rc));
		return -1;
	}
	rc = pthread_attr_init(&s->thread_attr);
	if (rc != 0) {
		mssim_log(PQTPM_LOG_ERROR, "pthread_attr_init: %s", strerror(rc));
		pthread_mutex_destroy(&s->lock);
		return -1;
	}
	s->threads_ready = 1;
	if (pthread_attr_getstacksize(&s->thread_attr, &stack) == 0 && stack < CONN_STACK)
		rc = pthread_attr_setstacksize(&s->thread_attr, CONN_STACK);
	if (rc != 0) {
		mssim_log(PQTPM_LOG_ERROR, "pthread_attr_setstacksize: %s", strerror(rc));
		return -1;
	}
	return 0;
}

/* conns and spare: doubly linked, under s->lock. */
static void list_add(struct mssim_conn **head, struct mssim_conn *c)
{
	c->prev = NULL;
	c->next = *head;
	if (*head)
		(*head)->prev = c;
	*head = c;
}

static void list_del(struct mssim_conn **head, struct mssim_conn *c)
{
	if (c->prev)
		c->prev->next = c->next;
	else
		*head = c->next;
	if (c->next)
		c->next->prev = c->prev;
}

/* Under s->lock: c takes the accepted socket and joins conns. */
static void assign(struct mssim_server *s, struct mssim_conn *c, int fd, enum mssim_port port,
		   const char *peer)
{
	c->fd = fd;
	c->port = port;
	c->id = ++s->next_id;
	snprintf(c->peer, sizeof(c->peer), "%s", peer);
	list_add(&s->conns, c);
}

int mssim_server_next(struct mssim_server *s, struct mssim_conn *c)
{
	uint64_t one = 1;

	/* Closed under the lock, out of conns: the main thread shuts down only the sockets in
	 * conns, and finds every thread on one of the lists while it waits for them at stop. */
	pthread_mutex_lock(&s->lock);
	list_del(&s->conns, c);
	close_fd(c->fd);
	c->fd = -1;
	if (!atomic_load(&s->stopping) && s->nspare < s->spare_max) {
		list_add(&s->spare, c);
		s->nspare++;
		while (c->fd < 0 && !atomic_load(&s->stopping))
			pthread_cond_wait(&c->wake, &s->lock);
		if (c->fd >= 0) {
			/* start_conn took c off spare */
			pthread_mutex_unlock(&s->lock);
			return 1;
		}
		list_del(&s->spare, c);
		s->nspare--;
	}
	c->next = s->done;
	s->done = c;
	pthread_mutex_unlock(&s->lock);
	if (write(s->ended.fd, &one, sizeof(one)) < 0)
		mssim_log(PQTPM_LOG_ERROR, "eventfd: %s", strerror(errno));
	return 0;
}

static void free_conn(struct mssim_conn *c)
{
	pthread_cond_destroy(&c->wake);
	free(c);
}

/* Joins the threads that ended and frees their connections. Returns how many. */
static unsigned join_ended(struct mssim_server *s)
{
	struct mssim_conn *c, *next;
	unsigned n = 0;
	int rc;

	pthread_mutex_lock(&s->lock);
	c = s->done;
	s->done = NULL;
	pthread_mutex_unlock(&s->lock);
	for (; c; c = next, n++) {
		next = c->next;
		rc = pthread_join(c->thread, NULL);
		if (rc != 0)
			mssim_log(PQTPM_LOG_ERROR, "pthread_join: %s", strerror(rc));
		free_conn(c);
	}
	/* What those threads allocated (Debian's wolfSSL: ~0.8 MB of ECC tables each) is free
	 * but stays resident in malloc's arenas, more or less of it from one batch of clients to
	 * the next (hardening_load saw 12-16 MB after identical rounds); give it back. */
	if (n)
		malloc_trim(0);
	return n;
}

/* Gives an accepted connection to a spare thread, or to a new one (counted first, so that the
 * cap and the thread's own count see it). */
static void start_conn(struct mssim_server *s, int fd, enum mssim_port port, const char *peer)
{
	struct mssim_conn *c;
	int rc;

	atomic_fetch_add(&s->open[port], 1);
	pthread_mutex_lock(&s->lock);
	c = s->spare;
	if (c) {
		list_del(&s->spare, c);
		s->nspare--;
		assign(s, c, fd, port, peer);
		pthread_mutex_unlock(&s->lock);
		/* After the unlock, so that the thread does not wake into a held lock. Only this
		 * thread frees c, and only once c's thread has ended. */
		pthread_cond_signal(&c->wake);
		return;
	}
	pthread_mutex_unlock(&s->lock);
	c = calloc(1, sizeof(*c));
	if (!c || (rc = pthread_cond_init(&c->wake, NULL)) != 0) {
		mssim_log(PQTPM_LOG_ERROR, "%s: refused, out of memory for a connection", peer);
		free(c);
		goto refuse;
	}
	c->srv = s;
	pthread_mutex_lock(&s->lock);
	assign(s, c, fd, port, peer);
	pthread_mutex_unlock(&s->lock);
	rc = pthread_create(&c->thread, &s->thread_attr, mssim_conn_main, c);
	if (rc == 0)
		return;
	mssim_log(PQTPM_LOG_ERROR, "%s: refused, cannot start a thread: %s", peer, strerror(rc));
	pthread_mutex_lock(&s->lock);
	list_del(&s->conns, c);
	pthread_mutex_unlock(&s->lock);
	free_conn(c);
refuse:
	atomic_fetch_sub(&s->open[port], 1);
	close_fd(fd);
}

/* Stop: every open socket shut down both ways, so that its thread's recv or send returns,
 * every spare thread woken, then every thread joined. */
static void end_all(struct mssim_server *s)
{
	struct pollfd pfd = { .fd = s->ended.fd, .events = POLLIN };
	struct mssim_conn *c;
	uint64_t n;
	int left;

	pthread_mutex_lock(&s->lock);
	atomic_store(&s->stopping, 1);
	for (c = s->conns; c; c = c->next)
		if (shutdown(c->fd, SHUT_RDWR) < 0)
			mssim_log(PQTPM_LOG_DEBUG, "conn %u: shutdown: %s", c->id, strerror(errno));
	for (c = s->spare; c; c = c->next)
		pthread_cond_signal(&c->wake);
	pthread_mutex_unlock(&s->lock);
	for (;;) {
		pthread_mutex_lock(&s->lock);
		left = s->conns || s->spare || s->done;
		pthread_mutex_unlock(&s->lock);
		if (!left)
			return;
		/* A thread queues itself, then writes the eventfd: none is missed. */
		if (join_ended(s) == 0 && poll(&pfd, 1, -1) > 0 &&
		    read(s->ended.fd, &n, sizeof(n)) < 0 && errno != EAGAIN)
			mssim_log(PQTPM_LOG_ERROR, "eventfd: %s", strerror(errno));
	}
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
		mssim_log(PQTPM_LOG_ERROR, "bad listen address '%s'", addr);
		return -1;
	}
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		mssim_log(PQTPM_LOG_ERROR, "socket: %s", strerror(errno));
		return -1;
	}
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    bind(fd, (struct sockaddr *)&ss, len) < 0 || listen(fd, LISTEN_BACKLOG) < 0) {
		mssim_log(PQTPM_LOG_ERROR, "cannot listen on %s port %u: %s", addr, port,
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
	s->listener[0].fd = s->listener[1].fd = s->stop.fd = s->ended.fd = -1;
	s->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (s->epfd < 0) {
		mssim_log(PQTPM_LOG_ERROR, "epoll_create1: %s", strerror(errno));
		return -1;
	}
	if (init_threads(s) < 0)
		return -1;
	for (p = MSSIM_PORT_COMMAND; p <= MSSIM_PORT_PLATFORM; p++) {
		s->listener[p].kind = MSSIM_WATCH_LISTEN;
		s->listener[p].port = p;
		s->listener[p].fd = listen_on(cfg->bind, ports[p]);
		if (s->listener[p].fd < 0 || watch(s->epfd, &s->listener[p]) < 0)
			return -1;
	}
	stop_signals(&set);
	s->stop.kind = MSSIM_WATCH_SIGNAL;
	s->stop.fd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	if (s->stop.fd < 0) {
		mssim_log(PQTPM_LOG_ERROR, "signalfd: %s", strerror(errno));
		return -1;
	}
	if (watch(s->epfd, &s->stop) < 0)
		return -1;
	s->ended.kind = MSSIM_WATCH_ENDED;
	s->ended.fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (s->ended.fd < 0) {
		mssim_log(PQTPM_LOG_ERROR, "eventfd: %s", strerror(errno));
		return -1;
	}
	if (watch(s->epfd, &s->ended) < 0)
		return -1;

	if (!mssim_config_is_loopback(cfg))
		mssim_log(PQTPM_LOG_WARN, "listening on %s, not a loopback address: anyone who "
					  "can reach it can use this TPM", cfg->bind);
	if (cfg->platform_port != cfg->port + 1)
		mssim_log(PQTPM_LOG_WARN, "platform port %u is not command port + 1: tpm2-tss's "
					  "mssim TCTI will not find it", cfg->platform_port);
	s->spare_max = mssim_config_threads(cfg);
	mssim_log(PQTPM_LOG_INFO, "listening on %s: command port %u, platform port %u",
		  cfg->bind, cfg->port, cfg->platform_port);
	mssim_log(PQTPM_LOG_INFO, "a thread per connection, up to %u kept for the next ones",
		  s->spare_max);
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
	unsigned open;
	int i, fd;

	for (i = 0; i < ACCEPT_BATCH; i++) {
		len = sizeof(ss);
		/* Blocking: its thread has nothing else to wait for. */
		fd = accept4(l->fd, (struct sockaddr *)&ss, &len, SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			if (errno != EAGAIN && errno != EWOULDBLOCK)
				mssim_log(PQTPM_LOG_WARN, "accept: %s", strerror(errno));
			return;
		}
		peer_name(&ss, len, peer, sizeof(peer));
		/* Only this thread adds: the count cannot pass the cap behind our back. */
		open = atomic_load(&s->open[MSSIM_PORT_COMMAND]) +
		       atomic_load(&s->open[MSSIM_PORT_PLATFORM]);
		if (open >= MSSIM_MAX_CONNS) {
			mssim_log(PQTPM_LOG_WARN, "%s: refused, %u connections already open", peer,
				  open);
			if (close(fd) < 0)
				mssim_log(PQTPM_LOG_DEBUG, "close: %s", strerror(errno));
			continue;
		}
		start_conn(s, fd, l->port, peer);
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
	mssim_log(PQTPM_LOG_INFO, "%s: stopping", strsignal((int)si.ssi_signo));
	return 1;
}

int mssim_server_run(struct mssim_server *s)
{
	struct epoll_event evs[EPOLL_BATCH];
	struct mssim_watch *w;
	uint64_t one;
	int i, n;

	/* Runs for the life of the server; it ends on SIGINT or SIGTERM. */
	for (;;) {
		n = epoll_wait(s->epfd, evs, EPOLL_BATCH, -1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			mssim_log(PQTPM_LOG_ERROR, "epoll_wait: %s", strerror(errno));
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
			case MSSIM_WATCH_ENDED:
				if (read(s->ended.fd, &one, sizeof(one)) < 0 && errno != EAGAIN) {
					mssim_log(PQTPM_LOG_ERROR, "eventfd: %s", strerror(errno));
					return -1;
				}
				join_ended(s);
				break;
			}
		}
	}
}

void mssim_server_close(struct mssim_server *s)
{
	if (s->threads_ready) {
		end_all(s);
		pthread_attr_destroy(&s->thread_attr);
		pthread_mutex_destroy(&s->lock);
		s->threads_ready = 0;
	}
	close_fd(s->listener[MSSIM_PORT_COMMAND].fd);
	close_fd(s->listener[MSSIM_PORT_PLATFORM].fd);
	close_fd(s->stop.fd);
	close_fd(s->ended.fd);
	close_fd(s->epfd);
	s->listener[0].fd = s->listener[1].fd = s->stop.fd = s->ended.fd = s->epfd = -1;
}
