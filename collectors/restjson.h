/* SPDX-License-Identifier: Apache-2.0 */
/* restjson: a RouterOS REST reply parsed (by simdjson, from C++: restjson.cc) into a read-only tree whose nodes and strings
 * live in one reusable document, so a steady poll allocates nothing to decode. Only what
 * restdecode and restdiag need: objects, arrays, strings, numbers, and "something else" for the
 * other values. */
#ifndef WGWATCH_RESTJSON_H
#define WGWATCH_RESTJSON_H

#include <stdbool.h>
#include <stddef.h>

typedef struct restjson restjson_t;
typedef struct restjson_node restjson_node_t;

/* An empty document; grows to its largest reply and keeps that room. */
restjson_t *restjson_create(void);
void restjson_destroy(restjson_t *d);
/* Parses body (len bytes) into d, dropping its previous tree. The root, or NULL when body is not
 * one JSON value in UTF-8, a string or key holds a NUL (\u0000), an object repeats a key, a
 * number is beyond a double's or 64-bit range, or nesting is deeper than 64. */
const restjson_node_t *restjson_parse(restjson_t *d, const char *body, size_t len);

/* The accessors take NULL (absent) and answer false, 0 or NULL to it. */
bool restjson_is_object(const restjson_node_t *n);
bool restjson_is_array(const restjson_node_t *n);
bool restjson_is_string(const restjson_node_t *n);
/* Elements of an array, members of an object, else 0. */
size_t restjson_size(const restjson_node_t *n);
/* Element or member i (in document order), or NULL past the end. */
const restjson_node_t *restjson_at(const restjson_node_t *n, size_t i);
/* The key of member i of an object, or NULL. */
const char *restjson_key(const restjson_node_t *n, size_t i);
/* The member of an object named key, or NULL. It moves a lookup cursor kept in the document:
 * one document is read by one thread at a time (restdecode keeps one per thread). */
const restjson_node_t *restjson_get(const restjson_node_t *n, const char *key);
/* A number's value into *v (true), else false. */
bool restjson_num(const restjson_node_t *n, double *v);
/* Whether n is a number written without fraction or exponent. */
bool restjson_is_integer(const restjson_node_t *n);
/* A string's text (NUL-terminated), else NULL. */
const char *restjson_str(const restjson_node_t *n);

#endif
