//! Inverse kinematics solvers, to the spec of seed 000: the HI limb solver
//! ([`hi_limb`], which is also the IK Limb solver's computation: [`limb`])
//! and the spline IK solver ([`spline`]), with the solver-local
//! numeric primitives they share ([`primitives`]). Pure solver code: chains,
//! goals and splines come in as plain data; [`chain`] builds HI chains from a
//! scene and [`plug`] puts their solves into transform evaluation. docs/ik.md records the numerics and the \[CORE\] choices.

pub mod chain;
pub mod hi_limb;
pub mod hi_solver;
pub mod joint_flags;
pub mod limb;
pub mod plug;
pub mod primitives;
pub mod spline;
pub mod spline_chain;
pub mod view;

use std::fmt;

/// Why a solve was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SolveError {
    /// The HI solver takes a chain of 0 or 3 links (`bInvalidInitialValue`).
    LinkCount(usize),
    /// The spline march ran past its iteration bound (non-finite or hostile
    /// input); the chain is left untouched.
    NoProgress,
}

impl fmt::Display for SolveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SolveError::LinkCount(n) => {
                write!(f, "HI IK chain has {n} links, expected 0 or 3")
            }
            SolveError::NoProgress => write!(f, "spline IK march made no progress"),
        }
    }
}

impl std::error::Error for SolveError {}

#[cfg(test)]
mod tests;
