// Following one device group (docs/PROTOCOL.md "Following one group"): where a published batch
// stands against the group's last batch the agent holds. Pure: no agent, no sockets, no clock.
#ifndef CAMSYNC_AGENT_GROUP_H
#define CAMSYNC_AGENT_GROUP_H

#include <stddef.h>
#include <stdint.h>

#include "camsync/v1/state.pb-c.h"
#include "camsync/v1/sync.pb-c.h"

typedef enum {
    BATCH_NEXT,      // it names the batch held last as its previous one: apply it
    BATCH_OLD,       // held already (it came twice, or a replay brought it): drop it
    BATCH_AFTER_GAP, // it names a later previous batch: one was lost, replay
    BATCH_NOT_OURS,  // it does not go to the group followed
} batch_place;

// Where `batch` stands for a follower of `group` holding `held` (the sequence of the group's last
// batch). Without a group (a coordinator that answered with the whole state), `held` is the last
// sequence and batches follow each other by one.
batch_place group_place(const char *group, uint64_t held, const Camsync__V1__EventBatch *batch);

// The sequence of `group`'s last batch in a snapshot's state (`group_sequences`); 0: none.
uint64_t group_last_batch(const Camsync__V1__ClusterState *state, const char *group);

// Whether a bookmark of the group followed says its last batch is after `held`.
int group_bookmark_ahead(const char *group, uint64_t held, const Camsync__V1__GroupBookmark *bookmark);

// The group a display belongs to: the device it is attached to, else its own.
const char *group_of_display(const char *display, const char *attached_to);

const char *batch_place_name(batch_place place);

// The topic of a node's own feed, `ev.` + its id + one zero byte (the zero byte is part of it: no
// node's feed is the prefix of another's): the first frame of the leader's pushes of the feed. Writes it into `out`; returns its length, 0 when it does
// not fit.
size_t node_feed_topic(const char *node, char *out, size_t size);

#endif
