#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""grafana.py: checks of the Grafana dashboard web/grafana/wgwatch.json for 095-grafana.sh.

  grafana.py check DASHBOARD METRICS   the dashboard is well-formed and every metric name in its
                                       PromQL (panels, annotations, variables) is in METRICS, a
                                       real /metrics exposition of wgwatchd; exit 1 naming the rest
  grafana.py exprs DASHBOARD [VAR=VALUE...]
                                       each PromQL expression, one a line, with the Grafana
                                       variables replaced so that Prometheus can evaluate it
                                       (All, top 10, site_label site, unless VAR=VALUE says)
  grafana.py vars DASHBOARD [VAR=VALUE...]
                                       each query variable as NAME LABEL SELECTOR, one a line,
                                       its label_values(SELECTOR, LABEL) with the variables
                                       replaced: what Grafana asks Prometheus's label API
  grafana.py ts DASHBOARD              a TypeScript module that types the dashboard with Grafana's
                                       own dashboard schema (@grafana/schema, the types Grafana
                                       generates from its CUE kinds), each panel's options and
                                       field config with its panel plugin's schema; `tsc` on it
                                       is the schema check"""
import json
import re
import sys

KEYWORDS = {"by", "without", "on", "ignoring", "group_left", "group_right", "offset", "bool",
            "and", "or", "unless", "inf", "nan", "atan2", "start", "end"}
NAME = re.compile(r'(?<![\w$.:])[a-zA-Z_:][a-zA-Z0-9_:]*')
VARS = {"__rate_interval": "1m", "__interval": "15s", "__range": "1h", "router": ".*", "job": ".*",
        "instance": ".*", "site_label": "site", "site": ".*", "top": "10"}
# $name or ${name}: a name is the longest run of word characters, as Grafana reads it, so $site
# is not the start of $site_label.
VAR_REF = re.compile(r'\$\{(\w+)\}|\$(\w+)')
LABEL_VALUES = re.compile(r'\s*label_values\(\s*(.*?)\s*,\s*(\$?\w+)\s*\)\s*')


def substitute(expr, values):
    """expr with each Grafana variable replaced by its value in values; asserts none is left."""
    out = VAR_REF.sub(lambda m: values[m.group(1) or m.group(2)], expr)
    assert "$" not in out, "a Grafana variable left in %r" % out
    return out


def query_vars(dash):
    """(name, label, selector) of each query variable: label_values(SELECTOR, LABEL)."""
    out = []
    for v in dash["templating"]["list"]:
        if v["type"] == "query" and v["name"] != "datasource":
            q = v["query"]["query"] if isinstance(v["query"], dict) else v["query"]
            m = LABEL_VALUES.fullmatch(q)
            assert m, "variable %s: only label_values(SELECTOR, LABEL) is checked: %r" % (v["name"], q)
            out.append((v["name"], m.group(2), m.group(1)))
    return out


def exprs(dash):
    """(where, expr) of every PromQL in the dashboard, repeated rows and panels included."""
    out = []

    def panels(ps):
        for p in ps:
            for t in p.get("targets", []):
                out.append(("panel %r target %s" % (p.get("title"), t.get("refId")), t["expr"]))
            panels(p.get("panels", []))
    panels(dash["panels"])
    for a in dash["annotations"]["list"]:
        if "expr" in a:
            out.append(("annotation %r" % a["name"], a["expr"]))
    for name, _, selector in query_vars(dash):
        out.append(("variable %s" % name, selector))
    return out


def names_in(expr):
    """Metric names in a PromQL expression: what is left once strings, label matchers, ranges,
    grouping lists, function names, keywords and numbers are taken out."""
    e = re.sub(r'"(?:[^"\\]|\\.)*"', '""', expr)
    e = re.sub(r'\{[^}]*\}', '', e)
    e = re.sub(r'\[[^\]]*\]', '', e)
    e = re.sub(r'\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)', ' ', e)
    e = re.sub(r'\boffset\s+-?[0-9a-z]+', ' ', e)
    found = set()
    for m in NAME.finditer(e):
        rest = e[m.end():].lstrip()
        if rest.startswith("(") or m.group(0) in KEYWORDS:
            continue
        found.add(m.group(0))
    return found


def exposed(path):
    """Family names (# TYPE) and series names of a Prometheus text exposition."""
    names = set()
    for line in open(path, encoding="utf-8"):
        if line.startswith("# TYPE "):
            fam, kind = line.split()[2:4]
            names.add(fam)
            if kind == "histogram":
                names.update(fam + s for s in ("_bucket", "_sum", "_count"))
        elif line.strip() and not line.startswith("#"):
            names.add(re.match(r'[a-zA-Z_:][a-zA-Z0-9_:]*', line).group(0))
    return names


# Every router's selector narrows by all four variables: with Router at All (.*), the site
# filter must still hold.
SELECTOR = 'job=~"$job",instance=~"$instance",$site_label=~"$site",router=~"$router"'


def check_shape(dash):
    ids = []

    def walk(ps):
        for p in ps:
            ids.append(p["id"])
            for t in p.get("targets", []):
                assert t.get("datasource", {}).get("uid") == "${datasource}", (p["title"], t)
            if p["type"] != "row":
                assert p["datasource"]["uid"] == "${datasource}", p["title"]
            walk(p.get("panels", []))
    walk(dash["panels"])
    assert len(ids) == len(set(ids)), "duplicate panel ids"
    var = {v["name"]: v for v in dash["templating"]["list"]}
    assert var["datasource"]["type"] == "datasource" and var["datasource"]["query"] == "prometheus"
    assert var["router"]["type"] == "query" and var["router"]["multi"] and var["router"]["includeAll"]
    kinds = {p["type"] for r in dash["panels"] for p in [r] + r.get("panels", [])}
    assert {"table", "heatmap", "timeseries", "stat"} <= kinds, kinds
    # A fleet of hundreds: pick by job, instance and site; per-router panels show the top N; the
    # panel repeated per router sits in a collapsed row, drawn only when opened.
    for name in ("job", "instance", "site"):
        assert var[name]["type"] == "query" and var[name]["includeAll"], name
    # The site is a config label whose name the operator chose: site_label names it, and the
    # site variable lists its values.
    assert var["site_label"]["type"] == "textbox" and var["site_label"]["query"] == "site"
    assert [v["name"] for v in dash["templating"]["list"]].index("site_label") < \
        [v["name"] for v in dash["templating"]["list"]].index("site"), "site_label after site"
    assert dict((n, lab) for n, lab, _ in query_vars(dash))["site"] == "$site_label"
    assert var["top"]["type"] == "custom", "no top-N variable"
    every = [p for r in dash["panels"] for p in [r] + r.get("panels", [])]
    assert sum("topk($top," in t["expr"] for p in every for t in p.get("targets", [])) >= 4, "top-N"
    rows = [r for r in dash["panels"] if r["type"] == "row" and r.get("collapsed")]
    assert any(p.get("repeat") == "router" for r in rows for p in r["panels"]), \
        "no panel repeats per router inside a collapsed row"
    for p in every:
        for t in p.get("targets", []):
            if "router=~" in t["expr"]:
                assert SELECTOR in t["expr"], t["expr"]
    for a in dash["annotations"]["list"]:
        assert "router=~" not in a.get("expr", "") or SELECTOR in a["expr"], a["name"]
    assert any("wgwatch_router_info" in a.get("expr", "") for a in dash["annotations"]["list"])


# Grafana's panel plugins whose schema the dashboard uses: type -> (module under raw/composable,
# whether the plugin has a custom field config; stat has none).
PANEL_CFG = {"timeseries": ("timeseries", True), "stat": ("stat", False),
             "table": ("table", True), "heatmap": ("heatmap", True)}
TS_HEAD = """// Made by tests/system/grafana.py from %s: tsc type-checks it against @grafana/schema.
import type * as D from "@grafana/schema/raw/dashboard/x/types.gen";
%s
// JSON has no enums: an enum-typed field takes the enum's values. A panel's options and field
// config may leave out what the plugin defaults (Grafana fills in the plugin's defaults).
type Num<S> = S extends `${infer N extends number}` ? N : never;
type J<T> = T extends string ? (string extends T ? string : `${T}`) : T extends number ? Num<`${T}`>
  : T extends Array<infer U> ? Array<J<U>> : T extends object ? { [K in keyof T]: J<T[K]> } : T;
// Grafana's CUE leaves an annotation and a variable open (`...`: a data source spreads its query
// into them), which the generated TypeScript cannot say: known fields are typed, others allowed.
type Open = { [key: string]: unknown };
type Dashboard = Omit<J<D.Dashboard>, "annotations" | "templating"> & {
  annotations?: { list?: Array<J<D.AnnotationQuery> & Open> };
  templating?: { list?: Array<J<D.VariableModel> & Open> };
};
type P<T> = T extends Array<infer U> ? Array<P<U>> : T extends object ? { [K in keyof T]?: P<T[K]> } : T;
"""
# The export envelope that Grafana's "Export for sharing externally" adds around a dashboard;
# the import strips it, so it is not part of the dashboard schema.
ENVELOPE = ("__inputs", "__requires", "__elements")


def ts_module(path, dash):
    """TypeScript that declares the dashboard a D.Dashboard and each panel's options and
    fieldConfig.defaults.custom its plugin's Options and FieldConfig: object literals, so that
    tsc refuses unknown keys as well as wrong types."""
    imports = "".join('import type * as %s from "@grafana/schema/raw/composable/%s/panelcfg/x/types.gen";\n'
                      % (m, m) for m, _ in sorted(PANEL_CFG.values()))
    body = {k: v for k, v in dash.items() if k not in ENVELOPE}
    out = [TS_HEAD % (path, imports), "export const dashboard: Dashboard = %s;" % json.dumps(body, indent=1)]
    for p in (p for r in dash["panels"] for p in [r] + r.get("panels", [])):
        if p["type"] == "row":
            continue
        assert p["type"] in PANEL_CFG, "panel %r: no schema for type %s here (PANEL_CFG)" % (p["title"], p["type"])
        m, has_custom = PANEL_CFG[p["type"]]
        out.append("export const options_%d: P<J<%s.Options>> = %s;" % (p["id"], m, json.dumps(p.get("options", {}))))
        custom = p.get("fieldConfig", {}).get("defaults", {}).get("custom")
        assert has_custom or custom is None, "panel %r: %s has no custom field config" % (p["title"], p["type"])
        if has_custom:
            out.append("export const custom_%d: P<J<%s.FieldConfig>> = %s;" % (p["id"], m, json.dumps(custom or {})))
    return "\n".join(out) + "\n"


def main(argv):
    dash = json.load(open(argv[2], encoding="utf-8"))
    if argv[1] == "ts":
        sys.stdout.write(ts_module(argv[2], dash))
        return 0
    if argv[1] in ("exprs", "vars"):
        values = dict(VARS, **dict(a.split("=", 1) for a in argv[3:]))
        if argv[1] == "exprs":
            for _, e in exprs(dash):
                print(substitute(e, values))
        else:
            for name, label, selector in query_vars(dash):
                print(name, substitute(label, values), substitute(selector, values))
        return 0
    check_shape(dash)
    have = exposed(argv[3])
    bad, used = [], set()
    for where, e in exprs(dash):
        n = names_in(e)
        assert n, "%s: no metric name in %r" % (where, e)
        used |= n
        bad += ["%s: %s" % (where, x) for x in sorted(n - have)]
    if bad:
        print("metric names not in the /metrics output:\n  " + "\n  ".join(bad), file=sys.stderr)
        return 1
    print("%d expressions, %d metric names, all exposed: %s" %
          (len(exprs(dash)), len(used), " ".join(sorted(used))))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
