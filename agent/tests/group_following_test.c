// Following one device group (docs/PROTOCOL.md "Following one group"): the rules in group.c, and
// the session (session.c) driven with frames and no sockets, as the socket loop drives it; and
// which coordinator's DEALER its requests go to and when they are sent again (leader.c,
// requests.c), and a registration turned away as OVERLOADED. The display is display-1, configured
// for ipad-1, with two coordinators. `make group-following-test`.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent.h"
#include "group.h"
#include "log.h"
#include "wire.h"

static int failures = 0;
#define EXPECT(condition, what)                                                                                      \
    do {                                                                                                             \
        if (!(condition)) {                                                                                          \
            fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, what);                                           \
            failures++;                                                                                              \
        }                                                                                                            \
    } while (0)

// MARK: Batches and envelopes

typedef struct {
    const char *group;
    uint64_t previous;
} group_entry;

// A batch at `sequence` going to the groups given (each with its previous batch), with at most one
// event: display-1 detached from ipad-1 (`detach`).
typedef struct {
    Camsync__V1__EventBatch batch;
    Camsync__V1__GroupSequence entries[2];
    Camsync__V1__GroupSequence *entry_list[2];
    Camsync__V1__Command command;
    Camsync__V1__Command__DetachDisplay detach_command;
    Camsync__V1__Event event;
    Camsync__V1__Event__DisplayDetached detached;
    Camsync__V1__Event *event_list[1];
} test_batch;

static void make_batch(test_batch *b, uint64_t sequence, int detach, size_t n, const group_entry *groups) {
    camsync__v1__event_batch__init(&b->batch);
    b->batch.sequence = sequence;
    b->batch.term = 1;
    camsync__v1__command__detach_display__init(&b->detach_command);
    b->detach_command.display = "display-1";
    camsync__v1__command__init(&b->command);
    b->command.kind_case = CAMSYNC__V1__COMMAND__KIND_DETACH_DISPLAY;
    b->command.detach_display = &b->detach_command;
    b->batch.command = &b->command;
    for (size_t i = 0; i < n; i++) {
        camsync__v1__group_sequence__init(&b->entries[i]);
        b->entries[i].group = (char *)groups[i].group;
        b->entries[i].sequence = groups[i].previous;
        b->entry_list[i] = &b->entries[i];
    }
    b->batch.n_groups = n;
    b->batch.groups = b->entry_list;
    if (detach) {
        camsync__v1__event__display_detached__init(&b->detached);
        b->detached.display = "display-1";
        b->detached.device = "ipad-1";
        camsync__v1__event__init(&b->event);
        b->event.kind_case = CAMSYNC__V1__EVENT__KIND_DISPLAY_DETACHED;
        b->event.display_detached = &b->detached;
        b->event_list[0] = &b->event;
        b->batch.n_events = 1;
        b->batch.events = b->event_list;
    }
}

// MARK: The agent under test, with a transport that keeps what it sends

static agent_config config;
static display_agent agent;
static Camsync__V1__Envelope *sent[64];
static size_t n_sent;

static int keep_sent(void *context, const uint8_t *bytes, size_t length) {
    (void)context;
    wire_error error;
    Camsync__V1__Envelope *envelope = wire_decode(bytes, length, &error);
    if (!envelope || n_sent == sizeof sent / sizeof *sent) abort();
    sent[n_sent++] = envelope;
    return 0;
}

static void no_control(void *context, const uint8_t *identity, size_t identity_length, const uint8_t *bytes, size_t length) {
    (void)context; (void)identity; (void)identity_length; (void)bytes; (void)length;
}

// What the agent asked of the DEALERs (transport.follow): the last endpoint followed and how.
static char followed_endpoint[64];
static int follows, reopens;

static void keep_follow(void *context, const char *endpoint, const char *key, int reopen) {
    (void)context; (void)key;
    snprintf(followed_endpoint, sizeof followed_endpoint, "%s", endpoint);
    follows++;
    reopens += reopen;
}

static void forget_sent(void) {
    for (size_t i = 0; i < n_sent; i++) wire_free(sent[i]);
    n_sent = 0;
}

// The last request of this body the agent sent since `forget_sent`, or NULL.
static const Camsync__V1__Envelope *last_sent(Camsync__V1__Envelope__BodyCase body) {
    for (size_t i = n_sent; i > 0; i--)
        if (sent[i - 1]->body_case == body) return sent[i - 1];
    return NULL;
}

