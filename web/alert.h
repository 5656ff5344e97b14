/* SPDX-License-Identifier: Apache-2.0 */
/* alert: the optional direct push of the detector's findings to Alertmanager's v2 API
 * ([alert] alertmanager = URL). A thread of its own turns each new detector view into alerts
 * (WgwatchUpgradeRegression, WgwatchSingleCoreBound, WgwatchCapacityLow,
 * WgwatchCapacityExhaustedSoon) labelled and annotated as the shipped Prometheus rules do
 * theirs, posts them when they start or end and again every `resend` while they hold, and
 * retries a failed push with back-off. It never runs on the event loop, so a slow or dead
 * Alertmanager cannot delay polling. */
#ifndef WGWATCH_ALERT_H
#define WGWATCH_ALERT_H

#include <stdbool.h>
#include <stdint.h>

#include "daemon/conf.h"
#include "detector/detector.h"

typedef struct alert alert_t;

/* Start the push thread when conf->alert_url is set; *out is NULL (and 0 returned) when it is
 * not. conf and detector (NULL: nothing to push) must outlive the module. -1 with *cause
 * (caller frees). */
int alert_start(const conf_t *conf, detector_t *detector, alert_t **out, char **cause);
void alert_stop(alert_t *a); /* aborts a push in flight, joins the thread; NULL is fine */

/* Whether regression verdict v may alert at now_ms (wall clock): once it is final, or once it
 * has held ([detector] hold) since reached_ms; hold_ms 0 alerts at once. */
bool alert_due(const struct detector_verdict *v, int64_t now_ms, int64_t hold_ms);

#endif
