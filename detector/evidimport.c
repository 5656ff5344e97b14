/* SPDX-License-Identifier: Apache-2.0 */
/* evidimport: the files of [evidence] files read (each at most EVIDREAD_MAX_BYTES), checked by
 * evidread, each fleet id taken once (the newest export) and the fleet's own id left out, and
 * summed per cohort and direction. A refused file is logged once per change of it (its size,
 * time or inode). It must never use a file evidread refused, never count a fleet twice, and
 * never change the fleet's own verdicts. */
#include "config.h"
#include "detector/evidimport.h"
#include "detector/evidread.h"
#include "detector/stats.h"
#include "lib/log.h"
#include "lib/xmem.h"

#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <math.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A file as last read: to log its refusal (or its use) once per change. */
struct evidimport_file {
	char *path;
	struct stat st;
	bool ok;
};

struct evidimport {
	struct evidimport_file *files;
	size_t nfiles;
};

struct evidimport_set {
	atomic_int refs;
	struct evidimport_cohort *cohorts;
	size_t ncohorts, nfleets, nfiles;
};

/* A fleet's winning export: the document it is taken from. */
struct evidimport_win {
	const char *id, *generated;
	size_t doc, seq; /* the document, and the order the fleet was read in */
};

/* The ratios behind each cohort's medians while they are summed. */
struct evidimport_acc {
	double *tx, *rx;
	size_t ntx, nrx, cap;
};

evidimport_t *evidimport_create(void)
{
	return xcalloc(1, sizeof(evidimport_t));
}

static void evidimport_files_free(struct evidimport_file *f, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(f[i].path);
	free(f);
}

void evidimport_free(evidimport_t *im)
{
	if (im != NULL) {
		evidimport_files_free(im->files, im->nfiles);
		free(im);
	}
}

/* Whether path was last seen, unchanged, with the same outcome. */
static bool evidimport_seen(const evidimport_t *im, const char *path, const struct stat *st, bool ok)
{
	for (size_t i = 0; i < im->nfiles; i++)
		if (strcmp(im->files[i].path, path) == 0)
			return im->files[i].ok == ok && im->files[i].st.st_ino == st->st_ino &&
				im->files[i].st.st_dev == st->st_dev &&
				im->files[i].st.st_size == st->st_size &&
				im->files[i].st.st_mtim.tv_sec == st->st_mtim.tv_sec &&
				im->files[i].st.st_mtim.tv_nsec == st->st_mtim.tv_nsec;
	return false;
}

/* The text of the file at fd (of st) into *text, *len; NULL with the reason. */
static char *evidimport_slurp(int fd, const struct stat *st, char **text, size_t *len)
{
	if (!S_ISREG(st->st_mode))
		return xstrdup("not a regular file");
	if (st->st_size > (off_t)EVIDREAD_MAX_BYTES)
		return xasprintf("%lld bytes: more than the %u an evidence document may have",
			(long long)st->st_size, (unsigned)EVIDREAD_MAX_BYTES);
	*text = xmalloc((size_t)st->st_size + 1);
	*len = 0;
	for (ssize_t n; *len <= (size_t)st->st_size; *len += (size_t)n) {
		n = read(fd, *text + *len, (size_t)st->st_size + 1 - *len);
		if (n < 0 && errno == EINTR)
			n = 0;
		else if (n < 0)
			return xasprintf("cannot read: %s", strerror(errno));
		else if (n == 0)
			break;
	}
	return *len > (size_t)st->st_size ? xstrdup("it grew while read") : NULL;
}

/* One file read and checked: the document, or NULL with the refusal logged once. */
static evidread_t *evidimport_read(
	const evidimport_t *im, const char *path, struct evidimport_file *rec, size_t *total)
{
	char *text = NULL, *why = NULL;
	size_t len = 0;
	evidread_t *doc = NULL;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	memset(&rec->st, 0, sizeof(rec->st));
	if (fd < 0 || fstat(fd, &rec->st) != 0)
		why = xasprintf("cannot open: %s", strerror(errno));
	else if (*total + (size_t)rec->st.st_size > EVIDIMPORT_MAX_TOTAL)
		why = xasprintf("the files before it hold %zu bytes: with it, more than the %u all may have",
			*total, (unsigned)EVIDIMPORT_MAX_TOTAL);
	else if ((why = evidimport_slurp(fd, &rec->st, &text, &len)) == NULL)
		doc = evidread_parse(text, len, &why);
	*total += doc != NULL ? len : 0;
	if (fd >= 0)
		close(fd);
	free(text);
	rec->path = xstrdup(path);
	rec->ok = doc != NULL;
	if (!evidimport_seen(im, path, &rec->st, rec->ok)) {
		if (doc == NULL)
			log_warn("evidence: %s: refused: %s", path, why);
		else
			log_info("evidence: %s: %zu fleet(s)", path, evidread_nfleets(doc));
	}
	free(why);
	return doc;
}

/* Fleet id, then generated, then the order read: the last of an id's run is its winner. */
static int evidimport_win_cmp(const void *x, const void *y)
{
	const struct evidimport_win *a = x, *b = y;
	int c = strcmp(a->id, b->id);
	c = c ? c : strcmp(a->generated, b->generated);
	return c ? c : (a->seq > b->seq) - (a->seq < b->seq);
}

