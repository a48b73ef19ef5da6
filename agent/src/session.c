// The session with the coordinator: joining (K2), the snapshot of the node's device group and the
// group's batches with gap detection and replay (Clone pattern without an engine, docs/PROTOCOL.md
// "Following one group"), attaching to the device, new terms.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent.h"
#include "group.h"
#include "text.h"
#include "wire.h"

int agent_init(display_agent *agent, agent_config *config, agent_transport transport) {
    memset(agent, 0, sizeof *agent);
    agent->config = config;
    agent->transport = transport;
    view_init(&agent->view, config);
    if (fence_init(&agent->fence, config->id, config->history_limit)) return -1;
    agent->buffer_limit = 10000;
    agent->phase = PHASE_AWAITING_SNAPSHOT;
    // Request ids must not repeat across restarts of this node (K5 windows live in the coordinator).
    agent->next_request_id = (uint64_t)agent_wall_ms() << 16;
    agent->reconnect_delay = config->heartbeat_ms;
    agent->last_heard = agent_monotonic_ms();
    follower_init(&agent->leader, (const char *const *)config->coordinators, config->n_coordinators);
    return 0;
}

static void drop_buffer(display_agent *agent) {
    for (size_t i = 0; i < agent->n_buffered; i++) wire_free(agent->buffered[i]);
    agent->n_buffered = 0;
}

void agent_free(display_agent *agent) {
    drop_buffer(agent);
    free(agent->buffered);
    while (agent->n_pending) agent_drop_pending(agent, agent->n_pending - 1);
    free(agent->pending);
    view_free(&agent->view);
    fence_free(&agent->fence);
    free(agent->group);
}

// Where the agent stands: the group's last batch held, or (whole state) the last sequence.
static uint64_t held(const display_agent *agent) { return agent->group ? agent->group_sequence : agent->sequence; }

// MARK: Joining

static void resync(display_agent *agent) {
    agent->phase = PHASE_AWAITING_SNAPSHOT;
    agent->replay_requested = 0;
    drop_buffer(agent);
}

void agent_request_snapshot(display_agent *agent) {
    agent->snapshot_wanted = 1;
    if (!agent->feed_live || agent->snapshot_requested) return;
    agent->snapshot_wanted = 0;
    agent->snapshot_requested = 1;
    Camsync__V1__SnapshotRequest request = CAMSYNC__V1__SNAPSHOT_REQUEST__INIT;
    // Its own device group's part, whichever group that is now (a node reads no other under CURVE).
    request.only_my_group = 1;
    Camsync__V1__Envelope envelope = CAMSYNC__V1__ENVELOPE__INIT;
    envelope.body_case = CAMSYNC__V1__ENVELOPE__BODY_SNAPSHOT_REQUEST;
    envelope.snapshot_request = &request;
    agent_send_request(agent, &envelope, ORIGIN_SNAPSHOT, NULL, 0, 0);
}

static void need_snapshot(display_agent *agent, const char *reason) {
    agent_log(agent, "info", "resync reason=\"%s\" have=%llu group=%s", reason, (unsigned long long)held(agent),
              agent->group ? agent->group : "");
    agent->resnapshots++;
    resync(agent);
    agent_request_snapshot(agent);
}

// A gap after the group's last batch held: ask for the group's missing batches (the agent keeps no
// engine, so a replay is cheaper than a snapshot); COMPACTED or any error falls back to a snapshot.
static void request_replay(display_agent *agent) {
    agent->phase = PHASE_REPLAYING;
    if (agent->replay_requested) return;
    agent->replay_requested = 1;
    agent->replays++;
    Camsync__V1__ReplayRequest request = CAMSYNC__V1__REPLAY_REQUEST__INIT;
    request.after_sequence = held(agent);
    if (agent->group) request.group = agent->group;
    Camsync__V1__Envelope envelope = CAMSYNC__V1__ENVELOPE__INIT;
    envelope.body_case = CAMSYNC__V1__ENVELOPE__BODY_REPLAY_REQUEST;
    envelope.replay_request = &request;
    agent_send_request(agent, &envelope, ORIGIN_REPLAY, NULL, 0, 0);
}