static void publish(Camsync__V1__Envelope *envelope) {
    envelope->sender = "coordinator";
    envelope->term = 1;
    size_t length = 0;
    uint8_t *bytes = wire_pack(envelope, &length);
    agent_on_published(&agent, 2, bytes, length);
    free(bytes);
}

static void publish_batch(uint64_t sequence, int detach, size_t n, const group_entry *groups) {
    test_batch b;
    make_batch(&b, sequence, detach, n, groups);
    Camsync__V1__Envelope envelope = CAMSYNC__V1__ENVELOPE__INIT;
    envelope.body_case = CAMSYNC__V1__ENVELOPE__BODY_EVENT_BATCH;
    envelope.event_batch = &b.batch;
    publish(&envelope);
}

static void publish_bookmark(const char *group, uint64_t sequence) {
    Camsync__V1__GroupBookmark bookmark = CAMSYNC__V1__GROUP_BOOKMARK__INIT;
    bookmark.group = (char *)group;
    bookmark.sequence = sequence;
    Camsync__V1__Envelope envelope = CAMSYNC__V1__ENVELOPE__INIT;
    envelope.body_case = CAMSYNC__V1__ENVELOPE__BODY_GROUP_BOOKMARK;
    envelope.group_bookmark = &bookmark;
    publish(&envelope);
}

static void reply_to(const Camsync__V1__Envelope *request, Camsync__V1__Envelope *reply) {
    reply->sender = "coordinator";
    reply->term = 1;
    reply->request_id = request->request_id;
    size_t length = 0;
    uint8_t *bytes = wire_pack(reply, &length);
    agent_on_reply(&agent, bytes, length);
    free(bytes);
}

// The group's snapshot answering the agent's last snapshot request: display-1 (attached to
// `attached_to` or to nothing) and, when attached, ipad-1; `group`'s last batch `group_last`.
static void answer_snapshot(uint64_t sequence, const char *group, uint64_t group_last, const char *attached_to) {
    const Camsync__V1__Envelope *request = last_sent(CAMSYNC__V1__ENVELOPE__BODY_SNAPSHOT_REQUEST);
    if (!request) abort();
    Camsync__V1__NodeRecord display = CAMSYNC__V1__NODE_RECORD__INIT, device = CAMSYNC__V1__NODE_RECORD__INIT;
    display.id = "display-1";
    display.alive = 1;
    if (attached_to) {
        display._attached_to_case = CAMSYNC__V1__NODE_RECORD___ATTACHED_TO_ATTACHED_TO;
        display.attached_to = (char *)attached_to;
    }
    device.id = "ipad-1";
    device.alive = 1;
    Camsync__V1__NodeRecord *nodes[] = {&display, &device};
    Camsync__V1__GroupSequence last = CAMSYNC__V1__GROUP_SEQUENCE__INIT;
    last.group = (char *)group;
    last.sequence = group_last;
    Camsync__V1__GroupSequence *lasts[] = {&last};
    Camsync__V1__ClusterState state = CAMSYNC__V1__CLUSTER_STATE__INIT;
    state.n_nodes = attached_to ? 2 : 1;
    state.nodes = nodes;
    state.n_group_sequences = 1;
    state.group_sequences = lasts;
    Camsync__V1__Snapshot snapshot = CAMSYNC__V1__SNAPSHOT__INIT;
    snapshot.sequence = sequence;
    snapshot.term = 1;
    snapshot.state = &state;
    snapshot.group = (char *)group;
    Camsync__V1__Envelope envelope = CAMSYNC__V1__ENVELOPE__INIT;
    envelope.body_case = CAMSYNC__V1__ENVELOPE__BODY_SNAPSHOT;
    envelope.snapshot = &snapshot;
    reply_to(request, &envelope);
}

