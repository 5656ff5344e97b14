/* SPDX-License-Identifier: Apache-2.0 */
/* snmphealth: the varbinds of a walk of MIKROTIK-MIB's mtxrHealth made sensors: mtxrGaugeTable
 * (RouterOS 7: name, value, unit per row), else the legacy mtxrHl* scalars (docs/routeros.md).
 * Agents are untrusted: a cell of a type it cannot have is passed over, names are cleaned. */
#include "config.h"
#include "collectors/netsnmp.h"

#include "collectors/snmpdecode.h"
#include "collectors/snmphealth.h"
#include "lib/xmem.h"

#include <stdint.h>
#include <stdlib.h>

#define SNMPHEALTH_HL_N       19  /* mtxrHl* scalars are mtxrHealth.1 .. .19 */
#define SNMPHEALTH_MAX_GAUGES 256 /* rows kept: a runaway agent stops here */

/* A row of mtxrGaugeTable (mtxrHealth.100.1): name .2, value .3, unit .4. */
struct snmphealth_gauge {
	oid index;
	char *name;
	int64_t value;
	int unit; /* 1 celsius, 2 rpm, 3 dV, 4 dA, 5 dW, 6 status; 0 unknown */
	bool have_value;
};

struct snmphealth {
	struct snmphealth_gauge *gauges;
	size_t ngauges;
	int64_t hl[SNMPHEALTH_HL_N]; /* mtxrHl* by index - 1; INT64_MIN: absent */
};

/* INTEGER (signed: a temperature may be below 0) or Gauge32, as agents differ (routeros.md). */
static bool snmphealth_var_i64(const netsnmp_variable_list *v, int64_t *out)
{
	if (v->type == ASN_INTEGER)
		*out = *v->val.integer;
	else if (v->type == ASN_GAUGE || v->type == ASN_COUNTER)
		*out = (uint32_t)*v->val.integer;
	else
		return false;
	return true;
}

static struct snmphealth_gauge *snmphealth_gauge_row(snmphealth_t *h, oid index)
{
	for (size_t i = 0; i < h->ngauges; i++)
		if (h->gauges[i].index == index)
			return &h->gauges[i];
	if (h->ngauges >= SNMPHEALTH_MAX_GAUGES)
		return NULL;
	h->gauges = xreallocarray(h->gauges, h->ngauges + 1, sizeof(*h->gauges));
	h->gauges[h->ngauges] = (struct snmphealth_gauge){ .index = index };
	return &h->gauges[h->ngauges++];
}

/* A varbind of the mtxrHealth walk: a gauge cell or an mtxrHl scalar; others are passed over
 * (mtxrHlActiveFan is a string), and so is a cell of a type it cannot have. */
int snmphealth_take(snmphealth_t *h, const struct variable_list *v, size_t base_len, char **cause)
{
	const oid *x = v->name + base_len;
	size_t n = v->name_length > base_len ? v->name_length - base_len : 0;
	int64_t num;
	if (n == 2 && x[1] == 0 && x[0] >= 1 && x[0] <= SNMPHEALTH_HL_N && snmphealth_var_i64(v, &num))
		h->hl[x[0] - 1] = num;
	if (n != 4 || x[0] != 100 || x[1] != 1 || x[2] < 2 || x[2] > 4)
		return 0;
	struct snmphealth_gauge *g = snmphealth_gauge_row(h, x[3]);
	if (g == NULL)
		return 0;
	if (x[2] == 2 && v->type == ASN_OCTET_STR) {
		free(g->name);
		g->name = snmpdecode_text(v);
	}
	if (x[2] == 2 || !snmphealth_var_i64(v, &num))
		return 0;
	if (x[2] == 3)
		g->value = num, g->have_value = true;
	else
		g->unit = (int)num;
	return 0;
}

