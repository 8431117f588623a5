//! The `maxfs` binary's library half: the FUSE binding of the virtual tree and
//! the `mount`, `ls`, `cat`, `textconv` and `export` commands, usable from tests.

pub mod export_cmd;
pub mod fuse;
pub mod limits;
pub mod logging;
pub mod mount_cmd;
pub mod tree_cmd;
pub mod walk;
