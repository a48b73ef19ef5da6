// Envelope decoding and packing (protobuf-c).
#include "wire.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int wire_valid_id(const char *text) {
    return text && text[0] && strlen(text) <= WIRE_MAX_ID;
}

Camsync__V1__Envelope *wire_decode(const uint8_t *bytes, size_t length, wire_error *error) {
    error->code = 0;
    error->message[0] = 0;
    Camsync__V1__Envelope *envelope = camsync__v1__envelope__unpack(NULL, length, bytes);
    if (!envelope) {
        error->code = CAMSYNC__V1__ERROR_CODE__ERROR_CODE_MALFORMED;
        snprintf(error->message, sizeof error->message, "the %zu bytes are not a camsync.v1.Envelope", length);
        return NULL;
    }
    if (envelope->protocol_version != WIRE_PROTOCOL_VERSION) {
        error->code = CAMSYNC__V1__ERROR_CODE__ERROR_CODE_UNSUPPORTED_VERSION;
        snprintf(error->message, sizeof error->message, "protocol_version %u is not supported (this peer speaks %d)",
                 envelope->protocol_version, WIRE_PROTOCOL_VERSION);
        wire_free(envelope);
        return NULL;
    }
    if (envelope->body_case == CAMSYNC__V1__ENVELOPE__BODY__NOT_SET) {
        error->code = CAMSYNC__V1__ERROR_CODE__ERROR_CODE_MALFORMED;
        if (envelope->base.n_unknown_fields > 0)
            snprintf(error->message, sizeof error->message,
                     "body is a case this peer does not know (field %u)", envelope->base.unknown_fields[0].tag);
        else
            snprintf(error->message, sizeof error->message, "body is missing");
        wire_free(envelope);
        return NULL;
    }
    return envelope;
}

void wire_free(Camsync__V1__Envelope *envelope) {
    if (envelope) camsync__v1__envelope__free_unpacked(envelope, NULL);
}

uint8_t *wire_pack(Camsync__V1__Envelope *envelope, size_t *length) {
    envelope->protocol_version = WIRE_PROTOCOL_VERSION;
    size_t size = camsync__v1__envelope__get_packed_size(envelope);
    uint8_t *bytes = malloc(size ? size : 1);
    if (!bytes) {
        *length = 0;
        return NULL;
    }
    *length = camsync__v1__envelope__pack(envelope, bytes);
    return bytes;
}

uint8_t *wire_error_reply(const char *sender, uint64_t request_id, uint64_t term, int code, const char *message,
                          size_t *length) {
    Camsync__V1__Error error = CAMSYNC__V1__ERROR__INIT;
    error.code = code;
    error.message = (char *)message;
    Camsync__V1__Envelope envelope = CAMSYNC__V1__ENVELOPE__INIT;
    envelope.sender = (char *)sender;
    envelope.request_id = request_id;
    envelope.term = term;
    envelope.body_case = CAMSYNC__V1__ENVELOPE__BODY_ERROR;
    envelope.error = &error;
    return wire_pack(&envelope, length);
}

const char *wire_external_camera_of(const Camsync__V1__CameraSystemRef *system, const char *host) {
    if (!system || system->kind_case != CAMSYNC__V1__CAMERA_SYSTEM_REF__KIND_EXTERNAL_CAMERA) return NULL;
    const Camsync__V1__CameraRef *camera = system->external_camera;
    if (!camera || !wire_valid_id(camera->host) || !wire_valid_id(camera->name)) return NULL;
    return strcmp(camera->host, host) == 0 ? camera->name : NULL;
}
