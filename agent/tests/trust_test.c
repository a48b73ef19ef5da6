// Which coordinators the display agent believes (src/trust.c): the same cases as the Swift
// `TrustedCoordinatorsTests` — the file parsed or refused with its line, an address believed by its
// key or, carrying none, by its listed endpoint, and endpoints no listed coordinator serves dropped.
// Prints one line per failure; exits 1 if any. Run by `make test` (make trust-test).
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trust.h"

static int failures;

#define CHECK(condition, ...)                                                                                     \
    do {                                                                                                        \
        if (!(condition)) {                                                                                     \
            fprintf(stderr, "trust_test.c:%d: ", __LINE__);                                                     \
            fprintf(stderr, __VA_ARGS__);                                                                       \
            fprintf(stderr, "\n");                                                                              \
            failures++;                                                                                         \
        }                                                                                                       \
    } while (0)

// Valid Z85 keys (40 characters of the alphabet).
#define KEY_A "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define KEY_B "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
#define KEY_Z "zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz"

static const char *file = "# name public-key command-endpoint event-endpoint\n"
                          "c1 " KEY_A " tcp://10.0.0.11:5555 tcp://10.0.0.11:5556\n"
                          "\n"
                          "c2\t" KEY_B "   tcp://10.0.0.12:5555 tcp://10.0.0.12:5556\n";

static void free_trusted(agent_config *config) {
    for (size_t i = 0; i < config->n_trusted; i++) {
        free(config->trusted[i].name);
        free(config->trusted[i].command);
        free(config->trusted[i].event);
    }
    config->n_trusted = 0;
}

static void refused(const char *text, const char *expected) {
    agent_config config;
    memset(&config, 0, sizeof config);
    char error[256] = "";
    CHECK(trust_parse(&config, text, "k.txt", error, sizeof error) == -1, "accepted: %s", text);
    CHECK(strstr(error, expected) != NULL, "error \"%s\" does not say \"%s\"", error, expected);
    free_trusted(&config);
}

static const char *key_for(agent_config *config, const char *key, const char *endpoint) {
    Camsync__V1__CoordinatorAddress address = CAMSYNC__V1__COORDINATOR_ADDRESS__INIT;
    address.public_key = (char *)key;
    address.command_endpoint = (char *)endpoint;
    return trust_key_for_address(config, &address);
}

int main(void) {
    agent_config config;
    memset(&config, 0, sizeof config);
    char error[256] = "";
    CHECK(trust_parse(&config, file, "coordinators.txt", error, sizeof error) == 0, "parse: %s", error);
    CHECK(config.n_trusted == 2 && strcmp(config.trusted[1].name, "c2") == 0, "two coordinators");
    const char *b = trust_key_for_command(&config, "tcp://10.0.0.12:5555");
    CHECK(b && strcmp(b, KEY_B) == 0, "c2's command endpoint has its key");
    const char *a = trust_key_for_event(&config, "tcp://10.0.0.11:5556");
    CHECK(a && strcmp(a, KEY_A) == 0, "c1's event endpoint has its key");
    CHECK(trust_key_for_command(&config, "tcp://10.0.0.13:5555") == NULL, "no key where nobody listed is");

    // An address: believed by its key (anywhere), or with none by its listed endpoint.
    CHECK(key_for(&config, KEY_A, "tcp://elsewhere:1") != NULL, "a listed key elsewhere");
    CHECK(key_for(&config, KEY_Z, "tcp://10.0.0.11:5555") == NULL, "an unknown key at a listed endpoint");
    const char *by_endpoint = key_for(&config, "", "tcp://10.0.0.12:5555");
    CHECK(by_endpoint && strcmp(by_endpoint, KEY_B) == 0, "no key: the listed endpoint's");
    CHECK(key_for(&config, "", "tcp://elsewhere:1") == NULL, "no key, unlisted endpoint");

    // Endpoints of the lists no listed coordinator serves are dropped.
    config.coordinators[0] = strdup("tcp://10.0.0.11:5555");
    config.coordinators[1] = strdup("tcp://10.0.0.13:5555");
    config.n_coordinators = 2;
    config.events[0] = strdup("tcp://10.0.0.13:5556");
    config.events[1] = strdup("tcp://10.0.0.12:5556");
    config.n_events = 2;
    size_t dropped = 0;
    trust_filter_endpoints(&config, &dropped);
    CHECK(dropped == 2 && config.n_coordinators == 1 && config.n_events == 1, "dropped %zu", dropped);
    CHECK(strcmp(config.coordinators[0], "tcp://10.0.0.11:5555") == 0 && strcmp(config.events[0], "tcp://10.0.0.12:5556") == 0,
          "the listed ones stay");
    free(config.coordinators[0]);
    free(config.events[0]);
    free_trusted(&config);

    // One shared key (--coordinator-key): every endpoint's, and only it is believed.
    agent_config shared;
    memset(&shared, 0, sizeof shared);
    memcpy(shared.coordinator_key, KEY_A, 41);
    CHECK(trust_key_for_command(&shared, "tcp://anywhere:1") != NULL, "the shared key everywhere");
    CHECK(key_for(&shared, KEY_B, "tcp://anywhere:1") == NULL, "another key is not believed");

    refused("c1 " KEY_A " tcp://a:1\n", "expected `name public-key command-endpoint event-endpoint`");
    refused("# ok\nc1 short tcp://a:1 tcp://a:2\n", "k.txt:2: 'short");
    refused("c1 " KEY_A " tcp://a:1 tcp://a:2\nc1 " KEY_B " tcp://b:1 tcp://b:2\n", "k.txt:2: coordinator 'c1' is listed twice");
    refused("# nothing\n", "lists no coordinator");

    if (failures == 0) printf("trust: all cases pass\n");
    return failures ? 1 : 0;
}
