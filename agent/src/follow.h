// Which coordinator the agent follows (SPEC K6, K7): the same rule as Swift's `FollowedLeader`
// (Sources/CamsyncWire/FollowedLeader.swift), pure (no clock, no socket, no allocation). Both are
// tested against one table of cases, Tests/Fixtures/leader-following.tsv
// (agent/tests/leader_following_test.c here).
//
// K7: a coordinator named leader is followed only in a term higher than the one followed, or in
// the same term if it is not the one just left because it fell silent; a leader's own heartbeat
// is that coordinator speaking again, and is followed.
#ifndef CAMSYNC_AGENT_FOLLOW_H
#define CAMSYNC_AGENT_FOLLOW_H

#include <stddef.h>
#include <stdint.h>

#define FOLLOW_ENDPOINT_MAX 512

typedef struct {
    char endpoint[FOLLOW_ENDPOINT_MAX]; // command endpoint
    uint64_t term;                      // the term it was named leader in (0: not known)
} followed_coordinator;

typedef enum {
    FOLLOW_FOLLOW,            // another coordinator: follow it (pending requests go there, K5)
    FOLLOW_SAME,              // the one followed already: its term was noted
    FOLLOW_NO_ENDPOINT,       // ignored: no command endpoint
    FOLLOW_LOWER_TERM,        // ignored: a term lower than the one followed
    FOLLOW_LEFT_FOR_SILENCE,  // ignored: the one just left for silence, in the same term
} follow_decision;

typedef enum {
    NAMED_BY_ITSELF,  // the leader's own heartbeat
    NAMED_BY_ANOTHER, // another coordinator's NOT_LEADER
} named_by;

typedef struct {
    const char *const *endpoints; // borrowed, never empty
    size_t n_endpoints;
    followed_coordinator followed;
    uint64_t highest_term; // the highest term heard (heartbeats, batches, a leader's replies)
    int has_left;
    followed_coordinator left; // the one just left for silence, in the term followed then
} leader_follower;

void follower_init(leader_follower *f, const char *const *endpoints, size_t n_endpoints);
// max(highest term heard, term the followed one was named in).
uint64_t follower_term_followed(const leader_follower *f);
int follower_is_stale(const leader_follower *f, uint64_t term);
// A term heard; returns 1 when it is higher than any heard.
int follower_note_term(leader_follower *f, uint64_t term);
// A leader named at `endpoint` (NULL or "" for none) in `term`.
follow_decision follower_named(leader_follower *f, const char *endpoint, uint64_t term, named_by by);
// The followed one fell silent: remember it, move to the next endpoint. 0 with a list of one.
int follower_fell_silent(leader_follower *f);
// It answered, leads not, names no leader to follow: the next endpoint, past the one left. 0 with a list of one.
int follower_try_next(leader_follower *f);

#endif
