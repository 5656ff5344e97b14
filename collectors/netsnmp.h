/* SPDX-License-Identifier: Apache-2.0 */
/* netsnmp: net-snmp's headers, included once for every file that speaks SNMP. net-snmp's own
 * config header defines PACKAGE_* too, so ours are dropped first: a file that includes this
 * must not use PACKAGE_NAME and friends (include it after "config.h"). */
#ifndef WGWATCH_NETSNMP_H
#define WGWATCH_NETSNMP_H

#undef PACKAGE_BUGREPORT
#undef PACKAGE_NAME
#undef PACKAGE_STRING
#undef PACKAGE_TARNAME
#undef PACKAGE_URL
#undef PACKAGE_VERSION
#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>

#endif
