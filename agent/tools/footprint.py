#!/usr/bin/python3
"""Footprint of the C display agent beside the Swift display node, in one run (docs/PERFORMANCE.md).

Starts one cluster (`camsync cluster up`) with a device and two displays attached to it:
display-c (agent: c) and display-swift (camsync node). Measures each display process's RSS and
CPU while idle, then while following RATE commands/s (set_pressure on the device's camera, sent
by the admin: every batch reaches every node), and prints a table.

usage: /usr/bin/python3 agent/tools/footprint.py CAMSYNC_BINARY [SECONDS] [RATE]
"""
import os, subprocess, sys, tempfile, time

camsync = os.path.abspath(sys.argv[1])
seconds = float(sys.argv[2]) if len(sys.argv) > 2 else 20
rate = float(sys.argv[3]) if len(sys.argv) > 3 else 100
root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

work = tempfile.mkdtemp(prefix="camsync-footprint-")
subprocess.run(["protoc", "-I", os.path.join(root, "proto"), "--python_out", work]
               + [os.path.join(d, f) for d, _, fs in os.walk(os.path.join(root, "proto")) for f in fs],
               check=True)
sys.path.insert(0, work)
import zmq  # noqa: E402
from camsync.v1 import envelope_pb2, capture_pb2  # noqa: E402

topology = os.path.join(work, "footprint.yaml")
with open(topology, "w") as f:
    f.write(f"""name: footprint
coordinator: {{ commands: "ipc://{work}/c.sock", events: "ipc://{work}/e.sock", durability: normal }}
settings: {{ heartbeatMs: 500, liveness: 3 }}
security: {{ curve: false }}
nodes:
  - {{ id: ipad-1, kind: device, device: {{ os: 16, cameras: [ {{ name: front, position: front }} ] }} }}
  - {{ id: display-c, kind: display, agent: c, display: {{ attachedTo: ipad-1, cameras: [ {{ name: cam }} ] }} }}
  - {{ id: display-swift, kind: display, display: {{ attachedTo: ipad-1, cameras: [ {{ name: cam }} ] }} }}
""")
run_dir = os.path.join(work, "run")
subprocess.run([camsync, "cluster", "up", topology, "--run-dir", run_dir], check=True, stdout=subprocess.DEVNULL)


def pid(name):
    with open(os.path.join(run_dir, name + ".pid")) as f:
        return int(f.read().strip())


def sample(p):
    with open(f"/proc/{p}/status") as f:
        rss = next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))
    with open(f"/proc/{p}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    ticks = int(fields[11]) + int(fields[12])
    return rss, ticks / os.sysconf("SC_CLK_TCK")


def measure(phase, duration, drive=None):
    pids = {name: pid(name) for name in ("display-c", "display-swift")}
    start = {n: sample(p) for n, p in pids.items()}
    began = time.monotonic()
    sent = 0
    while time.monotonic() - began < duration:
        if drive:
            sent += drive()
            time.sleep(max(0.0, began + sent / rate - time.monotonic()))
        else:
            time.sleep(0.1)
    elapsed = time.monotonic() - began
    end = {n: sample(p) for n, p in pids.items()}
    return {n: (end[n][0], 100 * (end[n][1] - start[n][1]) / elapsed) for n in pids}, sent


context = zmq.Context()
dealer = context.socket(zmq.DEALER)
dealer.connect(f"ipc://{work}/c.sock")
request_id = [int(time.time() * 1000) << 16]
levels = [capture_pb2.SYSTEM_PRESSURE_LEVEL_SERIOUS, capture_pb2.SYSTEM_PRESSURE_LEVEL_NOMINAL]


def drive():
    request_id[0] += 1
    envelope = envelope_pb2.Envelope(protocol_version=1, sender="admin", request_id=request_id[0])
    command = envelope.command.set_pressure
    command.camera_system.builtin_device = "ipad-1"
    command.level = levels[request_id[0] % 2]
    dealer.send(envelope.SerializeToString())
    while dealer.poll(0):
        dealer.recv()
    return 1


try:
    time.sleep(2)
    idle, _ = measure("idle", seconds)
    loaded, sent = measure("following", seconds, drive)
finally:
    subprocess.run([camsync, "cluster", "down", topology, "--run-dir", run_dir], stdout=subprocess.DEVNULL)

agent = os.path.join(os.path.dirname(camsync), "camsync-display-agent")
sizes = {"display-c": os.path.getsize(agent), "display-swift": os.path.getsize(camsync)}
print(f"| | C agent (display-c) | Swift node (display-swift) |")
print(f"|---|---|---|")
print(f"| binary size | {sizes['display-c'] / 1024:.0f} KiB | {sizes['display-swift'] / 1048576:.1f} MiB |")
print(f"| RSS idle | {idle['display-c'][0] / 1024:.1f} MiB | {idle['display-swift'][0] / 1024:.1f} MiB |")
print(f"| CPU idle | {idle['display-c'][1]:.2f} % | {idle['display-swift'][1]:.2f} % |")
print(f"| RSS following {rate:.0f} events/s | {loaded['display-c'][0] / 1024:.1f} MiB | {loaded['display-swift'][0] / 1024:.1f} MiB |")
print(f"| CPU following {rate:.0f} events/s | {loaded['display-c'][1]:.2f} % | {loaded['display-swift'][1]:.2f} % |")
print(f"({sent} commands in {seconds:.0f} s; CPU = user+system time / wall time of one core)")
