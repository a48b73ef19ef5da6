// The rules of following one device group (group.h).
#include <string.h>

#include "group.h"
#include "text.h"

static const Camsync__V1__GroupSequence *entry_for(const Camsync__V1__EventBatch *batch, const char *group) {
    for (size_t i = 0; i < batch->n_groups; i++)
        if (batch->groups[i] && text_equal(batch->groups[i]->group, group)) return batch->groups[i];
    return NULL;
}

batch_place group_place(const char *group, uint64_t held, const Camsync__V1__EventBatch *batch) {
    if (!group) {
        if (batch->sequence <= held) return BATCH_OLD;
        return batch->sequence == held + 1 ? BATCH_NEXT : BATCH_AFTER_GAP;
    }
    const Camsync__V1__GroupSequence *entry = entry_for(batch, group);
    if (!entry) return BATCH_NOT_OURS;
    if (batch->sequence <= held || entry->sequence < held) return BATCH_OLD;
    return entry->sequence == held ? BATCH_NEXT : BATCH_AFTER_GAP;
}

uint64_t group_last_batch(const Camsync__V1__ClusterState *state, const char *group) {
    for (size_t i = 0; state && group && i < state->n_group_sequences; i++)
        if (state->group_sequences[i] && text_equal(state->group_sequences[i]->group, group))
            return state->group_sequences[i]->sequence;
    return 0;
}

int group_bookmark_ahead(const char *group, uint64_t held, const Camsync__V1__GroupBookmark *bookmark) {
    return text_equal(bookmark->group, group) && bookmark->sequence > held;
}

const char *group_of_display(const char *display, const char *attached_to) {
    return attached_to ? attached_to : display;
}

const char *batch_place_name(batch_place place) {
    switch (place) {
    case BATCH_NEXT: return "next";
    case BATCH_OLD: return "old";
    case BATCH_AFTER_GAP: return "after a gap";
    case BATCH_NOT_OURS: return "of another group";
    }
    return "?";
}

size_t node_feed_topic(const char *node, char *out, size_t size) {
    size_t id_length = strlen(node);
    size_t length = 3 + id_length + 1;
    if (length > size) return 0;
    memcpy(out, "ev.", 3);
    memcpy(out + 3, node, id_length);
    out[3 + id_length] = '\0';
    return length;
}
