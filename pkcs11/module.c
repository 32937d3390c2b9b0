/* C_Initialize, C_Finalize, C_GetInfo: the module's state, its locks, fork. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <pqtpm/engine.h>

#include "p11.h"

struct p11_module p11;

/* The locks: the module's (0) and one per TPM connection (1 + i), pthread mutexes or the
 * application's mutex callbacks when it gives them without CKF_OS_LOCKING_OK (the spec asks
 * the library to use them then). The module's pthread mutex is also what C_Initialize takes
 * before it knows which kind the application wants. */
#define P11_LOCKS (1 + P11_MAX_CONNS)
static pthread_mutex_t os_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t os_conn_locks[P11_MAX_CONNS];
static CK_C_INITIALIZE_ARGS app_locking;
static void *app_mutex[P11_LOCKS]; /* [0] set: the application's mutexes are used */

static pthread_mutex_t *os_mutex(unsigned which)
{
	return which ? &os_conn_locks[which - 1] : &os_lock;
}

void p11_mutex_lock(unsigned which)
{
	if (app_mutex[0])
		app_locking.LockMutex(app_mutex[which]);
	else
		pthread_mutex_lock(os_mutex(which));
}

void p11_mutex_unlock(unsigned which)
{
	if (app_mutex[0])
		app_locking.UnlockMutex(app_mutex[which]);
	else
		pthread_mutex_unlock(os_mutex(which));
}

static void lock(void)
{
	p11_mutex_lock(0);
}

static void unlock(void)
{
	p11_mutex_unlock(0);
}

CK_RV p11_enter(void)
{
	lock();
	if (!p11.initialized || p11.pid != getpid()) {
		unlock();
		return CKR_CRYPTOKI_NOT_INITIALIZED;
	}
	return CKR_OK;
}

void p11_leave(void)
{
	p11_conn_give_held();
	unlock();
}

CK_RV p11_done(CK_RV rv)
{
	p11_leave();
	return rv;
}

/* The application's mutexes, all or none: CKR_OK or CKR_CANT_LOCK. */
static CK_RV app_mutexes_create(const CK_C_INITIALIZE_ARGS *a, void *m[P11_LOCKS])
{
	unsigned i;

	for (i = 0; i < P11_LOCKS; i++) {
		m[i] = NULL;
		if (a->CreateMutex(&m[i]) != CKR_OK || !m[i]) {
			while (i--)
				a->DestroyMutex(m[i]);
			return CKR_CANT_LOCK;
		}
	}
	return CKR_OK;
}

static CK_RV check_args(const CK_C_INITIALIZE_ARGS *a)
{
	int given = (a->CreateMutex != NULL) + (a->DestroyMutex != NULL) + (a->LockMutex != NULL) +
		    (a->UnlockMutex != NULL);

	if (a->pReserved)
		return CKR_ARGUMENTS_BAD;
	if (given != 0 && given != 4)
		return CKR_ARGUMENTS_BAD;
	return CKR_OK;
}

/* The engine's and the client library's messages go where the module's go. */
static void engine_log(void *arg, enum pqtpm_log_level level, const char *msg)
{
	p11_log((int)level, "%s", msg);
}

static void tss_log(void *arg, int level, const char *msg)
{
	p11_log(level, "%s", msg);
}

/* In a child: a lock another thread of the parent held at fork is made anew, so that the
 * child's calls find the module uninitialized (p11.pid is the parent's) instead of waiting
 * for ever; the application's mutexes are the parent's. The rest waits for C_Initialize. */
static void in_child(void)
{
	pthread_mutex_t fresh = PTHREAD_MUTEX_INITIALIZER;

	memcpy(&os_lock, &fresh, sizeof(os_lock));
	memset(app_mutex, 0, sizeof(app_mutex));
}

static pthread_once_t fork_once = PTHREAD_ONCE_INIT;

static void watch_forks(void)
{
	pthread_atfork(NULL, NULL, in_child);
}

/* A child of a process that had initialized the module starts from nothing: its copies of the
 * parent's connections and store belong to the parent (they are dropped, not closed). */
static void forget_parent(void)
{
	memset(&p11, 0, sizeof(p11));
	p11_objects_forget();
	p11_conns_forget();
}

