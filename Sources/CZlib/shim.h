#ifndef CAMSYNC_CZLIB_SHIM_H
#define CAMSYNC_CZLIB_SHIM_H
#include <zlib.h>
#endif
