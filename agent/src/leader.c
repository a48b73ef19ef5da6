// SPEC K6, K7 on the display agent: several coordinators, at most one leader. The subscriber hears
// them all; the command socket follows one: the leader as the coordinators name it (a heartbeat's
// `coordinator`, a NOT_LEADER's `leader`), never guessed, or, while every coordinator is silent,
// the next endpoint of the list. Whether to follow is follow.c's rule (the same table of cases as
// the Swift node's); this file carries out its decisions.
#include <stdio.h>
#include <string.h>

#include "agent.h"
#include "log.h"

int agent_is_stale(display_agent *agent, uint64_t term, const char *what) {
    if (!follower_is_stale(&agent->leader, term)) return 0;
    agent_log(agent, "debug", "ignored %s under term %llu (known %llu)", what, (unsigned long long)term,
              (unsigned long long)agent->leader.highest_term);
    return 1;
}

void agent_follow(display_agent *agent, const Camsync__V1__CoordinatorAddress *leader, uint64_t term, named_by by) {
    const char *endpoint = leader->command_endpoint;
    follow_decision decision = follower_named(&agent->leader, endpoint, term, by);
    const char *why = by == NAMED_BY_ITSELF ? "heartbeat" : "not-leader reply";
    if (decision == FOLLOW_LEFT_FOR_SILENCE)
        agent_log(agent, "info", "not following %s term=%llu (named by %s): left it for silence in that term", endpoint,
                  (unsigned long long)term, why);
    if (decision != FOLLOW_FOLLOW) return;
    agent_log(agent, "info", "following the leader %s at %s term=%llu (named by %s)", leader->name ? leader->name : "",
              agent->leader.followed.endpoint, (unsigned long long)term, why);
    // Pending requests go to it at once, with their ids (K5).
    agent_reconnect(agent, 0);
}

void agent_try_next_coordinator(display_agent *agent) { follower_fell_silent(&agent->leader); }
