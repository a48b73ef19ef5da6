// camsync-display-agent: an external display's node in C (libzmq + protobuf-c). The socket loop: a
// DEALER to each coordinator (requests on the followed one's, the feed pushed on the leader's), a
// ROUTER for local control clients, signals.
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zmq.h>

#include "agent.h"
#include "trust.h"
#include "wire.h"

// A DEALER to each coordinator, by command endpoint: those of the list, opened at start, then any
// other a trusted heartbeat or NOT_LEADER names (up to AGENT_MAX_ENDPOINTS more; the oldest of
// those goes when they are full). `followed` is the one requests go to. NULL: it could not be opened.
#define MAX_CONNECTIONS (2 * AGENT_MAX_ENDPOINTS)

typedef struct {
    char endpoint[FOLLOW_ENDPOINT_MAX];
    void *dealer;
} connection;

typedef struct {
    void *context;
    agent_config *config;
    connection connections[MAX_CONNECTIONS];
    size_t n_connections, n_listed, followed, next_evicted; // the first n_listed: the list's
    void *control;
} sockets;

static volatile sig_atomic_t stopping = 0;

static void on_signal(int signal_number) {
    (void)signal_number;
    stopping = 1;
}

static int set_int(void *socket, int option, int value) { return zmq_setsockopt(socket, option, &value, sizeof value); }

// The agent's own pair; the server key is each connection's (the coordinator's at that endpoint).
static int secure(void *socket, const agent_config *config) {
    if (!config->curve) return 0;
    return zmq_setsockopt(socket, ZMQ_CURVE_PUBLICKEY, config->public_key, 40) ||
           zmq_setsockopt(socket, ZMQ_CURVE_SECRETKEY, config->secret_key, 40);
}

static int server_key(void *socket, const agent_config *config, const char *key) {
    if (!config->curve) return 0;
    if (!key) {
        errno = EINVAL;
        return -1;
    }
    return zmq_setsockopt(socket, ZMQ_CURVE_SERVERKEY, key, 40);
}

// The node's DEALER to one coordinator: its requests and their replies when it is followed, and
// whatever that coordinator pushes (the node's feed and heartbeats while it leads).
static void *open_dealer(sockets *s, const char *endpoint, const char *key) {
    void *socket = zmq_socket(s->context, ZMQ_DEALER);
    if (!socket) return NULL;
    int64_t max_size = 64 << 20;
    // libzmq's reconnect: a fifth of the heartbeat interval (at least 100 ms), doubling up to 4 times
    // that (at least 2 s), as docs/PROTOCOL.md "Sockets" says.
    int reconnect = s->config->heartbeat_ms / 5 < 100 ? 100 : (int)(s->config->heartbeat_ms / 5);
    int reconnect_max = reconnect * 4 < 2000 ? 2000 : reconnect * 4;
    if (set_int(socket, ZMQ_LINGER, 0) || zmq_setsockopt(socket, ZMQ_ROUTING_ID, s->config->id, strlen(s->config->id)) ||
        set_int(socket, ZMQ_RCVHWM, 100000) || set_int(socket, ZMQ_RECONNECT_IVL, reconnect) ||
        set_int(socket, ZMQ_RECONNECT_IVL_MAX, reconnect_max) || zmq_setsockopt(socket, ZMQ_MAXMSGSIZE, &max_size, sizeof max_size) ||
        secure(socket, s->config) || server_key(socket, s->config, key) || zmq_connect(socket, endpoint)) {
        fprintf(stderr, "error cannot connect to %s: %s\n", endpoint, key || !s->config->curve ? zmq_strerror(zmq_errno())
                                                                                              : "no trusted coordinator key");
        zmq_close(socket);
        return NULL;
    }
    return socket;
}

static size_t connection_to(const sockets *s, const char *endpoint) {
    size_t i = 0;
    while (i < s->n_connections && strcmp(s->connections[i].endpoint, endpoint) != 0) i++;
    return i;
}

// A slot for a DEALER to an endpoint the list does not hold: a new one, or (all taken) the oldest
// such one that is not followed, closed.
static size_t new_connection(sockets *s, const char *endpoint) {
    size_t i = s->n_connections;
    if (i == MAX_CONNECTIONS) {
        size_t extras = MAX_CONNECTIONS - s->n_listed;
        do {
            i = s->n_listed + s->next_evicted;
            s->next_evicted = (s->next_evicted + 1) % extras;
        } while (i == s->followed);
        if (s->connections[i].dealer) zmq_close(s->connections[i].dealer);
    } else {
        s->n_connections++;
    }
    snprintf(s->connections[i].endpoint, sizeof s->connections[i].endpoint, "%s", endpoint);
    s->connections[i].dealer = NULL;
    return i;
}

