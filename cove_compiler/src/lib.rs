//! The Cove compiler: source text to a verified cove_ir program, with located diagnostics.
