// The control socket (docs/PROTOCOL.md "Control socket (node)"): commands are forwarded to the
// coordinator as this node, node_status_request is answered from the view and the fence.
// Anything else gets an error reply with a code; nothing a client sends can stop the agent.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent.h"
#include "wire.h"

static void reply_error(display_agent *agent, const uint8_t *identity, size_t identity_length, uint64_t request_id,
                        int code, const char *message) {
    size_t length = 0;
    uint8_t *bytes = wire_error_reply(agent->config->id, request_id, agent->leader.highest_term, code, message, &length);
    if (bytes) agent->transport.to_control(agent->transport.context, identity, identity_length, bytes, length);
    free(bytes);
}

static Camsync__V1__AppRef *app_ref(char *device, char *bundle) {
    Camsync__V1__AppRef *ref = malloc(sizeof *ref);
    if (ref) {
        camsync__v1__app_ref__init(ref);
        ref->device = device;
        ref->bundle_id = bundle;
    }
    return ref;
}

static Camsync__V1__CameraSystemRef *system_ref(const char *host, char *camera) {
    Camsync__V1__CameraSystemRef *ref = malloc(sizeof *ref);
    Camsync__V1__CameraRef *external = malloc(sizeof *external);
    if (!ref || !external) {
        free(ref);
        free(external);
        return NULL;
    }
    camsync__v1__camera_system_ref__init(ref);
    camsync__v1__camera_ref__init(external);
    external->host = (char *)host;
    external->name = camera;
    ref->kind_case = CAMSYNC__V1__CAMERA_SYSTEM_REF__KIND_EXTERNAL_CAMERA;
    ref->external_camera = external;
    return ref;
}

static void free_system_ref(Camsync__V1__CameraSystemRef *ref) {
    if (ref) free(ref->external_camera);
    free(ref);
}

// "What do you see": registration, sync point, the (partial) replica, the fence log and holders.
static void reply_status(display_agent *agent, const uint8_t *identity, size_t identity_length, uint64_t request_id,
                         uint64_t after_sequence) {
    const camera_fence *fence = &agent->fence;
    Camsync__V1__NodeStatus status = CAMSYNC__V1__NODE_STATUS__INIT;
    status.node = agent->config->id;
    status.registered = agent->registered;
    status.synced = agent->phase == PHASE_SYNCED;
    status.sequence = agent->sequence;
    status.term = agent->term;
    status.coordinator_reachable = !agent->coordinator_silent;
    status.partial_replica = 1;
    if (agent->group) status.group = agent->group;
    status.group_sequence = agent->group_sequence;
    status.replica = view_to_wire(&agent->view);

    Camsync__V1__FenceRecord *records = calloc(fence->count ? fence->count : 1, sizeof *records);
    Camsync__V1__FenceRecord **record_list = calloc(fence->count ? fence->count : 1, sizeof *record_list);
    Camsync__V1__FenceHolder *holders = calloc(fence->n_entries ? fence->n_entries : 1, sizeof *holders);
    Camsync__V1__FenceHolder **holder_list = calloc(fence->n_entries ? fence->n_entries : 1, sizeof *holder_list);
    if (!status.replica || !records || !record_list || !holders || !holder_list) {
        reply_error(agent, identity, identity_length, request_id, CAMSYNC__V1__ERROR_CODE__ERROR_CODE_INTERNAL,
                    "out of memory");
        goto done;
    }
    for (size_t i = 0; i < fence->count; i++) {
        const fence_record *r = fence_log_at(fence, i);
        if (r->sequence <= after_sequence) continue;
        Camsync__V1__FenceRecord *w = &records[status.n_fence_log];
        camsync__v1__fence_record__init(w);
        w->decision = r->decision;
        w->app = app_ref(r->app_device, r->app_bundle);
        w->system = system_ref(agent->config->id, r->camera);
        w->token = r->token;
        w->highest = r->highest;
        w->sequence = r->sequence;
        w->wall_time_ms = r->wall_time_ms;
        w->from_snapshot = r->from_snapshot;
        record_list[status.n_fence_log++] = w;
    }
    status.fence_log = record_list;
    // Holders sorted by system (entries are in first-seen order).
    for (size_t i = 0; i < fence->n_entries; i++) {
        const fence_entry *e = fence_entry_at(fence, i);
        if (!e->app_device) continue;
        size_t at = status.n_holders;
        while (at > 0 && strcmp(holder_list[at - 1]->system->external_camera->name, e->camera) > 0) {
            holder_list[at] = holder_list[at - 1];
            at--;
        }
        Camsync__V1__FenceHolder *h = &holders[i];
        camsync__v1__fence_holder__init(h);
        h->system = system_ref(agent->config->id, e->camera);
        h->app = app_ref(e->app_device, e->app_bundle);
        h->token = e->token;
        if (!h->system || !h->app) {
            free_system_ref(h->system);
            free(h->app);
            continue;
        }
        holder_list[at] = h;
        status.n_holders++;
    }
    status.holders = holder_list;

    Camsync__V1__Envelope envelope = CAMSYNC__V1__ENVELOPE__INIT;
    envelope.sender = agent->config->id;
    envelope.request_id = request_id;
    envelope.term = agent->term;
    envelope.body_case = CAMSYNC__V1__ENVELOPE__BODY_NODE_STATUS;
    envelope.node_status = &status;
    size_t length = 0;
    uint8_t *bytes = wire_pack(&envelope, &length);
    if (bytes) agent->transport.to_control(agent->transport.context, identity, identity_length, bytes, length);
    free(bytes);
done:
    for (size_t i = 0; i < status.n_fence_log; i++) {
        free(record_list[i]->app);
        free_system_ref(record_list[i]->system);
    }
    for (size_t i = 0; i < status.n_holders; i++) {
        free(holder_list[i]->app);
        free_system_ref(holder_list[i]->system);
    }
    free(records);
    free(record_list);
    free(holders);
    free(holder_list);
    view_wire_free(status.replica);
}