static void answer_replay(test_batch *batches, size_t n, uint64_t last_sequence) {
    const Camsync__V1__Envelope *request = last_sent(CAMSYNC__V1__ENVELOPE__BODY_REPLAY_REQUEST);
    if (!request) abort();
    Camsync__V1__EventBatch *list[8];
    for (size_t i = 0; i < n; i++) list[i] = &batches[i].batch;
    Camsync__V1__Replay replay = CAMSYNC__V1__REPLAY__INIT;
    replay.n_batches = n;
    replay.batches = list;
    replay.last_sequence = last_sequence;
    Camsync__V1__Envelope envelope = CAMSYNC__V1__ENVELOPE__INIT;
    envelope.body_case = CAMSYNC__V1__ENVELOPE__BODY_REPLAY;
    envelope.replay = &replay;
    reply_to(request, &envelope);
}

static void answer_error(Camsync__V1__Envelope__BodyCase request_body, Camsync__V1__ErrorCode code) {
    const Camsync__V1__Envelope *request = last_sent(request_body);
    if (!request) abort();
    Camsync__V1__Error error = CAMSYNC__V1__ERROR__INIT;
    error.code = code;
    error.message = "test";
    Camsync__V1__Envelope envelope = CAMSYNC__V1__ENVELOPE__INIT;
    envelope.body_case = CAMSYNC__V1__ENVELOPE__BODY_ERROR;
    envelope.error = &error;
    reply_to(request, &envelope);
}

static void start_agent(void) {
    memset(&config, 0, sizeof config);
    char error[256];
    const char *yaml = "id: display-1\nkind: display\ndisplay: { attachedTo: ipad-1 }\n";
    if (config_parse_yaml(&config, yaml, strlen(yaml), error, sizeof error)) {
        fprintf(stderr, "config: %s\n", error);
        abort();
    }
    config.heartbeat_ms = 500;
    config.liveness = 3;
    config.request_retry_ms = 100000; // no retries during a test
    config.request_attempts = 10;
    config.history_limit = 64;
    config.coordinators[0] = "inproc://a";
    config.coordinators[1] = "inproc://b";
    config.n_coordinators = 2;
    follows = reopens = 0;
    followed_endpoint[0] = 0;
    agent_transport transport = {keep_sent, no_control, keep_follow, NULL};
    if (agent_init(&agent, &config, transport)) abort();
    agent_start(&agent);
    // The feed is live once anything is pushed (here an empty frame pair).
    uint8_t nothing[] = {0};
    agent_on_published(&agent, 2, nothing, 0);
}

static void stop_agent(void) {
    forget_sent();
    agent_free(&agent);
    config.coordinators[0] = config.coordinators[1] = NULL;
    config.n_coordinators = 0;
    config_free(&config);
}

// MARK: The rules

static void test_place(void) {
    const group_entry after_10[] = {{"ipad-1", 10}};
    const group_entry after_8[] = {{"ipad-1", 8}};
    const group_entry after_12[] = {{"ipad-1", 12}};
    const group_entry other[] = {{"ipad-2", 10}};
    const group_entry both[] = {{"display-1", 0}, {"ipad-1", 10}};
    test_batch b;
    make_batch(&b, 14, 0, 1, after_10);
    EXPECT(group_place("ipad-1", 10, &b.batch) == BATCH_NEXT, "the batch naming the last one held follows it");
    EXPECT(group_place("ipad-1", 14, &b.batch) == BATCH_OLD, "a batch at what is held came twice");
    make_batch(&b, 13, 0, 1, after_8);
    EXPECT(group_place("ipad-1", 10, &b.batch) == BATCH_OLD, "an older previous batch: a duplicate");
    make_batch(&b, 15, 0, 1, after_12);
    EXPECT(group_place("ipad-1", 10, &b.batch) == BATCH_AFTER_GAP, "a later previous batch: one was lost");
    make_batch(&b, 15, 0, 1, other);
    EXPECT(group_place("ipad-1", 10, &b.batch) == BATCH_NOT_OURS, "another group's batch is not the group's");
    make_batch(&b, 15, 0, 2, both);
    EXPECT(group_place("ipad-1", 10, &b.batch) == BATCH_NEXT, "a batch of two groups follows in each");
    EXPECT(group_place("display-1", 0, &b.batch) == BATCH_NEXT, "a group's first batch names 0");
    make_batch(&b, 11, 0, 0, NULL);
    EXPECT(group_place(NULL, 10, &b.batch) == BATCH_NEXT, "whole state: the next sequence");
    EXPECT(group_place(NULL, 9, &b.batch) == BATCH_AFTER_GAP, "whole state: a skipped sequence");
}