void agent_join(display_agent *agent, const char *reason, int resync_too) {
    agent->registered = 0;
    if (resync_too) {
        resync(agent);
        agent->snapshot_requested = 0;
        agent->snapshot_wanted = 0;
    }
    // Requests to a previous coordinator incarnation are abandoned: register/snapshot restart here.
    for (size_t i = 0; i < agent->n_pending;) {
        request_origin origin = agent->pending[i].origin;
        if (origin == ORIGIN_REGISTER || origin == ORIGIN_ATTACH ||
            (resync_too && (origin == ORIGIN_SNAPSHOT || origin == ORIGIN_REPLAY)))
            agent_drop_pending(agent, i);
        else
            i++;
    }
    agent_config *c = agent->config;
    Camsync__V1__CameraSpec specs[c->n_cameras ? c->n_cameras : 1];
    Camsync__V1__CameraSpec *spec_list[c->n_cameras ? c->n_cameras : 1];
    for (size_t i = 0; i < c->n_cameras; i++) {
        camsync__v1__camera_spec__init(&specs[i]);
        specs[i].name = c->cameras[i].name;
        specs[i].position = c->cameras[i].position;
        spec_list[i] = &specs[i];
    }
    // The registration names the device the config names (SPEC §1: the only device a display may
    // attach itself to). It attaches at once if that device is alive, else with its own command once
    // it is (the device may join later).
    Camsync__V1__DisplayAttributes display = CAMSYNC__V1__DISPLAY_ATTRIBUTES__INIT;
    display.name = c->display_name;
    if (c->attached_to) {
        display._attached_to_case = CAMSYNC__V1__DISPLAY_ATTRIBUTES___ATTACHED_TO_ATTACHED_TO;
        display.attached_to = c->attached_to;
    }
    display.n_cameras = c->n_cameras;
    display.cameras = spec_list;
    Camsync__V1__NodeRegistration registration = CAMSYNC__V1__NODE_REGISTRATION__INIT;
    registration.node = c->id;
    registration.attributes_case = CAMSYNC__V1__NODE_REGISTRATION__ATTRIBUTES_DISPLAY;
    registration.display = &display;
    Camsync__V1__Command__RegisterNode register_node = CAMSYNC__V1__COMMAND__REGISTER_NODE__INIT;
    register_node.registration = &registration;
    Camsync__V1__Command command = CAMSYNC__V1__COMMAND__INIT;
    command.kind_case = CAMSYNC__V1__COMMAND__KIND_REGISTER_NODE;
    command.register_node = &register_node;
    Camsync__V1__Envelope envelope = CAMSYNC__V1__ENVELOPE__INIT;
    envelope.body_case = CAMSYNC__V1__ENVELOPE__BODY_COMMAND;
    envelope.command = &command;
    agent->attach_requested = 0;
    agent_log(agent, "info", "joining reason=\"%s\"", reason);
    agent_send_request(agent, &envelope, ORIGIN_REGISTER, NULL, 0, 0);
    if (resync_too) agent_request_snapshot(agent);
}

void agent_start(display_agent *agent) { agent_join(agent, "start", 1); }

// A display whose config names a device attaches to it once both are alive in the view.
static void attach_if_configured(display_agent *agent) {
    view_state *v = &agent->view;
    if (!agent->registered || agent->attach_requested || agent->phase != PHASE_SYNCED || !v->device_id) return;
    if (!v->self.known || !v->self.alive) return;
    // Attached already (by its registration, when the device was alive then): this join's attach is
    // done, and a later detach by the user stays.
    if (v->self.attached_to) {
        agent->attach_requested = 1;
        return;
    }
    // A replica of one group does not hold the device it waits for (the device's registration
    // reaches the display's group, but a snapshot may already cover it): ask, and the coordinator
    // refuses an attach to a device that is not alive (asked again when the device next joins).
    if (v->device.known ? !v->device.alive : !agent->group) return;
    agent->attach_requested = 1;
    Camsync__V1__Command__AttachDisplay attach = CAMSYNC__V1__COMMAND__ATTACH_DISPLAY__INIT;
    attach.display = agent->config->id;
    attach.device = (char *)v->device_id;
    Camsync__V1__Command command = CAMSYNC__V1__COMMAND__INIT;
    command.kind_case = CAMSYNC__V1__COMMAND__KIND_ATTACH_DISPLAY;
    command.attach_display = &attach;
    Camsync__V1__Envelope envelope = CAMSYNC__V1__ENVELOPE__INIT;
    envelope.body_case = CAMSYNC__V1__ENVELOPE__BODY_COMMAND;
    envelope.command = &command;
    agent_send_request(agent, &envelope, ORIGIN_ATTACH, NULL, 0, 0);
}

