//! `cove debug --dap`: the Debug Adapter Protocol server (in progress: this
//! commit only refuses, with a message).

use crate::cli::DebugArgs;
use crate::status::Status;

/// Serves DAP; not written yet.
pub fn serve(_args: &DebugArgs) -> Status {
    crate::pipe::eprint(format_args!("cove debug --dap is not available yet\n"));
    Status::BadInput
}
