// The camera fence (C8) and its decision log.
#include "fence.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "camsync/v1/control.pb-c.h"
#include "log.h"
#include "text.h"

int fence_init(camera_fence *fence, const char *host, size_t capacity) {
    memset(fence, 0, sizeof *fence);
    fence->host = host;
    fence->capacity = capacity ? capacity : 1;
    fence->log = calloc(fence->capacity, sizeof *fence->log);
    return fence->log ? 0 : -1;
}

static void free_record(fence_record *record) {
    free(record->camera);
    free(record->app_device);
    free(record->app_bundle);
    memset(record, 0, sizeof *record);
}

void fence_free(camera_fence *fence) {
    for (size_t i = 0; i < fence->n_entries; i++) {
        free(fence->entries[i].camera);
        free(fence->entries[i].app_device);
        free(fence->entries[i].app_bundle);
    }
    free(fence->entries);
    for (size_t i = 0; i < fence->capacity; i++) free_record(&fence->log[i]);
    free(fence->log);
    memset(fence, 0, sizeof *fence);
}

static fence_entry *entry(camera_fence *fence, const char *camera) {
    for (size_t i = 0; i < fence->n_entries; i++)
        if (strcmp(fence->entries[i].camera, camera) == 0) return &fence->entries[i];
    fence_entry *grown = realloc(fence->entries, (fence->n_entries + 1) * sizeof *grown);
    if (!grown) return NULL;
    fence->entries = grown;
    fence_entry *added = &fence->entries[fence->n_entries];
    memset(added, 0, sizeof *added);
    if (text_set(&added->camera, camera)) return NULL;
    fence->n_entries++;
    return added;
}

static int64_t wall_ms(void) {
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    return (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

// Appends a decision to the log and writes the node's log line (the Swift node's words).
static void record(camera_fence *fence, int decision, const char *camera, const char *device, const char *bundle,
                   uint64_t token, uint64_t highest, uint64_t sequence, int from_snapshot) {
    size_t slot = (fence->start + fence->count) % fence->capacity;
    if (fence->count == fence->capacity) {
        slot = fence->start;
        fence->start = (fence->start + 1) % fence->capacity;
    } else {
        fence->count++;
    }
    fence_record *r = &fence->log[slot];
    free_record(r);
    r->decision = decision;
    text_set(&r->camera, camera);
    text_set(&r->app_device, device);
    text_set(&r->app_bundle, bundle);
    r->token = token;
    r->highest = highest;
    r->sequence = sequence;
    r->wall_time_ms = wall_ms();
    r->from_snapshot = from_snapshot;
    const char *verb = decision == CAMSYNC__V1__FENCE_RECORD__DECISION__DECISION_ALLOWED   ? "allow"
                       : decision == CAMSYNC__V1__FENCE_RECORD__DECISION__DECISION_RELEASED ? "release"
                                                                                             : "refuse";
    if (log_quiet) return;
    char extra[64] = "";
    if (decision == CAMSYNC__V1__FENCE_RECORD__DECISION__DECISION_REFUSED_STALE)
        snprintf(extra, sizeof extra, " highest=%llu", (unsigned long long)highest);
    fprintf(stderr, "%s fence %s system=%s/%s app=%s/%s token=%llu%s seq=%llu%s\n",
            decision == CAMSYNC__V1__FENCE_RECORD__DECISION__DECISION_REFUSED_STALE ? "warning" : "info", verb,
            fence->host, camera, device, bundle, (unsigned long long)token, extra, (unsigned long long)sequence,
            from_snapshot ? " source=snapshot" : "");
}

void fence_granted(camera_fence *fence, const char *camera, const char *app_device, const char *app_bundle,
                   uint64_t token, uint64_t sequence) {
    fence_entry *e = entry(fence, camera);
    if (!e) return;
    if (e->highest && token <= e->highest) {
        record(fence, CAMSYNC__V1__FENCE_RECORD__DECISION__DECISION_REFUSED_STALE, camera, app_device, app_bundle,
               token, e->highest, sequence, 0);
        return;
    }
    e->highest = token;
    e->token = token;
    text_set(&e->app_device, app_device);
    text_set(&e->app_bundle, app_bundle);
    record(fence, CAMSYNC__V1__FENCE_RECORD__DECISION__DECISION_ALLOWED, camera, app_device, app_bundle, token, 0,
           sequence, 0);
}

void fence_released(camera_fence *fence, const char *camera, const char *app_device, const char *app_bundle,
                    uint64_t sequence) {
    fence_entry *e = entry(fence, camera);
    if (!e || !text_equal(e->app_device, app_device) || !text_equal(e->app_bundle, app_bundle)) return;
    record(fence, CAMSYNC__V1__FENCE_RECORD__DECISION__DECISION_RELEASED, camera, app_device, app_bundle, e->token, 0,
           sequence, 0);
    text_set(&e->app_device, NULL);
    text_set(&e->app_bundle, NULL);
    e->token = 0;
}

void fence_adopt(camera_fence *fence, const view_state *view, uint64_t sequence) {
    for (size_t i = 0; i < view->n_cameras; i++) {
        const view_camera *system = &view->cameras[i];
        fence_entry *e = entry(fence, system->camera);
        if (!e) continue;
        uint64_t seen = e->highest;
        if (system->holder_device && system->last_token >= seen) {
            e->highest = system->last_token;
            int same = text_equal(e->app_device, system->holder_device) &&
                       text_equal(e->app_bundle, system->holder_bundle) && e->token == system->last_token;
            if (!same) {
                if (e->app_device)
                    record(fence, CAMSYNC__V1__FENCE_RECORD__DECISION__DECISION_RELEASED, e->camera, e->app_device,
                           e->app_bundle, e->token, 0, sequence, 1);
                text_set(&e->app_device, system->holder_device);
                text_set(&e->app_bundle, system->holder_bundle);
                e->token = system->last_token;
                record(fence, CAMSYNC__V1__FENCE_RECORD__DECISION__DECISION_ALLOWED, e->camera, e->app_device,
                       e->app_bundle, e->token, 0, sequence, 1);
            }
        } else if (system->holder_device) {
            // The snapshot names a holder under a token older than one seen here: refuse it.
            record(fence, CAMSYNC__V1__FENCE_RECORD__DECISION__DECISION_REFUSED_STALE, e->camera,
                   system->holder_device, system->holder_bundle, system->last_token, seen, sequence, 1);
        } else {
            if (system->last_token > seen) e->highest = system->last_token;
            if (e->app_device) {
                record(fence, CAMSYNC__V1__FENCE_RECORD__DECISION__DECISION_RELEASED, e->camera, e->app_device,
                       e->app_bundle, e->token, 0, sequence, 1);
                text_set(&e->app_device, NULL);
                text_set(&e->app_bundle, NULL);
                e->token = 0;
            }
        }
    }
}

const fence_record *fence_log_at(const camera_fence *fence, size_t i) {
    return i < fence->count ? &fence->log[(fence->start + i) % fence->capacity] : NULL;
}

const fence_entry *fence_entry_at(const camera_fence *fence, size_t i) {
    return i < fence->n_entries ? &fence->entries[i] : NULL;
}