CK_RV C_Initialize(CK_VOID_PTR pInitArgs)
{
	CK_C_INITIALIZE_ARGS *a = pInitArgs;
	void *m[P11_LOCKS];
	struct p11_conf conf;
	unsigned i;
	CK_RV rv;

	pthread_once(&fork_once, watch_forks);
	if (p11.initialized && p11.pid != getpid())
		forget_parent();
	if (a) {
		rv = check_args(a);
		if (rv != CKR_OK)
			return rv;
	}
	rv = p11_conf_load(&conf);
	if (rv != CKR_OK)
		return rv;
	lock();
	if (p11.initialized) {
		unlock();
		return CKR_CRYPTOKI_ALREADY_INITIALIZED;
	}
	if (a && a->CreateMutex && !(a->flags & CKF_OS_LOCKING_OK)) {
		app_locking = *a;
		if (app_mutexes_create(a, m) != CKR_OK) {
			unlock();
			return CKR_CANT_LOCK;
		}
		/* from here on the application's mutexes guard the module (ours is let go) */
		unlock();
		memcpy(app_mutex, m, sizeof(app_mutex));
		lock();
	} else {
		for (i = 0; i < P11_MAX_CONNS; i++)
			pthread_mutex_init(&os_conn_locks[i], NULL);
	}
	memset(&p11, 0, sizeof(p11));
	p11.conf = conf;
	p11.pid = getpid();
	p11.next_handle = 1;
	p11_log_init(conf.log_level);
	pqtpm_log_set_handler(engine_log, NULL);
	pqtpm_log_set_level(conf.log_level < 0 ? PQTPM_LOG_ERROR
					       : (enum pqtpm_log_level)conf.log_level);
	pqtpm_tss_set_log(tss_log, NULL);
	p11.initialized = true;
	unlock();
	return CKR_OK;
}

/* Calls in progress on other threads (a TPM step outside the module lock) end first; calls
 * that come meanwhile find the module finalized. */
static void wait_for_steps(void)
{
	const struct timespec pause = { 0, 100000 }; /* 0.1 ms */

	p11_conn_give_held();
	while (p11_conns_busy()) {
		unlock();
		nanosleep(&pause, NULL);
		lock();
	}
}

CK_RV C_Finalize(CK_VOID_PTR pReserved)
{
	void *m[P11_LOCKS];
	unsigned i;

	if (pReserved)
		return CKR_ARGUMENTS_BAD;
	if (p11_enter() != CKR_OK)
		return CKR_CRYPTOKI_NOT_INITIALIZED;
	p11.initialized = false;
	wait_for_steps();
	for (i = 0; i < p11.ntokens; i++)
		p11_session_close_all(p11.tokens[i].id);
	for (i = 0; i < p11.ntokens; i++) {
		p11_objects_drop_slot(p11.tokens[i].id);
		p11_logout(&p11.tokens[i]);
	}
	p11_conns_close();
	p11_store_close(p11.store);
	memset(&p11, 0, sizeof(p11));
	memcpy(m, app_mutex, sizeof(m));
	if (m[0]) {
		memset(app_mutex, 0, sizeof(app_mutex));
		app_locking.UnlockMutex(m[0]);
		for (i = 0; i < P11_LOCKS; i++)
			app_locking.DestroyMutex(m[i]);
		return CKR_OK;
	}
	for (i = 0; i < P11_MAX_CONNS; i++)
		pthread_mutex_destroy(&os_conn_locks[i]);
	unlock();
	return CKR_OK;
}

/* cryptokiVersion is "the Cryptoki interface version number" (CK_INFO): the version of the
 * function list the application called through, so that one that asked for the 2.40 list (by
 * C_GetFunctionList) is told the 2.40 it knows. */
static CK_RV get_info(CK_INFO_PTR pInfo, CK_BYTE major, CK_BYTE minor)
{
	CK_RV rv = p11_enter();

	if (rv != CKR_OK)
		return rv;
	if (!pInfo)
		return p11_done(CKR_ARGUMENTS_BAD);
	memset(pInfo, 0, sizeof(*pInfo));
	pInfo->cryptokiVersion.major = major;
	pInfo->cryptokiVersion.minor = minor;
	p11_pad(pInfo->manufacturerID, sizeof(pInfo->manufacturerID), "pqtpm");
	p11_pad(pInfo->libraryDescription, sizeof(pInfo->libraryDescription),
		"pqtpm PKCS#11 module (TPM 2.0)");
	pInfo->libraryVersion.major = P11_LIB_VERSION_MAJOR;
	pInfo->libraryVersion.minor = P11_LIB_VERSION_MINOR;
	return p11_done(CKR_OK);
}

CK_RV C_GetInfo(CK_INFO_PTR pInfo)
{
	return get_info(pInfo, 3, 2);
}

CK_RV p11_get_info_30(CK_INFO_PTR pInfo)
{
	return get_info(pInfo, 3, 0);
}

CK_RV p11_get_info_240(CK_INFO_PTR pInfo)
{
	return get_info(pInfo, 2, 40);
}
