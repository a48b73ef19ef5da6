// The display's node config file (docs/OPERATIONS.md "Node config files") and the command line.
#ifndef CAMSYNC_AGENT_CONFIG_H
#define CAMSYNC_AGENT_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#define AGENT_MAX_ENDPOINTS 8
#define AGENT_MAX_COORDINATORS 16

// A coordinator the agent believes (`--coordinator-keys`, trust.h): its name, CURVE public key and endpoints.
typedef struct {
    char *name;
    char key[41];
    char *command;
    char *event;
} agent_trusted_coordinator;

typedef struct {
    char *name;
    int position; // Camsync__V1__CameraPosition
} agent_camera_spec;

typedef struct {
    // From the YAML file.
    char *id;
    char *display_name;
    char *attached_to; // NULL: attach to nothing
    agent_camera_spec *cameras;
    size_t n_cameras;
    // From the command line. Endpoints are lists (HA, SPEC K6): a DEALER goes to each coordinator's
    // command endpoint. The event endpoints are accepted and checked, and connected to by nobody.
    char *coordinators[AGENT_MAX_ENDPOINTS];
    size_t n_coordinators;
    char *events[AGENT_MAX_ENDPOINTS];
    size_t n_events;
    char *control;
    int64_t heartbeat_ms;
    int64_t liveness;
    int64_t request_retry_ms;
    int request_attempts;
    size_t history_limit;
    // CURVE: Z85 keys, 40 characters; the agent's pair, and the coordinators it believes: a key
    // per coordinator (`trusted`, --coordinator-keys), or one they share (`coordinator_key`,
    // --coordinator-key; empty otherwise).
    char secret_key[41];
    char public_key[41];
    char coordinator_key[41];
    agent_trusted_coordinator trusted[AGENT_MAX_COORDINATORS];
    size_t n_trusted;
    int curve;
} agent_config;

// Parses YAML text into `config` (id, display attributes). On failure returns -1 and writes a
// message naming the field into `error`.
int config_parse_yaml(agent_config *config, const char *text, size_t length, char *error, size_t error_size);

// Parses argv (the same options as `camsync node`), reading the config and key files.
int config_from_arguments(agent_config *config, int argc, char **argv, char *error, size_t error_size);

// Reads the first line of a key file as a Z85 key (40 characters).
int config_read_key(const char *path, char out[41], char *error, size_t error_size);

void config_free(agent_config *config);

#endif
