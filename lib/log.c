/* log: one line per message on stderr with a syslog-style "<N>" prefix that journald reads
 * as the priority, followed by the level word for humans reading a terminal. Thread-safe. */
#include "config.h"
#include "lib/log.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>

static enum log_level log_level = LOG_LVL_INFO;
static pthread_mutex_t log_mutex = PTHREAD_MUTEX_INITIALIZER;

void log_set_level(enum log_level level)
{
	log_level = level;
}
enum log_level log_get_level(void)
{
	return log_level;
}

void log_msg(enum log_level level, const char *fmt, ...)
{
	static const char *const words[] = { "error", "warning", "info", "debug" };
	static const int prio[] = { 3, 4, 6, 7 };
	if (level > log_level)
		return;
	va_list ap;
	va_start(ap, fmt);
	pthread_mutex_lock(&log_mutex);
	fprintf(stderr, "<%d>%s: ", prio[level], words[level]);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	fflush(stderr);
	pthread_mutex_unlock(&log_mutex);
	va_end(ap);
}