void agent_on_control(display_agent *agent, size_t n_frames, const uint8_t *identity, size_t identity_length,
                      const uint8_t *bytes, size_t length) {
    if (n_frames != 2 || identity_length == 0) return; // not a DEALER's [identity, envelope]: nobody to answer
    wire_error error;
    Camsync__V1__Envelope *envelope = wire_decode(bytes, length, &error);
    if (!envelope) {
        agent->bad_frames++;
        reply_error(agent, identity, identity_length, 0, error.code, error.message);
        return;
    }
    switch (envelope->body_case) {
    case CAMSYNC__V1__ENVELOPE__BODY_COMMAND: {
        Camsync__V1__Command *command = envelope->command;
        if (command->kind_case == CAMSYNC__V1__COMMAND__KIND__NOT_SET) {
            char message[128];
            if (command->base.n_unknown_fields > 0)
                snprintf(message, sizeof message, "command.kind is a case this peer does not know (field %u)",
                         command->base.unknown_fields[0].tag);
            else
                snprintf(message, sizeof message, "command.kind is missing");
            reply_error(agent, identity, identity_length, envelope->request_id,
                        CAMSYNC__V1__ERROR_CODE__ERROR_CODE_MALFORMED, message);
            break;
        }
        // Forwarded as this node with a new request id; the coordinator checks the rest.
        uint64_t client_request_id = envelope->request_id;
        char *client_sender = envelope->sender;
        agent_send_request(agent, envelope, ORIGIN_CONTROL, identity, identity_length, client_request_id);
        envelope->sender = client_sender;
        break;
    }
    case CAMSYNC__V1__ENVELOPE__BODY_NODE_STATUS_REQUEST:
        reply_status(agent, identity, identity_length, envelope->request_id,
                     envelope->node_status_request->after_sequence);
        break;
    default:
        reply_error(agent, identity, identity_length, envelope->request_id,
                    CAMSYNC__V1__ERROR_CODE__ERROR_CODE_UNEXPECTED_MESSAGE,
                    "a node's control socket takes command and node_status_request bodies");
        break;
    }
    wire_free(envelope);
}
