// camsync-display-agent: an external display's node in C (libzmq + protobuf-c). The socket loop:
// DEALER to the coordinator, SUB for its events, ROUTER for local control clients.
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zmq.h>

#include "agent.h"
#include "group.h"
#include "trust.h"
#include "wire.h"

typedef struct {
    void *context;
    agent_config *config;
    void *dealer, *subscriber, *control;
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

// The command socket goes to one coordinator (the one followed: SPEC K6); the subscriber hears them all.
static void *open_dealer(sockets *s, const char *endpoint, const char *key) {
    void *socket = zmq_socket(s->context, ZMQ_DEALER);
    if (!socket) return NULL;
    int64_t max_size = 64 << 20;
    if (set_int(socket, ZMQ_LINGER, 0) || zmq_setsockopt(socket, ZMQ_ROUTING_ID, s->config->id, strlen(s->config->id)) ||
        set_int(socket, ZMQ_RECONNECT_IVL, 100) || set_int(socket, ZMQ_RECONNECT_IVL_MAX, 2000) ||
        zmq_setsockopt(socket, ZMQ_MAXMSGSIZE, &max_size, sizeof max_size) || secure(socket, s->config) ||
        server_key(socket, s->config, key) || zmq_connect(socket, endpoint)) {
        fprintf(stderr, "error cannot connect to %s: %s\n", endpoint, key || !s->config->curve ? zmq_strerror(zmq_errno())
                                                                                              : "no trusted coordinator key");
        zmq_close(socket);
        return NULL;
    }
    return socket;
}

static void *open_subscriber(sockets *s) {
    void *socket = zmq_socket(s->context, ZMQ_SUB);
    if (!socket) return NULL;
    int64_t max_size = 64 << 20;
    // The node's own feed (`ev.<id>` and its zero byte: docs/PROTOCOL.md "Following one group"):
    // its group's batches, whichever group it is in, and the group's bookmarks. Under CURVE the
    // coordinator admits no other feed for this key.
    char feed[3 + WIRE_MAX_ID + 1];
    size_t feed_length = node_feed_topic(s->config->id, feed, sizeof feed);
    // Subscribe before asking for the snapshot (Clone pattern): everything published is wanted.
    if (!feed_length || set_int(socket, ZMQ_LINGER, 0) || set_int(socket, ZMQ_RCVHWM, 100000) ||
        set_int(socket, ZMQ_RECONNECT_IVL, 100) || set_int(socket, ZMQ_RECONNECT_IVL_MAX, 2000) ||
        zmq_setsockopt(socket, ZMQ_MAXMSGSIZE, &max_size, sizeof max_size) || secure(socket, s->config) ||
        zmq_setsockopt(socket, ZMQ_SUBSCRIBE, feed, feed_length) || zmq_setsockopt(socket, ZMQ_SUBSCRIBE, "hb", 2)) {
        zmq_close(socket);
        return NULL;
    }
    for (size_t i = 0; i < s->config->n_events; i++) {
        // libzmq takes a connection's options when it connects: each endpoint gets its coordinator's key.
        if (server_key(socket, s->config, trust_key_for_event(s->config, s->config->events[i])) ||
            zmq_connect(socket, s->config->events[i])) {
            fprintf(stderr, "error cannot connect to %s: %s\n", s->config->events[i], zmq_strerror(zmq_errno()));
            zmq_close(socket);
            return NULL;
        }
    }
    return socket;
}

static int to_coordinator(void *context, const uint8_t *bytes, size_t length) {
    sockets *s = context;
    return s->dealer && zmq_send(s->dealer, bytes, length, ZMQ_DONTWAIT) >= 0 ? 0 : -1;
}

static void to_control(void *context, const uint8_t *identity, size_t identity_length, const uint8_t *bytes,
                       size_t length) {
    sockets *s = context;
    if (zmq_send(s->control, identity, identity_length, ZMQ_DONTWAIT | ZMQ_SNDMORE) < 0) return;
    zmq_send(s->control, bytes, length, ZMQ_DONTWAIT);
}

static void reconnect(void *context, int subscriber, const char *command_endpoint, const char *key) {
    sockets *s = context;
    if (s->dealer) zmq_close(s->dealer);
    s->dealer = open_dealer(s, command_endpoint, key);
    if (subscriber) {
        if (s->subscriber) zmq_close(s->subscriber);
        s->subscriber = open_subscriber(s);
    }
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
    if (config.n_coordinators > 1 || config.n_events > 1)
        fprintf(stderr, "warning several coordinator endpoints given: following the first (no HA yet)\n");
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
    s.dealer = open_dealer(&s, config.coordinators[0], config.curve ? trust_key_for_command(&config, config.coordinators[0]) : NULL);
    s.subscriber = open_subscriber(&s);
    if (!s.dealer || !s.subscriber) return 69;

    display_agent agent;
    agent_transport transport = {to_coordinator, to_control, reconnect, &s};
    if (agent_init(&agent, &config, transport)) {
        fprintf(stderr, "camsync-display-agent: out of memory\n");
        return 70;
    }
    agent_log(&agent, "info", "node started kind=display agent=c control=%s coordinator=%s", config.control,
              config.coordinators[0]);
    agent_start(&agent);
    while (!stopping) {
        int64_t now = agent_monotonic_ms();
        int64_t timeout = agent_next_deadline(&agent) - now;
        if (timeout < 0) timeout = 0;
        if (timeout > config.heartbeat_ms) timeout = config.heartbeat_ms;
        zmq_pollitem_t items[3] = {
            {s.dealer, 0, ZMQ_POLLIN, 0}, {s.subscriber, 0, ZMQ_POLLIN, 0}, {s.control, 0, ZMQ_POLLIN, 0}};
        int ready = zmq_poll(items, 3, (long)timeout);
        if (ready < 0 && zmq_errno() != EINTR) {
            fprintf(stderr, "error poll failed: %s\n", zmq_strerror(zmq_errno()));
            break;
        }
        if (stopping) break;
        message m;
        if (ready > 0 && (items[1].revents & ZMQ_POLLIN))
            while (s.subscriber && receive(s.subscriber, &m) == 0) {
                agent_on_published(&agent, m.count, m.count == 2 ? data(&m, 1) : NULL, m.count == 2 ? size(&m, 1) : 0);
                release(&m);
            }
        if (ready > 0 && (items[0].revents & ZMQ_POLLIN))
            while (s.dealer && receive(s.dealer, &m) == 0) {
                if (m.count == 1) agent_on_reply(&agent, data(&m, 0), size(&m, 0));
                release(&m);
            }
        if (ready > 0 && (items[2].revents & ZMQ_POLLIN))
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
    if (s.dealer) zmq_close(s.dealer);
    if (s.subscriber) zmq_close(s.subscriber);
    zmq_close(s.control);
    zmq_ctx_term(s.context);
    config_free(&config);
    return 0;
}
