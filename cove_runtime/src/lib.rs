//! The Cove virtual machine: dispatch loop, garbage-collected heap, builtins, tasks and the debugger seam.
