/* SPDX-License-Identifier: Apache-2.0 */
/* log: leveled messages to stderr (journald keeps them). Never given secrets: callers pass
 * router names and reasons, never passwords, communities or keys. */
#ifndef WGWATCH_LOG_H
#define WGWATCH_LOG_H

enum log_level { LOG_LVL_ERROR = 0, LOG_LVL_WARN, LOG_LVL_INFO, LOG_LVL_DEBUG };

void log_set_level(enum log_level level); /* default LOG_LVL_INFO */
enum log_level log_get_level(void);
void log_msg(enum log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define log_error(...) log_msg(LOG_LVL_ERROR, __VA_ARGS__)
#define log_warn(...)  log_msg(LOG_LVL_WARN, __VA_ARGS__)
#define log_info(...)  log_msg(LOG_LVL_INFO, __VA_ARGS__)
#define log_debug(...) log_msg(LOG_LVL_DEBUG, __VA_ARGS__)

#endif