static void test_bookmark_and_topic(void) {
    Camsync__V1__GroupBookmark bookmark = CAMSYNC__V1__GROUP_BOOKMARK__INIT;
    bookmark.group = "ipad-1";
    bookmark.sequence = 12;
    EXPECT(group_bookmark_ahead("ipad-1", 10, &bookmark), "a bookmark past what is held");
    EXPECT(!group_bookmark_ahead("ipad-1", 12, &bookmark), "a bookmark at what is held");
    EXPECT(!group_bookmark_ahead("ipad-2", 0, &bookmark), "another group's bookmark");
    char topic[32];
    size_t length = node_feed_topic("display-1", topic, sizeof topic);
    EXPECT(length == 13 && memcmp(topic, "ev.display-1\0", 13) == 0, "a node's feed is ev.<id> and one zero byte");
    EXPECT(node_feed_topic("display-1", topic, 12) == 0, "a topic that does not fit is refused");
    EXPECT(strcmp(group_of_display("display-1", "ipad-1"), "ipad-1") == 0, "an attached display is its device's");
    EXPECT(strcmp(group_of_display("display-1", NULL), "display-1") == 0, "a lone display is its own group");
}

// MARK: The session

static void test_joining_asks_for_its_group(void) {
    start_agent();
    const Camsync__V1__Envelope *request = last_sent(CAMSYNC__V1__ENVELOPE__BODY_SNAPSHOT_REQUEST);
    EXPECT(request && request->snapshot_request->only_my_group, "the snapshot asked for is the node's group's");
    EXPECT(request && !*request->snapshot_request->group, "no group named: its own");
    // Batches heard before the snapshot: one it covers, one after it.
    publish_batch(11, 0, 1, (group_entry[]){{"ipad-1", 8}});
    publish_batch(13, 0, 1, (group_entry[]){{"ipad-1", 10}});
    publish_batch(14, 0, 1, (group_entry[]){{"ipad-2", 9}});
    answer_snapshot(12, "ipad-1", 10, "ipad-1");
    EXPECT(agent.phase == PHASE_SYNCED, "synced");
    EXPECT(agent.group && strcmp(agent.group, "ipad-1") == 0, "the snapshot names the group followed");
    EXPECT(agent.group_sequence == 13, "the buffered batch after the snapshot is applied, the covered one is not");
    EXPECT(agent.batches_applied == 1, "one batch applied");
    stop_agent();
}

static void test_duplicates_gaps_and_bookmarks(void) {
    start_agent();
    answer_snapshot(12, "ipad-1", 10, "ipad-1");
    forget_sent();
    publish_batch(15, 0, 1, (group_entry[]){{"ipad-1", 10}});
    publish_batch(15, 0, 1, (group_entry[]){{"ipad-1", 10}});
    publish_batch(14, 0, 1, (group_entry[]){{"ipad-1", 9}});
    EXPECT(agent.group_sequence == 15 && agent.batches_applied == 1, "the next batch once; twice and older dropped");
    EXPECT(n_sent == 0, "nothing asked");

    // A lost batch: the group's replay, live batches held meanwhile.
    publish_batch(20, 0, 1, (group_entry[]){{"ipad-1", 17}});
    const Camsync__V1__Envelope *replay = last_sent(CAMSYNC__V1__ENVELOPE__BODY_REPLAY_REQUEST);
    EXPECT(replay && replay->replay_request->after_sequence == 15, "replay after the group's last batch held");
    EXPECT(replay && strcmp(replay->replay_request->group, "ipad-1") == 0, "replay of the group");
    EXPECT(agent.phase == PHASE_REPLAYING, "replaying");
    publish_batch(21, 0, 1, (group_entry[]){{"ipad-1", 20}});
    EXPECT(agent.group_sequence == 15, "held while replaying");
    test_batch missed[2];
    make_batch(&missed[0], 17, 0, 1, (group_entry[]){{"ipad-1", 15}});
    make_batch(&missed[1], 20, 0, 1, (group_entry[]){{"ipad-1", 17}});
    answer_replay(missed, 2, 20);
    EXPECT(agent.phase == PHASE_SYNCED, "caught up");
    EXPECT(agent.group_sequence == 21, "the replayed batches, then the held one");

    // Bookmarks: one at what is held asks nothing, one ahead asks for the group's replay.
    forget_sent();
    publish_bookmark("ipad-1", 21);
    EXPECT(n_sent == 0, "a bookmark at what is held asks nothing");
    publish_bookmark("ipad-1", 24);
    replay = last_sent(CAMSYNC__V1__ENVELOPE__BODY_REPLAY_REQUEST);
    EXPECT(replay && replay->replay_request->after_sequence == 21 && strcmp(replay->replay_request->group, "ipad-1") == 0,
           "a bookmark ahead: the group's replay");
    // COMPACTED: the group's snapshot again (the only snapshot request since forget_sent).
    answer_error(CAMSYNC__V1__ENVELOPE__BODY_REPLAY_REQUEST, CAMSYNC__V1__ERROR_CODE__ERROR_CODE_COMPACTED);
    const Camsync__V1__Envelope *snapshot = last_sent(CAMSYNC__V1__ENVELOPE__BODY_SNAPSHOT_REQUEST);
    EXPECT(snapshot && snapshot->snapshot_request->only_my_group, "COMPACTED: the group's snapshot");
    answer_snapshot(24, "ipad-1", 24, "ipad-1");
    EXPECT(agent.phase == PHASE_SYNCED && agent.group_sequence == 24, "synced again");
    stop_agent();
}

