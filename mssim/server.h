/* pqtpm-server: the two MSSIM listeners, the accepting thread, and a thread per connection.
 *
 * The main thread owns the listeners and the SIGINT/SIGTERM signalfd. It accepts, applies the
 * connection cap and gives each new connection a thread of its own (conn.c), which serves it
 * with blocking reads and writes from its first byte to its close and touches nothing of any
 * other connection. A command, however long (an RSA-3072 key generation can take a second),
 * holds up its own connection only: every other client's thread reads, runs and answers its
 * commands meanwhile, and the engine runs their cryptography in parallel
 * (docs/engine-concurrency.md).
 *
 * Why a thread per connection: the server used to serve its connections on a fixed set of
 * worker threads (one per CPU), each with an epoll set, a connection staying on its worker;
 * a client whose command ran long stalled every other connection of its worker, engine lock
 * or not (8 clients on 2 workers: 3 clients waiting out each key generation; the test is
 * tests/integration/concurrent_clients.c). Handing a worker's other connections away while a
 * command runs long, or growing a pool on one shared epoll set when every thread has been
 * inside a command for a while, fixes that with more machinery (connections moved between
 * loops that are running, or a watchdog) and costs every command more (a shared set is
 * re-armed after each command). A thread per connection needs neither: a round trip is one
 * recv and one send on the client's own socket (the workers needed an epoll_wait too), and a
 * thread asleep in recv costs its touched stack pages; MSSIM_MAX_CONNS bounds them. The price
 * is paid with many clients busy at once: each command wakes its own thread, where a worker
 * took several ready connections per wake-up (64 clients in a tight loop on this 2-CPU VM:
 * ~15% fewer commands/s, ~40% more server CPU per command; docs/engine-concurrency.md).
 *
 * Spare threads: a thread whose client left waits for the next connection while fewer than
 * `threads` (mssim_config_threads(): one per CPU by default) already wait, else it ends. The
 * main thread hands a new connection to a waiting thread, or starts one. A tool that makes a
 * connection per run (tpm2-tools) thus meets a thread whose stack is mapped and whose caches
 * are warm, as it met a worker before: a new thread for every connection cost its first
 * commands several times their round trip.
 *
 * A client in a tight loop sends its next command microseconds after its reply went out;
 * sleeping in recv then costs a wake-up (IPI, scheduler, a VM's idle exit) on every round
 * trip, often more than the command itself. So while it is the only command connection and
 * its recent gaps were short, a connection's thread first polls its own socket for a while
 * (conn.c: receive). With two or more clients the pollers and the clients would compete for
 * the CPUs (measured with epoll workers: 2 clients on 2 CPUs swung between 26k and 73k
 * GetRandom/s with every worker polling, a steady ~70k with none), so nobody polls then.
 *
 * Stop: the main thread shuts down (shutdown(2), both ways) every open connection's socket,
 * which ends the recv or send its thread sleeps in (a command under way finishes first and
 * its answer is dropped), wakes the spare threads, then joins every thread. A thread that ends
 * before (its client left, enough spare) queues itself on `done` and says so on the `ended`
 * eventfd; the main thread joins it there, so that no finished thread keeps its stack.
 *
 * Why not a SO_REUSEPORT listener per thread: the connection cap and the connection numbers
 * would need sharing anyway, and a listener closed at stop drops the connections waiting in
 * its backlog. Accepting is rare next to round trips; one thread does it.
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

/* Open connections over both ports (each has a thread); beyond that new ones are accepted
 * and closed at once. */
#define MSSIM_MAX_CONNS 256

/* What an event of the main thread's epoll set points at. */
struct mssim_watch {
	enum {
		MSSIM_WATCH_LISTEN,
		MSSIM_WATCH_SIGNAL,
		MSSIM_WATCH_ENDED,
	} kind;
	int fd;
	enum mssim_port port;	/* listeners */
};

struct mssim_conn;

struct mssim_server {
	struct pqtpm_engine *engine;
	int epfd;		/* the main thread's: listeners, stop, ended */
	struct mssim_watch listener[2];	/* indexed by enum mssim_port */
	struct mssim_watch stop;	/* signalfd for SIGINT and SIGTERM */
	struct mssim_watch ended;	/* eventfd: a connection's thread queued itself on `done` */
	pthread_attr_t thread_attr;	/* the connection threads' (their stack size) */
	int threads_ready;	/* lock and thread_attr made */
	pthread_mutex_t lock;	/* the lists, nspare, a spare's fd */
	struct mssim_conn *conns;	/* threads serving a connection */
	struct mssim_conn *spare;	/* threads waiting for the next one */
	struct mssim_conn *done;	/* threads that ended, to join: each adds itself */
	unsigned nspare, spare_max;	/* spare_max: mssim_config_threads() */
	/* Open connections per port: main counts one in before its thread starts, the thread
	 * counts it out as it ends. Their sum is held under the cap; the command port's tells a
	 * connection's thread whether it is alone (conn.c polls only then). */
	atomic_uint open[2];
	atomic_int stopping;	/* set before the sockets are shut down: for the logs */
	unsigned next_id;	/* main thread: connection numbers in logs */
};

/* Call first, before any thread exists: ignores SIGPIPE, blocks SIGINT and SIGTERM (they are
 * read from a signalfd by the main thread; every thread inherits the mask). Returns 0 or -1
 * (logged). */
int mssim_server_block_signals(void);

/* Listens on both ports. Returns 0 or -1 (logged); call mssim_server_close() either way. */
int mssim_server_open(struct mssim_server *s, struct pqtpm_engine *e,
		      const struct mssim_config *cfg);

/* Accepts until SIGINT or SIGTERM (returns 0) or a fatal error (-1, logged). */
int mssim_server_run(struct mssim_server *s);

/* Ends every connection and joins its thread (each frees its engine client), then closes
 * the listeners. The engine can be closed after this. */
void mssim_server_close(struct mssim_server *s);

/* A connection's thread, its connection served: closes the socket; then, unless the server
 * is stopping or enough threads are spare, waits until the main thread hands it the next
 * connection (returns 1: c holds it, in conns). Else (returns 0) queues c to be joined and
 * wakes the main thread; the thread touches nothing of c after this. */
int mssim_server_next(struct mssim_server *s, struct mssim_conn *c);

#endif