// A new coordinator term: another coordinator leads, or it restarted from its journal. Not a
// restart of the cluster (SPEC K7): the view and the registration carry over, pending requests are
// re-sent with their ids. What cannot continue shows by itself: a gap (replay, else snapshot), a
// view ahead of a coordinator that lost its journal (snapshot), a declared death (rejoin).
static void note_term(display_agent *agent, uint64_t term) {
    int first = agent->leader.highest_term == 0;
    if (!follower_note_term(&agent->leader, term) || first) return;
    agent_log(agent, "info", "new coordinator term: the view and the registration carry over (K7) term=%llu sequence=%llu",
              (unsigned long long)term, (unsigned long long)agent->sequence);
}

// Back after silence (K7): the view continues if it can; what was missed shows in the next
// heartbeat (replay), a death declared meanwhile in a batch or snapshot (rejoin, K2).
static void heard_from_coordinator(display_agent *agent) {
    agent->last_heard = agent_monotonic_ms();
    if (agent->coordinator_silent) {
        agent->coordinator_silent = 0;
        agent->reconnect_delay = agent->config->heartbeat_ms;
        agent_log(agent, "info", "coordinator is back");
    }
}

// MARK: Batches

// An attach, a detach or its device's death moved this display: the new group's part of the state
// comes in a new only_my_group snapshot; the new group's batches, on the same feed, wait for it.
static void follow_new_group(display_agent *agent) {
    const char *now_in = group_of_display(agent->config->id, agent->view.self.attached_to);
    if (!agent->group || text_equal(agent->group, now_in)) return;
    agent->group_moves++;
    agent_log(agent, "info", "moved to another device group: its snapshot from=%s to=%s", agent->group, now_in);
    need_snapshot(agent, "moved to another device group");
}

// Whether `batch` says `node` left (a display detached with its device's leaving, not by request).
static int batch_has_left(const Camsync__V1__EventBatch *batch, const char *node) {
    for (size_t i = 0; i < batch->n_events; i++) {
        const Camsync__V1__Event *event = batch->events[i];
        if (event && event->kind_case == CAMSYNC__V1__EVENT__KIND_NODE_LEFT && text_equal(event->node_left->node, node)) return 1;
    }
    return 0;
}

// Applies one batch's events to the view and the fence. -1: malformed (the caller re-snapshots).
static int apply_batch(display_agent *agent, const Camsync__V1__EventBatch *batch) {
    if (!batch->command || batch->command->kind_case == CAMSYNC__V1__COMMAND__KIND__NOT_SET) return -1;
    int rejoin = 0, moved = 0;
    for (size_t i = 0; i < batch->n_events; i++) {
        const Camsync__V1__Event *event = batch->events[i];
        if (!event || view_apply(&agent->view, event, agent->config)) return -1;
        switch (event->kind_case) {
        case CAMSYNC__V1__EVENT__KIND_CAMERA_GRANTED: {
            const char *camera = wire_external_camera_of(event->camera_granted->camera_system, agent->config->id);
            if (camera)
                fence_granted(&agent->fence, camera, event->camera_granted->app->device,
                              event->camera_granted->app->bundle_id, event->camera_granted->token, batch->sequence);
            break;
        }
        case CAMSYNC__V1__EVENT__KIND_CAMERA_RELEASED: {
            const char *camera = wire_external_camera_of(event->camera_released->camera_system, agent->config->id);
            if (camera)
                fence_released(&agent->fence, camera, event->camera_released->app->device,
                               event->camera_released->app->bundle_id, batch->sequence);
            break;
        }
        case CAMSYNC__V1__EVENT__KIND_NODE_JOINED:
        case CAMSYNC__V1__EVENT__KIND_NODE_REJOINED: {
            const char *node = event->kind_case == CAMSYNC__V1__EVENT__KIND_NODE_JOINED ? event->node_joined->node
                                                                                        : event->node_rejoined->node;
            // Our device (re)joined: attach again, as a display plugged into a rebooted iPad would.
            if (agent->view.device_id && strcmp(node, agent->view.device_id) == 0) {
                agent->attach_requested = 0;
                agent->detached_by_request = 0;
            }
            break;
        }
        case CAMSYNC__V1__EVENT__KIND_DISPLAY_ATTACHED:
            if (text_equal(event->display_attached->display, agent->config->id)) {
                moved = 1;
                agent->detached_by_request = 0;
            }
            break;
        case CAMSYNC__V1__EVENT__KIND_DISPLAY_DETACHED:
            if (text_equal(event->display_detached->display, agent->config->id)) {
                moved = 1;
                agent->detached_by_request = !batch_has_left(batch, event->display_detached->device);
            }
            break;
        case CAMSYNC__V1__EVENT__KIND_NODE_LEFT:
            // Our device left, which detached us: attach once it is back (refused while it is away,
            // the attach is asked again at the next snapshot or batch).
            if (agent->view.device_id && strcmp(event->node_left->node, agent->view.device_id) == 0)
                agent->attach_requested = 0;
            if (strcmp(event->node_left->node, agent->config->id) == 0 &&
                event->node_left->reason == CAMSYNC__V1__NODE_LEAVE_REASON__NODE_LEAVE_REASON_DECLARED_DEAD)
                rejoin = 1;
            break;
        default:
            break;
        }
    }
    agent->sequence = batch->sequence;
    if (agent->group) agent->group_sequence = batch->sequence;
    agent->term = batch->term;
    agent->batches_applied++;
    if (rejoin) {
        agent_log(agent, "warning", "this node was declared dead: rejoining");
        agent_join(agent, "declared dead", 1);
    } else if (moved) {
        follow_new_group(agent);
    }
    return 0;
}

