// Requests to the coordinator (ids, retries with the same id on the same DEALER: K5), the back-off
// of a registration turned away as OVERLOADED, heartbeats (K1), coordinator silence and
// reconnection with back-off.
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agent.h"
#include "log.h"
#include "wire.h"

int64_t agent_monotonic_ms(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

int64_t agent_wall_ms(void) {
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    return (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

int log_quiet = 0;

void agent_log(display_agent *agent, const char *level, const char *format, ...) {
    if (log_quiet) return;
    char text[768];
    va_list args;
    va_start(args, format);
    vsnprintf(text, sizeof text, format, args);
    va_end(args);
    fprintf(stderr, "%s %s node=%s\n", level, text, agent->config->id);
}

uint64_t agent_take_request_id(display_agent *agent) { return ++agent->next_request_id; }

// FNV-1a (64 bits) of a string's bytes, and one draw of SplitMix64: the same functions as the Swift
// node's (CamsyncRuntime), so that both spread a turned-away fleet alike.
static uint64_t fnv1a(const char *text) {
    uint64_t hash = 0xcbf29ce484222325ULL;
    for (const unsigned char *p = (const unsigned char *)text; *p; p++) hash = (hash ^ *p) * 0x100000001b3ULL;
    return hash;
}

static uint64_t splitmix64_next(uint64_t *state) {
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

int64_t agent_registration_backoff(const char *node_id, int attempt, int64_t monotonic_ms, int64_t interval_ms) {
    uint64_t state = fnv1a(node_id) ^ (uint64_t)(int64_t)attempt ^ (uint64_t)monotonic_ms;
    int doublings = attempt - 1 < 0 ? 0 : attempt - 1 > 3 ? 3 : attempt - 1;
    // The heartbeat interval, at most a second: a fleet's interval may be 5 s, and a rejoin is
    // admitted in turns of milliseconds.
    int64_t base = (interval_ms < 1000 ? interval_ms : 1000) << doublings;
    return base / 2 + (int64_t)(splitmix64_next(&state) % (uint64_t)(base > 1 ? base : 1));
}

// An attempt counts as sent even when the socket has nowhere to queue it (no connection): the
// next heartbeat is due an interval later, not at once (no busy loop while the coordinator is away).
void agent_transmit(display_agent *agent, const uint8_t *bytes, size_t length) {
    agent->transport.to_coordinator(agent->transport.context, bytes, length);
    agent->last_sent = agent_monotonic_ms();
}

pending_request *agent_pending(display_agent *agent, uint64_t request_id) {
    for (size_t i = 0; i < agent->n_pending; i++)
        if (agent->pending[i].request_id == request_id) return &agent->pending[i];
    return NULL;
}

void agent_drop_pending(display_agent *agent, size_t index) {
    free(agent->pending[index].identity);
    free(agent->pending[index].bytes);
    agent->pending[index] = agent->pending[agent->n_pending - 1];
    agent->n_pending--;
}

void agent_send_request(display_agent *agent, Camsync__V1__Envelope *envelope, request_origin origin,
                        const uint8_t *identity, size_t identity_length, uint64_t client_request_id) {
    envelope->sender = agent->config->id;
    envelope->term = agent->leader.highest_term;
    envelope->request_id = agent_take_request_id(agent);
    size_t length = 0;
    uint8_t *bytes = wire_pack(envelope, &length);
    if (!bytes) return;
    pending_request *grown = realloc(agent->pending, (agent->n_pending + 1) * sizeof *grown);
    if (!grown) {
        free(bytes);
        return;
    }
    agent->pending = grown;
    pending_request *request = &agent->pending[agent->n_pending++];
    memset(request, 0, sizeof *request);
    request->request_id = envelope->request_id;
    request->origin = origin;
    if (identity_length) {
        request->identity = malloc(identity_length);
        if (request->identity) {
            memcpy(request->identity, identity, identity_length);
            request->identity_length = identity_length;
        }
    }
    request->client_request_id = client_request_id;
    request->bytes = bytes;
    request->length = length;
    request->sent_at = agent_monotonic_ms();
    request->attempts = 1;
    agent_transmit(agent, bytes, length);
}

int64_t agent_next_deadline(const display_agent *agent) {
    const agent_config *c = agent->config;
    int64_t deadline = agent->last_sent + c->heartbeat_ms;
    if (agent->coordinator_silent) {
        if (agent->next_reconnect < deadline) deadline = agent->next_reconnect;
    } else {
        int64_t silence = agent->last_heard + c->heartbeat_ms * c->liveness + 1;
        if (silence < deadline) deadline = silence;
    }
    for (size_t i = 0; i < agent->n_pending; i++)
        if (agent->pending[i].sent_at + c->request_retry_ms < deadline)
            deadline = agent->pending[i].sent_at + c->request_retry_ms;
    return deadline;
}

// A new leader's DEALER is open already: following it moves the requests, nothing is reconnected.
// A DEALER is reopened only after every coordinator fell silent; a reopened one is a new connection:
// the feed counts as opening again until something is pushed.
void agent_connect(display_agent *agent, int reopen) {
    const char *endpoint = agent->leader.followed.endpoint;
    if (reopen) {
        agent_log(agent, "info", "reconnecting to coordinator %s backoffMs=%lld", endpoint,
                  (long long)agent->reconnect_delay);
        agent->feed_live = 0;
    }
    agent->transport.follow(agent->transport.context, endpoint, agent_server_key(agent, endpoint), reopen);
    for (size_t i = 0; i < agent->n_pending; i++) agent_transmit(agent, agent->pending[i].bytes, agent->pending[i].length);
}

void agent_tick(display_agent *agent, int64_t now) {
    const agent_config *c = agent->config;
    int64_t timeout = c->heartbeat_ms * c->liveness;
    if (!agent->coordinator_silent && now - agent->last_heard > timeout) {
        agent->coordinator_silent = 1;
        agent->next_reconnect = now + agent->reconnect_delay;
        agent_log(agent, "warning", "coordinator silent silentForMs=%lld", (long long)(now - agent->last_heard));
    }
    // Every coordinator silent: the next endpoint of the list, its DEALER reopened (the others are kept).
    if (agent->coordinator_silent && now >= agent->next_reconnect) {
        agent_try_next_coordinator(agent);
        agent_connect(agent, 1);
        agent->reconnect_delay = agent->reconnect_delay * 2 > 8000 ? 8000 : agent->reconnect_delay * 2;
        agent->next_reconnect = now + agent->reconnect_delay;
    }
    // Nothing is reopened while the coordinators are heard: the leader pushes on the route its replies
    // take, so a connection that hears it holds the node's route, and an unanswered request is sent
    // again on it, with its id, every retry interval. A connection that holds no route (a half-open
    // old one kept it) hears nothing, and the silence rule above moves on and reopens.
    for (size_t i = 0; i < agent->n_pending;) {
        pending_request *request = &agent->pending[i];
        if (now - request->sent_at < c->request_retry_ms) {
            i++;
            continue;
        }
        // Joining requests retry until answered; a control client's action gives up.
        if (request->origin == ORIGIN_CONTROL && request->attempts >= c->request_attempts) {
            char message[512];
            snprintf(message, sizeof message, "no answer from the coordinator at %s after %d attempts: is it running?",
                     agent->leader.followed.endpoint, request->attempts);
            size_t length = 0;
            uint8_t *reply = wire_error_reply(c->id, request->client_request_id, agent->leader.highest_term,
                                              CAMSYNC__V1__ERROR_CODE__ERROR_CODE_OVERLOADED, message, &length);
            if (reply) agent->transport.to_control(agent->transport.context, request->identity,
                                                   request->identity_length, reply, length);
            free(reply);
            agent_drop_pending(agent, i);
            continue;
        }
        request->attempts++;
        request->sent_at = now;
        agent_transmit(agent, request->bytes, request->length);
        i++;
    }
    if (now - agent->last_sent >= c->heartbeat_ms) {
        Camsync__V1__NodeHeartbeat heartbeat = CAMSYNC__V1__NODE_HEARTBEAT__INIT;
        heartbeat.time_ms = agent_wall_ms();
        Camsync__V1__Envelope envelope = CAMSYNC__V1__ENVELOPE__INIT;
        envelope.sender = c->id;
        envelope.term = agent->leader.highest_term;
        envelope.body_case = CAMSYNC__V1__ENVELOPE__BODY_NODE_HEARTBEAT;
        envelope.node_heartbeat = &heartbeat;
        size_t length = 0;
        uint8_t *bytes = wire_pack(&envelope, &length);
        if (bytes) agent_transmit(agent, bytes, length);
        free(bytes);
    }
}
