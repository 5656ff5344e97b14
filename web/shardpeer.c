/* SPDX-License-Identifier: Apache-2.0 */
/* shardpeer: reads the other shards' evidence exports with their rollout counts for the
 * rollout guard ([rollout] shards, docs/scaling.md), over libcurl's easy API with a short
 * timeout, from a thread of its own (wg-shardpeer) or once for --rollout-check. It only
 * hands the guard what it read; it must never touch the event loop, the store or the
 * database, and never log a URL or a credential. */
#include "config.h"
#include "web/shardpeer.h"

#include <curl/curl.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/shard.h"
#include "detector/evidread.h"
#include "lib/buf.h"
#include "lib/jsonr.h"
#include "lib/log.h"
#include "lib/worker.h"
#include "lib/xmem.h"

#define SHARDPEER_EVERY_MS   1000 /* the other shards are asked every [detector] every, at least this */
#define SHARDPEER_TIMEOUT_MS 5000 /* one ask at most */

struct shardpeer {
	const conf_t *conf;
	detector_t *detector;
	worker_t *worker;
	bool *down; /* per shard (index - 1): down at the last ask, to log a change once */
};

static size_t shardpeer_on_data(char *p, size_t size, size_t n, void *arg)
{
	buf_t *b = arg;
	if (b->len + size * n > EVIDREAD_MAX_BYTES)
		return 0; /* aborts: larger than a document may be */
	buf_append(b, p, size * n);
	return size * n;
}

static int shardpeer_on_progress(void *arg, curl_off_t dt, curl_off_t dn, curl_off_t ut, curl_off_t un)
{
	return worker_stopping(arg) ? 1 : 0; /* non-zero aborts the transfer */
}

/* GET base's path into *body, aborted when w (NULL: none) stops; 0, or -1 with cause[size]
 * (no URL in it). */
static int shardpeer_get(const conf_t *conf, worker_t *w, const char *base, const char *path, buf_t *body,
	char *cause, size_t size)
{
	CURL *c = curl_easy_init();
	if (c == NULL) {
		snprintf(cause, size, "cannot make a curl handle");
		return -1;
	}
	size_t bl = strlen(base);
	while (bl > 0 && base[bl - 1] == '/')
		bl--;
	char *url = xasprintf("%.*s%s", (int)bl, base, path);
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, (long)SHARDPEER_TIMEOUT_MS);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, (long)SHARDPEER_TIMEOUT_MS);
	curl_easy_setopt(c, CURLOPT_ACCEPT_ENCODING, "");
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, shardpeer_on_data);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, body);
	curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
	curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, shardpeer_on_progress);
	curl_easy_setopt(c, CURLOPT_XFERINFODATA, w);
	if (conf->web_user != NULL && conf->web_password != NULL) {
		curl_easy_setopt(c, CURLOPT_USERNAME, conf->web_user);
		curl_easy_setopt(c, CURLOPT_PASSWORD, conf->web_password);
	}
	CURLcode rc = curl_easy_perform(c);
	long status = 0;
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
	curl_easy_cleanup(c);
	free(url);
	if (rc != CURLE_OK)
		snprintf(cause, size, "%s", curl_easy_strerror(rc));
	else if (status != 200)
		snprintf(cause, size, "HTTP %ld", status);
	return rc == CURLE_OK && status == 200 ? 0 : -1;
}

/* The rows of doc's one fleet appended to out, strings copied. */
static void shardpeer_rows(const evidread_t *doc, struct rollfleet_said *out)
{
	struct evidread_rollout *rows;
	size_t n = evidread_rollout_rows(doc, 0, &rows);
	out->rows = xreallocarray(out->rows, out->nrows + n + 1, sizeof(*out->rows));
	for (size_t i = 0; i < n; i++) {
		struct evidread_rollout *w = &out->rows[out->nrows++];
		*w = rows[i];
		w->to_version = xstrdup(rows[i].to_version);
		w->architecture = rows[i].architecture ? xstrdup(rows[i].architecture) : NULL;
		w->board = rows[i].board ? xstrdup(rows[i].board) : NULL;
	}
	free(rows);
}

/* Shard k (1-based) asked: its state into *sh, its rows into out. */
static void shardpeer_one(
	const conf_t *conf, worker_t *w, int k, struct rollfleet_shard *sh, struct rollfleet_said *out)
{
	buf_t body;
	buf_init(&body);
	*sh = (struct rollfleet_shard){ .index = k };
	if (shardpeer_get(conf, w, conf->rollout_shards[k - 1], "/api/v1/evidence?rollout=yes", &body,
		    sh->cause, sizeof(sh->cause)) == 0) {
		char *why = NULL;
		evidread_t *doc = evidread_parse(body.data ? body.data : "", body.len, &why);
		if (doc == NULL)
			snprintf(sh->cause, sizeof(sh->cause), "its export is refused: %s", why);
		else if (evidread_nfleets(doc) != 1 || !evidread_has_rollout(doc, 0))
			snprintf(sh->cause, sizeof(sh->cause),
				"its export has no rollout counts (a wgwatchd older than this one?)");
		else
			shardpeer_rows(doc, out);
		sh->up = doc != NULL && sh->cause[0] == '\0';
		free(why);
		evidread_free(doc);
	}
	buf_free(&body);
}

