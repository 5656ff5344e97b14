/* SPDX-License-Identifier: Apache-2.0 */
/* invlist: a file_sd target file as read, before any of it is judged: its groups, each with its
 * targets, its labels and the lines they stood on. The JSON and YAML readers (invjson, invyaml)
 * fill it; confinv builds routers from it, the one way for both formats. It must never judge a
 * target or a label: each is kept as written, for confinv to check once. */
#ifndef WGWATCH_INVLIST_H
#define WGWATCH_INVLIST_H

#include <stdbool.h>
#include <stddef.h>

struct invlist_target {
	char *s; /* NULL: not a string */
	int line;
};

struct invlist_label {
	char *name;
	char *value; /* NULL: not a string */
};

struct invlist_group {
	int line;
	bool not_map;     /* the group is no map of keys: nothing else is set */
	bool has_targets; /* a targets key whose value is a list */
	bool bad_labels;  /* a labels key whose value is no map */
	char *unknown;    /* the first key other than targets and labels, or NULL */
	struct invlist_target *targets;
	size_t ntargets;
	struct invlist_label *labels;
	size_t nlabels;
};

typedef struct invlist {
	struct invlist_group *groups;
	size_t ngroups;
} invlist_t;

/* A new empty group of l at line; the pointer holds until the next invlist_group(). */
struct invlist_group *invlist_group(invlist_t *l, int line);
/* Adds target s of n bytes (NULL: a value that is no string) at line to g. */
void invlist_target(struct invlist_group *g, const char *s, size_t n, int line);
/* Adds label name (nn bytes) = value (vn bytes; NULL: a value that is no string) to g. */
void invlist_label(struct invlist_group *g, const char *name, size_t nn, const char *value, size_t vn);
/* Keeps key (n bytes) as g's unknown key, unless g has one already. */
void invlist_unknown(struct invlist_group *g, const char *key, size_t n);
/* Frees what l holds and empties it. */
void invlist_free(invlist_t *l);

#endif
