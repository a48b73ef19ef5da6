// The partial replica, kept from a snapshot and from events (no policy engine).
#include "view.h"

#include <stdlib.h>
#include <string.h>

#include "text.h"
#include "wire.h"

void view_init(view_state *view, const agent_config *config) {
    memset(view, 0, sizeof *view);
    view->self_id = config->id;
    view->device_id = config->attached_to;
}

static void clear_camera(view_camera *camera) {
    free(camera->camera);
    free(camera->holder_device);
    free(camera->holder_bundle);
    memset(camera, 0, sizeof *camera);
}

static void clear(view_state *view) {
    free(view->self.attached_to);
    free(view->device.attached_to);
    memset(&view->self, 0, sizeof view->self);
    memset(&view->device, 0, sizeof view->device);
    for (size_t i = 0; i < view->n_cameras; i++) clear_camera(&view->cameras[i]);
    free(view->cameras);
    view->cameras = NULL;
    view->n_cameras = 0;
}

void view_free(view_state *view) { clear(view); }

view_camera *view_camera_named(view_state *view, const char *camera) {
    for (size_t i = 0; i < view->n_cameras; i++)
        if (strcmp(view->cameras[i].camera, camera) == 0) return &view->cameras[i];
    return NULL;
}

static int camera_order(const void *a, const void *b) {
    return strcmp(((const view_camera *)a)->camera, ((const view_camera *)b)->camera);
}

// Adds a camera system the view does not list yet (as the engine does at registration).
static view_camera *add_camera(view_state *view, const char *name) {
    view_camera *existing = view_camera_named(view, name);
    if (existing) return existing;
    view_camera *grown = realloc(view->cameras, (view->n_cameras + 1) * sizeof *grown);
    if (!grown) return NULL;
    view->cameras = grown;
    view_camera *camera = &view->cameras[view->n_cameras++];
    memset(camera, 0, sizeof *camera);
    if (text_set(&camera->camera, name)) {
        view->n_cameras--;
        return NULL;
    }
    camera->pressure = CAMSYNC__V1__SYSTEM_PRESSURE_LEVEL__SYSTEM_PRESSURE_LEVEL_NOMINAL;
    // Sorted by name = sorted by the system's text form `<self>/<name>` (the wire order).
    qsort(view->cameras, view->n_cameras, sizeof *view->cameras, camera_order);
    return view_camera_named(view, name);
}

static view_node *node_named(view_state *view, const char *id) {
    if (text_equal(id, view->self_id)) return &view->self;
    if (text_equal(id, view->device_id)) return &view->device;
    return NULL;
}

int view_adopt(view_state *view, const Camsync__V1__ClusterState *state, const agent_config *config) {
    (void)config;
    clear(view);
    for (size_t i = 0; i < state->n_nodes; i++) {
        const Camsync__V1__NodeRecord *record = state->nodes[i];
        if (!record || !wire_valid_id(record->id)) return -1;
        view_node *node = node_named(view, record->id);
        if (!node) continue;
        node->known = 1;
        node->alive = record->alive;
        if (record->_attached_to_case == CAMSYNC__V1__NODE_RECORD___ATTACHED_TO_ATTACHED_TO) {
            if (!wire_valid_id(record->attached_to)) return -1;
            if (text_set(&node->attached_to, record->attached_to)) return -1;
        }
    }
    for (size_t i = 0; i < state->n_camera_systems; i++) {
        const Camsync__V1__CameraSystemRecord *record = state->camera_systems[i];
        if (!record || !record->id || record->id->kind_case == CAMSYNC__V1__CAMERA_SYSTEM_REF__KIND__NOT_SET) return -1;
        const char *name = wire_external_camera_of(record->id, view->self_id);
        if (!name) continue;
        view_camera *camera = add_camera(view, name);
        if (!camera) return -1;
        camera->pressure = record->pressure;
        camera->last_token = record->last_token;
        if (record->holder) {
            if (!wire_valid_id(record->holder->device) || !wire_valid_id(record->holder->bundle_id)) return -1;
            if (text_set(&camera->holder_device, record->holder->device) ||
                text_set(&camera->holder_bundle, record->holder->bundle_id))
                return -1;
        }
    }
    return 0;
}

static int valid_app(const Camsync__V1__AppRef *app) {
    return app && wire_valid_id(app->device) && wire_valid_id(app->bundle_id);
}

