/* SPDX-License-Identifier: Apache-2.0 */
/* page_router_profiles: the router page's CPU profiles section: per version change, what moved
 * on the busiest core between the newest profile before it and the first after it
 * (detector/profdiff.c), and the newest profile's busiest core. Reads the profiles from the
 * database on the HTTP thread; everything from routers is escaped. */
#include "config.h"
#include "web/page_router_int.h"

#include <stdlib.h>
#include <string.h>

#include "detector/profdiff.h"
#include "lib/log.h"
#include "lib/text.h"
#include "web/page.h"

#define PAGE_PROFILES_MAX 200

static void page_router_profiles_upgrade(
	buf_t *out, const struct history_event *e, profile_t *const *v, size_t n)
{
	const profile_t *before = profdiff_pick(v, n, e->time_ms, false);
	const profile_t *after = profdiff_pick(v, n, e->time_ms, true);
	buf_puts(out, "<li class=\"profdiff\">");
	page_router_change(out, e->old_version, e->new_version);
	buf_puts(out, " (");
	page_time(out, e->time_ms, "&ndash;");
	buf_puts(out, "): ");
	char *text = before && after ? profdiff_text(before, after) : NULL;
	if (text != NULL)
		text_put_html(out, text);
	else
		buf_printf(out, "<span class=\"empty\">no profile %s the upgrade yet</span>",
			before          ? "after"
				: after ? "before"
					: "before or after");
	free(text);
	buf_puts(out, "</li>\n");
}

/* The newest profile's busiest core, its classifiers by share. */
static void page_router_profiles_newest(buf_t *out, const profile_t *p)
{
	int c = profile_busiest(p);
	buf_puts(out, "<p id=\"profile-newest\">Newest profile ");
	page_time(out, p->time_ms, "&ndash;");
	if (c < 0) {
		buf_puts(out, ": no per-core rows.</p>\n");
		return;
	}
	buf_printf(out, ", busiest core cpu%d:", c);
	for (size_t i = 0, k = 0; i < p->nrows; i++) {
		if (p->rows[i].cpu != c)
			continue;
		buf_puts(out, k++ ? ", " : " ");
		text_put_html(out, p->rows[i].name);
		buf_printf(out, " %.0f %%", p->rows[i].usage);
	}
	buf_puts(out, ".</p>\n");
}

void page_router_profiles(buf_t *out, const char *database, const char *name, const history_t *h)
{
	profile_t **v = NULL;
	size_t n = 0;
	char *cause = NULL;
	buf_puts(out, "<section id=\"profiles\"><h2>CPU profiles</h2>");
	if (database == NULL || history_profiles(database, name, PAGE_PROFILES_MAX, &v, &n, &cause) < 0) {
		if (cause != NULL)
			log_warn("web: router page: %s", cause);
		free(cause);
		buf_puts(out, "<p class=\"empty\">The profiles cannot be read now.</p></section>\n");
		return;
	}
	if (n == 0)
		buf_puts(out, "<p class=\"empty\">No profile taken yet (docs/diagnostics.md).</p>");
	else
		page_router_profiles_newest(out, v[0]);
	buf_puts(out, "<ul id=\"profile-upgrades\">");
	for (size_t i = h->nevents; i-- > 0;)
		if (h->events[i].kind && h->events[i].old_version &&
			(strcmp(h->events[i].kind, "upgrade") == 0 ||
				strcmp(h->events[i].kind, "downgrade") == 0))
			page_router_profiles_upgrade(out, &h->events[i], v, n);
	buf_puts(out, "</ul></section>\n");
	history_profiles_free(v, n);
}
