// Node config file (YAML, libyaml) and command line of camsync-display-agent.
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>
#include <zmq.h>

#include "camsync/v1/node.pb-c.h"
#include "trust.h"

static char *dup_text(const char *text) {
    size_t n = strlen(text);
    char *copy = malloc(n + 1);
    if (copy) memcpy(copy, text, n + 1);
    return copy;
}

static const char *scalar(yaml_document_t *doc, yaml_node_t *node) {
    (void)doc;
    return node && node->type == YAML_SCALAR_NODE ? (const char *)node->data.scalar.value : NULL;
}

static yaml_node_t *mapping_value(yaml_document_t *doc, yaml_node_t *map, const char *key) {
    if (!map || map->type != YAML_MAPPING_NODE) return NULL;
    for (yaml_node_pair_t *pair = map->data.mapping.pairs.start; pair < map->data.mapping.pairs.top; pair++) {
        const char *k = scalar(doc, yaml_document_get_node(doc, pair->key));
        if (k && strcmp(k, key) == 0) return yaml_document_get_node(doc, pair->value);
    }
    return NULL;
}

static int position_named(const char *name) {
    static const struct { const char *name; int value; } table[] = {
        {"front", CAMSYNC__V1__CAMERA_POSITION__CAMERA_POSITION_FRONT},
        {"back", CAMSYNC__V1__CAMERA_POSITION__CAMERA_POSITION_BACK},
        {"lidarDepth", CAMSYNC__V1__CAMERA_POSITION__CAMERA_POSITION_LIDAR_DEPTH},
        {"external", CAMSYNC__V1__CAMERA_POSITION__CAMERA_POSITION_EXTERNAL},
        {"telephoto", CAMSYNC__V1__CAMERA_POSITION__CAMERA_POSITION_TELEPHOTO},
        {"ultraWide", CAMSYNC__V1__CAMERA_POSITION__CAMERA_POSITION_ULTRA_WIDE},
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (strcmp(table[i].name, name) == 0) return table[i].value;
    return 0;
}

#define FAIL(...) do { snprintf(error, error_size, __VA_ARGS__); goto done; } while (0)

int config_parse_yaml(agent_config *config, const char *text, size_t length, char *error, size_t error_size) {
    int result = -1;
    yaml_parser_t parser;
    yaml_document_t doc;
    if (!yaml_parser_initialize(&parser)) {
        snprintf(error, error_size, "cannot start the YAML parser");
        return -1;
    }
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, length);
    if (!yaml_parser_load(&parser, &doc)) {
        snprintf(error, error_size, "not YAML: %s at line %zu", parser.problem ? parser.problem : "parse error",
                 parser.problem_mark.line + 1);
        yaml_parser_delete(&parser);
        return -1;
    }
    yaml_node_t *root = yaml_document_get_root_node(&doc);
    if (!root || root->type != YAML_MAPPING_NODE) FAIL("the config must be a mapping");
    const char *id = scalar(&doc, mapping_value(&doc, root, "id"));
    if (!id) FAIL("missing field 'id'");
    if (!*id) FAIL("'id' must not be empty");
    if (strlen(id) > 255) FAIL("'id' is longer than 255 bytes");
    const char *kind = scalar(&doc, mapping_value(&doc, root, "kind"));
    if (!kind) FAIL("missing field 'kind'");
    if (strcmp(kind, "display") != 0) FAIL("'kind' must be 'display' for camsync-display-agent, not '%s'", kind);
    const char *agent = scalar(&doc, mapping_value(&doc, root, "agent"));
    if (agent && strcmp(agent, "c") != 0 && strcmp(agent, "swift") != 0)
        FAIL("'agent' must be 'swift' or 'c', not '%s'", agent);
    config->id = dup_text(id);
    yaml_node_t *display = mapping_value(&doc, root, "display");
    if (display && display->type != YAML_MAPPING_NODE) FAIL("bad value at display");
    const char *name = scalar(&doc, mapping_value(&doc, display, "name"));
    config->display_name = dup_text(name ? name : id);
    yaml_node_t *attached = mapping_value(&doc, display, "attachedTo");
    if (attached) {
        const char *device = scalar(&doc, attached);
        if (!device) FAIL("bad value at display.attachedTo");
        if (*device) config->attached_to = dup_text(device);
    }
    yaml_node_t *cameras = mapping_value(&doc, display, "cameras");
    if (cameras) {
        if (cameras->type != YAML_SEQUENCE_NODE) FAIL("bad value at display.cameras");
        size_t count = (size_t)(cameras->data.sequence.items.top - cameras->data.sequence.items.start);
        config->cameras = calloc(count ? count : 1, sizeof *config->cameras);
        if (!config->cameras) FAIL("out of memory");
        for (size_t i = 0; i < count; i++) {
            yaml_node_t *camera = yaml_document_get_node(&doc, cameras->data.sequence.items.start[i]);
            const char *camera_name = scalar(&doc, mapping_value(&doc, camera, "name"));
            if (!camera_name || !*camera_name) FAIL("missing field 'name' at display.cameras[%zu]", i);
            for (size_t j = 0; j < config->n_cameras; j++)
                if (strcmp(config->cameras[j].name, camera_name) == 0)
                    FAIL("camera names must be unique: '%s' at display.cameras[%zu]", camera_name, i);
            const char *position = scalar(&doc, mapping_value(&doc, camera, "position"));
            int value = position ? position_named(position) : CAMSYNC__V1__CAMERA_POSITION__CAMERA_POSITION_EXTERNAL;
            if (!value)
                FAIL("camera '%s': position must be one of front, back, lidarDepth, external, telephoto, ultraWide, not '%s'", camera_name, position);
            config->cameras[config->n_cameras].name = dup_text(camera_name);
            config->cameras[config->n_cameras].position = value;
            config->n_cameras++;
        }
    }
    result = 0;
done:
    yaml_document_delete(&doc);
    yaml_parser_delete(&parser);
    return result;
}

