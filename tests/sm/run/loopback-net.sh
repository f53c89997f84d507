#!/usr/bin/env bash
# Writes the radix-8 tree of tests/data/topologies with two spare ports of
# edge0_0, [9] and [10], cabled to each other: a loopback cable.
#
#   loopback-net.sh CLEAN.net OUT.net
set -euo pipefail
awk '$0 == "Switch\t8 \"edge0_0\"" { $0 = "Switch\t10 \"edge0_0\""; in_edge = 1 }
     { print }
     in_edge && $0 == "[8]\t\"agg0_3\"[1]" {
       print "[9]\t\"edge0_0\"[10]"; print "[10]\t\"edge0_0\"[9]"; in_edge = 0; done = 1 }
     END { if (!done) exit 1 }' "$1" >"$2.tmp"
mv "$2.tmp" "$2"
