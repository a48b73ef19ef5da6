// C8 at the resource: for each camera system this display hosts, the highest grant token seen and
// the one session allowed to capture under it. An older token is refused and logged.
#ifndef CAMSYNC_AGENT_FENCE_H
#define CAMSYNC_AGENT_FENCE_H

#include <stddef.h>
#include <stdint.h>

#include "view.h"

typedef struct {
    char *camera;
    uint64_t highest; // 0: none seen
    char *app_device, *app_bundle; // the holder allowed to capture; NULL: none
    uint64_t token;
} fence_entry;

typedef struct {
    int decision; // Camsync__V1__FenceRecord__Decision
    char *camera, *app_device, *app_bundle;
    uint64_t token, highest, sequence;
    int64_t wall_time_ms;
    int from_snapshot;
} fence_record;

typedef struct {
    const char *host;
    fence_entry *entries;
    size_t n_entries;
    // The log: a ring of the last `capacity` decisions, oldest at `start`.
    fence_record *log;
    size_t capacity, count, start;
} camera_fence;

int fence_init(camera_fence *fence, const char *host, size_t capacity);
void fence_free(camera_fence *fence);

// A camera_granted event for a camera this display hosts.
void fence_granted(camera_fence *fence, const char *camera, const char *app_device, const char *app_bundle,
                   uint64_t token, uint64_t sequence);
// A camera_released event.
void fence_released(camera_fence *fence, const char *camera, const char *app_device, const char *app_bundle,
                    uint64_t sequence);
// After a snapshot: the holders the view names, fenced by the tokens seen (releases first).
void fence_adopt(camera_fence *fence, const view_state *view, uint64_t sequence);

// The i-th record of the log, oldest first.
const fence_record *fence_log_at(const camera_fence *fence, size_t i);
const fence_entry *fence_entry_at(const camera_fence *fence, size_t i);

#endif
