// The agent's partial replica: what a display needs of the cluster state (docs/PROTOCOL.md
// "A client without an engine"). Its own node record and its device's (alive, attached_to), and
// each camera system it hosts (pressure, holder, last token, availability). Kept from a snapshot
// and then from the events of each batch, with no policy engine.
#ifndef CAMSYNC_AGENT_VIEW_H
#define CAMSYNC_AGENT_VIEW_H

#include <stddef.h>
#include <stdint.h>

#include "camsync/v1/event.pb-c.h"
#include "camsync/v1/state.pb-c.h"
#include "config.h"

typedef struct {
    int known; // listed in the coordinator's state
    int alive;
    char *attached_to;
} view_node;

typedef struct {
    char *camera; // the system is external camera <self>/<camera>
    int pressure; // Camsync__V1__SystemPressureLevel
    char *holder_device, *holder_bundle; // NULL: no holder
    uint64_t last_token;
} view_camera;

typedef struct {
    const char *self_id;   // borrowed from the config
    const char *device_id; // the configured device, or NULL
    view_node self, device;
    view_camera *cameras;
    size_t n_cameras;
} view_state;

void view_init(view_state *view, const agent_config *config);
void view_free(view_state *view);

// Replaces the view with what a snapshot's state says. -1 when the state breaks the schema rules
// in a part the agent reads (then the view is unchanged... or cleared; the caller re-snapshots).
int view_adopt(view_state *view, const Camsync__V1__ClusterState *state, const agent_config *config);

// Applies one event of a batch. -1 when the event is malformed or of a kind this schema does not
// know (the caller takes a new snapshot, docs/PROTOCOL.md "Evolution").
int view_apply(view_state *view, const Camsync__V1__Event *event, const agent_config *config);

// C10: a display camera is usable exactly while its display is alive and attached.
int view_cameras_available(const view_state *view);

view_camera *view_camera_named(view_state *view, const char *camera);

// The view as a (partial) ClusterState for node_status. Free with view_wire_free.
Camsync__V1__ClusterState *view_to_wire(const view_state *view);
void view_wire_free(Camsync__V1__ClusterState *state);

#endif
