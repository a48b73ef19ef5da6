// SPEC K6, K7 on the display agent: several coordinators, at most one leader. The agent keeps a
// DEALER to each and hears whatever any of them pushes; its requests go to one: the leader as the
// coordinators name it (a heartbeat's `coordinator`, a NOT_LEADER's `leader`), never guessed, or,
// while every coordinator is silent, the next endpoint of the list. Whether to follow is follow.c's
// rule (the same table of cases as the Swift node's); this file carries out its decisions.
#include <stdio.h>
#include <string.h>

#include "agent.h"
#include "log.h"
#include "trust.h"

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
    // Pending requests go to it at once, with their ids (K5), on the DEALER kept to it (opened now
    // if it is at an endpoint the list does not hold); nothing is reopened, nothing registered again.
    agent_connect(agent, 0);
}

void agent_try_next_coordinator(display_agent *agent) { follower_fell_silent(&agent->leader); }

const char *agent_server_key(const display_agent *agent, const char *endpoint) {
    if (!agent->config->curve) return NULL;
    for (size_t i = 0; i < agent->n_named_keys; i++)
        if (strcmp(agent->named_keys[i].endpoint, endpoint) == 0) return agent->named_keys[i].key;
    return trust_key_for_command(agent->config, endpoint);
}

int agent_believes(display_agent *agent, const Camsync__V1__CoordinatorAddress *address, const char *what) {
    if (!agent->config->curve) return 1;
    const char *key = trust_key_for_address(agent->config, address);
    const char *endpoint = address->command_endpoint ? address->command_endpoint : "";
    if (!key) {
        agent->untrusted_ignored++;
        agent_log(agent, "warning", "ignored %s: coordinator %s at %s term=%llu has a key this agent does not trust (%.8s)", what,
                  address->name ? address->name : "", endpoint, (unsigned long long)address->term,
                  address->public_key && *address->public_key ? address->public_key : "none");
        return 0;
    }
    size_t slot = agent->n_named_keys;
    for (size_t i = 0; i < agent->n_named_keys; i++)
        if (strcmp(agent->named_keys[i].endpoint, endpoint) == 0) slot = i;
    if (slot == AGENT_MAX_ENDPOINTS) slot = 0; // full: the oldest goes
    if (strlen(endpoint) >= FOLLOW_ENDPOINT_MAX) return 1; // follow.c ignores such an endpoint anyway
    snprintf(agent->named_keys[slot].endpoint, FOLLOW_ENDPOINT_MAX, "%s", endpoint);
    memcpy(agent->named_keys[slot].key, key, 41);
    if (slot == agent->n_named_keys) agent->n_named_keys++;
    return 1;
}