// Feeds one batch in sync: applies the one after the group's last, drops old ones, replays after a
// gap. `live`: it came on the feed just now (not from the buffer), so one of another group after
// the last sequence heard means the coordinator moved this display (the batch that said so was
// lost). One from before it was pushed before the snapshot and is late: a coordinator's pushes and
// replies share the node's DEALER to it and stay in order, but a previous leader's pushes come on
// another DEALER, with no order against the snapshot.
static void receive_synced(display_agent *agent, const Camsync__V1__EventBatch *batch, int live) {
    switch (group_place(agent->group, held(agent), batch)) {
    case BATCH_OLD:
        return;
    case BATCH_NOT_OURS:
        if (live && batch->sequence > agent->sequence)
            need_snapshot(agent, "a batch of another device group on this node's feed");
        return;
    case BATCH_AFTER_GAP:
        agent_log(agent, "info", "gap: batch %llu does not follow %llu in group %s; replaying",
                  (unsigned long long)batch->sequence, (unsigned long long)held(agent), agent->group ? agent->group : "");
        request_replay(agent);
        return;
    case BATCH_NEXT:
        if (apply_batch(agent, batch)) need_snapshot(agent, "malformed event batch");
        return;
    }
}

static int sequence_order(const void *a, const void *b) {
    uint64_t x = (*(Camsync__V1__Envelope *const *)a)->event_batch->sequence;
    uint64_t y = (*(Camsync__V1__Envelope *const *)b)->event_batch->sequence;
    return x < y ? -1 : x > y;
}

static void buffer(display_agent *agent, Camsync__V1__Envelope *envelope);

// After a snapshot or a replay: the buffered live batches that follow, in order (those of other
// groups, heard before the snapshot named the group, are dropped). Once one needs a replay or a
// new snapshot (a move), the rest wait in the buffer for it.
static void drain_buffer(display_agent *agent) {
    if (agent->n_buffered == 0) return;
    qsort(agent->buffered, agent->n_buffered, sizeof *agent->buffered, sequence_order);
    size_t n = agent->n_buffered;
    Camsync__V1__Envelope **batches = agent->buffered;
    agent->buffered = NULL;
    agent->n_buffered = 0;
    for (size_t i = 0; i < n; i++) {
        if (agent->phase == PHASE_SYNCED) {
            receive_synced(agent, batches[i]->event_batch, 0);
            wire_free(batches[i]);
        } else {
            buffer(agent, batches[i]);
        }
    }
    free(batches);
}

static void buffer(display_agent *agent, Camsync__V1__Envelope *envelope) {
    if (agent->n_buffered >= agent->buffer_limit) {
        // Drop the oldest; the gap it leaves is replayed or re-snapshotted later.
        size_t oldest = 0;
        for (size_t i = 1; i < agent->n_buffered; i++)
            if (agent->buffered[i]->event_batch->sequence < agent->buffered[oldest]->event_batch->sequence) oldest = i;
        wire_free(agent->buffered[oldest]);
        agent->buffered[oldest] = agent->buffered[--agent->n_buffered];
    }
    Camsync__V1__Envelope **grown = realloc(agent->buffered, (agent->n_buffered + 1) * sizeof *grown);
    if (!grown) {
        wire_free(envelope);
        return;
    }
    agent->buffered = grown;
    agent->buffered[agent->n_buffered++] = envelope;
}