static int evidimport_win_id_cmp(const void *x, const void *y)
{
	return strcmp(((const struct evidimport_win *)x)->id, ((const struct evidimport_win *)y)->id);
}

/* Each fleet id's newest export across docs[0..n) (later wins a tie), own left out, sorted by
 * id; *nw. By
 * sorting, not by a search per fleet: hostile files of many fleets must not take the detector's
 * thread quadratic time. */
static struct evidimport_win *evidimport_winners(
	evidread_t *const *docs, size_t n, const char *own, size_t *nw)
{
	size_t cap = 0, k = 0;
	for (size_t d = 0; d < n; d++)
		cap += docs[d] ? evidread_nfleets(docs[d]) : 0;
	struct evidimport_win *w = xcalloc(cap + 1, sizeof(*w));
	for (size_t d = 0; d < n; d++)
		for (size_t i = 0; docs[d] && i < evidread_nfleets(docs[d]); i++) {
			struct evidimport_win x = { .doc = d, .seq = k };
			x.id = evidread_fleet_at(docs[d], i, &x.generated);
			if (own == NULL || strcmp(x.id, own) != 0)
				w[k++] = x;
		}
	if (k > 1)
		qsort(w, k, sizeof(*w), evidimport_win_cmp);
	*nw = 0;
	for (size_t i = 0; i < k; i++)
		if (i + 1 == k || strcmp(w[i].id, w[i + 1].id) != 0)
			w[(*nw)++] = w[i];
	return w;
}

static bool evidimport_eq(const char *a, const char *b)
{
	return a == b || (a != NULL && b != NULL && strcmp(a, b) == 0);
}

/* Whether c's cohort is in s already. */
static bool evidimport_has(const evidimport_set_t *s, const struct evidread_cohort *c)
{
	return evidimport_find(s, c->from_version, c->to_version, c->architecture, c->board) != NULL;
}

/* The cohort of c in s, added when new; its accumulator index is the same. */
static size_t evidimport_find_add(
	evidimport_set_t *s, struct evidimport_acc **acc, const struct evidread_cohort *c)
{
	for (size_t i = 0; i < s->ncohorts; i++) {
		const struct evidimport_cohort *x = &s->cohorts[i];
		if (evidimport_eq(x->from_version, c->from_version) &&
			evidimport_eq(x->to_version, c->to_version) &&
			evidimport_eq(x->architecture, c->architecture) && evidimport_eq(x->board, c->board))
			return i;
	}
	s->cohorts = xreallocarray(s->cohorts, s->ncohorts + 1, sizeof(*s->cohorts));
	*acc = xreallocarray(*acc, s->ncohorts + 1, sizeof(**acc));
	(*acc)[s->ncohorts] = (struct evidimport_acc){ 0 };
	s->cohorts[s->ncohorts] = (struct evidimport_cohort){ .from_version = xstrdup(c->from_version),
		.to_version = xstrdup(c->to_version),
		.architecture = c->architecture ? xstrdup(c->architecture) : NULL,
		.board = c->board ? xstrdup(c->board) : NULL };
	return s->ncohorts++;
}

static void evidimport_add_dir(
	struct evidimport_dir *d, const struct evidread_tally *t, double *ratios, size_t *nr)
{
	d->fleets += t->judged > 0;
	d->fleets_regressed += t->regressed > 0;
	d->routers += (size_t)t->routers;
	d->judged += (size_t)t->judged;
	d->regressed += (size_t)t->regressed;
	d->improved += (size_t)t->improved;
	d->unchanged += (size_t)t->unchanged;
	if (isfinite(t->median))
		ratios[(*nr)++] = t->median;
}

/* One fleet's cohort c into s. */
static void evidimport_add(evidimport_set_t *s, struct evidimport_acc **accs, const struct evidread_cohort *c)
{
	size_t i = evidimport_find_add(s, accs, c);
	struct evidimport_acc *a = &(*accs)[i];
	if (a->ntx == a->cap || a->nrx == a->cap) {
		a->cap = a->cap ? 2 * a->cap : 4;
		a->tx = xreallocarray(a->tx, a->cap, sizeof(double));
		a->rx = xreallocarray(a->rx, a->cap, sizeof(double));
	}
	s->cohorts[i].fleets++;
	evidimport_add_dir(&s->cohorts[i].tx, &c->tx, a->tx, &a->ntx);
	evidimport_add_dir(&s->cohorts[i].rx, &c->rx, a->rx, &a->nrx);
}

static int evidimport_null_cmp(const char *a, const char *b)
{
	return a == NULL || b == NULL ? (a != NULL) - (b != NULL) : strcmp(a, b);
}

static int evidimport_cohort_cmp(const void *pa, const void *pb)
{
	const struct evidimport_cohort *a = pa, *b = pb;
	int c = strcmp(a->to_version, b->to_version);
	if (c == 0)
		c = evidimport_null_cmp(a->architecture, b->architecture);
	if (c == 0)
		c = evidimport_null_cmp(a->board, b->board);
	return c != 0 ? c : strcmp(a->from_version, b->from_version);
}