/* The gauge's unit, and the factor that turns its value into it (MikroTik's Health page). */
static bool snmphealth_gauge_unit(int unit, enum sample_unit *u, double *scale)
{
	static const struct {
		enum sample_unit u;
		double scale;
	} map[] = {
		[1] = { SAMPLE_UNIT_CELSIUS, 1 }, /* whole degrees in the table */
		[2] = { SAMPLE_UNIT_RPM, 1 },
		[3] = { SAMPLE_UNIT_VOLTS, 0.1 },
		[4] = { SAMPLE_UNIT_AMPERES, 0.1 },
		[5] = { SAMPLE_UNIT_WATTS, 0.1 },
		[6] = { SAMPLE_UNIT_STATE, 1 },
	};
	if (unit < 1 || unit > 6)
		return false;
	*u = map[unit].u, *scale = map[unit].scale;
	return true;
}

static void snmphealth_emit_gauges(const snmphealth_t *h, sample_t *s)
{
	for (size_t i = 0; i < h->ngauges; i++) {
		const struct snmphealth_gauge *g = &h->gauges[i];
		enum sample_unit u;
		double scale;
		if (g->name == NULL || !g->have_value || !snmphealth_gauge_unit(g->unit, &u, &scale))
			continue;
		/* status: 0 is ok (as third-party tools read it; the MIB does not say) */
		double value = u == SAMPLE_UNIT_STATE ? (g->value == 0) : (double)g->value * scale;
		sample_add_sensor(s, g->name, u, value);
	}
}

/* The legacy scalars (agents without the gauge table): temperatures, voltage and power in
 * tenths, current in mA, PSU state 1 = ok (MikroTik's Health page). */
static void snmphealth_emit_hl(const snmphealth_t *h, sample_t *s)
{
	static const struct {
		int index;
		const char *name;
		enum sample_unit u;
		double scale;
	} map[] = {
		{ 6, "cpu-temperature", SAMPLE_UNIT_CELSIUS, 0.1 },
		{ 7, "board-temperature1", SAMPLE_UNIT_CELSIUS, 0.1 },
		{ 8, "voltage", SAMPLE_UNIT_VOLTS, 0.1 },
		{ 10, "temperature", SAMPLE_UNIT_CELSIUS, 0.1 },
		{ 11, "processor-temperature", SAMPLE_UNIT_CELSIUS, 0.1 },
		{ 12, "power-consumption", SAMPLE_UNIT_WATTS, 0.1 },
		{ 13, "current", SAMPLE_UNIT_AMPERES, 0.001 },
		{ 15, "psu1-state", SAMPLE_UNIT_STATE, 1 },
		{ 16, "psu2-state", SAMPLE_UNIT_STATE, 1 },
		{ 17, "fan1-speed", SAMPLE_UNIT_RPM, 1 },
		{ 18, "fan2-speed", SAMPLE_UNIT_RPM, 1 },
	};
	for (size_t k = 0; k < sizeof(map) / sizeof(map[0]); k++) {
		int64_t v = h->hl[map[k].index - 1];
		if (v == INT64_MIN)
			continue;
		double value = map[k].u == SAMPLE_UNIT_STATE ? (v == 1) : (double)v * map[k].scale;
		sample_add_sensor(s, map[k].name, map[k].u, value);
	}
}

void snmphealth_clear(snmphealth_t *h)
{
	for (size_t i = 0; i < h->ngauges; i++)
		free(h->gauges[i].name);
	free(h->gauges);
	h->gauges = NULL;
	h->ngauges = 0;
	for (int i = 0; i < SNMPHEALTH_HL_N; i++)
		h->hl[i] = INT64_MIN;
}

void snmphealth_emit(const snmphealth_t *h, sample_t *s)
{
	size_t before = s->nsensors;
	s->health_fresh = true;
	snmphealth_emit_gauges(h, s);
	if (s->nsensors == before)
		snmphealth_emit_hl(h, s);
}

snmphealth_t *snmphealth_create(void)
{
	snmphealth_t *h = xcalloc(1, sizeof(*h));
	snmphealth_clear(h);
	return h;
}

void snmphealth_destroy(snmphealth_t *h)
{
	if (h == NULL)
		return;
	snmphealth_clear(h);
	free(h);
}
