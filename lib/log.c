/* SPDX-License-Identifier: Apache-2.0 */
/* log: one line per message on stderr with a syslog-style "<N>" prefix that journald reads
 * as the priority, followed by the level word for humans reading a terminal. Thread-safe.
 * A message never becomes two lines: its control characters are escaped here, once for every
 * caller, so that text a router sent ("CCR\n<0>emerg: ...") cannot forge a journal line. */
#include "config.h"
#include "lib/log.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/buf.h"
#include "lib/text.h"
#include "lib/xmem.h"

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
	char *msg = xvasprintf(fmt, ap);
	va_end(ap);
	size_t n = strlen(msg);
	while (n > 0 && msg[n - 1] == '\n') /* a library's message with its own line end */
		msg[--n] = '\0';
	buf_t line;
	buf_init(&line);
	buf_printf(&line, "<%d>%s: ", prio[level], words[level]);
	text_put_oneline(&line, msg);
	buf_putc(&line, '\n');
	free(msg);
	pthread_mutex_lock(&log_mutex);
	fwrite(line.data, 1, line.len, stderr);
	fflush(stderr);
	pthread_mutex_unlock(&log_mutex);
	buf_free(&line);
}
