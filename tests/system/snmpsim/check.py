# SPDX-License-Identifier: Apache-2.0
"""check.py SNMPREC METRICS_A METRICS_B: the assertions of 061-snmpsim.sh in one process (a
Python start costs a lot on a loaded CI machine). A and B are two /metrics scrapes at least a
few polls apart. Routers: hub (SNMP, the .snmprec), twin (REST, wgwatch-sim), retries0/1.
Prints "ok: ..." lines; exits 1 with "FAIL: ..." at the first failed check."""
import os
import sys

sys.dont_write_bytecode = True   # no __pycache__ in the source tree (distcheck: read-only)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
import expo  # noqa: E402

REST_ONLY = ('wgwatch_wireguard_peer_', 'wgwatch_cpu_core_irq_ratio', 'wgwatch_memory_', 'wgwatch_disk_',
             'wgwatch_health_',  # health: the twin's sensors are the sim's own; see check_health
             'wgwatch_router_menu_up',  # the optional REST menus (docs/routeros.md 2.3)
             # what the SNMP poll does not read (docs/snmp.md): errors, queue drops, link downs,
             # MTU and the CPU clock; left out for an SNMP router, not exported as 0
             'wgwatch_interface_receive_errors_total', 'wgwatch_interface_transmit_errors_total',
             'wgwatch_interface_transmit_queue_drops_total', 'wgwatch_interface_link_downs_total',
             'wgwatch_interface_mtu_bytes', 'wgwatch_cpu_frequency_hertz')
IFACES = {'ether1': 1, 'wg0': 9, 'wg1': 10, 'wg2': 11}   # name: ifIndex in the .snmprec
IFHC = {'receive': 6, 'transmit': 10}                    # ifHCIn/OutOctets columns


def fail(msg):
    print('FAIL: 061-snmpsim: ' + msg)
    sys.exit(1)


def values(series, name, **want):
    return [float(v) for n, labels, v in series
            if n == name and all(labels.get(k) == w for k, w in want.items())]


def one(series, name, **want):
    v = values(series, name, **want)
    if len(v) != 1:
        fail('%s %s: %d series' % (name, want, len(v)))
    return v[0]


def snmprec(path):
    recs = {}
    with open(path) as f:
        for line in f:
            oid, tag, value = line.rstrip('\n').split('|', 2)
            recs[oid] = (tag, value)
    return recs


def served_rate(recs, col, index):
    tag, value = recs['1.3.6.1.2.1.31.1.1.1.%d.%d' % (col, index)]
    settings = dict(kv.split('=') for kv in value.split(','))
    return float(settings['rate'])


def check_families(s):
    fam = {r: sorted({n for n, labels, _ in s if labels.get('router') == r
                      and not n.startswith(REST_ONLY)}) for r in ('hub', 'twin')}
    if fam['hub'] != fam['twin']:
        fail('metric families differ: snmp %s, rest %s' % (fam['hub'], fam['twin']))
    if values(s, 'wgwatch_wireguard_peer_receive_bytes_total', router='hub'):
        fail('peers from SNMP?')
    if not values(s, 'wgwatch_wireguard_peer_receive_bytes_total', router='twin'):
        fail('no REST peers for the twin')
    ifs = {r: sorted(labels['interface'] for n, labels, _ in s
                     if n == 'wgwatch_interface_receive_bytes_total' and labels['router'] == r)
           for r in ('hub', 'twin')}
    if ifs['hub'] != sorted(IFACES) or ifs['twin'] != ifs['hub']:
        fail('interfaces: snmp %s, rest %s' % (ifs['hub'], ifs['twin']))
    print('ok: the same %d metric families and interfaces %s over SNMP and REST (REST adds %s)'
          % (len(fam['hub']), ' '.join(ifs['hub']), ', '.join(REST_ONLY)))


