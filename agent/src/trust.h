// Which coordinators the agent believes: each coordinator has a CURVE key pair of its own, and the agent believes only the
// coordinators its `--coordinator-keys` file lists (the same file and the same rules as the Swift
// node's `TrustedCoordinators`, Sources/CamsyncWire/TrustedCoordinators.swift). Pure: no socket, no
// clock. Each connection is made with the key of the coordinator at its endpoint (CURVE proves who
// answers); an address a heartbeat or a NOT_LEADER names is believed only when its key is listed
// (or, carrying none, when a key is listed for its command endpoint).
#ifndef CAMSYNC_AGENT_TRUST_H
#define CAMSYNC_AGENT_TRUST_H

#include <stddef.h>

#include "camsync/v1/heartbeat.pb-c.h"
#include "config.h"

// Parses a coordinators.txt (`name public-key command-endpoint event-endpoint` lines, `#` comments)
// into config->trusted. On failure returns -1 with a message naming the line in `error`.
int trust_parse(agent_config *config, const char *text, const char *file, char *error, size_t error_size);

// The server key for an endpoint of the lists: the listed coordinator's there, else the shared key
// (--coordinator-key); NULL when no believed coordinator is there.
const char *trust_key_for_command(const agent_config *config, const char *endpoint);
const char *trust_key_for_event(const agent_config *config, const char *endpoint);

// The server key to reach the coordinator `address` names, if it is believed; NULL if not.
const char *trust_key_for_address(const agent_config *config, const Camsync__V1__CoordinatorAddress *address);

// Drops the endpoints of the lists that no believed coordinator serves (counted in *dropped).
void trust_filter_endpoints(agent_config *config, size_t *dropped);

#endif