/* Every other shard asked into *out; w (NULL: none) aborts an ask when it stops. */
static void shardpeer_ask_all(const conf_t *conf, worker_t *w, struct rollfleet_said *out)
{
	*out = (struct rollfleet_said){ 0 };
	if (conf->nrollout_shards < 2)
		return;
	out->shards = xcalloc(conf->nrollout_shards, sizeof(*out->shards));
	for (int k = 1; k <= (int)conf->nrollout_shards; k++)
		if (k != conf->shard.index)
			shardpeer_one(conf, w, k, &out->shards[out->nshards++], out);
}

void shardpeer_ask(const conf_t *conf, struct rollfleet_said *out)
{
	shardpeer_ask_all(conf, NULL, out);
}

/* The string s or NULL (JSON null, absent) copied. */
static char *shardpeer_str(const jsonr_node_t *o, const char *key)
{
	const char *s = jsonr_str(jsonr_get(o, key));
	return s ? xstrdup(s) : NULL;
}

/* router's architecture and board in the /api/v1/routers answer body[len]; 0, or -1 with cause. */
static int shardpeer_kind_of(
	const buf_t *body, const char *router, char **arch, char **board, char *cause, size_t size)
{
	jsonr_t *d = jsonr_create();
	const jsonr_node_t *a = jsonr_parse(d, body->data ? body->data : "", body->len), *hit = NULL;
	for (size_t i = 0; jsonr_is_array(a) && i < jsonr_size(a) && hit == NULL; i++) {
		const jsonr_node_t *r = jsonr_at(a, i);
		const char *name = jsonr_str(jsonr_get(r, "name"));
		hit = name && strcmp(name, router) == 0 ? r : NULL;
	}
	if (hit != NULL) {
		*arch = shardpeer_str(hit, "architecture");
		*board = shardpeer_str(hit, "board");
	} else {
		snprintf(cause, size, "%s",
			jsonr_is_array(a) ? "it does not poll the router" : "not a list of routers");
	}
	jsonr_destroy(d);
	return hit != NULL ? 0 : -1;
}

int shardpeer_router_kind(const conf_t *conf, const char *router, char **arch, char **board, char **cause)
{
	*arch = *board = NULL;
	*cause = NULL;
	int n = conf->shard.count > 1 ? conf->shard.count : 1;
	int k = (int)(shard_hash(router) % (uint32_t)n) + 1;
	if (conf->nrollout_shards < 2 || k == conf->shard.index)
		return 0;
	char why[160] = "";
	buf_t body;
	buf_init(&body);
	int rc = shardpeer_get(
		conf, NULL, conf->rollout_shards[k - 1], "/api/v1/routers", &body, why, sizeof(why));
	if (rc == 0)
		rc = shardpeer_kind_of(&body, router, arch, board, why, sizeof(why));
	buf_free(&body);
	if (rc != 0)
		*cause = xasprintf("shard %d, which polls %s: %s", k, router, why);
	return rc;
}

/* A shard's change of state logged once: down with its cause, then up again. */
static void shardpeer_log(shardpeer_t *p, const struct rollfleet_shard *sh)
{
	bool *down = &p->down[sh->index - 1];
	if (!sh->up && !*down)
		log_warn("rollout: shard %d of %zu cannot be read: %s (the guard says wait, never go, "
			 "until it can)",
			sh->index, p->conf->nrollout_shards, sh->cause);
	else if (sh->up && *down)
		log_info("rollout: shard %d of %zu can be read again", sh->index, p->conf->nrollout_shards);
	*down = !sh->up;
}

static void shardpeer_cycle(void *arg)
{
	shardpeer_t *p = arg;
	struct rollfleet_said f;
	shardpeer_ask_all(p->conf, p->worker, &f);
	if (!worker_stopping(p->worker)) {
		for (size_t i = 0; i < f.nshards; i++)
			shardpeer_log(p, &f.shards[i]);
		rollout_set_shards(detector_rollout(p->detector), &f);
	}
	rollfleet_said_clear(&f);
}

int shardpeer_start(const conf_t *conf, detector_t *detector, shardpeer_t **out, char **cause)
{
	*out = NULL;
	*cause = NULL;
	if (conf->nrollout_shards < 2 || detector == NULL)
		return 0;
	shardpeer_t *p = xcalloc(1, sizeof(*p));
	p->conf = conf;
	p->detector = detector;
	p->down = xcalloc(conf->nrollout_shards, sizeof(*p->down));
	int64_t every = conf->every_ms > SHARDPEER_EVERY_MS ? conf->every_ms : SHARDPEER_EVERY_MS;
	int err = worker_start("wg-shardpeer", every, shardpeer_cycle, p, &p->worker);
	if (err != 0) {
		*cause = xasprintf("cannot start the shards' reader: %s", strerror(err));
		free(p->down);
		free(p);
		return -1;
	}
	*out = p;
	return 0;
}

void shardpeer_stop(shardpeer_t *p)
{
	if (p == NULL)
		return;
	worker_stop(p->worker);
	free(p->down);
	free(p);
}