static int valid_system(const Camsync__V1__CameraSystemRef *system) {
    if (!system) return 0;
    switch (system->kind_case) {
    case CAMSYNC__V1__CAMERA_SYSTEM_REF__KIND_BUILTIN_DEVICE: return wire_valid_id(system->builtin_device);
    case CAMSYNC__V1__CAMERA_SYSTEM_REF__KIND_EXTERNAL_CAMERA:
        return system->external_camera && wire_valid_id(system->external_camera->host) &&
               wire_valid_id(system->external_camera->name);
    default: return 0;
    }
}

int view_apply(view_state *view, const Camsync__V1__Event *event, const agent_config *config) {
    switch (event->kind_case) {
    case CAMSYNC__V1__EVENT__KIND_NODE_JOINED:
    case CAMSYNC__V1__EVENT__KIND_NODE_REJOINED: {
        const char *id = event->kind_case == CAMSYNC__V1__EVENT__KIND_NODE_JOINED ? event->node_joined->node
                                                                                  : event->node_rejoined->node;
        if (!wire_valid_id(id)) return -1;
        view_node *node = node_named(view, id);
        if (!node) return 0;
        node->known = 1;
        node->alive = 1;
        if (node == &view->self)
            for (size_t i = 0; i < config->n_cameras; i++)
                if (!add_camera(view, config->cameras[i].name)) return -1;
        return 0;
    }
    case CAMSYNC__V1__EVENT__KIND_NODE_LEFT: {
        if (!wire_valid_id(event->node_left->node)) return -1;
        view_node *node = node_named(view, event->node_left->node);
        if (node) node->alive = 0;
        return 0;
    }
    case CAMSYNC__V1__EVENT__KIND_DISPLAY_ATTACHED: {
        const Camsync__V1__Event__DisplayAttached *e = event->display_attached;
        if (!wire_valid_id(e->display) || !wire_valid_id(e->device)) return -1;
        view_node *node = node_named(view, e->display);
        if (node && text_set(&node->attached_to, e->device)) return -1;
        return 0;
    }
    case CAMSYNC__V1__EVENT__KIND_DISPLAY_DETACHED: {
        const Camsync__V1__Event__DisplayDetached *e = event->display_detached;
        if (!wire_valid_id(e->display) || !wire_valid_id(e->device)) return -1;
        view_node *node = node_named(view, e->display);
        if (node) text_set(&node->attached_to, NULL);
        return 0;
    }
    case CAMSYNC__V1__EVENT__KIND_CAMERA_GRANTED: {
        const Camsync__V1__Event__CameraGranted *e = event->camera_granted;
        if (!valid_system(e->camera_system) || !valid_app(e->app)) return -1;
        const char *name = wire_external_camera_of(e->camera_system, view->self_id);
        view_camera *camera = name ? add_camera(view, name) : NULL;
        if (!camera) return name ? -1 : 0;
        camera->last_token = e->token;
        if (text_set(&camera->holder_device, e->app->device) || text_set(&camera->holder_bundle, e->app->bundle_id))
            return -1;
        return 0;
    }
    case CAMSYNC__V1__EVENT__KIND_CAMERA_RELEASED: {
        const Camsync__V1__Event__CameraReleased *e = event->camera_released;
        if (!valid_system(e->camera_system) || !valid_app(e->app)) return -1;
        const char *name = wire_external_camera_of(e->camera_system, view->self_id);
        view_camera *camera = name ? view_camera_named(view, name) : NULL;
        if (camera && text_equal(camera->holder_device, e->app->device) &&
            text_equal(camera->holder_bundle, e->app->bundle_id)) {
            text_set(&camera->holder_device, NULL);
            text_set(&camera->holder_bundle, NULL);
        }
        return 0;
    }
    case CAMSYNC__V1__EVENT__KIND_PRESSURE_CHANGED: {
        const Camsync__V1__Event__PressureChanged *e = event->pressure_changed;
        if (!valid_system(e->camera_system) || e->level < 1 || e->level > 5) return -1;
        const char *name = wire_external_camera_of(e->camera_system, view->self_id);
        view_camera *camera = name ? view_camera_named(view, name) : NULL;
        if (camera) camera->pressure = e->level;
        return 0;
    }
    case CAMSYNC__V1__EVENT__KIND__NOT_SET:
        return -1; // missing, or a case this schema does not know: re-snapshot
    default:
        return 0; // app, session, PiP and layout events: nothing a display keeps
    }
}