int config_read_key(const char *path, char out[41], char *error, size_t error_size) {
    FILE *file = fopen(path, "r");
    if (!file) {
        snprintf(error, error_size, "cannot read key file %s: %s", path, strerror(errno));
        return -1;
    }
    char line[256] = {0};
    if (!fgets(line, sizeof line, file)) line[0] = 0;
    fclose(file);
    char *start = line;
    while (*start == ' ' || *start == '\t') start++;
    size_t n = strcspn(start, " \t\r\n");
    start[n] = 0;
    uint8_t binary[32];
    if (n != 40 || !zmq_z85_decode(binary, start)) {
        snprintf(error, error_size, "%s does not hold a 40-character Z85 key (make one with `camsync keygen`)", path);
        return -1;
    }
    memcpy(out, start, 41);
    return 0;
}

static int split_list(const char *text, char **out, size_t *count) {
    *count = 0;
    const char *p = text;
    while (*p) {
        size_t n = strcspn(p, ",");
        if (n > 0) {
            if (*count == AGENT_MAX_ENDPOINTS) return -1;
            out[*count] = strndup(p, n);
            (*count)++;
        }
        p += n;
        if (*p == ',') p++;
    }
    return *count > 0 ? 0 : -1;
}

static int parse_positive(const char *text, int64_t *out) {
    char *end = NULL;
    errno = 0;
    long long value = strtoll(text, &end, 10);
    if (errno || !end || *end || value <= 0) return -1;
    *out = value;
    return 0;
}

// Reads a whole file (at most 1 MiB), NUL-terminated; NULL with a message on failure.
static char *read_text(const char *path, size_t *length_out, char *error, size_t error_size) {
    FILE *file = fopen(path, "rb");
    if (!file) {
        snprintf(error, error_size, "cannot read %s: %s", path, strerror(errno));
        return NULL;
    }
    char *text = NULL;
    size_t length = 0, capacity = 0;
    for (;;) {
        if (length + 4096 > capacity) {
            capacity = capacity ? capacity * 2 : 8192;
            if (capacity > (1u << 20)) {
                free(text);
                fclose(file);
                snprintf(error, error_size, "%s is larger than 1 MiB", path);
                return NULL;
            }
            char *grown = realloc(text, capacity);
            if (!grown) { free(text); fclose(file); snprintf(error, error_size, "out of memory"); return NULL; }
            text = grown;
        }
        size_t got = fread(text + length, 1, capacity - length - 1, file);
        length += got;
        if (got == 0) break;
    }
    fclose(file);
    text[length] = 0;
    *length_out = length;
    return text;
}

