//! Why an evaluation step failed, by kind: callers act on the kind (a partial
//! file names what is not evaluated; damaged data is reported with where it
//! is), and users read the text in errors.txt, info.json and coverage.

use maxfs_file::reader::ReadError;
use maxfs_file::rklpatch::RklPatchError;
use maxfs_file::typed::ClassId;

use crate::eval::modifier::physique::PhysiqueError;
use crate::eval::modifier::subdivide::SubdivideError;
use crate::eval::objects::shape::ShapeError;
use crate::eval::objects::specified_normals::SpecError;
use crate::eval::rigs::ik::SolveError;

/// Why an evaluation step gave no result.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum EvalError {
    /// A class, mode or parameter value the evaluation does not compute: the
    /// data may be fine, the file is partial.
    #[error("{what} is not evaluated{}", why_suffix(why))]
    NotEvaluated { what: String, why: String },
    /// Data not as its layout says: `at` is where (object, chunk, parameter,
    /// face; empty where the caller names it), `what` what was found instead
    /// of what was expected.
    #[error("{}{what}", at_prefix(at))]
    Malformed { at: String, what: String },
    /// A count or depth beyond what evaluation accepts (damaged counts must
    /// not allocate or recurse without bound).
    #[error("{what}: more than {limit}")]
    Limit { what: String, limit: u64 },
    /// A reference that leads nowhere, to the wrong kind of object, or loops.
    #[error("{}{what}", at_prefix(at))]
    Reference { at: String, what: String },
    /// A modifier of the stack failed (`source`), or is of a class the
    /// evaluation does not apply (`None`): coverage names the modifier.
    #[error("modifier {name} ({:#x}, {:#x}){}", class.0, class.1, modifier_tail(source.as_deref()))]
    Modifier {
        name: String,
        class: ClassId,
        source: Option<Box<EvalError>>,
    },
    /// A failure inside a named part (a Boolean operand, a modifier, a shape):
    /// the kind stays that of `source`.
    #[error("{at}: {source}")]
    In {
        at: String,
        #[source]
        source: Box<EvalError>,
    },
    #[error(transparent)]
    Shape(#[from] ShapeError),
    #[error(transparent)]
    Subdivide(#[from] SubdivideError),
    #[error(transparent)]
    Physique(#[from] PhysiqueError),
    #[error(transparent)]
    Solve(#[from] SolveError),
    #[error(transparent)]
    Spec(#[from] SpecError),
    #[error(transparent)]
    Read(#[from] ReadError),
    #[error(transparent)]
    RklPatch(#[from] RklPatchError),
}

fn modifier_tail(source: Option<&EvalError>) -> String {
    match source {
        Some(e) => format!(": {e}"),
        None => " is not evaluated".to_string(),
    }
}

fn why_suffix(why: &str) -> String {
    if why.is_empty() {
        String::new()
    } else {
        format!(" ({why})")
    }
}

fn at_prefix(at: &str) -> String {
    if at.is_empty() {
        String::new()
    } else {
        format!("{at}: ")
    }
}

/// The kind of an [`EvalError`], through any [`EvalError::In`] wrappers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EvalErrorKind {
    NotEvaluated,
    Malformed,
    Limit,
    Reference,
}

impl EvalError {
    pub fn not_evaluated(what: impl Into<String>) -> EvalError {
        EvalError::NotEvaluated {
            what: what.into(),
            why: String::new(),
        }
    }

    pub fn not_evaluated_why(what: impl Into<String>, why: impl Into<String>) -> EvalError {
        EvalError::NotEvaluated {
            what: what.into(),
            why: why.into(),
        }
    }

    pub fn malformed(at: impl Into<String>, what: impl Into<String>) -> EvalError {
        EvalError::Malformed {
            at: at.into(),
            what: what.into(),
        }
    }

    pub fn limit(what: impl Into<String>, limit: impl TryInto<u64>) -> EvalError {
        EvalError::Limit {
            what: what.into(),
            limit: limit.try_into().unwrap_or(u64::MAX),
        }
    }

    pub fn reference(at: impl Into<String>, what: impl Into<String>) -> EvalError {
        EvalError::Reference {
            at: at.into(),
            what: what.into(),
        }
    }

    /// This error, as having happened inside `at`.
    pub fn inside(self, at: impl Into<String>) -> EvalError {
        EvalError::In {
            at: at.into(),
            source: Box::new(self),
        }
    }

    /// The modifier that failed, by name, through any [`EvalError::In`].
    pub fn failing_modifier(&self) -> Option<&str> {
        match self {
            EvalError::Modifier { name, .. } => Some(name),
            EvalError::In { source, .. } => source.failing_modifier(),
            _ => None,
        }
    }

    /// The failure inside a shape's evaluation, if this is one.
    pub fn in_shape(&self) -> Option<&EvalError> {
        match self {
            EvalError::In { at, source } if at == "shape" => Some(source),
            _ => None,
        }
    }

    /// What kind of failure this is, whatever part it happened in.
    pub fn kind(&self) -> EvalErrorKind {
        match self {
            EvalError::NotEvaluated { .. } => EvalErrorKind::NotEvaluated,
            EvalError::Malformed { .. } => EvalErrorKind::Malformed,
            EvalError::Limit { .. } => EvalErrorKind::Limit,
            EvalError::Reference { .. } => EvalErrorKind::Reference,
            EvalError::In { source, .. } => source.kind(),
            EvalError::Modifier { source: None, .. } => EvalErrorKind::NotEvaluated,
            EvalError::Modifier {
                source: Some(source),
                ..
            } => source.kind(),
            EvalError::Shape(ShapeError::NotEvaluated(_)) => EvalErrorKind::NotEvaluated,
            EvalError::Shape(_)
            | EvalError::Physique(_)
            | EvalError::Spec(_)
            | EvalError::Read(_)
            | EvalError::RklPatch(_) => EvalErrorKind::Malformed,
            EvalError::Subdivide(SubdivideError::TooLarge(_)) => EvalErrorKind::Limit,
            EvalError::Subdivide(SubdivideError::SeamVertex(..)) => EvalErrorKind::NotEvaluated,
            EvalError::Subdivide(_) => EvalErrorKind::Malformed,
            EvalError::Solve(SolveError::LinkCount(_)) => EvalErrorKind::NotEvaluated,
            EvalError::Solve(SolveError::NoProgress) => EvalErrorKind::Limit,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texts_and_kinds() {
        let e = EvalError::not_evaluated("operation 3");
        assert_eq!(e.to_string(), "operation 3 is not evaluated");
        assert_eq!(e.kind(), EvalErrorKind::NotEvaluated);
        let e = EvalError::malformed("poly face 2", "5 corners").inside("shape");
        assert_eq!(e.to_string(), "shape: poly face 2: 5 corners");
        assert_eq!(e.kind(), EvalErrorKind::Malformed);
        assert_eq!(
            EvalError::malformed("", "short bit array").to_string(),
            "short bit array"
        );
        assert_eq!(
            EvalError::limit("Booleans nested", 8u32).kind(),
            EvalErrorKind::Limit
        );
    }
}