int view_cameras_available(const view_state *view) {
    return view->self.alive && view->self.attached_to != NULL;
}

static Camsync__V1__NodeRecord *node_wire(const char *id, const view_node *node) {
    Camsync__V1__NodeRecord *record = malloc(sizeof *record);
    if (!record) return NULL;
    camsync__v1__node_record__init(record);
    record->id = (char *)id;
    record->alive = node->alive;
    if (node->attached_to) {
        record->_attached_to_case = CAMSYNC__V1__NODE_RECORD___ATTACHED_TO_ATTACHED_TO;
        record->attached_to = node->attached_to;
    }
    return record;
}

Camsync__V1__ClusterState *view_to_wire(const view_state *view) {
    Camsync__V1__ClusterState *state = calloc(1, sizeof *state);
    if (!state) return NULL;
    camsync__v1__cluster_state__init(state);
    state->nodes = calloc(2, sizeof *state->nodes);
    state->camera_systems = calloc(view->n_cameras ? view->n_cameras : 1, sizeof *state->camera_systems);
    if (!state->nodes || !state->camera_systems) {
        view_wire_free(state);
        return NULL;
    }
    // Sorted by id.
    const char *ids[2] = {view->self_id, view->device_id};
    const view_node *nodes[2] = {&view->self, &view->device};
    int swap = view->device_id && strcmp(view->device_id, view->self_id) < 0;
    for (int k = 0; k < 2; k++) {
        int i = swap ? 1 - k : k;
        if (!ids[i] || !nodes[i]->known) continue;
        Camsync__V1__NodeRecord *record = node_wire(ids[i], nodes[i]);
        if (record) state->nodes[state->n_nodes++] = record;
    }
    int available = view_cameras_available(view);
    for (size_t i = 0; i < view->n_cameras; i++) {
        const view_camera *camera = &view->cameras[i];
        Camsync__V1__CameraSystemRecord *record = calloc(1, sizeof *record);
        Camsync__V1__CameraSystemRef *id = calloc(1, sizeof *id);
        Camsync__V1__CameraRef *ref = calloc(1, sizeof *ref);
        Camsync__V1__CameraRef **cameras = calloc(1, sizeof *cameras);
        Camsync__V1__CameraRef *member = calloc(1, sizeof *member);
        Camsync__V1__AppRef *holder = camera->holder_device ? calloc(1, sizeof *holder) : NULL;
        if (!record || !id || !ref || !cameras || !member || (camera->holder_device && !holder)) {
            free(record); free(id); free(ref); free(cameras); free(member); free(holder);
            continue;
        }
        camsync__v1__camera_system_record__init(record);
        camsync__v1__camera_system_ref__init(id);
        camsync__v1__camera_ref__init(ref);
        camsync__v1__camera_ref__init(member);
        ref->host = member->host = (char *)view->self_id;
        ref->name = member->name = camera->camera;
        id->kind_case = CAMSYNC__V1__CAMERA_SYSTEM_REF__KIND_EXTERNAL_CAMERA;
        id->external_camera = ref;
        record->id = id;
        cameras[0] = member;
        record->cameras = cameras;
        record->n_cameras = 1;
        record->pressure = camera->pressure;
        record->last_token = camera->last_token;
        record->available = available;
        if (holder) {
            camsync__v1__app_ref__init(holder);
            holder->device = camera->holder_device;
            holder->bundle_id = camera->holder_bundle;
            record->holder = holder;
        }
        state->camera_systems[state->n_camera_systems++] = record;
    }
    return state;
}

void view_wire_free(Camsync__V1__ClusterState *state) {
    if (!state) return;
    for (size_t i = 0; i < state->n_nodes; i++) free(state->nodes[i]);
    free(state->nodes);
    for (size_t i = 0; i < state->n_camera_systems; i++) {
        Camsync__V1__CameraSystemRecord *record = state->camera_systems[i];
        free(record->id->external_camera);
        free(record->id);
        free(record->cameras[0]);
        free(record->cameras);
        free(record->holder);
        free(record);
    }
    free(state->camera_systems);
    free(state);
}