// A group's last batch, on the node's feed with a heartbeat: a lost last batch of an idle group
// shows here. A bookmark of another group whose last batch is after the last sequence heard means
// the coordinator moved this display; one not after it may be late (pushed before the snapshot
// that moved it, by a previous leader on another DEALER), and says nothing.
static void on_bookmark(display_agent *agent, const Camsync__V1__GroupBookmark *bookmark) {
    if (agent->phase != PHASE_SYNCED || !agent->group) return;
    if (!text_equal(bookmark->group, agent->group)) {
        if (bookmark->sequence > agent->sequence)
            need_snapshot(agent, "a bookmark of another device group on this node's feed");
    } else if (group_bookmark_ahead(agent->group, agent->group_sequence, bookmark)) {
        agent_log(agent, "info", "behind the group: have %llu, its last batch is %llu; replaying",
                  (unsigned long long)agent->group_sequence, (unsigned long long)bookmark->sequence);
        request_replay(agent);
    }
}

void agent_on_published(display_agent *agent, size_t n_frames, const uint8_t *bytes, size_t length) {
    wire_error error;
    Camsync__V1__Envelope *envelope = n_frames == 2 ? wire_decode(bytes, length, &error) : NULL;
    // A deposed leader (a lower term than one seen) is not heard at all (SPEC K6).
    if (envelope && agent_is_stale(agent, envelope->term, "publication")) {
        wire_free(envelope);
        return;
    }
    // A heartbeat naming a coordinator the agent does not believe is not heard at all: neither its
    // term (however high), nor its leadership, nor a sign of life (a CURVE key pair per coordinator).
    if (envelope && envelope->body_case == CAMSYNC__V1__ENVELOPE__BODY_COORDINATOR_HEARTBEAT &&
        envelope->coordinator_heartbeat->coordinator &&
        !agent_believes(agent, envelope->coordinator_heartbeat->coordinator, "heartbeat")) {
        wire_free(envelope);
        return;
    }
    heard_from_coordinator(agent);
    if (!agent->feed_live) {
        agent->feed_live = 1;
        if (agent->snapshot_wanted) agent_request_snapshot(agent);
    }
    if (n_frames != 2) return;
    if (!envelope) {
        agent->bad_frames++;
        // A batch we cannot read leaves a hole; the next heartbeat's last_sequence shows it.
        agent_log(agent, "warning", "undecodable publication: %s", error.message);
        return;
    }
    if (envelope->body_case == CAMSYNC__V1__ENVELOPE__BODY_EVENT_BATCH) {
        // A push with a higher term also means a new coordinator (docs/PROTOCOL.md "Envelope").
        note_term(agent, envelope->event_batch->term);
        if (agent->phase == PHASE_SYNCED) {
            receive_synced(agent, envelope->event_batch, 1);
            if (agent->phase == PHASE_SYNCED) attach_if_configured(agent);
        } else {
            buffer(agent, envelope);
            return;
        }
    } else if (envelope->body_case == CAMSYNC__V1__ENVELOPE__BODY_COORDINATOR_HEARTBEAT) {
        const Camsync__V1__CoordinatorHeartbeat *heartbeat = envelope->coordinator_heartbeat;
        if (agent->snapshot_wanted && !agent->snapshot_requested) agent_request_snapshot(agent);   // a refused one, again
        // An HA leader names itself: requests follow it, on the DEALER kept to it.
        if (heartbeat->coordinator)
            agent_follow(agent, heartbeat->coordinator,
                         heartbeat->coordinator->term ? heartbeat->coordinator->term : heartbeat->term, NAMED_BY_ITSELF);
        note_term(agent, heartbeat->term);
        if (agent->phase == PHASE_SYNCED) {
            // A group's follower does not hold every sequence: only its bookmarks say it is behind.
            if (!agent->group && heartbeat->last_sequence > agent->sequence) {
                agent_log(agent, "info", "behind the coordinator: have %llu, coordinator %llu; replaying",
                          (unsigned long long)agent->sequence, (unsigned long long)heartbeat->last_sequence);
                request_replay(agent);
            } else if (heartbeat->term != agent->term && heartbeat->last_sequence < agent->sequence) {
                need_snapshot(agent, "the coordinator's log is behind this node's");
            }
        }
    } else if (envelope->body_case == CAMSYNC__V1__ENVELOPE__BODY_GROUP_BOOKMARK) {
        note_term(agent, envelope->term);
        on_bookmark(agent, envelope->group_bookmark);
    }
    wire_free(envelope);
}

