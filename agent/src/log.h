// Log lines go to stderr (the cluster keeps them in ID.log); the fuzz target turns them off.
#ifndef CAMSYNC_AGENT_LOG_H
#define CAMSYNC_AGENT_LOG_H

extern int log_quiet;

#endif
