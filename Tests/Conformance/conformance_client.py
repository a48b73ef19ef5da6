#!/usr/bin/python3
"""camsync conformance client: a device node written from docs/PROTOCOL.md and the .proto files alone.

It uses pyzmq and classes that `protoc --python_out` generates into a temporary directory at run
time (nothing generated is committed), joins a running CURVE cluster as the device node `py-ipad`
over wire protocol 2 and checks, one line per check:

  a. late join: open its DEALER (routing id `py-ipad`) to the coordinator, wait for any message pushed
     on it (at worst the heartbeat that answers its node_heartbeat), register_node,
     snapshot_request{only_my_group}: its device group's part of the state (docs/PROTOCOL.md "Following
     one group"); heartbeat at the interval the snapshot announces; not declared dead for 3 x the
     liveness timeout;
  b. follows batches: its own commands' EventBatch is pushed on its DEALER with the ack's sequence,
     events decoded, each naming the group's previous batch;
  c. replay after a forced gap: dropped batches are detected by the group's previous pointers and
     replayed (replay_request{group}), byte-identical to what was pushed on the DEALER, each following
     the one before in the group;
  d. takeover: a DEALER with another node's key claiming routing id `py-ipad` does not get the
     route (no reply, nothing pushed to it; the real client keeps its replies and its pushed feed and
     stays alive); a DEALER with that key, its own routing id and sender `py-ipad` gets
     ERROR_CODE_FORBIDDEN echoing its request id;
  e. foreign attach: attach_display for a display of the cluster -> ERROR_CODE_FORBIDDEN;
  f. a malformed frame whose request id is readable -> an error reply echoing it;
  g. a lost last batch of an idle group shows in the group's bookmark (pushed with its feed) and is
     replayed, byte-identical to what was pushed on the DEALER;
  h. reads beyond its own group are refused under CURVE: a snapshot or replay of another group
     (--other-group) or of the whole state -> ERROR_CODE_FORBIDDEN; its own group named explicitly is served;
  i. (run after c: d leaves the intruder's key suspended) the event endpoint (--events) is for admin
     observers only: a SUB with its key subscribed to `ev.`, the empty topic, `all` and its own feed
     (`ev.py-ipad` + a zero byte) receives nothing, not even its own group's batch that its DEALER
     receives; another group's batch (the intruder key registering its node) never arrives on its
     DEALER before a later batch of its own group does.

Protocol 2: every envelope it sends has protocol_version 2, and one received with another version is
a failure. A node has no SUB socket: on its DEALER a reply is one frame [Envelope], and the leader
pushes the node's feed as two frames [topic, Envelope], the topic being `ev.<node>` + a zero byte for
its group's batches and bookmarks, `hb` for coordinator heartbeats.

With several coordinators (SPEC K6; --commands and --events take comma-separated lists) it follows
the leader as PROTOCOL.md "Several coordinators" says, in protocol 2: a DEALER (same routing id, the
--coordinator-key as the CURVE server key) to every command endpoint, all kept open and all polled, what
is pushed on any of them handled alike; requests on the DEALER of the coordinator followed, the leader
that heartbeats and NOT_LEADER replies name; on following a new leader, requests pending resent at once
on its already-open DEALER with their ids (a leader named at an endpoint not in --commands gets a DEALER
of its own, kept open too); NOT_LEADER retried rather than taken as an answer; anything under a lower
term than seen ignored. A standby followed first pushes nothing and answers no node_heartbeat, so when
nothing is pushed for a liveness timeout check a registers all the same (its NOT_LEADER names the
leader) and waits for a push before the snapshot. The event endpoints serve check i only.

Exit status 0 if every check passed, 1 if one failed, 2 on a usage or setup error.
Needs Debian's python3-zmq and python3-protobuf (`make deps`) and protoc.
"""

import argparse
import glob
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import traceback

try:
    import zmq
    from zmq.utils.monitor import recv_monitor_message
    from google.protobuf.message import DecodeError
except ImportError as error:  # pragma: no cover - setup problem, not a check
    print(f"SETUP: {error}: install python3-zmq and python3-protobuf (run `make deps`)", file=sys.stderr)
    sys.exit(2)

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# Envelope.protocol_version of everything sent; anything received with another version is an error.
PROTOCOL_VERSION = 2


class CheckFailed(Exception):
    pass


class RunTimeout(Exception):
    pass


def generate_classes(proto_dir, protoc):
    """protoc --python_out into a temp dir; returns (tempdir, module namespace)."""
    out = tempfile.mkdtemp(prefix="camsync-pb-")
    protos = sorted(glob.glob(os.path.join(proto_dir, "camsync", "v1", "*.proto")))
    if not protos:
        raise SystemExit(f"SETUP: no .proto files under {proto_dir}/camsync/v1")
    result = subprocess.run([protoc, "-I", proto_dir, f"--python_out={out}"] + protos,
                            capture_output=True, text=True, timeout=30)
    if result.returncode != 0:
        raise SystemExit(f"SETUP: protoc failed: {result.stderr.strip()}")
    sys.path.insert(0, out)
    from camsync.v1 import (app_pb2, command_pb2, envelope_pb2, event_pb2, heartbeat_pb2, identifiers_pb2,
                            node_pb2, reply_pb2, sync_pb2)

    class PB:
        pass

    pb = PB()
    for module in (app_pb2, command_pb2, envelope_pb2, event_pb2, heartbeat_pb2, identifiers_pb2, node_pb2,
                   reply_pb2, sync_pb2):
        setattr(pb, module.__name__.rsplit(".", 1)[1], module)
    return out, pb


def read_key(path):
    with open(path, "rb") as handle:
        text = handle.read().strip()
    if len(text) != 40:
        raise SystemExit(f"SETUP: {path} does not hold a Z85 CURVE key (40 characters)")
    return text