// MARK: Replies

static void on_snapshot(display_agent *agent, const Camsync__V1__Snapshot *snapshot) {
    if (!snapshot->state || view_adopt(&agent->view, snapshot->state, agent->config)) {
        agent_log(agent, "error", "undecodable snapshot: state is missing or malformed");
        agent->snapshot_requested = 0;
        agent_request_snapshot(agent);
        return;
    }
    // A group's snapshot names the group and its last batch; one without (a coordinator from
    // before device groups) is the whole state, followed sequence by sequence.
    if (text_set(&agent->group, snapshot->group && *snapshot->group ? snapshot->group : NULL)) {
        agent->snapshot_requested = 0;
        agent_request_snapshot(agent);
        return;
    }
    agent->group_sequence = group_last_batch(snapshot->state, agent->group);
    agent->sequence = snapshot->sequence;
    agent->term = snapshot->term;
    agent->phase = PHASE_SYNCED;
    agent->replay_requested = 0;
    follower_note_term(&agent->leader, snapshot->term);
    agent_log(agent, "info", "synced from snapshot sequence=%llu term=%llu group=%s groupSequence=%llu",
              (unsigned long long)snapshot->sequence, (unsigned long long)snapshot->term,
              agent->group ? agent->group : "", (unsigned long long)agent->group_sequence);
    fence_adopt(&agent->fence, &agent->view, agent->sequence);
    if (agent->registered && !agent->view.self.alive) {
        // Declared dead while we could not hear it (a partition): rejoin (K2).
        agent_join(agent, "snapshot shows this node is not alive", 1);
        return;
    }
    // Detached without hearing why: its device left (and may be back, its return a notice this
    // display could not hear). Asked again; refused while the device is away, and asked again at the
    // next snapshot or batch, or its device's next join.
    if (agent->registered && agent->config->attached_to && !agent->detached_by_request && !agent->view.self.attached_to)
        agent->attach_requested = 0;
    drain_buffer(agent);
    attach_if_configured(agent);
}

static void on_replay(display_agent *agent, const Camsync__V1__Replay *replay) {
    agent->replay_requested = 0;
    if (agent->phase != PHASE_REPLAYING) return;
    for (size_t i = 0; i < replay->n_batches; i++) {
        const Camsync__V1__EventBatch *batch = replay->batches[i];
        if (!batch) continue;
        batch_place place = group_place(agent->group, held(agent), batch);
        if (place == BATCH_OLD) continue;
        if (place != BATCH_NEXT || apply_batch(agent, batch)) {
            need_snapshot(agent, place != BATCH_NEXT ? "replay does not continue this node's group" : "malformed event batch");
            return;
        }
        if (agent->phase != PHASE_REPLAYING) return; // a rejoin or a move inside the batch
    }
    // For a group's replay `last_sequence` is the group's last batch.
    if (replay->n_batches > 0 && held(agent) < replay->last_sequence) {
        request_replay(agent); // more to fetch
        return;
    }
    agent->phase = PHASE_SYNCED;
    agent_log(agent, "info", "caught up by replay sequence=%llu group=%s groupSequence=%llu",
              (unsigned long long)agent->sequence, agent->group ? agent->group : "",
              (unsigned long long)agent->group_sequence);
    drain_buffer(agent);
    attach_if_configured(agent);
}

