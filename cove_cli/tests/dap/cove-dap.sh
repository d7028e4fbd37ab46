#!/bin/sh
# DebugClient starts an adapter as `RUNTIME EXECUTABLE` with no arguments;
# this is the executable, run by sh, that starts `cove debug --dap`.
exec "$COVE_BIN" debug --dap