class Client:
    """One node's view of the coordinators: a CURVE DEALER (routing id = node id) to each (protocol 2: no SUB).

    Everything is single-threaded: `pump` polls every DEALER (and any extra DEALER a check uses),
    records the batches, bookmarks and heartbeats pushed on them and the replies, and sends a
    node_heartbeat on the DEALER followed whenever nothing was sent for one heartbeat interval.
    """

    def __init__(self, args, pb, deadline):
        self.args = args
        self.pb = pb
        self.deadline = deadline
        self.me = args.node_id
        self.server_key = read_key(args.coordinator_key)
        self.secret = read_key(args.node_key)
        self.public = zmq.curve_public(self.secret)
        self.intruder_secret = read_key(args.intruder_key)
        self.intruder_public = zmq.curve_public(self.intruder_secret)
        self.ctx = zmq.Context()
        # Learned from the coordinator (hb / snapshot); 500 ms x 3 are the documented defaults.
        self.interval_ms = 500
        self.liveness = 3
        self.term = 0
        self.next_request_id = int(time.time() * 1000) << 16
        self.last_sent = 0.0
        self.pushed_messages = 0  # two-frame messages pushed on its DEALERs ([topic, Envelope])
        self.heartbeats_seen = 0
        # The longest this client went without sending on its DEALER (s): longer than the liveness
        # timeout, and the coordinator was right to declare it dead (this process was held).
        self.largest_send_gap = 0.0
        self.last_heartbeat = None
        self.seen = {}            # sequence -> EventBatch bytes as pushed on the DEALER
        self.seen_batches = {}    # sequence -> EventBatch
        self.applied = None       # last applied sequence (None before the snapshot)
        self.buffered = []        # batches received before the snapshot
        self.drop = 0             # how many of the next batches to ignore (check c)
        self.dropped = {}         # sequence -> bytes of the batches deliberately ignored
        self.gap = None           # (last applied, sequence received) when a gap was noticed
        self.gap_by = None        # what showed the gap: "batch" or "bookmark"
        # docs/PROTOCOL.md "Following one group": the node's own feed carries its group's batches and
        # bookmarks; `applied` is the sequence of the group's last batch held.
        self.feed = b"ev." + self.me.encode() + b"\0"
        self.group = None         # the device group followed, named by the only_my_group snapshot
        self.foreign_batches = []  # sequences heard on the feed that do not go to the group followed
        self.bookmarks_seen = 0   # the group's bookmarks heard (one per heartbeat interval)
        self.last_bookmark = None
        self.left_about_me = []   # sequences of node_left / declare_node_dead about this node
        self.replies = {}         # request id -> Envelope (any of our sockets)
        self.foreign_replies = []  # replies on its own DEALERs with a request id it never used
        self.sent_ids = set()
        self.extra = []           # extra DEALERs polled by pump (other keys or routing ids)
        self.extra_pushed = {}    # extra DEALER -> [(topic, body kind, batch sequence or None)] pushed on it
        # K6: every coordinator's endpoints. Protocol 2: a DEALER to each command endpoint, all kept open;
        # requests go on the one followed (the leader, once one is named). The event endpoints are for
        # admin observers: check i only.
        self.command_endpoints = [e.strip() for e in args.commands.split(",") if e.strip()]
        self.event_endpoints = [e.strip() for e in args.events.split(",") if e.strip()]
        self.followed = self.command_endpoints[0]
        self.followed_term = 0
        self.to_follow = None     # a leader named while its replies were being read: followed by pump
        self.in_flight = {}       # request id -> Envelope sent on the DEALER and not answered yet
        self.retry_at = {}        # request id -> when to resend it after a NOT_LEADER without a leader
        self.not_leader = {}      # request id -> the last NOT_LEADER message
        self.stale_ignored = 0    # messages under a lower term than seen (a deposed leader's)
        # Installed apps stay in the coordinator's state across re-registrations: a fresh bundle id per
        # run keeps install_app acceptable when the client runs again against the same cluster.
        self.installed_bundle = f"com.example.pyinstalled{os.getpid()}x{int(time.time()) % 100000}"
        self.dealers = {}         # command endpoint -> this node's DEALER there
        for endpoint in self.command_endpoints:
            if endpoint not in self.dealers:
                self.dealers[endpoint] = self.dealer_socket(self.secret, self.public, self.me, endpoint)

    # Sockets

    def socket(self, kind, secret, public):
        sock = self.ctx.socket(kind)
        sock.setsockopt(zmq.LINGER, 0)
        # A refused CURVE handshake blocks sends forever without a send timeout (PROTOCOL.md).
        sock.setsockopt(zmq.SNDTIMEO, 2000)
        sock.setsockopt(zmq.RCVTIMEO, 2000)
        sock.setsockopt(zmq.RECONNECT_IVL, 100)
        sock.setsockopt(zmq.RECONNECT_IVL_MAX, 2000)
        sock.curve_secretkey = secret
        sock.curve_publickey = public
        sock.curve_serverkey = self.server_key
        return sock

    def dealer_socket(self, secret, public, routing_id, endpoint=None):
        """A DEALER to `endpoint`, by default the coordinator followed."""
        sock = self.socket(zmq.DEALER, secret, public)
        sock.setsockopt(zmq.ROUTING_ID, routing_id.encode())
        sock.connect(endpoint or self.followed)
        return sock

    @property
    def dealer(self):
        """The DEALER requests go on: the one to the coordinator followed."""
        return self.dealers[self.followed]

    def is_own(self, sock):
        """Whether `sock` is one of this node's DEALERs (not an extra one a check opened)."""
        return any(sock is own for own in self.dealers.values())

    def close(self):
        self.ctx.destroy(linger=0)

    # Envelopes

    def envelope(self, sender=None, request_id=0):
        env = self.pb.envelope_pb2.Envelope()
        env.protocol_version = PROTOCOL_VERSION
        env.sender = sender or self.me
        env.request_id = request_id
        env.term = self.term
        return env

    def new_request_id(self):
        self.next_request_id += 1
        return self.next_request_id

    def send(self, sock, env):
        try:
            sock.send(env.SerializeToString())
        except zmq.Again:
            raise CheckFailed(f"send timed out (CURVE handshake refused?) for request {env.request_id}")
        if self.is_own(sock):
            now = time.monotonic()
            if self.last_sent > 0 and now - self.last_sent > self.largest_send_gap:
                self.largest_send_gap = now - self.last_sent
            self.last_sent = now
            if env.request_id:
                self.sent_ids.add(env.request_id)
                self.in_flight[env.request_id] = env

    # K6: following the leader

    def note_leader(self, address, term):
        """A heartbeat or NOT_LEADER names the leader: follow it if its term is at least any seen."""
        if not address.command_endpoint or term < self.term or term < self.followed_term:
            return
        if address.command_endpoint == self.followed:
            self.followed_term = term
        else:
            self.to_follow = (address.command_endpoint, term)

    def follow_named_leader(self):
        """Sends requests on the named leader's DEALER from now on, already open (protocol 2: no reopen),
        and resends what is in flight there with the same ids (K5)."""
        if self.to_follow is None:
            return
        (endpoint, term), self.to_follow = self.to_follow, None
        if endpoint not in self.dealers:
            # Named at an endpoint --commands does not list: it gets a DEALER of its own, kept open too.
            self.dealers[endpoint] = self.dealer_socket(self.secret, self.public, self.me, endpoint)
        self.followed, self.followed_term = endpoint, term
        self.retry_at.clear()
        for env in list(self.in_flight.values()):
            self.send(self.dealer, env)

    def resend_after_not_leader(self):
        now = time.monotonic()
        for rid, due in list(self.retry_at.items()):
            if now >= due:
                del self.retry_at[rid]
                if rid in self.in_flight:
                    self.send(self.dealer, self.in_flight[rid])

    def heartbeat_if_idle(self):
        if time.monotonic() - self.last_sent >= self.interval_ms / 1000.0:
            env = self.envelope()
            env.node_heartbeat.time_ms = int(time.time() * 1000)
            self.send(self.dealer, env)

    # The loop

    def check_deadline(self):
        if time.monotonic() > self.deadline:
            raise RunTimeout("the run's deadline passed")

    def pump(self, seconds, until=None):
        """Handles traffic for up to `seconds` or until `until()` holds; returns whether it held."""
        end = min(time.monotonic() + seconds, self.deadline)
        while True:
            if until is not None and until():
                return True
            now = time.monotonic()
            if now >= end:
                self.check_deadline()
                return until() if until is not None else True
            poller = zmq.Poller()
            own = list(self.dealers.values())
            for sock in own + self.extra:
                poller.register(sock, zmq.POLLIN)
            timeout = max(1, min(int((end - now) * 1000), self.interval_ms // 4 or 1))
            ready = dict(poller.poll(timeout))
            # Every DEALER, followed or not: only the leader pushes, and a reply may come from any.
            for sock in own + self.extra:
                if sock in ready:
                    while True:
                        try:
                            frames = sock.recv_multipart(zmq.NOBLOCK)
                        except zmq.Again:
                            break
                        self.on_dealer_message(sock, frames)
            self.follow_named_leader()
            self.resend_after_not_leader()
            self.heartbeat_if_idle()

    def parse(self, data, what):
        """An Envelope of this protocol version, or a failure naming `what` carried it."""
        env = self.pb.envelope_pb2.Envelope()
        try:
            env.ParseFromString(data)
        except DecodeError as error:
            raise CheckFailed(f"{what} does not decode as an Envelope ({len(data)} bytes): {error}")
        if env.protocol_version != PROTOCOL_VERSION:
            raise CheckFailed(f"{what} has protocol_version {env.protocol_version}, expected {PROTOCOL_VERSION}: "
                              f"{env.WhichOneof('body')} (request {env.request_id})")
        return env

    def on_dealer_message(self, sock, frames):
        """Protocol 2: one frame on a DEALER is a reply, two frames [topic, Envelope] are pushed (the feed, `hb`)."""
        if len(frames) == 1:
            self.on_reply(sock, frames)
        elif len(frames) != 2:
            raise CheckFailed(f"a message of {len(frames)} frames on a DEALER, expected [Envelope] (a reply) "
                              f"or [topic, Envelope] (pushed)")
        elif self.is_own(sock):
            self.on_pushed(frames)
        else:
            # Another key's or routing id's DEALER (checks d, i): what its route is pushed is not this node's.
            topic, data = frames
            env = self.parse(data, f"a message pushed on topic {topic!r} on an extra DEALER")
            kind = env.WhichOneof("body")
            self.extra_pushed.setdefault(sock, []).append(
                (topic, kind, env.event_batch.sequence if kind == "event_batch" else None))

    def on_pushed(self, frames):
        self.pushed_messages += 1
        topic, data = frames
        env = self.parse(data, f"a message pushed on topic {topic!r}")
        kind = env.WhichOneof("body")
        if kind == "coordinator_heartbeat":
            if topic != b"hb":
                raise CheckFailed(f"a coordinator_heartbeat pushed on topic {topic!r}, expected b'hb'")
            hb = env.coordinator_heartbeat
            if hb.term < self.term:
                self.stale_ignored += 1  # a deposed leader (K6)
                return
            if hb.HasField("coordinator"):
                self.note_leader(hb.coordinator, hb.term)
            self.heartbeats_seen += 1
            self.term = hb.term
            if hb.heartbeat_interval_ms:
                self.interval_ms = hb.heartbeat_interval_ms
            if hb.liveness:
                self.liveness = hb.liveness
            self.last_heartbeat = hb
            return
        if kind == "group_bookmark":
            self.on_bookmark(topic, env.group_bookmark)
            return
        if kind != "event_batch":
            raise CheckFailed(f"unexpected pushed body {kind} on topic {topic!r}")
        if topic != self.feed:
            raise CheckFailed(f"an event batch pushed on topic {topic!r}, its feed is {self.feed!r}")
        batch = env.event_batch
        if batch.term < self.term:
            self.stale_ignored += 1  # a deposed leader's batch (K6)
            return
        raw = batch.SerializeToString()
        if batch.sequence in self.seen and self.seen[batch.sequence] != raw:
            raise CheckFailed(f"two different batches with sequence {batch.sequence} pushed on the DEALER")
        self.seen[batch.sequence] = raw
        self.seen_batches[batch.sequence] = batch
        if batch.command.WhichOneof("kind") == "declare_node_dead" and batch.command.declare_node_dead.node == self.me:
            self.left_about_me.append(batch.sequence)
        for event in batch.events:
            if event.WhichOneof("kind") == "node_left" and event.node_left.node == self.me:
                self.left_about_me.append(batch.sequence)
        self.on_batch(batch, raw)

    def on_bookmark(self, topic, bookmark):
        """A group's last batch, every heartbeat interval, on the feed of each node of the group."""
        if topic != self.feed:
            raise CheckFailed(f"the bookmark of group {bookmark.group!r} on topic {topic!r}, not on {self.feed!r}")
        if self.group is not None and bookmark.group != self.group:
            raise CheckFailed(f"a bookmark of group {bookmark.group!r} on the feed of {self.me} (group {self.group})")
        self.bookmarks_seen += 1
        self.last_bookmark = bookmark
        # A bookmark ahead of the group's last batch held: a batch was lost (the last of an idle group).
        if self.applied is not None and bookmark.sequence > self.applied and self.gap is None and self.drop == 0:
            self.gap, self.gap_by = (self.applied, bookmark.sequence), "bookmark"

    def group_previous(self, batch):
        """The sequence of the group's previous batch that `batch` names; None: not one of the group's."""
        for entry in batch.groups:
            if entry.group == self.group:
                return entry.sequence
        return None

    def on_batch(self, batch, raw, live=True):
        if self.applied is None:
            self.buffered.append(batch)
            return
        previous = self.group_previous(batch)
        if previous is None:
            if live:
                self.foreign_batches.append(batch.sequence)
            return
        if batch.sequence <= self.applied or previous < self.applied:
            return  # held already (it came twice, or a replay brought it)
        if self.drop > 0:
            self.drop -= 1
            self.dropped[batch.sequence] = raw
            return
        if previous != self.applied:
            if self.gap is None:
                self.gap, self.gap_by = (self.applied, batch.sequence), "batch"
            return
        if self.gap is None:
            self.applied = batch.sequence

    def follow_snapshot(self, snapshot):
        """The group's snapshot: the group and its last batch; then the buffered batches that follow it."""
        self.group = snapshot.group
        self.applied = group_last_batch(snapshot, snapshot.group)
        buffered, self.buffered = self.buffered, []
        for batch in sorted(buffered, key=lambda b: b.sequence):
            self.on_batch(batch, batch.SerializeToString(), live=False)

    def on_reply(self, sock, frames):
        if len(frames) != 1:
            raise CheckFailed(f"a reply has {len(frames)} frames, expected exactly one Envelope")
        env = self.parse(frames[0], "a reply")
        if env.WhichOneof("body") == "error" and env.error.code == self.pb.reply_pb2.ERROR_CODE_NOT_LEADER:
            # Not an answer (K6): nothing was applied. Resend to the leader it names, or later.
            self.not_leader[env.request_id] = env.error.message
            if sock is self.dealer:
                if env.error.HasField("leader"):
                    self.note_leader(env.error.leader, env.error.leader.term)
                self.retry_at[env.request_id] = time.monotonic() + self.interval_ms / 1000.0
            return
        if env.term < self.term:
            self.stale_ignored += 1  # a deposed leader's reply: the request stays in flight (K6)
            return
        self.in_flight.pop(env.request_id, None)
        if self.is_own(sock) and env.request_id not in self.sent_ids:
            self.foreign_replies.append(env)
        self.replies[env.request_id] = env

    def request(self, fill, sock=None, sender=None, timeout=5.0, request_id=None):
        """Sends one request (fill(envelope) sets the body) and waits for its reply (None on timeout)."""
        sock = sock or self.dealer
        rid = request_id if request_id is not None else self.new_request_id()
        env = self.envelope(sender=sender, request_id=rid)
        fill(env)
        self.send(sock, env)
        self.pump(timeout, until=lambda: rid in self.replies)
        self.in_flight.pop(rid, None)
        self.retry_at.pop(rid, None)
        reply = self.replies.pop(rid, None)
        if reply is None and rid in self.not_leader:
            print(f"info: request {rid}: no leader took it: {self.not_leader[rid]}", flush=True)
        return rid, reply

    def command(self, set_command, **kwargs):
        def fill(env):
            set_command(env.command)
        return self.request(fill, **kwargs)

    def expect_ack(self, what, set_command):
        rid, reply = self.command(set_command)
        if reply is None:
            raise CheckFailed(f"{what}: no reply to request {rid}")
        if reply.WhichOneof("body") != "ack":
            raise CheckFailed(f"{what}: expected an ack, got {self.describe(reply)}")
        if reply.request_id != rid:
            raise CheckFailed(f"{what}: the ack carries request id {reply.request_id}, sent {rid}")
        return rid, reply.ack.sequence

    def snapshot(self):
        """The node's own device group's part of the state (only_my_group)."""
        def fill(env):
            env.snapshot_request.only_my_group = True
        rid, reply = self.request(fill)
        if reply is None or reply.WhichOneof("body") != "snapshot":
            raise CheckFailed(f"snapshot_request {rid}: {self.describe(reply)}")
        return reply.snapshot

    def wait_for_batch(self, sequence, timeout=5.0):
        if not self.pump(timeout, until=lambda: sequence in self.seen):
            raise CheckFailed(f"the batch with sequence {sequence} was never pushed on its DEALER")
        return self.seen_batches[sequence]

    def describe(self, env):
        if env is None:
            return "no reply"
        kind = env.WhichOneof("body")
        if kind == "error":
            error = env.error
            code = self.pb.reply_pb2.ErrorCode.Name(error.code) if error.code in self.pb.reply_pb2.ErrorCode.values() \
                else str(error.code)
            return f"error {code} (request {env.request_id}): {error.message}"
        return f"{kind} (request {env.request_id})"

    def error_code_name(self, env):
        if env is None or env.WhichOneof("body") != "error":
            return None
        return self.pb.reply_pb2.ErrorCode.Name(env.error.code)

    def liveness_timeout(self):
        return self.interval_ms * self.liveness / 1000.0

    def node_record(self, snapshot, node):
        for record in snapshot.state.nodes:
            if record.id == node:
                return record
        return None

    # Commands

    def app_ref(self, ref, bundle):
        ref.device = self.me
        ref.bundle_id = bundle

    def app_spec(self, spec, bundle, audio=None):
        pb = self.pb
        spec.bundle_id = bundle
        spec.deployment_target = 15
        spec.audio_session_category = audio or pb.app_pb2.AUDIO_SESSION_CATEGORY_SOLO_AMBIENT
        spec.memory_footprint_mb = 100

    def open_full_screen(self, bundle):
        def set_command(cmd):
            self.app_ref(cmd.open_full_screen.app, bundle)
            cmd.open_full_screen.trigger = self.pb.app_pb2.OPEN_TRIGGER_USER
        return set_command

    def go_home(self):
        def set_command(cmd):
            cmd.go_home.device = self.me
        return set_command


def event_names(batch):
    return [event.WhichOneof("kind") for event in batch.events]


def group_last_batch(snapshot, group):
    """The sequence of `group`'s last batch in a snapshot (state.group_sequences; 0: none)."""
    for entry in snapshot.state.group_sequences:
        if entry.group == group:
            return entry.sequence
    return 0


# The checks

def check_late_join(c):
    pb = c.pb
    # The DEALERs are open: wait until something is pushed on one (at worst the heartbeat that answers its
    # node_heartbeat while the coordinator's state does not hold it). With several coordinators the one
    # followed first may be a standby, which answers no node_heartbeat and pushes nothing: after a liveness
    # timeout the registration goes out all the same, and its NOT_LEADER names the leader to follow.
    several = len(c.dealers) > 1
    if not c.pump(c.liveness_timeout() if several else 10, until=lambda: c.pushed_messages > 0) and not several:
        raise CheckFailed("nothing was pushed on its DEALER within 10 s (CURVE refused it?)")

    def register(cmd):
        reg = cmd.register_node.registration
        reg.node = c.me
        device = reg.device
        device.model = "iPad (Python conformance client)"
        device.os_major = 17
        device.pip_supported = True
        device.multitasking_camera_supported = True
        device.stage_manager_supported = True
        device.stage_manager_enabled = False
        device.layout_direction = pb.node_pb2.LAYOUT_DIRECTION_LEFT_TO_RIGHT
        device.auto_pip_enabled = False
        camera = device.cameras.add()
        camera.name = "front"
        camera.position = pb.node_pb2.CAMERA_POSITION_FRONT
        c.app_spec(device.apps.add(), "com.example.pynotes")
        video = device.apps.add()
        c.app_spec(video, "com.example.pyvideo", pb.app_pb2.AUDIO_SESSION_CATEGORY_PLAYBACK)
        video.background_mode_audio_airplay_pip = True

    rid, sequence = c.expect_ack("register_node", register)
    registered_at = time.monotonic()
    # The snapshot only once the feed is live: what is pushed after it cannot be lost.
    if not c.pump(10, until=lambda: c.pushed_messages > 0):
        raise CheckFailed(f"nothing was pushed on its DEALERs ({sorted(c.dealers)}) within 10 s of registering")
    snapshot = c.snapshot()
    settings = snapshot.liveness_settings
    if settings.heartbeat_interval_ms == 0 or settings.liveness == 0:
        raise CheckFailed(f"the snapshot has no liveness_settings ({settings})")
    c.interval_ms = settings.heartbeat_interval_ms
    c.liveness = settings.liveness
    if snapshot.sequence < sequence:
        raise CheckFailed(f"snapshot sequence {snapshot.sequence} is before the register ack's {sequence}")
    record = c.node_record(snapshot, c.me)
    if record is None or not record.alive:
        raise CheckFailed(f"the snapshot does not list {c.me} alive")
    # A device with no display attached is a group of its own: the snapshot names it and holds its part only.
    if snapshot.group != c.me:
        raise CheckFailed(f"the only_my_group snapshot names group {snapshot.group!r}, expected {c.me!r}")
    others = sorted(n.id for n in snapshot.state.nodes if n.id != c.me)
    if others:
        raise CheckFailed(f"the group's snapshot holds other groups' nodes: {others}")
    if [e.group for e in snapshot.state.group_sequences] != [c.me]:
        raise CheckFailed(f"the group's snapshot has group_sequences {list(snapshot.state.group_sequences)}")
    # Clone pattern: apply the buffered batches that follow the group's last one, then follow.
    c.follow_snapshot(snapshot)
    # The register batch itself (published after the ack) names this node.
    batch = c.wait_for_batch(sequence)
    # node_joined on a first registration; node_rejoined if this client ran against the cluster before.
    joined = [e for e in batch.events if (e.WhichOneof("kind") == "node_joined" and e.node_joined.node == c.me)
              or (e.WhichOneof("kind") == "node_rejoined" and e.node_rejoined.node == c.me)]
    if not joined:
        raise CheckFailed(f"batch {sequence} of our register_node has no node_joined for {c.me}: {event_names(batch)}")
    # Stay heart-beating for 3 x the liveness timeout (from the registration on).
    hold = 3 * c.liveness_timeout() + c.interval_ms / 1000.0
    c.pump(hold - (time.monotonic() - registered_at))
    if c.left_about_me:
        raise CheckFailed(f"declared dead while heart-beating: batches {c.left_about_me} "
                          f"(registered at sequence {sequence})")
    later = c.snapshot()
    record = c.node_record(later, c.me)
    if record is None or not record.alive:
        raise CheckFailed(f"a later snapshot (sequence {later.sequence}) does not list {c.me} alive")
    if c.gap is not None:
        raise CheckFailed(f"a gap in the stream while idle: {c.gap}")
    hb = c.last_heartbeat
    if hb is None or (hb.heartbeat_interval_ms, hb.liveness) != (settings.heartbeat_interval_ms, settings.liveness):
        raise CheckFailed(f"coordinator_heartbeat does not carry the snapshot's liveness settings: {hb} vs {settings}")
    if c.foreign_batches:
        raise CheckFailed(f"batches of other groups on its feed: {c.foreign_batches}")
    return (f"registered at sequence {sequence} (request {rid}), heartbeat {c.interval_ms} ms x {c.liveness}, "
            f"group {c.group} (last batch {group_last_batch(snapshot, c.group)} in the snapshot), "
            f"alive after {time.monotonic() - registered_at:.1f} s (>= 3 x {c.liveness_timeout():.2f} s), "
            f"applied up to {c.applied}, {c.bookmarks_seen} bookmarks")


def check_follow(c):
    pb = c.pb
    results = []

    def install(cmd):
        cmd.install_app.device = c.me
        c.app_spec(cmd.install_app.app, c.installed_bundle)

    for what, set_command, expected in [
        ("install_app", install, "app_installed"),
        ("open_full_screen", c.open_full_screen("com.example.pynotes"), "scene_changed"),
    ]:
        rid, sequence = c.expect_ack(what, set_command)
        batch = c.wait_for_batch(sequence)
        sent = pb.command_pb2.Command()
        set_command(sent)
        if batch.origin_node != c.me or batch.origin_request_id != rid:
            raise CheckFailed(f"{what}: batch {sequence} has origin {batch.origin_node!r}/{batch.origin_request_id}, "
                              f"expected {c.me}/{rid}")
        if batch.command != sent:
            raise CheckFailed(f"{what}: batch {sequence} carries another command: {batch.command}")
        if c.group_previous(batch) is None:
            raise CheckFailed(f"{what}: batch {sequence} does not name group {c.group}: {list(batch.groups)}")
        names = event_names(batch)
        if expected not in names:
            raise CheckFailed(f"{what}: batch {sequence} has events {names}, expected {expected}")
        for event in batch.events:
            kind = event.WhichOneof("kind")
            payload = getattr(event, kind)
            if kind in ("app_installed", "scene_changed") and (payload.app.device != c.me):
                raise CheckFailed(f"{what}: event {kind} names app {payload.app}")
        if not c.pump(3, until=lambda: c.applied is not None and c.applied >= sequence):
            raise CheckFailed(f"{what}: batch {sequence} was not applied in order (applied {c.applied}, gap {c.gap})")
        results.append(f"{what} -> seq {sequence} {names}")
    return "; ".join(results)


def replay(c, after, max_batches):
    """Asks for the group's batches after `after` until the reply's last_sequence (the group's last
    batch); returns [EventBatch], each naming the one before as the group's previous batch."""
    batches, requests, last = [], 0, None
    cursor = after
    while True:
        def fill(env):
            env.replay_request.after_sequence = cursor
            env.replay_request.max_batches = max_batches
            env.replay_request.group = c.group
        rid, reply = c.request(fill)
        requests += 1
        if reply is None or reply.WhichOneof("body") != "replay":
            raise CheckFailed(f"replay_request(after={cursor}) {rid}: {c.describe(reply)}")
        if reply.request_id != rid:
            raise CheckFailed(f"the replay carries request id {reply.request_id}, sent {rid}")
        page = list(reply.replay.batches)
        last = reply.replay.last_sequence
        if max_batches and len(page) > max_batches:
            raise CheckFailed(f"replay page of {len(page)} batches, asked for at most {max_batches}")
        for batch in page:
            previous = c.group_previous(batch)
            if previous != cursor or batch.sequence <= cursor:
                raise CheckFailed(f"replay after {after}: batch {batch.sequence} names {previous} as the previous "
                                  f"batch of group {c.group}, expected {cursor}")
            cursor = batch.sequence
            batches.append(batch)
        if cursor >= last:
            return batches, requests, last
        if not page:
            raise CheckFailed(f"replay after {cursor}: empty page before last_sequence {last}")
        if requests > 100:
            raise CheckFailed("replay does not converge")


def check_replay(c):
    start = c.applied
    c.drop = 3
    acked = []
    for what, set_command in [("open pyvideo", c.open_full_screen("com.example.pyvideo")),
                              ("go_home", c.go_home()),
                              ("open the installed app", c.open_full_screen(c.installed_bundle))]:
        acked.append(c.expect_ack(what, set_command)[1])
    if not c.pump(5, until=lambda: c.drop == 0):
        raise CheckFailed(f"only {3 - c.drop} of 3 batches arrived to drop (acks {acked})")
    if c.applied != start:
        raise CheckFailed(f"applied moved from {start} to {c.applied} while dropping")
    # The next batch reveals the gap by its sequence.
    _, revealing = c.expect_ack("go_home", c.go_home())
    if not c.pump(5, until=lambda: c.gap is not None):
        raise CheckFailed(f"no gap noticed after dropping {sorted(c.dropped)} (applied {c.applied})")
    gap = c.gap
    if gap[0] != start or gap[1] <= start:
        raise CheckFailed(f"unexpected gap {gap} (applied {start}, dropped {sorted(c.dropped)})")
    batches, requests, last = replay(c, c.applied, max_batches=2)
    replayed = {b.sequence: b.SerializeToString() for b in batches}
    missing = [s for s in c.dropped if s not in replayed]
    if missing:
        raise CheckFailed(f"the replay lacks dropped batches {missing} (got {sorted(replayed)})")
    # Every replayed batch that was pushed on the DEALER must be byte-identical to it.
    c.pump(2, until=lambda: all(s in c.seen for s in replayed))
    compared = 0
    for sequence, raw in sorted(replayed.items()):
        if sequence not in c.seen:
            raise CheckFailed(f"replayed batch {sequence} was never pushed on the DEALER")
        if c.seen[sequence] != raw:
            raise CheckFailed(f"replayed batch {sequence} differs from the one pushed on the DEALER:\n"
                              f"  pushed {c.seen[sequence].hex()}\n  replay {raw.hex()}")
        compared += 1
    if revealing not in replayed:
        raise CheckFailed(f"the replay stops before batch {revealing}")
    c.applied = max(replayed)
    c.gap = None
    # A replay from the end is an empty page at last_sequence.
    tail, _, tail_last = replay(c, c.applied, max_batches=0)
    if tail and tail[-1].sequence != tail_last:
        raise CheckFailed(f"a replay from the end returned {len(tail)} batches up to {tail_last}")
    for batch in tail:
        c.applied = batch.sequence
    return (f"dropped {sorted(c.dropped)}, gap {gap[0]}->{gap[1]} noticed (by a {c.gap_by or 'batch'}), "
            f"replayed {min(replayed)}..{max(replayed)} "
            f"in {requests} requests (max 2 per page, last_sequence {last}), "
            f"{compared} byte-identical to what was pushed on the DEALER")


def check_takeover(c, intruder_id):
    pb = c.pb
    # 1. Another key claims this node's routing id.
    impostor = c.dealer_socket(c.intruder_secret, c.intruder_public, c.me)
    c.extra.append(impostor)
    heartbeats_before, bookmarks_before = c.heartbeats_seen, c.bookmarks_seen
    pushed_to_impostor = []
    try:
        imp_rid, imp_reply = c.command(c.go_home(), sock=impostor, timeout=2.0)
        if imp_reply is not None and imp_reply.WhichOneof("body") == "ack":
            raise CheckFailed(f"the impostor (key of {intruder_id}, routing id {c.me}) got an ack: {c.describe(imp_reply)}")
        impostor_outcome = "no route (no reply)" if imp_reply is None else c.describe(imp_reply)
        applied = [s for s, b in c.seen_batches.items() if b.origin_request_id == imp_rid]
        if applied:
            raise CheckFailed(f"the impostor's go_home (request {imp_rid}) was applied: batches {applied}")
        # The real connection still gets its own replies.
        rid, sequence = c.expect_ack("open_full_screen after the impostor", c.open_full_screen("com.example.pynotes"))
        c.wait_for_batch(sequence)
        stolen = [e for e in c.foreign_replies]
        if stolen:
            raise CheckFailed(f"the real connection got replies it never asked for: {[c.describe(e) for e in stolen]}")
        # Stay connected (impostor too) for a full liveness timeout: not declared dead, the feed still pushed.
        c.pump(c.liveness_timeout() + c.interval_ms / 1000.0)
        pushed_to_impostor = c.extra_pushed.get(impostor, [])
    finally:
        c.extra.remove(impostor)
        c.extra_pushed.pop(impostor, None)
        impostor.close(linger=0)
    if pushed_to_impostor:
        raise CheckFailed(f"the impostor (key of {intruder_id}, routing id {c.me}) was pushed "
                          f"{len(pushed_to_impostor)} messages: {pushed_to_impostor[:5]}")
    heartbeats = c.heartbeats_seen - heartbeats_before
    if heartbeats == 0:
        raise CheckFailed(f"no heartbeat was pushed on its DEALER for {c.liveness_timeout():.2f} s "
                          f"with the impostor connected")
    if c.left_about_me:
        raise CheckFailed(f"declared dead after the impostor connected: batches {c.left_about_me}")
    snapshot = c.snapshot()
    record = c.node_record(snapshot, c.me)
    if record is None or not record.alive:
        raise CheckFailed(f"not alive in the snapshot after the impostor (sequence {snapshot.sequence})")
    # 2. The other key with its own routing id, but sender = this node.
    intruder = c.dealer_socket(c.intruder_secret, c.intruder_public, intruder_id)
    c.extra.append(intruder)
    try:
        rid2, reply = c.command(c.go_home(), sock=intruder, timeout=5.0)
    finally:
        c.extra.remove(intruder)
        c.extra_pushed.pop(intruder, None)
        intruder.close(linger=0)
    if c.error_code_name(reply) != "ERROR_CODE_FORBIDDEN":
        raise CheckFailed(f"sender {c.me} on {intruder_id}'s key and routing id: expected FORBIDDEN, got {c.describe(reply)}")
    if reply.request_id != rid2:
        raise CheckFailed(f"the FORBIDDEN reply carries request id {reply.request_id}, sent {rid2}")
    # 3. The other key with a free routing id that is not its node's: FORBIDDEN (then disconnected).
    shadow_id = f"{c.me}-shadow"
    shadow = c.dealer_socket(c.intruder_secret, c.intruder_public, shadow_id)
    c.extra.append(shadow)
    try:
        rid3, reply3 = c.command(c.go_home(), sock=shadow, sender=intruder_id, timeout=5.0)
    finally:
        c.extra.remove(shadow)
        c.extra_pushed.pop(shadow, None)
        shadow.close(linger=0)
    if c.error_code_name(reply3) != "ERROR_CODE_FORBIDDEN" or reply3.request_id != rid3:
        raise CheckFailed(f"routing id {shadow_id!r} on {intruder_id}'s key: expected FORBIDDEN echoing {rid3}, "
                          f"got {c.describe(reply3)}")
    return (f"impostor with routing id {c.me}: {impostor_outcome}, nothing pushed to it; real client acked seq "
            f"{sequence} (request {rid}), got its batch, {heartbeats} heartbeats and "
            f"{c.bookmarks_seen - bookmarks_before} bookmarks pushed, and stayed alive; "
            f"sender {c.me} with {intruder_id}'s key: FORBIDDEN echoing request {rid2}; "
            f"routing id {shadow_id}: FORBIDDEN echoing request {rid3}")


def check_foreign_attach(c, display):
    # The display is in another group (its device's): this node cannot read it, but an attach to this
    # device would be a batch of this node's own group.
    before = c.snapshot()
    if c.node_record(before, display) is not None:
        raise CheckFailed(f"{display} is in the group's snapshot of {c.me}: {[n.id for n in before.state.nodes]}")
    last_before = group_last_batch(before, c.group)

    def attach(cmd):
        cmd.attach_display.display = display
        cmd.attach_display.device = c.me
    rid, reply = c.command(attach)
    if c.error_code_name(reply) != "ERROR_CODE_FORBIDDEN":
        raise CheckFailed(f"attach_display({display} -> {c.me}): expected FORBIDDEN, got {c.describe(reply)}")
    if reply.request_id != rid:
        raise CheckFailed(f"the FORBIDDEN reply carries request id {reply.request_id}, sent {rid}")
    after = c.snapshot()
    if c.node_record(after, display) is not None or group_last_batch(after, c.group) != last_before:
        raise CheckFailed(f"{display} reached group {c.group}: its last batch {last_before} -> "
                          f"{group_last_batch(after, c.group)}, nodes {[n.id for n in after.state.nodes]}")
    return (f"attach_display({display} -> {c.me}) FORBIDDEN echoing request {rid}; group {c.group} "
            f"unchanged (last batch {last_before}, {display} not in it)")


def check_malformed(c):
    rid = c.new_request_id()
    prefix = c.envelope(request_id=rid).SerializeToString()
    # Field 10 (command), length-delimited, claims 32 bytes but only 3 follow: truncated.
    frame = prefix + bytes([0x52, 0x20, 0x0A, 0x01, 0xFF])
    c.dealer.send(frame)
    c.last_sent = time.monotonic()
    c.sent_ids.add(rid)
    c.pump(5, until=lambda: rid in c.replies)
    reply = c.replies.pop(rid, None)
    if reply is None:
        raise CheckFailed(f"no error reply echoing request id {rid} for a truncated envelope "
                          f"(other replies: {[c.describe(e) for e in c.foreign_replies]})")
    if c.error_code_name(reply) != "ERROR_CODE_MALFORMED":
        raise CheckFailed(f"truncated envelope: expected MALFORMED, got {c.describe(reply)}")
    # And the connection still works.
    c.snapshot()
    return f"truncated envelope ({len(frame)} bytes) -> MALFORMED echoing request {rid}: {reply.error.message}"


def check_still_alive(c):
    snapshot = c.snapshot()
    record = c.node_record(snapshot, c.me)
    if c.left_about_me:
        raise CheckFailed(f"declared dead during the run: batches {c.left_about_me}; the longest this client went "
                          f"without sending: {c.largest_send_gap * 1000:.0f} ms (liveness timeout "
                          f"{c.interval_ms * c.liveness} ms)")
    if record is None or not record.alive:
        raise CheckFailed(f"not alive at the end (snapshot sequence {snapshot.sequence})")
    silent = [entry.silent_ms for entry in snapshot.liveness if entry.node == c.me]
    # The group's next bookmark names the group's last batch, the one the client holds (no gap).
    count = c.bookmarks_seen
    if not c.pump(3 * c.interval_ms / 1000.0 + 1, until=lambda: c.bookmarks_seen > count):
        raise CheckFailed("no group_bookmark on its feed for 3 intervals")
    target = c.last_bookmark.sequence
    if not c.pump(2, until=lambda: c.gap is None and c.applied >= target):
        raise CheckFailed(f"the bookmark's {target} is ahead of the group's last batch held {c.applied} (gap {c.gap})")
    if c.foreign_batches:
        raise CheckFailed(f"batches of other groups arrived on its feed: {c.foreign_batches}")
    return (f"alive at sequence {snapshot.sequence}, silent {silent[0] if silent else '?'} ms, group {c.group} "
            f"at {c.applied} as its bookmark says, no other group's batch on its feed; the longest it went "
            f"without sending {c.largest_send_gap * 1000:.0f} ms")


def check_bookmark_gap(c):
    # The group's last batch is lost and nothing follows it: only the bookmark can show it.
    start = c.applied
    c.drop = 1
    _, sequence = c.expect_ack("go_home", c.go_home())
    if not c.pump(5, until=lambda: c.drop == 0):
        raise CheckFailed(f"batch {sequence} never arrived to drop")
    if not c.pump(3 * c.interval_ms / 1000.0 + 2, until=lambda: c.gap is not None):
        raise CheckFailed(f"no bookmark showed the lost batch {sequence} (held {c.applied})")
    if c.gap != (start, sequence) or c.gap_by != "bookmark":
        raise CheckFailed(f"gap {c.gap} shown by {c.gap_by}, expected ({start}, {sequence}) by a bookmark")
    batches, requests, last = replay(c, start, max_batches=0)
    if [b.sequence for b in batches] != [sequence] or last != sequence:
        raise CheckFailed(f"the group's replay after {start} gave {[b.sequence for b in batches]} up to {last}, "
                          f"expected [{sequence}]")
    pushed, raw = c.dropped.get(sequence), batches[0].SerializeToString()
    if pushed != raw:
        raise CheckFailed(f"replayed batch {sequence} differs from the one pushed on the DEALER:\n"
                          f"  pushed {pushed.hex() if pushed is not None else None}\n  replay {raw.hex()}")
    c.applied, c.gap = sequence, None
    return (f"batch {sequence} dropped; the bookmark said {sequence} while {start} was held; replayed in {requests} "
            f"request, byte-identical to what was pushed on the DEALER")


def expect_forbidden(c, what, fill):
    rid, reply = c.request(fill)
    if c.error_code_name(reply) != "ERROR_CODE_FORBIDDEN" or reply.request_id != rid:
        raise CheckFailed(f"{what}: expected FORBIDDEN echoing {rid}, got {c.describe(reply)}")
    return f"{what}: FORBIDDEN ({reply.error.message})"


def check_reads_refused(c, other):
    def snapshot_of(group):
        return lambda env: setattr(env.snapshot_request, "group", group)

    def replay_of(group):
        def fill(env):
            env.replay_request.after_sequence = 0
            env.replay_request.group = group
        return fill
    results = [
        expect_forbidden(c, f"snapshot of group {other}", snapshot_of(other)),
        expect_forbidden(c, "snapshot of the whole state", lambda env: env.snapshot_request.SetInParent()),
        expect_forbidden(c, f"replay of group {other}", replay_of(other)),
        expect_forbidden(c, "replay of the whole log", replay_of("")),
    ]
    # Its own group, named: served.
    rid, reply = c.request(snapshot_of(c.me))
    if reply is None or reply.WhichOneof("body") != "snapshot" or reply.snapshot.group != c.me:
        raise CheckFailed(f"snapshot of its own group {c.me}: {c.describe(reply)}")
    return "; ".join(results) + f"; snapshot of its own group {c.me}: served"


def register_intruder(c, sock, intruder_id):
    """The intruder key registers its own node: a batch of the intruder's group, not of this one."""
    def register(cmd):
        reg = cmd.register_node.registration
        reg.node = intruder_id
        device = reg.device
        device.model = "iPad (another group)"
        device.os_major = 17
        device.layout_direction = c.pb.node_pb2.LAYOUT_DIRECTION_LEFT_TO_RIGHT
        c.app_spec(device.apps.add(), "com.example.notes")
    rid, reply = c.command(register, sock=sock, sender=intruder_id)
    if reply is None or reply.WhichOneof("body") != "ack":
        raise CheckFailed(f"register_node of {intruder_id} with its own key: {c.describe(reply)}")
    return reply.ack.sequence


def check_no_event_reads(c, intruder_id):
    # Protocol 2: the event endpoint is for admin observers. A SUB with this node's key asks for every feed
    # (`ev.`, the empty topic), the admins' `all` and its own feed: the coordinator refuses every one.
    asked = [b"", b"ev.", b"all", c.feed]
    spy = c.socket(zmq.SUB, c.secret, c.public)
    monitor = spy.get_monitor_socket(zmq.EVENT_HANDSHAKE_SUCCEEDED | zmq.EVENT_HANDSHAKE_FAILED_AUTH
                                     | zmq.EVENT_HANDSHAKE_FAILED_PROTOCOL | zmq.EVENT_HANDSHAKE_FAILED_NO_DETAIL)
    for topic in asked:
        spy.setsockopt(zmq.SUBSCRIBE, topic)
    for endpoint in c.event_endpoints:
        spy.connect(endpoint)
    heard = []       # (topic, body kind, batch sequence or None): what the spy received, expected none
    handshakes = []  # (monitor event, endpoint)

    def drain():
        while True:
            try:
                frames = spy.recv_multipart(zmq.NOBLOCK)
            except zmq.Again:
                return
            env = c.pb.envelope_pb2.Envelope()
            try:
                env.ParseFromString(frames[-1])
                kind = env.WhichOneof("body")
            except DecodeError:
                kind = f"undecodable ({len(frames)} frames)"
            heard.append((frames[0], kind, env.event_batch.sequence if kind == "event_batch" else None))

    def shaken():
        """Whether a CURVE handshake succeeded with every event endpoint (or one failed)."""
        while True:
            try:
                event = recv_monitor_message(monitor, zmq.NOBLOCK)
            except zmq.Again:
                break
            handshakes.append((event["event"], event["endpoint"]))
        drain()
        succeeded = {endpoint for kind, endpoint in handshakes if kind == zmq.EVENT_HANDSHAKE_SUCCEEDED}
        failed = [entry for entry in handshakes if entry[0] != zmq.EVENT_HANDSHAKE_SUCCEEDED]
        return bool(failed) or len(succeeded) >= len(set(c.event_endpoints))

    intruder = c.dealer_socket(c.intruder_secret, c.intruder_public, intruder_id)
    c.extra.append(intruder)
    pushed_to_intruder = []
    try:
        # The subscriptions go out as soon as a handshake is done: from then on, before the batches below.
        # (A coordinator that is down completes none: go on after 5 s with the endpoints that did.)
        c.pump(5, until=shaken)
        succeeded = {endpoint for kind, endpoint in handshakes if kind == zmq.EVENT_HANDSHAKE_SUCCEEDED}
        failed = [entry for entry in handshakes if entry[0] != zmq.EVENT_HANDSHAKE_SUCCEEDED]
        if not succeeded and not failed:
            raise CheckFailed(f"the SUB with its key completed no CURVE handshake with {c.event_endpoints} within 5 s")
        if failed:
            raise CheckFailed(f"the event endpoint refused the CURVE handshake of {c.me}'s key (monitor events "
                              f"{failed}): expected it admitted and its subscriptions refused")
        other = register_intruder(c, intruder, intruder_id)
        _, own = c.expect_ack("go_home", c.go_home())
        if own <= other:
            raise CheckFailed(f"its own batch {own} is not after the other group's {other}")
        # Published after the subscriptions were made: had any been admitted, the spy would have had this
        # batch (or the other group's, or a heartbeat) first or alongside.
        c.wait_for_batch(own)
        drain()
        # A bounded margin, not the proof: two heartbeat intervals, in which the empty topic would bring a heartbeat.
        c.pump(max(0.5, 2 * c.interval_ms / 1000.0), until=lambda: (drain(), bool(heard))[1])
        pushed_to_intruder = c.extra_pushed.get(intruder, [])

        def unregister(cmd):
            cmd.unregister_node.node = intruder_id
        c.command(unregister, sock=intruder, sender=intruder_id)
    finally:
        c.extra.remove(intruder)
        c.extra_pushed.pop(intruder, None)
        intruder.close(linger=0)
        spy.disable_monitor()
        monitor.close(linger=0)
        spy.close(linger=0)
    if heard:
        raise CheckFailed(f"the SUB with {c.me}'s key on the event endpoint (asked {asked}) received "
                          f"{len(heard)} messages: {heard[:5]}")
    if other in c.seen:
        raise CheckFailed(f"the other group's batch {other} was pushed on its DEALER (seen {sorted(c.seen)[-5:]})")
    if c.foreign_batches:
        raise CheckFailed(f"batches of other groups pushed on its feed: {c.foreign_batches}")
    elsewhere = "pushed to the intruder's own DEALER" if any(e[2] == other for e in pushed_to_intruder) \
        else "not seen on the intruder's DEALER either"
    return (f"subscribed to {asked} on {len(succeeded)} of {len(set(c.event_endpoints))} event endpoints "
            f"(CURVE handshake done): nothing received, not even its own group's batch {own} "
            f"that its DEALER got; the other group's batch {other} ({elsewhere}) never came on its DEALER")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--commands", required=True, help="coordinator command endpoint (ROUTER), "
                        "e.g. tcp://127.0.0.1:5555; comma-separated with several coordinators")
    parser.add_argument("--events", required=True, help="coordinator event endpoint (PUB, for admin observers): "
                        "check i only; comma-separated with several coordinators")
    parser.add_argument("--coordinator-key", required=True, help="file with the coordinator's Z85 public key")
    parser.add_argument("--node-key", required=True, help="file with this node's Z85 secret key (bound to --node-id)")
    parser.add_argument("--intruder-key", required=True, help="file with another node's Z85 secret key")
    parser.add_argument("--intruder-id", required=True, help="the node id the intruder key is bound to")
    parser.add_argument("--node-id", default="py-ipad")
    parser.add_argument("--display", default="display-1", help="a display of the cluster (foreign attach)")
    parser.add_argument("--other-group", default="ipad-2", help="another device group of the cluster (reads refused)")
    parser.add_argument("--proto-dir", default=os.path.join(REPO, "proto"))
    parser.add_argument("--protoc", default=shutil.which("protoc") or "protoc")
    parser.add_argument("--deadline", type=float, default=60.0, help="bound on the whole run, seconds")
    args = parser.parse_args()

    started = time.monotonic()

    def on_alarm(signum, frame):
        raise RunTimeout(f"the whole run exceeded {args.deadline:.0f} s")
    signal.signal(signal.SIGALRM, on_alarm)
    signal.alarm(int(args.deadline) + 5)

    out, pb = generate_classes(args.proto_dir, args.protoc)
    client = None
    failures = 0
    try:
        client = Client(args, pb, deadline=started + args.deadline)
        checks = [
            ("a", "late join, not declared dead", lambda: check_late_join(client)),
            ("b", "follows its own batches", lambda: check_follow(client)),
            ("c", "replay after a forced gap", lambda: check_replay(client)),
            # i before d: d leaves the intruder's key suspended (a node key on another route).
            ("i", "the event endpoint gives its key nothing, other groups' batches never reach its DEALER",
             lambda: check_no_event_reads(client, args.intruder_id)),
            ("d", "routing-id takeover refused", lambda: check_takeover(client, args.intruder_id)),
            ("e", "foreign attach_display refused", lambda: check_foreign_attach(client, args.display)),
            ("f", "malformed frame echoes its request id", lambda: check_malformed(client)),
            ("g", "a lost last batch shows in the group's bookmark", lambda: check_bookmark_gap(client)),
            ("h", "reads beyond its own group refused", lambda: check_reads_refused(client, args.other_group)),
            ("z", "still alive at the end", lambda: check_still_alive(client)),
        ]
        for letter, name, run in checks:
            t0 = time.monotonic()
            try:
                detail = run()
                print(f"PASS {letter}. {name} ({time.monotonic() - t0:.1f} s): {detail}", flush=True)
            except CheckFailed as failure:
                failures += 1
                print(f"FAIL {letter}. {name} ({time.monotonic() - t0:.1f} s): {failure}", flush=True)
                if letter == "a":
                    print("SKIP the other checks: the client did not join", flush=True)
                    break
                # Whatever a failed check left behind, continue from a clean stream position.
                client.drop, client.gap = 0, None
                if client.applied is not None:
                    client.applied = max([client.applied] + list(client.seen))
    except RunTimeout as timeout:
        failures += 1
        print(f"FAIL run: {timeout}", flush=True)
    except Exception:  # a bug or an unexpected answer: report it as a failure, never hang
        failures += 1
        print("FAIL run: unexpected exception\n" + traceback.format_exc(), flush=True)
    finally:
        signal.alarm(0)
        if client is not None:
            client.deadline = time.monotonic() + 3
            try:
                rid, reply = client.command(lambda cmd: setattr(cmd.unregister_node, "node", client.me), timeout=2.0)
                print(f"info: unregister_node -> {client.describe(reply)}", flush=True)
            except Exception as error:  # leaving is best effort
                print(f"info: unregister_node failed: {error}", flush=True)
            client.close()
        shutil.rmtree(out, ignore_errors=True)
    print(f"{'OK' if failures == 0 else 'FAILED'}: {failures} failure(s) in {time.monotonic() - started:.1f} s", flush=True)
    return 0 if failures == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
