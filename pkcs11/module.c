/* C_Initialize, C_Finalize, C_GetInfo: the module's state, its lock, fork. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pqtpm/engine.h>

#include "p11.h"

struct p11_module p11;

/* The lock: a pthread mutex, or the application's mutex callbacks when it gives them
 * without CKF_OS_LOCKING_OK (the spec asks the library to use them then). */
static pthread_mutex_t os_lock = PTHREAD_MUTEX_INITIALIZER;
static CK_C_INITIALIZE_ARGS app_locking;
static void *app_mutex;

static void lock(void)
{
	if (app_mutex)
		app_locking.LockMutex(app_mutex);
	else
		pthread_mutex_lock(&os_lock);
}

static void unlock(void)
{
	if (app_mutex)
		app_locking.UnlockMutex(app_mutex);
	else
		pthread_mutex_unlock(&os_lock);
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
	unlock();
}

CK_RV p11_done(CK_RV rv)
{
	unlock();
	return rv;
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

/* A child of a process that had initialized the module starts from nothing: its copies of the
 * parent's connection and store belong to the parent (they are dropped, not closed), and a
 * lock some other thread of the parent held at fork is made anew. */
static void forget_parent(void)
{
	pthread_mutex_t fresh = PTHREAD_MUTEX_INITIALIZER;

	memcpy(&os_lock, &fresh, sizeof(os_lock));
	app_mutex = NULL;
	memset(&p11, 0, sizeof(p11));
	p11_objects_forget();
	p11_tpm_forget();
}

CK_RV C_Initialize(CK_VOID_PTR pInitArgs)
{
	CK_C_INITIALIZE_ARGS *a = pInitArgs;
	struct p11_conf conf;
	CK_RV rv;

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
		void *m = NULL;

		app_locking = *a;
		if (a->CreateMutex(&m) != CKR_OK || !m) {
			unlock();
			return CKR_CANT_LOCK;
		}
		/* from here on the application's mutex guards the module (ours is let go) */
		unlock();
		app_mutex = m;
		lock();
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

CK_RV C_Finalize(CK_VOID_PTR pReserved)
{
	void *m;
	size_t i;

	if (pReserved)
		return CKR_ARGUMENTS_BAD;
	if (p11_enter() != CKR_OK)
		return CKR_CRYPTOKI_NOT_INITIALIZED;
	for (i = 0; i < p11.ntokens; i++)
		p11_session_close_all(p11.tokens[i].id);
	for (i = 0; i < p11.ntokens; i++) {
		p11_objects_drop_slot(p11.tokens[i].id);
		p11_logout(&p11.tokens[i]);
	}
	p11_tpm_close();
	p11_store_close(p11.store);
	memset(&p11, 0, sizeof(p11));
	m = app_mutex;
	app_mutex = NULL;
	if (m) {
		app_locking.UnlockMutex(m);
		app_locking.DestroyMutex(m);
		return CKR_OK;
	}
	unlock();
	return CKR_OK;
}

CK_RV C_GetInfo(CK_INFO_PTR pInfo)
{
	CK_RV rv = p11_enter();

	if (rv != CKR_OK)
		return rv;
	if (!pInfo)
		return p11_done(CKR_ARGUMENTS_BAD);
	memset(pInfo, 0, sizeof(*pInfo));
	pInfo->cryptokiVersion.major = 3;
	pInfo->cryptokiVersion.minor = 0;
	p11_pad(pInfo->manufacturerID, sizeof(pInfo->manufacturerID), "pqtpm");
	p11_pad(pInfo->libraryDescription, sizeof(pInfo->libraryDescription),
		"pqtpm PKCS#11 module (TPM 2.0)");
	pInfo->libraryVersion.major = P11_LIB_VERSION_MAJOR;
	pInfo->libraryVersion.minor = P11_LIB_VERSION_MINOR;
	return p11_done(CKR_OK);
}
