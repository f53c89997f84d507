#!/usr/bin/env python3
"""Parses an `ibsm draw` SVG with a real XML parser (so a file that is not
well-formed fails here) and prints what DrawCommandTest checks, as JSON:
every switch, link and host summary with its classes, figures and tooltip,
and the count of all elements."""
import json
import sys
import xml.etree.ElementTree as ET

NS = "{http://www.w3.org/2000/svg}"


def title(e):
    t = e.find(NS + "title")
    return t.text if t is not None else ""


def main(path):
    root = ET.parse(path).getroot()
    facts = {"elements": sum(1 for _ in root.iter()), "switches": [], "links": [], "hosts": []}
    for e in root.iter():
        cls = e.get("class", "").split()
        if e.tag == NS + "g" and "switch" in cls:
            rect = e.find(NS + "rect")
            facts["switches"].append({
                "name": e.get("data-name"), "guid": e.get("data-guid"),
                "tier": int(e.get("data-tier")), "x": float(e.get("data-x")),
                "y": float(e.get("data-y")), "classes": cls, "title": title(e),
                "labelled": e.find(NS + "text") is not None and rect is not None})
        elif e.tag == NS + "line" and "link" in cls:
            facts["links"].append({
                "classes": cls, "routes": int(e.get("data-routes")),
                "cables": int(e.get("data-cables")), "title": title(e)})
        elif e.tag == NS + "g" and "hosts" in cls:
            facts["hosts"].append({
                "switch": e.get("data-switch"), "hosts": int(e.get("data-hosts")),
                "classes": cls, "title": title(e)})
    json.dump(facts, sys.stdout)


if __name__ == "__main__":
    main(sys.argv[1])