int config_from_arguments(agent_config *config, int argc, char **argv, char *error, size_t error_size) {
    memset(config, 0, sizeof *config);
    config->heartbeat_ms = 500;
    config->liveness = 3;
    config->request_retry_ms = 1000;
    config->request_attempts = 10;
    config->history_limit = 10000;
    const char *config_path = NULL, *coordinator = "tcp://127.0.0.1:5555", *events = "tcp://127.0.0.1:5556";
    const char *secret_path = NULL, *coordinator_key_path = NULL, *coordinator_keys_path = NULL;
    for (int i = 1; i < argc; i++) {
        const char *flag = argv[i];
        if (strcmp(flag, "--help") == 0 || strcmp(flag, "-h") == 0) {
            snprintf(error, error_size,
                     "usage: camsync-display-agent --config FILE [--coordinator EP[,EP]] [--events EP[,EP]] "
                     "[--control EP] [--heartbeat-ms N] [--liveness N] "
                     "[--secret-key FILE (--coordinator-keys FILE | --coordinator-key FILE)]\n"
                     "  --coordinator  every coordinator's command endpoint: a DEALER to each, kept open\n"
                     "  --events       accepted for the cluster tooling, not used (the leader pushes the\n"
                     "                 node's feed and heartbeats on the DEALER to it)");
            return 1;
        }
        if (i + 1 >= argc) {
            snprintf(error, error_size, "%s needs a value", flag);
            return -1;
        }
        const char *value = argv[++i];
        if (strcmp(flag, "--config") == 0) config_path = value;
        else if (strcmp(flag, "--coordinator") == 0) coordinator = value;
        else if (strcmp(flag, "--events") == 0) events = value;
        else if (strcmp(flag, "--control") == 0) config->control = dup_text(value);
        else if (strcmp(flag, "--secret-key") == 0) secret_path = value;
        else if (strcmp(flag, "--coordinator-key") == 0) coordinator_key_path = value;
        else if (strcmp(flag, "--coordinator-keys") == 0) coordinator_keys_path = value;
        else if (strcmp(flag, "--heartbeat-ms") == 0 || strcmp(flag, "--liveness") == 0) {
            int64_t number;
            if (parse_positive(value, &number)) {
                snprintf(error, error_size, "%s must be a positive integer, not '%s'", flag, value);
                return -1;
            }
            if (flag[2] == 'h') config->heartbeat_ms = number;
            else config->liveness = number;
        } else {
            snprintf(error, error_size, "unknown option %s (try --help)", flag);
            return -1;
        }
    }
    if (!config_path) {
        snprintf(error, error_size, "--config is required");
        return -1;
    }
    if (split_list(coordinator, config->coordinators, &config->n_coordinators) ||
        split_list(events, config->events, &config->n_events)) {
        snprintf(error, error_size, "--coordinator and --events take 1…%d comma-separated endpoints", AGENT_MAX_ENDPOINTS);
        return -1;
    }
    size_t length = 0;
    char *text = read_text(config_path, &length, error, error_size);
    if (!text) return -1;
    char message[512];
    int parsed = config_parse_yaml(config, text, length, message, sizeof message);
    free(text);
    if (parsed) {
        snprintf(error, error_size, "%s: %s", config_path, message);
        return -1;
    }
    if (!config->control) {
        size_t n = strlen(config->id) + 32;
        config->control = malloc(n);
        snprintf(config->control, n, "ipc:///tmp/camsync-%s.sock", config->id);
    }
    if (!secret_path && (coordinator_key_path || coordinator_keys_path)) {
        snprintf(error, error_size, "--coordinator-key(s) needs --secret-key");
        return -1;
    }
    if (secret_path) {
        if (!coordinator_key_path == !coordinator_keys_path) {
            snprintf(error, error_size, coordinator_key_path ? "give --coordinator-keys or --coordinator-key, not both"
                                                             : "--secret-key needs --coordinator-keys (or --coordinator-key)");
            return -1;
        }
        if (config_read_key(secret_path, config->secret_key, error, error_size) ||
            (coordinator_key_path && config_read_key(coordinator_key_path, config->coordinator_key, error, error_size)))
            return -1;
        if (coordinator_keys_path) {
            size_t length = 0;
            char *keys = read_text(coordinator_keys_path, &length, error, error_size);
            if (!keys) return -1;
            int failed = trust_parse(config, keys, coordinator_keys_path, error, error_size);
            free(keys);
            if (failed) return -1;
        }
        size_t dropped = 0;
        trust_filter_endpoints(config, &dropped);
        if (config->n_coordinators == 0 || config->n_events == 0) {
            snprintf(error, error_size, "no endpoint of --coordinator/--events is a trusted coordinator's "
                                        "(--coordinator-keys lists none of them)");
            return -1;
        }
        if (zmq_curve_public(config->public_key, config->secret_key) != 0) {
            snprintf(error, error_size, "%s: cannot derive the public key", secret_path);
            return -1;
        }
        config->curve = 1;
    }
    return 0;
}

void config_free(agent_config *config) {
    free(config->id);
    free(config->display_name);
    free(config->attached_to);
    for (size_t i = 0; i < config->n_cameras; i++) free(config->cameras[i].name);
    free(config->cameras);
    for (size_t i = 0; i < config->n_coordinators; i++) free(config->coordinators[i]);
    for (size_t i = 0; i < config->n_events; i++) free(config->events[i]);
    for (size_t i = 0; i < config->n_trusted; i++) {
        free(config->trusted[i].name);
        free(config->trusted[i].command);
        free(config->trusted[i].event);
    }
    free(config->control);
    memset(config, 0, sizeof *config);
}