/* The winners' cohorts of docs summed into a new set. */
static evidimport_set_t *evidimport_sum(evidread_t *const *docs, size_t n, const char *own)
{
	evidimport_set_t *s = xcalloc(1, sizeof(*s));
	atomic_init(&s->refs, 1);
	size_t nw;
	struct evidimport_win *w = evidimport_winners(docs, n, own, &nw);
	struct evidimport_acc *accs = NULL;
	bool capped = false;
	for (size_t d = 0; d < n; d++) { /* each document walked once */
		struct evidread_at at = { 0 };
		struct evidread_cohort c;
		while (docs[d] && evidread_next(docs[d], &at, &c)) {
			struct evidimport_win key = { .id = c.fleet };
			const struct evidimport_win *win = bsearch(
				&key, w, nw, sizeof(*w), evidimport_win_id_cmp);
			if (win == NULL || win->doc != d)
				continue; /* our own, or a fleet whose newer export is elsewhere */
			if (s->ncohorts < EVIDIMPORT_MAX_COHORTS || evidimport_has(s, &c))
				evidimport_add(s, &accs, &c);
			else
				capped = true;
		}
	}
	if (capped)
		log_warn("evidence: more than %d cohorts in the files: the rest left out",
			EVIDIMPORT_MAX_COHORTS);
	for (size_t i = 0; i < s->ncohorts; i++) {
		s->cohorts[i].tx.median = stats_median_take(accs[i].tx, accs[i].ntx);
		s->cohorts[i].rx.median = stats_median_take(accs[i].rx, accs[i].nrx);
	}
	free(accs);
	if (s->ncohorts > 1) /* qsort's array may not be NULL, even for none */
		qsort(s->cohorts, s->ncohorts, sizeof(*s->cohorts), evidimport_cohort_cmp);
	s->nfleets = nw;
	free(w);
	return s;
}

evidimport_set_t *evidimport_load(evidimport_t *im, const char *pattern, const char *own)
{
	glob_t g = { 0 };
	int rc = pattern != NULL ? glob(pattern, GLOB_ERR, NULL, &g) : GLOB_NOMATCH;
	size_t n = rc == 0 ? g.gl_pathc : 0, used = 0;
	if (n > EVIDIMPORT_MAX_FILES) {
		log_warn("evidence: %s: %zu files, only the first %d read", pattern, n, EVIDIMPORT_MAX_FILES);
		n = EVIDIMPORT_MAX_FILES;
	}
	if (rc != 0 && rc != GLOB_NOMATCH)
		log_warn("evidence: %s: cannot list the files", pattern);
	evidread_t **docs = xcalloc(n + 1, sizeof(*docs));
	struct evidimport_file *recs = xcalloc(n + 1, sizeof(*recs));
	size_t total = 0;
	for (size_t i = 0; i < n; i++) {
		docs[i] = evidimport_read(im, g.gl_pathv[i], &recs[i], &total);
		used += docs[i] != NULL;
	}
	evidimport_set_t *s = evidimport_sum(docs, n, own);
	s->nfiles = used;
	for (size_t i = 0; i < n; i++)
		evidread_free(docs[i]);
	free(docs);
	evidimport_files_free(im->files, im->nfiles);
	im->files = recs;
	im->nfiles = n;
	if (rc == 0)
		globfree(&g);
	return s;
}

evidimport_set_t *evidimport_ref(evidimport_set_t *s)
{
	if (s != NULL)
		atomic_fetch_add(&s->refs, 1);
	return s;
}

void evidimport_unref(evidimport_set_t *s)
{
	if (s == NULL || atomic_fetch_sub(&s->refs, 1) != 1)
		return;
	for (size_t i = 0; i < s->ncohorts; i++) {
		free(s->cohorts[i].from_version);
		free(s->cohorts[i].to_version);
		free(s->cohorts[i].architecture);
		free(s->cohorts[i].board);
	}
	free(s->cohorts);
	free(s);
}

size_t evidimport_ncohorts(const evidimport_set_t *s)
{
	return s != NULL ? s->ncohorts : 0;
}

const struct evidimport_cohort *evidimport_cohort(const evidimport_set_t *s, size_t i)
{
	return &s->cohorts[i];
}

const struct evidimport_cohort *evidimport_find(
	const evidimport_set_t *s, const char *from, const char *to, const char *arch, const char *board)
{
	for (size_t i = 0; i < evidimport_ncohorts(s); i++) {
		const struct evidimport_cohort *k = &s->cohorts[i];
		if (evidimport_eq(k->from_version, from) && evidimport_eq(k->to_version, to) &&
			evidimport_eq(k->architecture, arch) && evidimport_eq(k->board, board))
			return k;
	}
	return NULL;
}

size_t evidimport_nfleets(const evidimport_set_t *s)
{
	return s != NULL ? s->nfleets : 0;
}

size_t evidimport_nfiles(const evidimport_set_t *s)
{
	return s != NULL ? s->nfiles : 0;
}