static int to_coordinator(void *context, const uint8_t *bytes, size_t length) {
    sockets *s = context;
    void *dealer = s->connections[s->followed].dealer;
    return dealer && zmq_send(dealer, bytes, length, ZMQ_DONTWAIT) >= 0 ? 0 : -1;
}

static void to_control(void *context, const uint8_t *identity, size_t identity_length, const uint8_t *bytes,
                       size_t length) {
    sockets *s = context;
    if (zmq_send(s->control, identity, identity_length, ZMQ_DONTWAIT | ZMQ_SNDMORE) < 0) return;
    zmq_send(s->control, bytes, length, ZMQ_DONTWAIT);
}

static void follow(void *context, const char *command_endpoint, const char *key, int reopen) {
    sockets *s = context;
    size_t i = connection_to(s, command_endpoint);
    if (i == s->n_connections) {
        i = new_connection(s, command_endpoint);
        reopen = 1;
    } else if (reopen && s->connections[i].dealer) {
        zmq_close(s->connections[i].dealer);
        s->connections[i].dealer = NULL;
    }
    s->followed = i;
    if (reopen || !s->connections[i].dealer) s->connections[i].dealer = open_dealer(s, command_endpoint, key);
}

// Receives one whole message: the first two frames are kept (the rest counted and dropped).
typedef struct {
    zmq_msg_t frames[2];
    size_t count;
} message;

static int receive(void *socket, message *m) {
    m->count = 0;
    zmq_msg_init(&m->frames[0]);
    zmq_msg_init(&m->frames[1]);
    int more = 1;
    while (more) {
        zmq_msg_t scratch;
        zmq_msg_t *frame = m->count < 2 ? &m->frames[m->count] : &scratch;
        if (frame == &scratch) zmq_msg_init(&scratch);
        if (zmq_msg_recv(frame, socket, ZMQ_DONTWAIT) < 0) {
            if (frame == &scratch) zmq_msg_close(&scratch);
            if (m->count == 0) {
                zmq_msg_close(&m->frames[0]);
                zmq_msg_close(&m->frames[1]);
                return -1;
            }
            break;
        }
        more = zmq_msg_more(frame);
        if (frame == &scratch) zmq_msg_close(&scratch);
        m->count++;
    }
    return 0;
}

static void release(message *m) {
    zmq_msg_close(&m->frames[0]);
    zmq_msg_close(&m->frames[1]);
}

static int still_open(const sockets *s, const void *dealer) {
    for (size_t i = 0; i < s->n_connections; i++)
        if (s->connections[i].dealer == dealer) return 1;
    return 0;
}

static const uint8_t *data(message *m, size_t i) { return zmq_msg_data(&m->frames[i]); }
static size_t size(message *m, size_t i) { return zmq_msg_size(&m->frames[i]); }

