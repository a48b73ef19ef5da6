// The leader-following rule (follow.h): the same cases as Swift's FollowedLeader.
#include "follow.h"

#include <stdio.h>
#include <string.h>

static void set(followed_coordinator *c, const char *endpoint, uint64_t term) {
    snprintf(c->endpoint, sizeof c->endpoint, "%s", endpoint);
    c->term = term;
}

void follower_init(leader_follower *f, const char *const *endpoints, size_t n_endpoints) {
    memset(f, 0, sizeof *f);
    f->endpoints = endpoints;
    f->n_endpoints = n_endpoints;
    set(&f->followed, n_endpoints ? endpoints[0] : "", 0);
}

uint64_t follower_term_followed(const leader_follower *f) {
    return f->highest_term > f->followed.term ? f->highest_term : f->followed.term;
}

int follower_is_stale(const leader_follower *f, uint64_t term) { return term < f->highest_term; }

int follower_note_term(leader_follower *f, uint64_t term) {
    if (term <= f->highest_term) return 0;
    f->highest_term = term;
    if (f->has_left && term > f->left.term) f->has_left = 0;
    return 1;
}

follow_decision follower_named(leader_follower *f, const char *endpoint, uint64_t term, named_by by) {
    if (!endpoint || !*endpoint) return FOLLOW_NO_ENDPOINT;
    if (term < follower_term_followed(f)) return FOLLOW_LOWER_TERM;
    if (f->has_left) {
        if (strcmp(f->left.endpoint, endpoint) == 0 && f->left.term == term) {
            // Hearsay names the dead leader in the term it died in; its own heartbeat proves it speaks.
            if (by != NAMED_BY_ITSELF) return FOLLOW_LEFT_FOR_SILENCE;
            f->has_left = 0;
        } else if (term > f->left.term) {
            f->has_left = 0;
        }
    }
    if (strcmp(f->followed.endpoint, endpoint) == 0) {
        f->followed.term = term;
        return FOLLOW_SAME;
    }
    set(&f->followed, endpoint, term);
    return FOLLOW_FOLLOW;
}

// The endpoint after `endpoint` in the list (the first when it is not in it), past `skipped`
// (may be NULL) unless that is the only other choice.
static const char *next_endpoint(const leader_follower *f, const char *endpoint, const char *skipped) {
    size_t start = 0;
    for (size_t i = 0; i < f->n_endpoints; i++)
        if (strcmp(f->endpoints[i], endpoint) == 0) { start = i + 1; break; }
    const char *fallback = NULL;
    for (size_t step = 0; step < f->n_endpoints; step++) {
        const char *candidate = f->endpoints[(start + step) % f->n_endpoints];
        if (strcmp(candidate, endpoint) == 0) continue;
        if (!fallback) fallback = candidate;
        if (!skipped || strcmp(candidate, skipped) != 0) return candidate;
    }
    return fallback ? fallback : f->endpoints[0];
}

int follower_fell_silent(leader_follower *f) {
    if (f->n_endpoints < 2) return 0;
    set(&f->left, f->followed.endpoint, follower_term_followed(f));
    f->has_left = 1;
    char from[FOLLOW_ENDPOINT_MAX];
    snprintf(from, sizeof from, "%s", f->followed.endpoint);
    set(&f->followed, next_endpoint(f, from, NULL), 0);
    return 1;
}

int follower_try_next(leader_follower *f) {
    if (f->n_endpoints < 2) return 0;
    char from[FOLLOW_ENDPOINT_MAX];
    snprintf(from, sizeof from, "%s", f->followed.endpoint);
    set(&f->followed, next_endpoint(f, from, f->has_left ? f->left.endpoint : NULL), 0);
    return 1;
}
