// libFuzzer over the agent's frame decoding (`make fuzz-agent`): each input is one frame, a push,
// a reply or a control request (its first byte picks which), fed to the same functions the socket
// loop calls, with no sockets. The agent under test is kept across inputs (like a long-running
// process) after a valid snapshot, so batches and replays reach the view and the fence.
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "agent.h"
#include "log.h"
#include "wire.h"

static int drop_coordinator(void *context, const uint8_t *bytes, size_t length) {
    (void)context; (void)bytes; (void)length;
    return 0;
}

static void drop_control(void *context, const uint8_t *identity, size_t identity_length, const uint8_t *bytes,
                         size_t length) {
    (void)context; (void)identity; (void)identity_length;
    // Every control reply must itself decode (the agent never answers garbage with garbage).
    wire_error error;
    Camsync__V1__Envelope *reply = wire_decode(bytes, length, &error);
    if (!reply) abort();
    wire_free(reply);
}

static void no_follow(void *context, const char *endpoint, const char *key, int reopen) {
    (void)context; (void)endpoint; (void)key; (void)reopen;
}

static agent_config config;
static display_agent agent;

// A snapshot in which display-1 is alive and attached to ipad-1, answering the agent's request.
static void feed_snapshot(void) {
    pending_request *request = NULL;
    for (size_t i = 0; i < agent.n_pending; i++)
        if (agent.pending[i].origin == ORIGIN_SNAPSHOT) request = &agent.pending[i];
    if (!request) return;
    Camsync__V1__NodeRecord display = CAMSYNC__V1__NODE_RECORD__INIT, device = CAMSYNC__V1__NODE_RECORD__INIT;
    display.id = "display-1";
    display.alive = 1;
    display._attached_to_case = CAMSYNC__V1__NODE_RECORD___ATTACHED_TO_ATTACHED_TO;
    display.attached_to = "ipad-1";
    device.id = "ipad-1";
    device.alive = 1;
    Camsync__V1__NodeRecord *nodes[] = {&display, &device};
    Camsync__V1__CameraRef camera = CAMSYNC__V1__CAMERA_REF__INIT;
    camera.host = "display-1";
    camera.name = "center-stage";
    Camsync__V1__CameraSystemRef system = CAMSYNC__V1__CAMERA_SYSTEM_REF__INIT;
    system.kind_case = CAMSYNC__V1__CAMERA_SYSTEM_REF__KIND_EXTERNAL_CAMERA;
    system.external_camera = &camera;
    Camsync__V1__CameraRef *cameras[] = {&camera};
    Camsync__V1__CameraSystemRecord record = CAMSYNC__V1__CAMERA_SYSTEM_RECORD__INIT;
    record.id = &system;
    record.n_cameras = 1;
    record.cameras = cameras;
    record.pressure = 1;
    record.available = 1;
    Camsync__V1__CameraSystemRecord *systems[] = {&record};
    Camsync__V1__ClusterState state = CAMSYNC__V1__CLUSTER_STATE__INIT;
    state.n_nodes = 2;
    state.nodes = nodes;
    state.n_camera_systems = 1;
    state.camera_systems = systems;
    Camsync__V1__Snapshot snapshot = CAMSYNC__V1__SNAPSHOT__INIT;
    snapshot.sequence = 10;
    snapshot.term = 1;
    snapshot.state = &state;
    Camsync__V1__Envelope envelope = CAMSYNC__V1__ENVELOPE__INIT;
    envelope.sender = "coordinator";
    envelope.request_id = request->request_id;
    envelope.term = 1;
    envelope.body_case = CAMSYNC__V1__ENVELOPE__BODY_SNAPSHOT;
    envelope.snapshot = &snapshot;
    size_t length = 0;
    uint8_t *bytes = wire_pack(&envelope, &length);
    agent_on_reply(&agent, bytes, length);
    free(bytes);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static int ready = 0;
    if (!ready) {
        log_quiet = 1;
        char error[256];
        const char *yaml = "id: display-1\nkind: display\ndisplay: { attachedTo: ipad-1, cameras: [ { name: center-stage } ] }\n";
        if (config_parse_yaml(&config, yaml, strlen(yaml), error, sizeof error))
            abort();
        config.heartbeat_ms = 500;
        config.liveness = 3;
        config.request_retry_ms = 1000;
        config.request_attempts = 10;
        config.history_limit = 64; // small, so the fence log wraps
        config.coordinators[0] = "inproc://fuzz";
        config.n_coordinators = 1;
        agent_transport transport = {drop_coordinator, drop_control, no_follow, NULL};
        if (agent_init(&agent, &config, transport)) abort();
        agent_start(&agent);
        ready = 1;
    }
    if (size == 0) return 0;
    // Keep the agent synced most of the time so batches reach the view and the fence.
    if (agent.phase != PHASE_SYNCED) {
        uint8_t heartbeat[] = {0};
        agent_on_published(&agent, 2, heartbeat, 0); // the feed is live: the snapshot goes out
        feed_snapshot();
    }
    const uint8_t *frame = data + 1;
    size_t length = size - 1;
    switch (data[0] % 3) {
    case 0: agent_on_published(&agent, 2, frame, length); break;
    case 1: agent_on_reply(&agent, frame, length); break;
    default: agent_on_control(&agent, 2, (const uint8_t *)"ctl", 3, frame, length); break;
    }
    agent_tick(&agent, agent_monotonic_ms());
    // Bound the pending list (control commands are forwarded and never answered here).
    while (agent.n_pending > 256) agent_drop_pending(&agent, 0);
    return 0;
}
