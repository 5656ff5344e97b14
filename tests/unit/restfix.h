/* SPDX-License-Identifier: Apache-2.0 */
/* restfix: canned RouterOS REST replies (docs/routeros.md §2) that the decoder tests read and
 * the transport tests' stand-in router serves. Header-only, for tests; it must never hold a
 * reply no RouterOS version sends. */
#ifndef WGWATCH_TESTS_RESTFIX_H
#define WGWATCH_TESTS_RESTFIX_H

static const char RESOURCE[] =
	"{\"architecture-name\":\"arm64\",\"board-name\":\"CCR2004-16G-2S+\",\"cpu\":\"ARM64\","
	"\"cpu-count\":\"4\",\"cpu-frequency\":\"1700\",\"uptime\":\"1w4d23h26m9s\",\"version\":\"7.19.2 (stable)\"}";

static const char CPU[] = "[{\".id\":\"*2\",\"cpu\":\"cpu2\",\"load\":\"0\",\"irq\":\"0\"},"
			  "{\".id\":\"*A\",\"cpu\":\"cpu10\",\"load\":\"100\",\"irq\":\"2\"},"
			  "{\".id\":\"*0\",\"cpu\":\"cpu0\",\"load\":\"3\",\"irq\":\"1\"},"
			  "{\".id\":\"*1\",\"cpu\":\"cpu1\",\"load\":\"12.5\"}]";

static const char BOARD[] =
	"{\"current-firmware\":\"7.19.2\",\"factory-firmware\":\"7.0.4\",\"model\":\"CCR2004-16G-2S+\","
	"\"routerboard\":\"true\",\"upgrade-firmware\":\"7.19.4\"}";

static const char IFACES[] =
	"[{\".id\":\"*23\",\"name\":\"wg0\",\"type\":\"wg\",\"rx-byte\":\"47538416\","
	"\"tx-byte\":\"70563654783\",\"rx-packet\":\"404315\",\"tx-packet\":\"5243956\","
	"\"rx-drop\":\"1\",\"tx-drop\":\"2\",\"running\":\"true\",\"disabled\":\"false\"}]";

static const char IFACES2[] =
	"[{\"name\":\"wg0\",\"type\":\"wg\",\"rx-byte\":\"1\",\"tx-byte\":\"2\",\"running\":\"false\"},"
	"{\"name\":\"sfp1\",\"type\":\"ether\",\"rx-byte\":\"3\",\"tx-byte\":\"4\",\"running\":\"true\"}]";

static const char PEERS[] =
	"[{\".id\":\"*3\",\"interface\":\"wg0\",\"name\":\"branch-lj\",\"comment\":\"site B\","
	"\"public-key\":\"klTy6VO+Bh9OY0tsI7uAxZdSywAWcIGZb3m21vFvZ5M=\",\"last-handshake\":\"1m23s\","
	"\"rx\":\"8395000\",\"tx\":\"58834536\"},"
	"{\".id\":\"*4\",\"interface\":\"wg0\",\"comment\":\"laptop\",\"public-key\":\"8OLF=\","
	"\"rx\":\"0\",\"tx\":\"0\"},"
	"{\".id\":\"*5\",\"interface\":\"wg1\",\"name\":\"\",\"public-key\":\"Zm9v=\","
	"\"last-handshake\":\"2d00:00:01\",\"rx\":\"18446744073709551615\",\"tx\":\"5\"}]";

/* RouterOS 7: rows of name, value, type (routeros.md §2.7); a type the decoder does not know
 * falls back to the name, a row of no known kind is passed over. */
static const char HEALTH7[] =
	"[{\".id\":\"*E\",\"name\":\"temperature\",\"value\":\"46\",\"type\":\"C\"},"
	"{\".id\":\"*11\",\"name\":\"cpu-temperature\",\"value\":\"58\",\"type\":\"C\"},"
	"{\".id\":\"*D\",\"name\":\"voltage\",\"value\":\"24.1\",\"type\":\"V\"},"
	"{\".id\":\"*1B59\",\"name\":\"fan1-speed\",\"value\":\"6090\",\"type\":\"RPM\"},"
	"{\".id\":\"*1CE9\",\"name\":\"psu1-state\",\"value\":\"ok\",\"type\":\"\"},"
	"{\".id\":\"*1CEA\",\"name\":\"psu2-state\",\"value\":\"fail\",\"type\":\"\"},"
	"{\".id\":\"*20\",\"name\":\"psu1-current\",\"value\":\"1.5\",\"type\":\"A\"},"
	"{\".id\":\"*21\",\"name\":\"power-consumption\",\"value\":\"36.2\",\"type\":\"W\"},"
	"{\".id\":\"*22\",\"name\":\"board-temperature1\",\"value\":\"40\",\"type\":\"deg\"},"
	"{\".id\":\"*23\",\"name\":\"fan-mode\",\"value\":\"auto\",\"type\":\"\"}]";

/* Older builds: one flat record, no types. */
static const char HEALTH6[] = "{\"voltage\":\"24.3\",\"temperature\":\"33\",\"fan-mode\":\"auto\","
			      "\"use-fan\":\"main\",\"active-fan\":\"main\",\"fan1-speed\":\"4500\","
			      "\"psu1-state\":\"ok\",\"state\":\"enabled\"}";

/* ---- decoders ---- */

#endif
