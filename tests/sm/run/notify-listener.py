#!/usr/bin/env python3
"""Stands in for systemd's side of sd_notify: binds a datagram socket at
SOCKET and appends every message to LOG, one line each, its newlines
written as '|' (READY=1|STATUS=MASTER, subnet up). Runs until killed.

    notify-listener.py SOCKET LOG &
"""
import socket
import sys

sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
sock.bind(sys.argv[1])
with open(sys.argv[2], "a", buffering=1) as out:
    while True:
        out.write(sock.recv(4096).decode().replace("\n", "|") + "\n")
