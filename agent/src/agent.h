// The display agent: one session with the coordinator (register, follow, fence, heartbeat, rejoin)
// and a control socket. It owns no socket: the loop in main.c feeds it frames and timer ticks, and
// it sends through `agent_transport`; the fuzz target drives the same functions with no sockets.
// It is not clock-free, unlike the Swift NodeSession: it reads the monotonic clock itself
// (agent_monotonic_ms) to stamp what it sends and hears, and the wall clock for fence records;
// agent_tick's `now` is the time of that tick only. Whom to follow (follow.c) is pure.
#ifndef CAMSYNC_AGENT_AGENT_H
#define CAMSYNC_AGENT_AGENT_H

#include <stddef.h>
#include <stdint.h>

#include "camsync/v1/envelope.pb-c.h"
#include "config.h"
#include "fence.h"
#include "follow.h"
#include "view.h"

typedef struct {
    // A frame for the followed coordinator, on the DEALER to it. Returns 0 when it was queued.
    int (*to_coordinator)(void *context, const uint8_t *bytes, size_t length);
    // A reply on the control socket (ROUTER) to the client with this routing identity.
    void (*to_control)(void *context, const uint8_t *identity, size_t identity_length, const uint8_t *bytes,
                       size_t length);
    // From now on to_coordinator sends to the coordinator at `command_endpoint` (the one followed), on
    // the DEALER the agent keeps to it: opened now if it has none, with `server_key` as its CURVE
    // server key (NULL without CURVE). With `reopen`, that DEALER is closed and opened afresh first
    // (what was queued on a dead connection is dropped). The DEALERs to the others stay as they are.
    void (*follow)(void *context, const char *command_endpoint, const char *server_key, int reopen);
    void *context;
} agent_transport;

typedef enum { ORIGIN_REGISTER, ORIGIN_SNAPSHOT, ORIGIN_ATTACH, ORIGIN_REPLAY, ORIGIN_CONTROL } request_origin;

typedef struct {
    uint64_t request_id;
    request_origin origin;
    uint8_t *identity; // control: the client's routing identity
    size_t identity_length;
    uint64_t client_request_id;
    uint8_t *bytes;
    size_t length;
    int64_t sent_at; // the last send (a deferred registration: set so that its resend falls due after its back-off)
    int attempts;    // sends so far
} pending_request;

typedef enum {
    PHASE_AWAITING_SNAPSHOT, // batches are buffered until the snapshot arrives
    PHASE_REPLAYING,         // a gap: the group's batches after `group_sequence` are asked for (replay_request)
    PHASE_SYNCED,
} sync_phase;

typedef struct {
    agent_config *config;
    agent_transport transport;
    view_state view;
    camera_fence fence;

    sync_phase phase;
    uint64_t sequence; // the last batch applied (or the snapshot's sequence)
    uint64_t term;     // the term of that batch / snapshot
    // The device group followed (docs/PROTOCOL.md "Following one group"), named by the last
    // snapshot, and the sequence of the group's last batch held. NULL: a coordinator that answered
    // with the whole state; then `sequence` is followed batch by batch.
    char *group;
    uint64_t group_sequence;
    Camsync__V1__Envelope **buffered; // live batches held while not synced, any order
    size_t n_buffered, buffer_limit;

    int registered;
    // `feed_live`: something was pushed (a heartbeat, a batch, a bookmark) since the followed
    // coordinator's DEALER was last opened; the snapshot is asked only then (Clone pattern).
    int snapshot_requested, snapshot_wanted, feed_live, attach_requested, replay_requested;
    // Detached by a request (a detach_display heard as its batch, not its device leaving): it stays
    // detached until its device joins again; a detach found in a snapshot is its device's leaving.
    int detached_by_request;
    // HA (SPEC K6, K7): the coordinator requests go to, the highest term heard, and the one just
    // left for silence (follow.h). `leader.highest_term` is the term the agent speaks under.
    leader_follower leader;
    // Keys of believed coordinators named at endpoints the lists do not hold (trust.h).
    struct {
        char endpoint[FOLLOW_ENDPOINT_MAX];
        char key[41];
    } named_keys[AGENT_MAX_ENDPOINTS];
    size_t n_named_keys;
    uint64_t next_request_id;
    pending_request *pending;
    size_t n_pending;

    int64_t last_sent, last_heard;
    int coordinator_silent;
    int64_t reconnect_delay, next_reconnect;

    // Counters (logged at exit; the footprint measurement reads them).
    uint64_t batches_applied, resnapshots, replays, bad_frames, untrusted_ignored, group_moves;
} display_agent;

