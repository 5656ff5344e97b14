/* page: the server-rendered HTML pages (no JavaScript needed). For now the fleet page at "/":
 * every router one row, worst first. Everything a router says is escaped for HTML text or
 * attributes; nothing from the config but names and labels is shown. */
#ifndef WGWATCH_PAGE_H
#define WGWATCH_PAGE_H

#include "buf.h"
#include "fleet.h"

void page_fleet(fleet_t *fleet, buf_t *out);   /* reads through a fleet view */
void page_css(buf_t *out);                      /* the stylesheet served at /static/wgwatch.css */

/* Append s as HTML text or attribute value: & < > " ' escaped, invalid UTF-8 replaced. */
void page_escape(buf_t *out, const char *s);

#endif
