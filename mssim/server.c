/* pqtpm-server: listeners, signals, the accepting loop and the workers' epoll loops (the
 * design is in server.h). Connections live in conn.c. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "conn.h"
#include "crypto/crypto.h"
#include "server.h"

#define LISTEN_BACKLOG 64
#define ACCEPT_BATCH 32		/* accepts per wake-up, so that a flood does not starve clients */
#define EPOLL_BATCH 64
#define INBOX_BATCH 32		/* connections taken from the handoff pipe per read */
#define WORKER_STACK (8u << 20)
#define SPIN_NS 200000u	/* longest poll before sleeping (wait_events) */

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

/* ---- workers ---- */

void mssim_worker_count(struct mssim_worker *wk, enum mssim_port port, int delta)
{
	atomic_fetch_add(&wk->open[port], (unsigned)delta);
	atomic_fetch_add(&wk->srv->nconns, (unsigned)delta);
}

/* Takes in the sockets the main thread handed over. Returns 1 once the write end is closed
 * (stop: everything written before has been taken in), -1 on a fatal error (logged), else 0. */
static int take_inbox(struct mssim_worker *wk)
{
	struct mssim_handoff in[INBOX_BATCH];
	ssize_t n;
	size_t i;

	n = read(wk->inbox.fd, in, sizeof(in));
	if (n < 0) {
		if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
			return 0;
		mssim_log(PQTPM_LOG_ERROR, "worker %u: read: %s", wk->index, strerror(errno));
		return -1;
	}
	if (n == 0)
		return 1;
	/* Every write is one whole record, atomic: reads come in whole records. */
	if (n % sizeof(in[0]) != 0) {
		mssim_log(PQTPM_LOG_ERROR, "worker %u: torn handoff (%zd bytes)", wk->index, n);
		return -1;
	}
	for (i = 0; i < (size_t)n / sizeof(in[0]); i++)
		mssim_conn_open(wk, &in[i]);
	return 0;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Waits for events. A client in a tight loop sends its next command microseconds after its
 * reply went out; sleeping in epoll_wait then costs a wake-up (IPI, scheduler, a VM's idle
 * exit) on every round trip, often more than the command itself. So while this worker's
 * recent idle gaps were short it first polls its set for up to SPIN_NS (epoll_wait with
 * timeout 0: every connection and the inbox, so nobody waits longer than before), yielding
 * the CPU between polls to anything runnable (the client itself, when it shares this CPU),
 * and only then sleeps. The average gap (1/8 weight per wait, a failed poll counting as
 * SPIN_NS) keeps polling off for clients that think between commands: the CPU is spent only
 * while someone is keeping the gaps short. Linux's own busy-polling (SO_BUSY_POLL) does not
 * cover loopback. */
/* Command connections open over all workers. */
static unsigned command_conns(const struct mssim_server *s)
{
	unsigned i, n = 0;

	for (i = 0; i < s->nworkers; i++)
		n += atomic_load(&s->workers[i].open[MSSIM_PORT_COMMAND]);
	return n;
}

static int wait_events(struct mssim_worker *wk, struct epoll_event *evs)
{
	uint64_t start = now_ns(), t = start, idle;
	int n;

	/* Only for a lone client: with two or more, pollers and clients compete for the CPUs
	 * (measured: 2 clients on 2 CPUs swung between 26k and 73k GetRandom/s with every worker
	 * polling, a steady ~70k with none) */
	if (wk->idle_avg_ns < SPIN_NS / 2 && command_conns(wk->srv) <= 1) {
		do {
			n = epoll_wait(wk->epfd, evs, EPOLL_BATCH, 0);
			if (n != 0)
				goto done;
			sched_yield();
			t = now_ns();
		} while (t - start < SPIN_NS);
	}
	n = epoll_wait(wk->epfd, evs, EPOLL_BATCH, -1);
	t = now_ns();
done:
	idle = n > 0 && t - start < SPIN_NS ? t - start : SPIN_NS;
	wk->idle_avg_ns += idle / 8 - wk->idle_avg_ns / 8;
	return n;
}

/* Serves this worker's connections until the main thread closes the pipe's write end. */
static int worker_loop(struct mssim_worker *wk)
{
	struct epoll_event evs[EPOLL_BATCH];
	struct mssim_watch *w;
	int i, n, stop = 0, rc;

	while (!stop) {
		n = wait_events(wk, evs);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			mssim_log(PQTPM_LOG_ERROR, "worker %u: epoll_wait: %s", wk->index,
				  strerror(errno));
			return -1;
		}
		for (i = 0; i < n; i++) {
			w = evs[i].data.ptr;
			if (w->kind == MSSIM_WATCH_INBOX) {
				rc = take_inbox(wk);
				if (rc < 0)
					return -1;
				stop |= rc;
			} else {
				/* Only c itself can be freed here, never another connection of
				 * this batch (new ones from the inbox are not in it). */
				mssim_conn_ready((struct mssim_conn *)w);
			}
		}
	}
	return 0;
}