int main(int argc, char **argv) {
    agent_config config;
    char error[1024] = "";
    int parsed = config_from_arguments(&config, argc, argv, error, sizeof error);
    if (parsed) {
        fprintf(parsed > 0 ? stdout : stderr, "%s%s\n", parsed > 0 ? "" : "camsync-display-agent: ", error);
        config_free(&config);
        return parsed > 0 ? 0 : 64;
    }
    signal(SIGPIPE, SIG_IGN);
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = on_signal;
    sigaction(SIGTERM, &action, NULL);
    sigaction(SIGINT, &action, NULL);
    // A parent may start us with these blocked (a Swift test runner's threads do): unblock them.
    sigset_t stop_signals;
    sigemptyset(&stop_signals);
    sigaddset(&stop_signals, SIGTERM);
    sigaddset(&stop_signals, SIGINT);
    sigprocmask(SIG_UNBLOCK, &stop_signals, NULL);

    sockets s = {.context = zmq_ctx_new(), .config = &config};
    zmq_ctx_set(s.context, ZMQ_IO_THREADS, 1);
    s.control = zmq_socket(s.context, ZMQ_ROUTER);
    int64_t control_max = 1 << 20;
    if (!s.control || set_int(s.control, ZMQ_LINGER, 0) ||
        zmq_setsockopt(s.control, ZMQ_MAXMSGSIZE, &control_max, sizeof control_max) ||
        zmq_bind(s.control, config.control)) {
        fprintf(stderr, "camsync-display-agent: cannot bind the control socket %s: %s\n", config.control,
                zmq_strerror(zmq_errno()));
        return 69;
    }
    // A DEALER to every coordinator of the list, kept open; requests go to the first until a leader
    // is named. `--events` is not used: the leader pushes the node's feed on the DEALER to it.
    for (size_t i = 0; i < config.n_coordinators; i++) {
        if (connection_to(&s, config.coordinators[i]) < s.n_connections) continue; // listed twice
        const char *endpoint = config.coordinators[i];
        connection *c = &s.connections[s.n_connections++];
        snprintf(c->endpoint, sizeof c->endpoint, "%s", endpoint);
        c->dealer = open_dealer(&s, endpoint, config.curve ? trust_key_for_command(&config, endpoint) : NULL);
        if (!c->dealer) return 69;
    }
    s.n_listed = s.n_connections;

    display_agent agent;
    agent_transport transport = {to_coordinator, to_control, follow, &s};
    if (agent_init(&agent, &config, transport)) {
        fprintf(stderr, "camsync-display-agent: out of memory\n");
        return 70;
    }
    agent_log(&agent, "info", "node started kind=display agent=c control=%s coordinator=%s coordinators=%zu",
              config.control, config.coordinators[0], s.n_listed);
    agent_start(&agent);
    while (!stopping) {
        int64_t now = agent_monotonic_ms();
        int64_t timeout = agent_next_deadline(&agent) - now;
        if (timeout < 0) timeout = 0;
        if (timeout > config.heartbeat_ms) timeout = config.heartbeat_ms;
        // Every coordinator's DEALER (a push may come on any), then the control socket.
        zmq_pollitem_t items[MAX_CONNECTIONS + 1];
        void *polled[MAX_CONNECTIONS];
        size_t n_items = 0;
        for (size_t i = 0; i < s.n_connections; i++)
            if (s.connections[i].dealer) {
                polled[n_items] = s.connections[i].dealer;
                items[n_items++] = (zmq_pollitem_t){s.connections[i].dealer, 0, ZMQ_POLLIN, 0};
            }
        items[n_items] = (zmq_pollitem_t){s.control, 0, ZMQ_POLLIN, 0};
        int ready = zmq_poll(items, (int)n_items + 1, (long)timeout);
        if (ready < 0 && zmq_errno() != EINTR) {
            fprintf(stderr, "error poll failed: %s\n", zmq_strerror(zmq_errno()));
            break;
        }
        if (stopping) break;
        message m;
        for (size_t k = 0; ready > 0 && k < n_items; k++) {
            if (!(items[k].revents & ZMQ_POLLIN)) continue;
            // Two frames: a push [topic, Envelope]; one: a reply. Anything else is dropped. Following
            // a leader never closes a DEALER, but naming one more may close another (new_connection).
            while (still_open(&s, polled[k]) && receive(polled[k], &m) == 0) {
                if (m.count == 2) agent_on_published(&agent, 2, data(&m, 1), size(&m, 1));
                else if (m.count == 1) agent_on_reply(&agent, data(&m, 0), size(&m, 0));
                release(&m);
            }
        }
        if (ready > 0 && (items[n_items].revents & ZMQ_POLLIN))
            while (receive(s.control, &m) == 0) {
                agent_on_control(&agent, m.count, data(&m, 0), size(&m, 0), m.count == 2 ? data(&m, 1) : NULL,
                                 m.count == 2 ? size(&m, 1) : 0);
                release(&m);
            }
        agent_tick(&agent, agent_monotonic_ms());
    }
    agent_log(&agent, "info",
              "node stopped sequence=%llu group=%s groupSequence=%llu groupMoves=%llu batches=%llu resnapshots=%llu "
              "replays=%llu badFrames=%llu untrustedIgnored=%llu",
              (unsigned long long)agent.sequence, agent.group ? agent.group : "", (unsigned long long)agent.group_sequence,
              (unsigned long long)agent.group_moves, (unsigned long long)agent.batches_applied,
              (unsigned long long)agent.resnapshots, (unsigned long long)agent.replays,
              (unsigned long long)agent.bad_frames, (unsigned long long)agent.untrusted_ignored);
    agent_free(&agent);
    for (size_t i = 0; i < s.n_connections; i++)
        if (s.connections[i].dealer) zmq_close(s.connections[i].dealer);
    zmq_close(s.control);
    zmq_ctx_term(s.context);
    config_free(&config);
    return 0;
}
