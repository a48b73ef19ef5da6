#ifndef CAMSYNC_CZMQ_SHIM_H
#define CAMSYNC_CZMQ_SHIM_H
#include <zmq.h>
#endif
