//! The Cove profiler: a debugger that never stops, counting every instruction a run executes, with reports.