def check_cores(s, recs):
    loads = [int(v) for o, (t, v) in sorted(recs.items(), key=lambda kv: [int(x) for x in kv[0].split('.')])
             if o.startswith('1.3.6.1.2.1.25.3.3.1.2.')]
    if len(loads) != 9 or len(values(s, 'wgwatch_cpu_core_load_ratio', router='hub')) != 9:
        fail('not 9 cores')
    for i, pct in enumerate(loads):
        got = one(s, 'wgwatch_cpu_core_load_ratio', router='hub', core=str(i))
        rest = one(s, 'wgwatch_cpu_core_load_ratio', router='twin', core=str(i))
        if abs(got - pct / 100) > 1e-9 or abs(rest - got) > 1e-9:
            fail('core %d: snmp %s, rest %s, served %d%%' % (i, got, rest, pct))
    print('ok: 9 per-core loads equal the served hrProcessorLoad (%s) and the REST twin\'s'
          % ' '.join(map(str, loads)))


def check_info(s, recs):
    want = {k: recs['1.3.6.1.4.1.14988.1.1.' + o][1] for k, o in
            (('version', '4.4.0'), ('firmware', '7.4.0'), ('board', '7.9.0'))}
    for r in ('hub', 'twin'):
        if values(s, 'wgwatch_router_info', router=r, **want) != [1.0]:
            fail('%s: no wgwatch_router_info with %s' % (r, want))
        if one(s, 'wgwatch_router_firmware_upgrade_available', router=r) != 1:
            fail('%s: upgrade firmware not seen' % r)
    up = one(s, 'wgwatch_router_uptime_seconds', router='hub')
    if not 259200 <= up < 259200 + 300:
        fail('hub uptime %s' % up)
    print('ok: version, firmware, board, upgrade firmware as served (%s); uptime %.0f s'
          % (' '.join('%s=%s' % kv for kv in sorted(want.items())), up))


def check_growth(a, b, recs):
    """Counter increase per second of the agent's own clock (sysUpTime, a numeric variation
    too), so the daemon's scheduling on a loaded machine does not enter."""
    dt = one(b, 'wgwatch_router_uptime_seconds', router='hub') - \
        one(a, 'wgwatch_router_uptime_seconds', router='hub')
    if dt < 3:
        fail('scrapes only %s s of agent uptime apart' % dt)
    for name, index in sorted(IFACES.items()):
        got = []
        for d, col in sorted(IFHC.items()):
            metric = 'wgwatch_interface_%s_bytes_total' % d
            rate = (one(b, metric, router='hub', interface=name) -
                    one(a, metric, router='hub', interface=name)) / dt
            want = served_rate(recs, col, index)
            if not (rate > 0 and abs(rate - want) <= 0.05 * want):
                fail('%s %s: %.0f B/s over %.2f s, the counter grows at %.0f B/s' % (name, d, rate, dt, want))
            got.append('%.0f' % rate)
        print('ok: %s: rx/tx grow at %s B/s over %.1f s (served %.0f/%.0f, within 5%%)'
              % (name, '/'.join(got), dt, served_rate(recs, 6, index), served_rate(recs, 10, index)))


def check_retries(s):
    if values(s, 'wgwatch_poll_errors_total', router='retries1'):
        fail('retries1 has poll errors')
    if values(s, 'wgwatch_poll_errors_total', router='retries0', kind='timeout') != [1.0]:
        fail('retries0: want one timeout, got %s' % values(s, 'wgwatch_poll_errors_total', router='retries0'))
    print('ok: a lost first request: answered with snmp_retries = 1, one timeout with 0')


def check_health(s, recs):
    """The .snmprec's one mtxrGaugeTable row (INTEGER, unit 1): a sensor of whole degrees."""
    name = recs['1.3.6.1.4.1.14988.1.1.3.100.1.2.17'][1]
    want = float(recs['1.3.6.1.4.1.14988.1.1.3.100.1.3.17'][1])
    got = values(s, 'wgwatch_health_temperature_celsius', router='hub')
    if got != [want] or one(s, 'wgwatch_health_temperature_celsius', router='hub', sensor=name) != want:
        fail('health over SNMP: %s, served %s = %s' % (got, name, want))
    print('ok: the gauge table\'s %s = %g over SNMP' % (name, want))


def main():
    recs = snmprec(sys.argv[1])
    a, _ = expo.parse(sys.argv[2])
    b, _ = expo.parse(sys.argv[3])
    check_families(b)
    check_cores(b, recs)
    check_health(b, recs)
    check_info(b, recs)
    check_growth(a, b, recs)
    check_retries(b)


if __name__ == '__main__':
    main()
