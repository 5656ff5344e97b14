# SPDX-License-Identifier: Apache-2.0
# wgwatchd@.sed: makes the template unit wgwatchd@.service from wgwatchd.service.in (Makefile.am,
# tests/system/088-systemd.sh), so that both units share one sandbox. Instance K (a shard, see
# docs/scaling.md) reads /etc/wgwatch/shard-K.conf and keeps its state in /var/lib/wgwatch/K.
s|^Description=wgwatch:|Description=wgwatch shard %i:|
s|/wgwatch/wgwatch\.conf|/wgwatch/shard-%i.conf|g
s|^StateDirectory=wgwatch$|StateDirectory=wgwatch/%i|
s|/run/credentials/wgwatchd\.service/|/run/credentials/wgwatchd@%i.service/|g