static void test_a_move_takes_the_new_groups_snapshot(void) {
    start_agent();
    answer_snapshot(24, "ipad-1", 24, "ipad-1");
    forget_sent();
    // Detached from ipad-1: the batch reaches both groups; then display-1 is a group of its own.
    publish_batch(25, 1, 2, (group_entry[]){{"display-1", 0}, {"ipad-1", 24}});
    EXPECT(agent.group_moves == 1, "the move is noticed");
    const Camsync__V1__Envelope *snapshot = last_sent(CAMSYNC__V1__ENVELOPE__BODY_SNAPSHOT_REQUEST);
    EXPECT(snapshot && snapshot->snapshot_request->only_my_group, "the new group's snapshot is asked for");
    EXPECT(agent.phase == PHASE_AWAITING_SNAPSHOT, "waiting for it");
    // The new group's next batch arrives before the snapshot: held, then applied after it.
    publish_batch(27, 0, 1, (group_entry[]){{"display-1", 25}});
    answer_snapshot(26, "display-1", 25, NULL);
    EXPECT(agent.group && strcmp(agent.group, "display-1") == 0, "following the new group");
    EXPECT(agent.group_sequence == 27, "the held batch follows the snapshot");
    EXPECT(agent.view.self.attached_to == NULL, "detached in the view");

    // Late news of another group (pushed before the snapshot, by a previous leader): nothing asked.
    forget_sent();
    publish_batch(26, 0, 1, (group_entry[]){{"ipad-1", 25}});
    publish_bookmark("ipad-1", 25);
    EXPECT(n_sent == 0 && agent.phase == PHASE_SYNCED, "another group's batch or bookmark from before the snapshot");
    // A later batch of another group on the node's own feed: the coordinator moved it (a lost batch said so).
    publish_batch(30, 0, 1, (group_entry[]){{"ipad-1", 25}});
    snapshot = last_sent(CAMSYNC__V1__ENVELOPE__BODY_SNAPSHOT_REQUEST);
    EXPECT(snapshot && snapshot->snapshot_request->only_my_group, "another group's batch on its feed: its group's snapshot");
    answer_snapshot(30, "ipad-1", 30, "ipad-1");
    forget_sent();
    publish_bookmark("display-1", 31);
    EXPECT(last_sent(CAMSYNC__V1__ENVELOPE__BODY_SNAPSHOT_REQUEST) != NULL,
           "a bookmark of another group, after what it heard, on its feed: its group's snapshot");
    stop_agent();
}

