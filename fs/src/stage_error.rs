//! Why a stage of a loaded file failed. A failed stage is cached like a built
//! one and handed to every reader that asks again (views, exports, info.json,
//! error.txt), so the error is cheap to clone; its stage says which step broke
//! and its text is what those files show.

use std::sync::Arc;

/// The step of serving a file that failed, in the order they run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// Opening the source or reading its compound-file directory.
    Container,
    /// Reading (and inflating) the streams.
    Streams,
    /// One stream that could not be read; the others still serve.
    Stream,
    /// The file is larger than the documents budget lets us parse.
    Budget,
    /// Parsing the chunk trees.
    Document,
    /// The typed layer or the scene graph.
    Scene,
    /// The NeL exports or the glTF export.
    Export,
    /// Making one generated file (a JSON view, the thumbnail, errors.txt).
    View,
    /// A parser panicked; the mount caught it.
    Panic,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct StageError {
    pub stage: Stage,
    message: Arc<str>,
}

impl StageError {
    pub fn new(stage: Stage, message: impl std::fmt::Display) -> StageError {
        StageError {
            stage,
            message: message.to_string().into(),
        }
    }

    pub fn message(&self) -> &str {
        &self.message
    }
}

/// The result of a stage, shared by every reader of the file.
pub type StageResult<T> = Result<Arc<T>, StageError>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clones_share_the_text_and_keep_the_stage() {
        let e = StageError::new(Stage::Budget, "over the documents budget");
        let c = e.clone();
        assert_eq!(c.to_string(), "over the documents budget");
        assert_eq!(c.stage, Stage::Budget);
        assert!(std::ptr::eq(e.message(), c.message()));
    }
}