static void *worker_main(void *arg)
{
	struct mssim_worker *wk = arg;
	uint64_t one = 1;

	if (worker_loop(wk) < 0) {
		/* Tell the main thread, which stops the server with an error. */
		if (write(wk->srv->failed.fd, &one, sizeof(one)) < 0)
			mssim_log(PQTPM_LOG_ERROR, "worker %u: eventfd: %s", wk->index,
				  strerror(errno));
	}
	/* Each close unlinks the head. */
	while (wk->conns)
		mssim_conn_close(wk->conns, "server stopping");
	/* wolfSSL's per-thread ECC tables, filled by the commands this thread ran. */
	crypto_thread_cleanup();
	return NULL;
}

static int start_workers(struct mssim_server *s, unsigned n)
{
	struct mssim_worker *wk;
	pthread_attr_t attr;
	size_t stack = 0;
	int pfd[2], rc;
	unsigned i;

	s->workers = calloc(n, sizeof(*s->workers));
	if (!s->workers) {
		mssim_log(PQTPM_LOG_ERROR, "out of memory for %u workers", n);
		return -1;
	}
	/* Commands run on the workers now: give them at least the stack the main thread has by
	 * default (glibc's thread default falls to 2 MiB under `ulimit -s unlimited`). */
	rc = pthread_attr_init(&attr);
	if (rc != 0) {
		mssim_log(PQTPM_LOG_ERROR, "pthread_attr_init: %s", strerror(rc));
		return -1;
	}
	if (pthread_attr_getstacksize(&attr, &stack) == 0 && stack < WORKER_STACK)
		rc = pthread_attr_setstacksize(&attr, WORKER_STACK);
	if (rc != 0) {
		mssim_log(PQTPM_LOG_ERROR, "pthread_attr_setstacksize: %s", strerror(rc));
		pthread_attr_destroy(&attr);
		return -1;
	}
	s->nworkers = n;
	for (i = 0; i < n; i++) {
		wk = &s->workers[i];
		wk->srv = s;
		wk->index = i;
		wk->inbox.kind = MSSIM_WATCH_INBOX;
		wk->inbox.fd = wk->inbox_w = wk->epfd = -1;
		wk->idle_avg_ns = SPIN_NS;	/* no polling until clients show short gaps */
	}
	for (i = 0; i < n; i++) {
		wk = &s->workers[i];
		wk->epfd = epoll_create1(EPOLL_CLOEXEC);
		if (wk->epfd < 0) {
			mssim_log(PQTPM_LOG_ERROR, "epoll_create1: %s", strerror(errno));
			break;
		}
		/* Non-blocking both ways: a worker never waits on it, nor the main thread. */
		if (pipe2(pfd, O_NONBLOCK | O_CLOEXEC) < 0) {
			mssim_log(PQTPM_LOG_ERROR, "pipe2: %s", strerror(errno));
			break;
		}
		wk->inbox.fd = pfd[0];
		wk->inbox_w = pfd[1];
		if (watch(wk->epfd, &wk->inbox) < 0)
			break;
		rc = pthread_create(&wk->thread, &attr, worker_main, wk);
		if (rc != 0) {
			mssim_log(PQTPM_LOG_ERROR, "pthread_create: %s", strerror(rc));
			break;
		}
		wk->started = 1;
	}
	pthread_attr_destroy(&attr);
	return i == n ? 0 : -1;
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
	s->listener[0].fd = s->listener[1].fd = s->stop.fd = s->failed.fd = -1;
	s->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (s->epfd < 0) {
		mssim_log(PQTPM_LOG_ERROR, "epoll_create1: %s", strerror(errno));
		return -1;
	}
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
	s->failed.kind = MSSIM_WATCH_FAILED;
	s->failed.fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (s->failed.fd < 0) {
		mssim_log(PQTPM_LOG_ERROR, "eventfd: %s", strerror(errno));
		return -1;
	}
	if (watch(s->epfd, &s->failed) < 0 || start_workers(s, mssim_config_threads(cfg)) < 0)
		return -1;

	if (!mssim_config_is_loopback(cfg))
		mssim_log(PQTPM_LOG_WARN, "listening on %s, not a loopback address: anyone who "
					  "can reach it can use this TPM", cfg->bind);
	if (cfg->platform_port != cfg->port + 1)
		mssim_log(PQTPM_LOG_WARN, "platform port %u is not command port + 1: tpm2-tss's "
					  "mssim TCTI will not find it", cfg->platform_port);
	mssim_log(PQTPM_LOG_INFO, "listening on %s: command port %u, platform port %u",
		  cfg->bind, cfg->port, cfg->platform_port);
	mssim_log(PQTPM_LOG_INFO, "%u worker thread%s", s->nworkers, s->nworkers == 1 ? "" : "s");
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

/* The worker with the fewest open connections on this port, the search starting after the
 * last one chosen (so that ties go round-robin). Counting per port keeps the busy command
 * connections spread even when every client also opens an idle platform connection. */
static struct mssim_worker *pick_worker(struct mssim_server *s, enum mssim_port port)
{
	unsigned i, k, load, best = 0, best_load = UINT32_MAX;

	for (i = 0; i < s->nworkers; i++) {
		k = (s->next_worker + i) % s->nworkers;
		load = atomic_load(&s->workers[k].open[port]);
		if (load < best_load) {
			best = k;
			best_load = load;
		}
	}
	s->next_worker = (best + 1) % s->nworkers;
	return &s->workers[best];
}

/* Passes an accepted socket to the least loaded worker. */
static void hand_over(struct mssim_server *s, int fd, enum mssim_port port, const char *peer)
{
	struct mssim_worker *wk = pick_worker(s, port);
	struct mssim_handoff h = { .fd = fd, .port = port, .id = ++s->next_id };
	ssize_t n;

	_Static_assert(sizeof(h) <= PIPE_BUF, "a handoff must be one atomic pipe write");
	snprintf(h.peer, sizeof(h.peer), "%s", peer);
	/* Counted before the worker can see it (and uncount it). */
	mssim_worker_count(wk, port, 1);
	do
		n = write(wk->inbox_w, &h, sizeof(h));
	while (n < 0 && errno == EINTR);
	if (n == (ssize_t)sizeof(h))
		return;
	/* EAGAIN: the pipe holds hundreds of records, above the connection cap. */
	mssim_log(PQTPM_LOG_ERROR, "%s: cannot hand over to worker %u: %s", peer, wk->index,
		  n < 0 ? strerror(errno) : "short write");
	mssim_worker_count(wk, port, -1);
	close_fd(fd);
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
		fd = accept4(l->fd, (struct sockaddr *)&ss, &len, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			if (errno != EAGAIN && errno != EWOULDBLOCK)
				mssim_log(PQTPM_LOG_WARN, "accept: %s", strerror(errno));
			return;
		}
		peer_name(&ss, len, peer, sizeof(peer));
		/* Only this thread adds: the count cannot pass the cap behind our back. */
		open = atomic_load(&s->nconns);
		if (open >= MSSIM_MAX_CONNS) {
			mssim_log(PQTPM_LOG_WARN, "%s: refused, %u connections already open", peer,
				  open);
			if (close(fd) < 0)
				mssim_log(PQTPM_LOG_DEBUG, "close: %s", strerror(errno));
			continue;
		}
		hand_over(s, fd, l->port, peer);
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
			case MSSIM_WATCH_FAILED:
				/* The worker logged why. */
				mssim_log(PQTPM_LOG_ERROR, "a worker failed: stopping");
				return -1;
			case MSSIM_WATCH_INBOX:
			case MSSIM_WATCH_CONN:
				break;	/* never in this set */
			}
		}
	}
}