// A display whose device is not in its group's snapshot (it registered first; the device's
// registration is covered by the snapshot) asks to attach anyway: the coordinator knows.
static void test_a_waiting_display_asks_to_attach(void) {
    start_agent();
    const Camsync__V1__Envelope *registration = last_sent(CAMSYNC__V1__ENVELOPE__BODY_COMMAND);
    if (!registration) abort();
    Camsync__V1__Ack ack = CAMSYNC__V1__ACK__INIT;
    ack.sequence = 2;
    Camsync__V1__Envelope reply = CAMSYNC__V1__ENVELOPE__INIT;
    reply.body_case = CAMSYNC__V1__ENVELOPE__BODY_ACK;
    reply.ack = &ack;
    reply_to(registration, &reply);
    EXPECT(agent.registered, "registered");
    EXPECT(last_sent(CAMSYNC__V1__ENVELOPE__BODY_COMMAND) == registration, "no attach before the snapshot");
    answer_snapshot(3, "display-1", 3, NULL);
    const Camsync__V1__Envelope *attach = last_sent(CAMSYNC__V1__ENVELOPE__BODY_COMMAND);
    EXPECT(attach && attach->command->kind_case == CAMSYNC__V1__COMMAND__KIND_ATTACH_DISPLAY &&
               strcmp(attach->command->attach_display->device, "ipad-1") == 0,
           "attach_display to the configured device, not in the group's snapshot");
    stop_agent();
}

// MARK: Several coordinators: a DEALER to each, kept

// A heartbeat the leader at `endpoint` pushes in `term`, naming itself.
static void push_leader_heartbeat(const char *endpoint, uint64_t term) {
    Camsync__V1__CoordinatorAddress address = CAMSYNC__V1__COORDINATOR_ADDRESS__INIT;
    address.name = "leader";
    address.command_endpoint = (char *)endpoint;
    address.term = term;
    Camsync__V1__CoordinatorHeartbeat heartbeat = CAMSYNC__V1__COORDINATOR_HEARTBEAT__INIT;
    heartbeat.term = term;
    heartbeat.coordinator = &address;
    Camsync__V1__Envelope envelope = CAMSYNC__V1__ENVELOPE__INIT;
    envelope.sender = "coordinator";
    envelope.term = term;
    envelope.body_case = CAMSYNC__V1__ENVELOPE__BODY_COORDINATOR_HEARTBEAT;
    envelope.coordinator_heartbeat = &heartbeat;
    size_t length = 0;
    uint8_t *bytes = wire_pack(&envelope, &length);
    agent_on_published(&agent, 2, bytes, length);
    free(bytes);
}

// Whether every pending request went out again since `forget_sent`, with its id (K5).
static int pending_resent(void) {
    for (size_t i = 0; i < agent.n_pending; i++) {
        int found = 0;
        for (size_t j = 0; j < n_sent; j++) found |= sent[j]->request_id == agent.pending[i].request_id;
        if (!found) return 0;
    }
    return agent.n_pending > 0;
}

static void test_following_a_leader_keeps_the_connections(void) {
    start_agent();
    EXPECT(follows == 0, "the agent starts on the first coordinator's DEALER, opened by the loop");
    EXPECT(agent.n_pending == 2, "registration and snapshot pending");
    forget_sent();
    // The leader's heartbeat names the second coordinator: requests move to its DEALER, kept open.
    push_leader_heartbeat("inproc://b", 5);
    EXPECT(follows == 1 && reopens == 0 && strcmp(followed_endpoint, "inproc://b") == 0,
           "a named leader is followed on the DEALER kept to it, not reopened");
    EXPECT(pending_resent(), "pending requests resent on it with their ids");
    EXPECT(last_sent(CAMSYNC__V1__ENVELOPE__BODY_COMMAND) && agent.n_pending == 2, "no new registration");
    EXPECT(agent.feed_live, "the feed stays live: no socket was reopened");

    // A NOT_LEADER naming a leader at an endpoint the list does not hold: followed there (the loop opens it).
    forget_sent();
    Camsync__V1__CoordinatorAddress leader = CAMSYNC__V1__COORDINATOR_ADDRESS__INIT;
    leader.command_endpoint = "inproc://c";
    leader.term = 7;
    Camsync__V1__Error error = CAMSYNC__V1__ERROR__INIT;
    error.code = CAMSYNC__V1__ERROR_CODE__ERROR_CODE_NOT_LEADER;
    error.message = "not the leader";
    error.leader = &leader;
    Camsync__V1__Envelope reply = CAMSYNC__V1__ENVELOPE__INIT;
    reply.sender = "coordinator";
    reply.request_id = agent.pending[0].request_id;
    reply.body_case = CAMSYNC__V1__ENVELOPE__BODY_ERROR;
    reply.error = &error;
    size_t length = 0;
    uint8_t *bytes = wire_pack(&reply, &length);
    agent_on_reply(&agent, bytes, length);
    free(bytes);
    EXPECT(follows == 2 && reopens == 0 && strcmp(followed_endpoint, "inproc://c") == 0,
           "a leader named by another coordinator is followed, nothing reopened");
    EXPECT(pending_resent() && agent.n_pending == 2, "the request it refused stays pending and is resent");

    // Every coordinator silent: the next endpoint of the list, its DEALER alone reopened.
    forget_sent();
    int64_t now = agent_monotonic_ms() + 10 * config.heartbeat_ms * config.liveness;
    agent_tick(&agent, now);
    EXPECT(agent.coordinator_silent && follows == 2, "silent; the first reconnect comes an interval later");
    agent_tick(&agent, now + agent.config->heartbeat_ms);
    EXPECT(follows == 3 && reopens == 1 && strcmp(followed_endpoint, "inproc://a") == 0,
           "silence: the list's next endpoint, its DEALER reopened");
    EXPECT(!agent.feed_live, "a reopened DEALER: the feed counts as opening again");
    EXPECT(pending_resent(), "pending requests resent on it with their ids");
    stop_agent();
}

