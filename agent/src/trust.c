// The coordinators the agent believes (trust.h).
#include "trust.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zmq.h>

static int valid_key(const char *key) {
    uint8_t binary[32];
    return strlen(key) == 40 && zmq_z85_decode(binary, key) != NULL;
}

int trust_parse(agent_config *config, const char *text, const char *file, char *error, size_t error_size) {
    size_t number = 0;
    const char *line = text;
    while (*line) {
        number++;
        size_t length = strcspn(line, "\n");
        char buffer[2048];
        if (length >= sizeof buffer) {
            snprintf(error, error_size, "%s:%zu: line too long", file, number);
            return -1;
        }
        memcpy(buffer, line, length);
        buffer[length] = 0;
        line += length + (line[length] == '\n');
        char *words[5] = {0};
        size_t n = 0;
        for (char *save = NULL, *word = strtok_r(buffer, " \t\r", &save); word; word = strtok_r(NULL, " \t\r", &save)) {
            if (n < 5) words[n] = word;
            n++;
        }
        if (n == 0 || words[0][0] == '#') continue;
        if (n != 4) {
            snprintf(error, error_size, "%s:%zu: expected `name public-key command-endpoint event-endpoint`", file, number);
            return -1;
        }
        if (!valid_key(words[1])) {
            snprintf(error, error_size, "%s:%zu: '%.8s…' is not a 40-character Z85 public key", file, number, words[1]);
            return -1;
        }
        if (config->n_trusted == AGENT_MAX_COORDINATORS) {
            snprintf(error, error_size, "%s: more than %d coordinators", file, AGENT_MAX_COORDINATORS);
            return -1;
        }
        for (size_t i = 0; i < config->n_trusted; i++)
            if (strcmp(config->trusted[i].name, words[0]) == 0) {
                snprintf(error, error_size, "%s:%zu: coordinator '%s' is listed twice", file, number, words[0]);
                return -1;
            }
        agent_trusted_coordinator *entry = &config->trusted[config->n_trusted++];
        entry->name = strdup(words[0]);
        memcpy(entry->key, words[1], 41);
        entry->command = strdup(words[2]);
        entry->event = strdup(words[3]);
    }
    if (config->n_trusted == 0) {
        snprintf(error, error_size, "%s: lists no coordinator", file);
        return -1;
    }
    return 0;
}

static const char *shared(const agent_config *config) { return config->coordinator_key[0] ? config->coordinator_key : NULL; }

const char *trust_key_for_command(const agent_config *config, const char *endpoint) {
    for (size_t i = 0; i < config->n_trusted; i++)
        if (strcmp(config->trusted[i].command, endpoint) == 0) return config->trusted[i].key;
    return shared(config);
}

const char *trust_key_for_event(const agent_config *config, const char *endpoint) {
    for (size_t i = 0; i < config->n_trusted; i++)
        if (strcmp(config->trusted[i].event, endpoint) == 0) return config->trusted[i].key;
    return shared(config);
}

const char *trust_key_for_address(const agent_config *config, const Camsync__V1__CoordinatorAddress *address) {
    const char *key = address->public_key;
    if (key && *key) {
        for (size_t i = 0; i < config->n_trusted; i++)
            if (strcmp(config->trusted[i].key, key) == 0) return config->trusted[i].key;
        return shared(config) && strcmp(shared(config), key) == 0 ? shared(config) : NULL;
    }
    return address->command_endpoint ? trust_key_for_command(config, address->command_endpoint) : NULL;
}

static void filter(char **list, size_t *count, const char *(*key)(const agent_config *, const char *),
                   const agent_config *config, size_t *dropped) {
    size_t kept = 0;
    for (size_t i = 0; i < *count; i++) {
        if (key(config, list[i])) {
            list[kept++] = list[i];
        } else {
            fprintf(stderr, "warning not connecting to %s: no trusted coordinator there (not in the coordinator keys)\n", list[i]);
            free(list[i]);
            (*dropped)++;
        }
    }
    *count = kept;
}

void trust_filter_endpoints(agent_config *config, size_t *dropped) {
    *dropped = 0;
    filter(config->coordinators, &config->n_coordinators, trust_key_for_command, config, dropped);
    filter(config->events, &config->n_events, trust_key_for_event, config, dropped);
}
