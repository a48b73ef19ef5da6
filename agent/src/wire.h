// Frames in and out: Envelope decoding with the protocol's checks, packing, error replies.
#ifndef CAMSYNC_AGENT_WIRE_H
#define CAMSYNC_AGENT_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include "camsync/v1/envelope.pb-c.h"

#define WIRE_MAX_ID 255

// The protocol version every envelope carries (docs/PROTOCOL.md "Envelope"). Version 2: a node's
// feed and the coordinator's heartbeats are pushed on its DEALER to the leader, not published to a SUB.
#define WIRE_PROTOCOL_VERSION 2

typedef struct {
    int code;          // Camsync__V1__ErrorCode; 0 = none
    char message[256];
} wire_error;

// Decodes one Envelope frame: bytes that are not an Envelope → MALFORMED, a version other than
// WIRE_PROTOCOL_VERSION → UNSUPPORTED_VERSION, no body (or a body case this schema does not know) → MALFORMED.
// On success returns the envelope (free with wire_free); on failure NULL and `error`.
Camsync__V1__Envelope *wire_decode(const uint8_t *bytes, size_t length, wire_error *error);

void wire_free(Camsync__V1__Envelope *envelope);

// Packs an envelope (protocol_version is set to WIRE_PROTOCOL_VERSION). Returns malloc'd bytes, length in *length.
uint8_t *wire_pack(Camsync__V1__Envelope *envelope, size_t *length);

// An `error` reply envelope, packed.
uint8_t *wire_error_reply(const char *sender, uint64_t request_id, uint64_t term, int code, const char *message,
                          size_t *length);

// True when `text` is a usable id (non-empty, at most 255 bytes).
int wire_valid_id(const char *text);

// The external camera system `<host>/<name>` a ref names, when it is hosted by `host`; else NULL.
const char *wire_external_camera_of(const Camsync__V1__CameraSystemRef *system, const char *host);

#endif