// How many times since `forget_sent` the agent sent a register_node with this request id, and
// whether it sent one with another id (a new registration).
static int registrations_sent(uint64_t request_id, int *other_ids) {
    int count = 0;
    if (other_ids) *other_ids = 0;
    for (size_t i = 0; i < n_sent; i++) {
        if (sent[i]->body_case != CAMSYNC__V1__ENVELOPE__BODY_COMMAND ||
            sent[i]->command->kind_case != CAMSYNC__V1__COMMAND__KIND_REGISTER_NODE)
            continue;
        if (sent[i]->request_id == request_id) count++;
        else if (other_ids) *other_ids = 1;
    }
    return count;
}

static int requests_sent(uint64_t request_id) {
    int count = 0;
    for (size_t i = 0; i < n_sent; i++) count += sent[i]->request_id == request_id;
    return count;
}

// Unanswered requests while the leader is heard (its pushes come on the DEALER requests go on, the
// route its replies take): no DEALER is reopened; each request goes again on the same one, with its
// id, every retry interval, for as long as it takes (here four liveness timeouts).
static void test_unanswered_requests_stay_on_the_dealer_that_hears_the_leader(void) {
    start_agent();
    config.request_retry_ms = 1000;
    const Camsync__V1__Envelope *registration = last_sent(CAMSYNC__V1__ENVELOPE__BODY_COMMAND);
    const Camsync__V1__Envelope *snapshot = last_sent(CAMSYNC__V1__ENVELOPE__BODY_SNAPSHOT_REQUEST);
    if (!registration || !snapshot) abort();
    uint64_t registration_id = registration->request_id, snapshot_id = snapshot->request_id;
    forget_sent();
    int64_t start = agent_monotonic_ms(), timeout = config.heartbeat_ms * config.liveness;
    for (int64_t t = start + config.heartbeat_ms / 2; t <= start + 4 * timeout; t += config.heartbeat_ms / 2) {
        // The leader (the coordinator followed) pushes its heartbeat; the agent stamps what it hears
        // with its own clock, which this test's runs ahead of.
        push_leader_heartbeat("inproc://a", 1);
        agent.last_heard = t;
        agent_tick(&agent, t);
        if (t == start + config.request_retry_ms - 1)
            EXPECT(registrations_sent(registration_id, NULL) == 0, "not resent before the retry interval");
    }
    EXPECT(!agent.coordinator_silent, "the leader is heard throughout");
    EXPECT(follows == 0 && reopens == 0, "no DEALER reopened or changed: every resend went on the one that hears the leader");
    EXPECT(agent.feed_live, "the feed stays live");
    int other_ids = 0;
    EXPECT(registrations_sent(registration_id, &other_ids) == 6, "the registration resent every retry interval, with its id");
    EXPECT(!other_ids, "no new registration");
    EXPECT(requests_sent(snapshot_id) == 6, "the snapshot request resent every retry interval, with its id");
    EXPECT(agent.n_pending == 2, "both still pending");
    stop_agent();
}

