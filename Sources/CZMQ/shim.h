#ifndef CAMSYNC_CZMQ_SHIM_H
#define CAMSYNC_CZMQ_SHIM_H
#include <zmq.h>
#ifdef __linux__
/* SocketReadiness: epoll over many sockets' ZMQ_FD (Glibc's module does not include it). */
#include <sys/epoll.h>
#endif
#endif
