//! Command-line options for the per-file decompression budget, shared by
//! `maxfs check` and `maxfs mount`.

use maxfs_scene::container::InflateLimits;

/// The per-file decompression budget (docs/user-guide.md, "Limits").
#[derive(clap::Args, Clone, Copy)]
pub struct LimitArgs {
    /// A file's gzip streams may inflate to at most this multiple of its size
    /// (never less than 64 MiB).
    #[arg(long, default_value_t = InflateLimits::default().ratio)]
    pub inflate_ratio: u64,
    /// ... and never more than this many MiB in all.
    #[arg(long, default_value_t = InflateLimits::default().max >> 20)]
    pub inflate_max_mb: u64,
}

impl LimitArgs {
    pub fn limits(&self) -> InflateLimits {
        InflateLimits {
            ratio: self.inflate_ratio,
            max: self.inflate_max_mb.saturating_mul(1 << 20),
            ..InflateLimits::default()
        }
    }
}