void agent_on_reply(display_agent *agent, const uint8_t *bytes, size_t length) {
    heard_from_coordinator(agent);
    wire_error error;
    Camsync__V1__Envelope *envelope = wire_decode(bytes, length, &error);
    if (!envelope) {
        agent->bad_frames++;
        agent_log(agent, "warning", "undecodable reply from coordinator: %s", error.message);
        return;
    }
    pending_request *request = agent_pending(agent, envelope->request_id);
    if (envelope->body_case == CAMSYNC__V1__ENVELOPE__BODY_ERROR &&
        envelope->error->code == CAMSYNC__V1__ERROR_CODE__ERROR_CODE_NOT_LEADER) {
        // Not applied: the request stays pending (retried with its id), and goes to the leader
        // at once when the answer names one.
        agent_log(agent, "info", "not the leader: %s", envelope->error->message ? envelope->error->message : "");
        if (envelope->error->leader && agent_believes(agent, envelope->error->leader, "not-leader reply"))
            agent_follow(agent, envelope->error->leader, envelope->error->leader->term, NAMED_BY_ANOTHER);
        wire_free(envelope);
        return;
    }
    if (agent_is_stale(agent, envelope->term, "reply")) {
        wire_free(envelope);
        return;
    }
    note_term(agent, envelope->term);
    if (!request) {
        wire_free(envelope);
        return;
    }
    if (request->origin == ORIGIN_REGISTER && envelope->body_case == CAMSYNC__V1__ENVELOPE__BODY_ERROR &&
        envelope->error->code == CAMSYNC__V1__ERROR_CODE__ERROR_CODE_OVERLOADED) {
        // Admitted a bounded number a turn (a mass rejoin, docs/PROTOCOL.md "Joining"): it stays
        // pending and goes again with its id after a back-off of its own, so that the nodes turned
        // away do not all come back at once. The retry timer fires request_retry_ms after sent_at.
        int64_t now = agent_monotonic_ms();
        int64_t backoff = agent_registration_backoff(agent->config->id, request->attempts, now, agent->config->heartbeat_ms);
        request->sent_at = now + backoff - agent->config->request_retry_ms;
        agent_log(agent, "info", "registration deferred: the coordinator is busy retryInMs=%lld", (long long)backoff);
        wire_free(envelope);
        return;
    }
    size_t index = (size_t)(request - agent->pending);
    pending_request taken = *request;
    request->identity = NULL;
    agent_drop_pending(agent, index);
    int is_error = envelope->body_case == CAMSYNC__V1__ENVELOPE__BODY_ERROR;
    const char *message = is_error && envelope->error->message ? envelope->error->message : "";
    switch (taken.origin) {
    case ORIGIN_REGISTER:
        if (envelope->body_case == CAMSYNC__V1__ENVELOPE__BODY_ACK) {
            agent->registered = 1;
            agent_log(agent, "info", "registered sequence=%llu term=%llu", (unsigned long long)envelope->ack->sequence,
                      (unsigned long long)envelope->term);
            attach_if_configured(agent);
        } else if (is_error) {
            agent_log(agent, "error", "registration refused code=%d message=\"%s\"", envelope->error->code, message);
        }
        break;
    case ORIGIN_ATTACH:
        if (is_error) {
            agent_log(agent, "warning", "attach refused message=\"%s\"", message);
            // Asked again at the next snapshot or batch: the device's next join may come inside a
            // snapshot, never as a notice to apply.
            if (agent->registered) agent->attach_requested = 0;
        }
        break;
    case ORIGIN_SNAPSHOT:
        agent->snapshot_requested = 0;
        if (envelope->body_case == CAMSYNC__V1__ENVELOPE__BODY_SNAPSHOT) {
            on_snapshot(agent, envelope->snapshot);
        } else {
            // Refused (OVERLOADED while a turn's snapshots are served, during a mass rejoin): asked
            // again at the next heartbeat, an interval later, not at once.
            agent_log(agent, "warning", "snapshot request refused message=\"%s\"", message);
            agent->snapshot_wanted = 1;
        }
        break;
    case ORIGIN_REPLAY:
        if (envelope->body_case == CAMSYNC__V1__ENVELOPE__BODY_REPLAY) {
            on_replay(agent, envelope->replay);
        } else {
            agent->replay_requested = 0;
            need_snapshot(agent, is_error ? message : "unexpected answer to a replay request");
        }
        break;
    case ORIGIN_CONTROL: {
        // Relay the coordinator's answer with the client's request id, from this node.
        char *original_sender = envelope->sender;
        envelope->request_id = taken.client_request_id;
        envelope->sender = agent->config->id;
        size_t out_length = 0;
        uint8_t *out = wire_pack(envelope, &out_length);
        envelope->sender = original_sender;
        if (out) agent->transport.to_control(agent->transport.context, taken.identity, taken.identity_length, out,
                                             out_length);
        free(out);
        break;
    }
    }
    free(taken.identity);
    wire_free(envelope);
}
