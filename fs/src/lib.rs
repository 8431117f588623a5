//! The virtual tree served by the mount and the CLI. Knows nothing of FUSE.