int agent_init(display_agent *agent, agent_config *config, agent_transport transport);

// HA (leader.c, the rule in follow.c): follow the leader a heartbeat (`by` NAMED_BY_ITSELF) or a
// NOT_LEADER (NAMED_BY_ANOTHER) names; ignore lower terms; while every coordinator is silent, try
// the next command endpoint of the list.
void agent_follow(display_agent *agent, const Camsync__V1__CoordinatorAddress *leader, uint64_t term, named_by by);
int agent_is_stale(display_agent *agent, uint64_t term, const char *what);
void agent_try_next_coordinator(display_agent *agent);
// Whether the coordinator `address` names (a heartbeat's sender, a NOT_LEADER's leader) is one the
// agent believes (trust.h); one not believed is counted and logged. Always 1 without CURVE.
int agent_believes(display_agent *agent, const Camsync__V1__CoordinatorAddress *address, const char *what);
// The CURVE server key of the coordinator at this command endpoint (NULL without CURVE or none).
const char *agent_server_key(const display_agent *agent, const char *endpoint);
// Requests go to the coordinator followed from now on, on its DEALER (`reopen`: closed and opened
// afresh first, only when every coordinator was silent); pending requests are resent there with
// their ids (K5), their retry clocks left as they are.
void agent_connect(display_agent *agent, int reopen);
void agent_free(display_agent *agent);

// Starts joining (register, then snapshot once the feed is live).
void agent_start(display_agent *agent);
// A one-frame message on any coordinator's DEALER: a reply (an Envelope).
void agent_on_reply(display_agent *agent, const uint8_t *bytes, size_t length);
// A two-frame message on any coordinator's DEALER: a push of the node's feed or a heartbeat, [topic,
// Envelope]; `bytes` is the envelope frame (n_frames as received).
void agent_on_published(display_agent *agent, size_t n_frames, const uint8_t *bytes, size_t length);
// One message on the control socket: [identity, envelope] (n_frames as received).
void agent_on_control(display_agent *agent, size_t n_frames, const uint8_t *identity, size_t identity_length,
                      const uint8_t *bytes, size_t length);
// Timers: coordinator silence and reconnection, retries, heartbeats. `now` is monotonic ms.
void agent_tick(display_agent *agent, int64_t now);
// The next instant agent_tick has something to do.
int64_t agent_next_deadline(const display_agent *agent);

// Clocks (monotonic and wall, ms).
int64_t agent_monotonic_ms(void);
int64_t agent_wall_ms(void);

// Internal, shared by session.c, requests.c, control.c.
void agent_send_request(display_agent *agent, Camsync__V1__Envelope *envelope, request_origin origin,
                        const uint8_t *identity, size_t identity_length, uint64_t client_request_id);
uint64_t agent_take_request_id(display_agent *agent);
// How long a registration answered OVERLOADED waits before it is sent again (docs/PROTOCOL.md
// "Joining"), as the Swift node's registrationBackoff: `interval_ms` doubled with each attempt (up
// to 8 intervals) is the base, and the wait base/2 + a draw below base, from SplitMix64 seeded with
// FNV-1a(node id) ^ attempt ^ monotonic ms: a fleet turned away at once comes back spread. Pure.
int64_t agent_registration_backoff(const char *node_id, int attempt, int64_t monotonic_ms, int64_t interval_ms);
void agent_transmit(display_agent *agent, const uint8_t *bytes, size_t length);
pending_request *agent_pending(display_agent *agent, uint64_t request_id);
void agent_drop_pending(display_agent *agent, size_t index);
void agent_join(display_agent *agent, const char *reason, int resync);
void agent_request_snapshot(display_agent *agent);
void agent_log(display_agent *agent, const char *level, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

#endif
