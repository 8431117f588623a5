//! `.swt`: `CSkeletonWeight`, per-bone animation weights.

use serde::Serialize;

use super::stream::{Serial, Stream, F32};
use super::NelError;
use crate::nel_versioned;

nel_versioned!(
    /// `CSkeletonWeight::CNode`.
    WeightNode(0) { name: String, weight: F32 }
);

/// `.swt`: `CSkeletonWeight`.
#[derive(Debug, Clone, Default, Serialize)]
pub struct SkeletonWeight {
    pub version: u32,
    pub elements: Vec<WeightNode>,
}

impl Serial for SkeletonWeight {
    fn serial<S: Stream>(&mut self, s: &mut S) -> Result<(), NelError> {
        s.ctx("CSkeletonWeight", |s| {
            s.check(b"SKWT")?;
            s.version(&mut self.version, 0, "CSkeletonWeight")?;
            s.field("elements", &mut self.elements)
        })
    }
}
