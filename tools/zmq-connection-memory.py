#!/usr/bin/python3
"""What one libzmq connection costs the socket that accepts it (docs/PERFORMANCE.md, "The leader's
memory per node"): a ROUTER (the coordinator's command socket) or a PUB (its event socket) in one
process, N DEALERs or SUBs in another, plaintext or CURVE, and a ROUTER under CURVE with a ZAP handler
answering each handshake (as the coordinator's binds each node's key to its id); the accepting
process's RSS growth over N. The system libzmq through Debian's python3-zmq (`make deps` installs it).

  /usr/bin/python3 tools/zmq-connection-memory.py [N]     # default 2000; prints one line per case
"""
import multiprocessing
import resource
import sys
import time

import zmq


def rss_kilobytes():
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS"):
                return int(line.split()[1])
    raise RuntimeError("no VmRSS")


def server(kind, count, curve, zap, port, ready, result):
    context = zmq.Context(1)
    context.set(zmq.MAX_SOCKETS, count + 100)
    if zap:
        # pyzmq's ZAP handler on inproc://zeromq.zap.01, admitting any client key.
        from zmq.auth.thread import ThreadAuthenticator
        authenticator = ThreadAuthenticator(context)
        authenticator.start()
        authenticator.configure_curve(domain="*", location=zmq.auth.CURVE_ALLOW_ANY)
    socket = context.socket(zmq.ROUTER if kind == "router" else zmq.PUB)
    if curve:
        socket.curve_server = True
        socket.curve_secretkey = curve[1]
    socket.bind(f"tcp://127.0.0.1:{port}")
    base = rss_kilobytes()
    ready.set()
    peers = set()
    deadline = time.time() + 60
    while time.time() < deadline:
        if kind == "router":
            if socket.poll(100):
                frames = socket.recv_multipart()
                peers.add(frames[0])
                socket.send_multipart([frames[0], b"x" * 100])
            if len(peers) >= count:
                break
        else:
            # Subscriptions arrive as messages on the PUB's connections: count the subscribers by
            # their effect (each one's pipe exists once it subscribed), then publish to them.
            socket.send_multipart([b"hb", b"x" * 100])
            time.sleep(0.1)
            if result.get("subscribed", 0) >= count:
                break
    time.sleep(2)
    result["kilobytes"] = (rss_kilobytes() - base) / count


def clients(kind, count, curve, port, done, result):
    context = zmq.Context(1)
    context.set(zmq.MAX_SOCKETS, count + 100)
    sockets = []
    for k in range(count):
        socket = context.socket(zmq.DEALER if kind == "router" else zmq.SUB)
        socket.linger = 0
        if curve:
            public, secret = zmq.curve_keypair()
            socket.curve_serverkey = curve[0]
            socket.curve_publickey = public
            socket.curve_secretkey = secret
        if kind == "router":
            socket.setsockopt(zmq.IDENTITY, b"node-%05d" % k)
            socket.connect(f"tcp://127.0.0.1:{port}")
            socket.send(b"hello")
        else:
            socket.setsockopt(zmq.SUBSCRIBE, b"hb")
            socket.connect(f"tcp://127.0.0.1:{port}")
        sockets.append(socket)
    if kind == "pub":
        # Every SUB heard a publication: its subscription reached the PUB.
        heard = 0
        for socket in sockets:
            if socket.poll(20000):
                socket.recv_multipart()
                heard += 1
        result["subscribed"] = heard
    done.wait(90)
    for socket in sockets:
        socket.close()


def measure(kind, count, curve, zap, port):
    manager = multiprocessing.Manager()
    result = manager.dict()
    ready, done = multiprocessing.Event(), multiprocessing.Event()
    keys = zmq.curve_keypair() if curve else None
    serving = multiprocessing.Process(target=server, args=(kind, count, keys, zap, port, ready, result))
    serving.start()
    ready.wait(10)
    connecting = multiprocessing.Process(target=clients, args=(kind, count, keys, port, done, result))
    connecting.start()
    serving.join(90)
    done.set()
    connecting.join(10)
    if "kilobytes" not in result:
        raise SystemExit(f"{kind}: the {count} connections were not all made")
    return result["kilobytes"]


def main():
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    resource.setrlimit(resource.RLIMIT_NOFILE, (20000, 20000))
    print(f"libzmq {zmq.zmq_version()}, {count} connections a case: the accepting process's RSS growth per connection")
    cases = [("router", False, False), ("router", True, False), ("router", True, True), ("pub", False, False), ("pub", True, False)]
    for port, (kind, curve, zap) in enumerate(cases, start=17731):
        kilobytes = measure(kind, count, curve, zap, port)
        name = "CURVE + ZAP" if zap else "CURVE" if curve else "plain"
        print(f"{kind.upper():6} {name:11}  {kilobytes:.1f} kB a connection")


if __name__ == "__main__":
    main()
