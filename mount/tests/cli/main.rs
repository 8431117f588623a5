//! The `maxfs` command line driven as a user would, one module per command
//! area, built as one test binary.

mod cli_cache_dir;
mod cli_check;
mod cli_limits;
mod cli_mount_memory;
mod cli_ready_ls;
mod cli_user_guide;
mod hostile;
