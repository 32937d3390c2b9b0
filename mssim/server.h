/* pqtpm-server: the two MSSIM listeners, the accepting thread and the worker threads that
 * serve the connections.
 *
 * The main thread owns the listeners and the SIGINT/SIGTERM signalfd. It accepts, applies the
 * connection cap and hands each new socket to the worker with the fewest open connections on
 * that port, through the worker's handoff pipe: fd, port, id and peer name by value, one
 * atomic write (below PIPE_BUF), so that nothing but the counters is shared between threads.
 * Each worker runs its own epoll loop over its pipe and its connections and never blocks on
 * a socket or on the pipe, so round trips of different clients run in parallel; the engine
 * serializes the commands themselves (pqtpm_engine_execute is thread-safe). While its
 * clients keep the gaps between commands short, a worker polls its epoll set briefly before
 * sleeping (server.c: wait_events), saving a wake-up per round trip. A connection is
 * made, served and freed by one worker. On stop the main thread closes the pipes' write
 * ends; each worker takes in what was still queued, sees end-of-file, closes its connections,
 * calls crypto_thread_cleanup() and exits; the main thread joins them all.
 *
 * Why not a SO_REUSEPORT listener per worker: the kernel spreads connections by a hash of the
 * addresses, not by load (two clients land on one worker half the time), the connection cap
 * and the connection numbers would need sharing anyway, and a listener closed at stop drops
 * the connections waiting in its backlog. Accepting is rare next to round trips; one thread
 * does it.
 */
#ifndef MSSIM_SERVER_H
#define MSSIM_SERVER_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>

#include <pqtpm/engine.h>

#include "config.h"
#include "frame.h"

/* pqtpm_log from any server thread. The engine's logger writes a line in three stdio calls,
 * which lines from other threads can split; holding stderr's lock (recursive, and what stdio
 * takes itself) keeps each of our lines whole. Lines the engine logs while a command runs
 * (rare: errors) can still be split by ours until the engine's logger holds the lock itself. */
#define mssim_log(...)                          \
	do {                                    \
		flockfile(stderr);              \
		pqtpm_log(__VA_ARGS__);         \
		funlockfile(stderr);            \
	} while (0)

/* Open connections over both ports; beyond that new ones are accepted and closed at once. */
#define MSSIM_MAX_CONNS 256

/* What an epoll event points at. */
struct mssim_watch {
	enum {
		MSSIM_WATCH_LISTEN,	/* main thread */
		MSSIM_WATCH_SIGNAL,
		MSSIM_WATCH_FAILED,
		MSSIM_WATCH_INBOX,	/* a worker */
		MSSIM_WATCH_CONN,
	} kind;
	int fd;
	enum mssim_port port;	/* listeners and connections */
};

struct mssim_conn;
struct mssim_server;

/* One worker thread. Everything but `open` and `inbox_w` belongs to the worker thread alone
 * once it runs. */
struct mssim_worker {
	struct mssim_server *srv;
	unsigned index;
	pthread_t thread;
	int started;		/* thread created: join it */
	int epfd;
	struct mssim_watch inbox;	/* read end of the handoff pipe (struct mssim_handoff) */
	int inbox_w;		/* write end: the main thread's; closed to say "stop" */
	struct mssim_conn *conns;	/* this worker's open connections */
	uint64_t idle_avg_ns;	/* recent gaps between events, for wait_events() */
	/* Connections handed to this worker and not yet freed, per port: the main thread
	 * increments (before the handoff), the worker decrements; for balancing only. */
	atomic_uint open[2];
};

struct mssim_server {
	struct pqtpm_engine *engine;
	int epfd;		/* the main thread's: listeners and stop */
	struct mssim_watch listener[2];	/* indexed by enum mssim_port */
	struct mssim_watch stop;	/* signalfd for SIGINT and SIGTERM */
	struct mssim_watch failed;	/* eventfd: a worker hit a fatal error and left */
	struct mssim_worker *workers;
	unsigned nworkers;
	unsigned next_worker;	/* main thread: where the search for the least loaded starts */
	atomic_uint nconns;	/* open over all workers (the cap); main adds, workers subtract */
	unsigned next_id;	/* main thread: connection numbers in logs */
};

/* Adds delta to worker wk's open connections on port and to the server's total. */
void mssim_worker_count(struct mssim_worker *wk, enum mssim_port port, int delta);

/* Call first, before any thread exists: ignores SIGPIPE, blocks SIGINT and SIGTERM (they are
 * read from a signalfd by the main thread; every thread inherits the mask). Returns 0 or -1
 * (logged). */
int mssim_server_block_signals(void);

/* Listens on both ports and starts cfg's number of workers (mssim_config_threads()). Returns
 * 0 or -1 (logged); call mssim_server_close() either way. */
int mssim_server_open(struct mssim_server *s, struct pqtpm_engine *e,
		      const struct mssim_config *cfg);

/* Accepts until SIGINT or SIGTERM (returns 0) or a fatal error (-1, logged). */
int mssim_server_run(struct mssim_server *s);

/* Stops and joins the workers (each closes its connections, freeing their engine clients),
 * then closes the listeners. The engine can be closed after this. */
void mssim_server_close(struct mssim_server *s);

#endif
