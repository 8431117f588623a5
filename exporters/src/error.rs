//! Why something could not be exported. The kinds matter to callers (a
//! refusal is the plug-in's rule and makes the file partial; invalid data and
//! evaluation failures are errors in the file), while the text is what a user
//! reads in `errors.txt`, so each kind displays exactly its message.

use maxfs_nel::zone_build::ZoneBuildError;
use maxfs_nel::NelError;
use maxfs_scene::eval::EvalError;
use maxfs_scene::rklpatch::RklPatchError;
use maxfs_scene::{MaxError, TypedError};

use crate::gltf::textures::TextureError;
use crate::nel::export::shape::{
    flare_build::FlareError, remanence_build::RemanenceError, water_build::WaterError,
};

#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// What the NeL plug-in (or this exporter, short of it) does not export:
    /// a node kind, an option or a combination of them.
    #[error("{0}")]
    Refused(String),
    /// Scene data that breaks a rule the build relies on (an index out of
    /// range, counts that disagree, a name that is not a zone name).
    #[error("{0}")]
    Invalid(String),
    /// A size the format or the memory budget cannot hold.
    #[error("{0}")]
    Limit(String),
    /// The evaluated scene could not give what the export reads.
    #[error(transparent)]
    Eval(#[from] EvalError),
    /// Writing the built object as a NeL file failed.
    #[error("serialization failed: {0}")]
    Write(NelError),
    /// A written NeL file did not read back as itself (`checked_bytes`).
    #[error(transparent)]
    Nel(#[from] NelError),
    /// The landscape patch breaks a rule of RklPatch.
    #[error(transparent)]
    Patch(#[from] RklPatchError),
    /// NeL's zone build refused the patches.
    #[error(transparent)]
    Zone(#[from] ZoneBuildError),
    /// The source file could not be opened as a .max scene.
    #[error(transparent)]
    File(#[from] MaxError),
    /// The scene's typed layer could not be built ("no scene").
    #[error("no scene: {0}")]
    Scene(#[from] TypedError),
    #[error("glTF JSON serialisation: {0}")]
    Json(#[from] serde_json::Error),
    #[error(transparent)]
    Texture(#[from] TextureError),
    #[error(transparent)]
    Flare(#[from] FlareError),
    #[error(transparent)]
    Water(#[from] WaterError),
    #[error(transparent)]
    Remanence(#[from] RemanenceError),
    /// An inner failure and where it happened ("skinned mesh (Skin)", "bone
    /// Bip01 Spine").
    #[error("{context}: {source}")]
    In {
        context: String,
        #[source]
        source: Box<ExportError>,
    },
}

impl ExportError {
    pub fn refused(why: impl Into<String>) -> Self {
        ExportError::Refused(why.into())
    }

    pub fn invalid(what: impl Into<String>) -> Self {
        ExportError::Invalid(what.into())
    }

    pub fn limit(what: impl Into<String>) -> Self {
        ExportError::Limit(what.into())
    }

    /// This error as the cause of a failure in `context`.
    pub fn within(self, context: impl Into<String>) -> Self {
        ExportError::In {
            context: context.into(),
            source: Box::new(self),
        }
    }

    /// Whether the export was refused by rule, not failed on the data
    /// (looking through context wrappers).
    pub fn is_refusal(&self) -> bool {
        match self {
            ExportError::Refused(_) => true,
            ExportError::In { source, .. } => source.is_refusal(),
            _ => false,
        }
    }
}

/// `Result` of the exporters.
pub type ExportResult<T> = Result<T, ExportError>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_read_as_before_and_kinds_survive_context() {
        let e = ExportError::refused("NeL wave makers are not exported").within("node Wave01");
        assert_eq!(
            e.to_string(),
            "node Wave01: NeL wave makers are not exported"
        );
        assert!(e.is_refusal());
        let e = ExportError::invalid("vertex 7 out of range");
        assert!(!e.is_refusal());
        let e = ExportError::from(EvalError::not_evaluated("auto smooth"));
        assert_eq!(
            e.to_string(),
            EvalError::not_evaluated("auto smooth").to_string()
        );
    }
}