static void discard_inbox(struct mssim_worker *wk)
{
	struct mssim_handoff h;

	if (wk->inbox.fd < 0)
		return;
	while (read(wk->inbox.fd, &h, sizeof(h)) == (ssize_t)sizeof(h)) {
		close_fd(h.fd);
		mssim_worker_count(wk, h.port, -1);
	}
}

void mssim_server_close(struct mssim_server *s)
{
	struct mssim_worker *wk;
	unsigned i;
	int rc;

	/* End of file on every pipe: each worker takes in what is still queued, closes all its
	 * connections and leaves. All are told before any is waited for. */
	for (i = 0; i < s->nworkers; i++) {
		close_fd(s->workers[i].inbox_w);
		s->workers[i].inbox_w = -1;
	}
	for (i = 0; i < s->nworkers; i++) {
		wk = &s->workers[i];
		if (wk->started) {
			rc = pthread_join(wk->thread, NULL);
			if (rc != 0)
				mssim_log(PQTPM_LOG_ERROR, "pthread_join: %s", strerror(rc));
		}
		/* Left over only if the worker failed and left early: nobody else has them. */
		discard_inbox(wk);
		close_fd(wk->inbox.fd);
		close_fd(wk->epfd);
	}
	free(s->workers);
	s->workers = NULL;
	s->nworkers = 0;
	close_fd(s->listener[MSSIM_PORT_COMMAND].fd);
	close_fd(s->listener[MSSIM_PORT_PLATFORM].fd);
	close_fd(s->stop.fd);
	close_fd(s->failed.fd);
	close_fd(s->epfd);
	s->listener[0].fd = s->listener[1].fd = s->stop.fd = s->failed.fd = s->epfd = -1;
}
