// SPEC K6 on the display agent: several coordinators, at most one leader. The subscriber hears them
// all; the command socket follows one: the leader as the coordinators name it (a heartbeat's
// `coordinator`, a NOT_LEADER's `leader`), never guessed, or, while every coordinator is silent,
// the next endpoint of the list. Nothing under a term lower than one already seen is taken.
#include <stdio.h>
#include <string.h>

#include "agent.h"
#include "log.h"

int agent_is_stale(display_agent *agent, uint64_t term, const char *what) {
    if (term >= agent->known_term) return 0;
    agent_log(agent, "debug", "ignored %s under term %llu (known %llu)", what, (unsigned long long)term,
              (unsigned long long)agent->known_term);
    return 1;
}

void agent_follow(display_agent *agent, const Camsync__V1__CoordinatorAddress *leader, uint64_t term, const char *why) {
    if (!leader->command_endpoint || !*leader->command_endpoint) return;
    if (term < agent->known_term || term < agent->followed_term) return;
    agent->followed_term = term;
    if (strcmp(leader->command_endpoint, agent->followed) == 0) return;
    snprintf(agent->followed, sizeof agent->followed, "%s", leader->command_endpoint);
    agent_log(agent, "info", "following the leader %s at %s term=%llu (named by %s)", leader->name ? leader->name : "",
              agent->followed, (unsigned long long)term, why);
    // Pending requests go to it at once, with their ids (K5).
    agent_reconnect(agent, 0);
}

void agent_try_next_coordinator(display_agent *agent) {
    const agent_config *c = agent->config;
    if (c->n_coordinators < 2) return;
    size_t next = 0;
    for (size_t i = 0; i < c->n_coordinators; i++)
        if (strcmp(c->coordinators[i], agent->followed) == 0) next = (i + 1) % c->n_coordinators;
    snprintf(agent->followed, sizeof agent->followed, "%s", c->coordinators[next]);
    agent->followed_term = 0;
}