// The back-off itself: the same function as the Swift node's registrationBackoff (values computed
// from its definition: FNV-1a of the id ^ attempt ^ monotonic ms through one SplitMix64 draw).
static void test_registration_backoff(void) {
    EXPECT(agent_registration_backoff("display-1", 1, 12345, 500) == 531, "attempt 1");
    EXPECT(agent_registration_backoff("display-1", 2, 12345, 500) == 998, "attempt 2");
    EXPECT(agent_registration_backoff("display-1", 3, 987654321, 500) == 2717, "attempt 3");
    EXPECT(agent_registration_backoff("display-1", 7, 1, 500) == 3278, "attempt 7");
    for (int attempt = 1; attempt <= 8; attempt++) {
        int64_t base = 500LL << (attempt - 1 < 3 ? attempt - 1 : 3), lowest = base * 2, highest = 0;
        for (int64_t now = 0; now < 2000; now++) {
            int64_t backoff = agent_registration_backoff("display-1", attempt, now, 500);
            if (backoff < lowest) lowest = backoff;
            if (backoff > highest) highest = backoff;
        }
        EXPECT(lowest >= base / 2 && highest < base / 2 + base, "within [base/2, base/2 + base)");
        EXPECT(highest - lowest > base / 2, "spread over the range");
    }
    EXPECT(agent_registration_backoff("display-1", 1, 7, 500) != agent_registration_backoff("display-2", 1, 7, 500),
           "another node draws another wait");
}

// A registration answered OVERLOADED (the turn admitted its 64): pending still, sent again with the
// same request id after its back-off (attempt 1: between ½ and 1½ intervals; attempt 2: between 1
// and 3), never before; then an ack registers the node.
static void test_an_overloaded_registration_is_sent_again_after_a_backoff(void) {
    start_agent();
    const Camsync__V1__Envelope *registration = last_sent(CAMSYNC__V1__ENVELOPE__BODY_COMMAND);
    if (!registration) abort();
    uint64_t id = registration->request_id;
    int64_t interval = config.heartbeat_ms;
    for (int attempt = 1; attempt <= 2; attempt++) {
        int64_t base = interval << (attempt - 1);
        int64_t before = agent_monotonic_ms();
        answer_error(CAMSYNC__V1__ENVELOPE__BODY_COMMAND, CAMSYNC__V1__ERROR_CODE__ERROR_CODE_OVERLOADED);
        int64_t after = agent_monotonic_ms();
        EXPECT(agent_pending(&agent, id) != NULL && !agent.registered, "OVERLOADED: the registration stays pending");
        forget_sent();
        agent_tick(&agent, before + base / 2 - 1);
        EXPECT(registrations_sent(id, NULL) == 0, "not sent again before its back-off's least");
        agent_tick(&agent, after + base / 2 + base - 1);
        int other_ids = 0;
        EXPECT(registrations_sent(id, &other_ids) == 1 && !other_ids, "sent again once, with the same request id");
        const pending_request *request = agent_pending(&agent, id);
        EXPECT(request && request->sent_at == after + base / 2 + base - 1 && request->attempts == attempt + 1,
               "its retry clock starts again at the resend");
    }
    Camsync__V1__Ack ack = CAMSYNC__V1__ACK__INIT;
    ack.sequence = 2;
    Camsync__V1__Envelope reply = CAMSYNC__V1__ENVELOPE__INIT;
    reply.body_case = CAMSYNC__V1__ENVELOPE__BODY_ACK;
    reply.ack = &ack;
    reply_to(last_sent(CAMSYNC__V1__ENVELOPE__BODY_COMMAND), &reply);
    EXPECT(agent.registered && agent_pending(&agent, id) == NULL, "the ack to the resent registration registers it");
    stop_agent();
}

int main(void) {
    log_quiet = 1;
    test_place();
    test_bookmark_and_topic();
    test_joining_asks_for_its_group();
    test_duplicates_gaps_and_bookmarks();
    test_a_move_takes_the_new_groups_snapshot();
    test_a_waiting_display_asks_to_attach();
    test_following_a_leader_keeps_the_connections();
    test_unanswered_requests_stay_on_the_dealer_that_hears_the_leader();
    test_registration_backoff();
    test_an_overloaded_registration_is_sent_again_after_a_backoff();
    if (failures) {
        fprintf(stderr, "group-following-test: %d failure(s)\n", failures);
        return 1;
    }
    printf("group-following-test: all cases pass\n");
    return 0;
}
